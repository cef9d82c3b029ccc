"""The rule language's checker: a table is refused, in one line, before any engine sees a statement it cannot mean.

`check_rules(rules)` reads every rule of a table (the rules, a mutant's or a draft's) as the semantics of
`lang.py` reads it and raises `TableError` naming the rule, the statement and where it was written, for:
- a guard part or a `When` test that is not a boolean; an action's fields that are not its dataclass's;
- a `Set` whose value is not of its field's type, a `Let` rebinding a name to another type, any operator
  applied to values of the wrong types (`e.held + e.status`), a record without the field read;
- a name read where nothing binds it on every path before it (a `Let` in one branch of a `When` only, say),
  a record the rule does not range over (`g` in a rule over executions);
- a `Set` of a key (`e.id`, `g.execution`: a step's `e` and `g` are found by them);
- `g` read, set or ended after it ended; `e` (or `g`) read or set after an edit of `S.executions` (or
  `S.segments`) that may drop it (anything but a map or an update of the list that keeps its keys, an
  append, an insert).
Each table is checked once (by identity); the engines call this before deriving anything from a table.
"""

from __future__ import annotations

from dataclasses import fields as dataclass_fields
from typing import Any

from .exprtext import expr_text, statement_text
from .lang import RECORDS, End, Expr, Let, Opt, Rule, SeqOf, Set, When, site_of
from .lowering import RECORD_LISTS
from .state import Attempt, Execution, Segment, State

__all__ = ["TableError", "check_rules", "type_name"]


class TableError(ValueError):
    """A rule table the language refuses: one line naming the rule, the statement and where it was written."""


_CHECKED: dict[int, tuple[Rule, ...]] = {}  # id(table) -> the table (kept, so that its id is not reused)


def check_rules(rules: tuple[Rule, ...]) -> None:
    """Refuse (TableError) a table with a statement the language cannot mean; each table is read once."""
    if _CHECKED.get(id(rules)) is rules:
        return
    for rule in rules:
        _Rule(rule).check()
    _CHECKED[id(rules)] = rules


def type_name(t: Any) -> str:
    """A type as a reader names it: an int, a list of int, an optional Attempt, an Execution."""
    if isinstance(t, SeqOf):
        return f"a list of {type_name(t.item).split(' ', 1)[1]}"
    if isinstance(t, Opt):
        return f"an optional {type_name(t.item).split(' ', 1)[1]}"
    name = getattr(t, "__name__", repr(t))
    return f"{'an' if name[0] in 'AEIOUaeiou' else 'a'} {name}"


_BINDER_VARS: dict[str, dict[str, Any]] = {
    "sessions": {"S": State, "session": int},
    "executions": {"S": State, "e": Execution},
    "segments": {"S": State, "e": Execution, "g": Segment, "run": Attempt},
    "once": {"S": State},
}
_ANNOTATION = {"int": int, "str": str, "bool": bool}


class _Fault(Exception):
    """One thing wrong, said of the statement (or guard part) being read."""


class _Rule:
    """One rule read statement by statement: the names bound, which records ended or may be dropped."""

    def __init__(self, rule: Rule) -> None:
        self.rule = rule
        self.name = rule.action.__name__

    def fail(self, what: str, item: Any, problem: str) -> None:
        text = statement_text(item) if not isinstance(item, Expr) else expr_text(item)
        text = text if len(text) <= 90 else text[:87] + "..."
        where = site_of(item) or site_of(self.rule)
        raise TableError(f"{_short(where)}{': ' if where else ''}rule {self.name}, {what} `{text}`: {problem}")

    def check(self) -> None:
        scope = dict(_BINDER_VARS[self.rule.over.name])
        for choice in self.rule.choose:
            scope[choice.name] = choice.t
        for k, part in enumerate(self.rule.guard):
            self._expect(part, bool, scope, f"guard part {k + 1}", part)
        params = [f for f in dataclass_fields(self.rule.action)]
        if len(params) != len(self.rule.fields):
            self.fail("its action's fields", self.rule.fields[0] if self.rule.fields else _nothing(),
                      f"{len(self.rule.fields)} given, {self.rule.action.__name__} has {len(params)}")
        for param, x in zip(params, self.rule.fields, strict=False):
            want = _ANNOTATION.get(param.type if isinstance(param.type, str) else param.type.__name__)
            self._expect(x, want, scope, f"the action's field {param.name}", x)
        self._block(self.rule.effect, scope, {"ended": False, "e_gone": False, "g_gone": False})

    def _expect(self, x: Expr, want: Any, scope: dict[str, Any], what: str, item: Any) -> None:
        try:
            got = _type(x, scope)
            if want is not None and not _fits(x, got, want):
                raise _Fault(f"{type_name(got)} where {type_name(want)} is needed")
        except _Fault as fault:
            self.fail(what, item, str(fault))

    def _block(self, stmts: tuple[Any, ...], scope: dict[str, Any], flags: dict[str, bool]) -> tuple[dict, dict]:
        for st in stmts:
            if isinstance(st, (Let, Set)):
                self._gone(st.value, flags, st)
            if isinstance(st, Let):
                self._expect(st.value, scope.get(st.name), scope, "the statement", st)
                scope = {**scope, st.name: st.value.t}
            elif isinstance(st, Set):
                self._set(st, scope, flags)
            elif isinstance(st, End):
                if self.rule.over.name != "segments":
                    self.fail("the statement", st, f"ends the segment g, and this rule ranges over "
                                                   f"{self.rule.over.name}")
                if flags["ended"]:
                    self.fail("the statement", st, "ends g a second time on one path")
                flags = {**flags, "ended": True}
            elif isinstance(st, When):
                self._gone(st.test, flags, st)
                self._expect(st.test, bool, scope, "the test of", st)
                a_scope, a_flags = self._block(st.then, scope, flags)
                b_scope, b_flags = self._block(st.otherwise, scope, flags)
                scope = {n: t for n, t in a_scope.items() if n in b_scope}  # bound on every path
                flags = {k: a_flags[k] or b_flags[k] for k in flags}
        return scope, flags

    def _set(self, st: Set, scope: dict[str, Any], flags: dict[str, bool]) -> None:
        record, field = st.target.args[0].args[0], st.target.args[1]
        if record not in scope:
            self.fail("the statement", st, f"sets a field of {record}, and this rule ranges over "
                                           f"{self.rule.over.name} (it has {', '.join(sorted(scope))})")
        if record in RECORD_LISTS and field == RECORD_LISTS[record][1]:
            self.fail("the statement", st, f"sets {record}.{field}, the key the step finds {record} by; "
                                           f"it never changes")
        if record == "g" and flags["ended"]:
            self.fail("the statement", st, "sets a field of g after g ended (End) on some path")
        if record in RECORD_LISTS and flags[f"{record}_gone"]:
            self.fail("the statement", st, f"sets a field of {record} after an edit of "
                                           f"S.{RECORD_LISTS[record][0]} that may drop it")
        self._expect(st.value, st.target.t, scope, "the statement", st)
        if record == "S" and field in ("executions", "segments") and not _keeps(st.value, field):
            flags[{"executions": "e_gone", "segments": "g_gone"}[field]] = True

    def _gone(self, x: Expr, flags: dict[str, bool], st: Any) -> None:
        from .lowering import reads_record
        if flags["ended"] and reads_record(x, "g"):
            self.fail("the statement", st, "reads g after g ended (End) on some path (read it before, in a Let)")
        for record in ("e", "g"):
            if flags[f"{record}_gone"] and reads_record(x, record):
                self.fail("the statement", st, f"reads {record} after an edit of S.{RECORD_LISTS[record][0]} that "
                                               f"may drop it (edit the list with map or update_where, keeping keys)")


def _short(where: str) -> str:
    """A site as a reader finds it: relative to the working directory where it is under it."""
    import os
    if not where:
        return ""
    path, _, line = where.rpartition(":")
    try:
        rel = os.path.relpath(path)
    except ValueError:
        rel = path
    return f"{rel if not rel.startswith('..') else path}:{line}"


def _nothing() -> Expr:
    return Expr("const", (False,), bool)


# ---------------------------------------------------------------------------------------------
# Keys kept by a list edit


def _keeps(x: Expr, listed: str) -> bool:
    """Does this new value of the list `listed` keep every record of the old one, with its key?"""
    key = RECORD_LISTS["e" if listed == "executions" else "g"][1]
    op, a = x.op, x.args
    if op == "field" and a[0].op == "var" and a[0].args[0] == "S":
        return a[1] == listed
    if op in ("append", "concat", "insert"):
        return _keeps(a[0], listed)
    if op == "map":
        return _keeps(a[0], listed) and _keeps_item(a[2], a[1].args[0], key)
    if op in ("update_where", "update_last"):
        return _keeps(a[0], listed) and _keeps_item(a[3], a[1].args[0], key)
    if op == "ite":
        return _keeps(a[1], listed) and _keeps(a[2], listed)
    return False


def _keeps_item(x: Expr, item: str, key: str) -> bool:
    """Is `x` the element `item` itself, or it with fields other than its key changed?"""
    if x.op == "var":
        return x.args[0] == item
    if x.op == "with":
        return all(k != key for k, _ in x.args[1]) and _keeps_item(x.args[0], item, key)
    if x.op == "ite":
        return _keeps_item(x.args[1], item, key) and _keeps_item(x.args[2], item, key)
    return False


# ---------------------------------------------------------------------------------------------
# Types


def _fits(x: Expr, got: Any, want: Any) -> bool:
    """Is a value of type `got` (the expression `x`) one of type `want`? An empty constant list fits any list."""
    if got == want:
        return True
    if x.op == "const" and x.args[0] == () and isinstance(want, SeqOf):
        return True
    return isinstance(got, Opt) and got.item == want  # a record known present (a `first` the rule guards)


def _same(x: Expr, y: Expr, tx: Any, ty: Any) -> bool:
    return _fits(x, tx, ty) or _fits(y, ty, tx)


def _record(t: Any) -> Any:
    return t.item if isinstance(t, Opt) else t


def _seq(x: Expr, t: Any) -> Any:
    if not isinstance(t, SeqOf):
        raise _Fault(f"{type_name(t)} where a list is needed")
    return t.item


def _int(*pairs: tuple[Expr, Any]) -> None:
    for _, t in pairs:
        if t is not int:
            raise _Fault(f"{type_name(t)} where an int is needed")


def _bool(x: Expr, t: Any) -> None:
    if t is not bool:
        raise _Fault(f"{type_name(t)} where a bool is needed")


def _type(x: Expr, scope: dict[str, Any]) -> Any:  # noqa: C901 - one case per operator
    """The type of `x` in `scope` (names -> types), every operator's arguments checked; _Fault if not."""
    op, a = x.op, x.args
    if op in ("const", "bound", "reads"):
        return x.t
    if op == "pick":
        types = {id(v): _type(v, scope) for _, v in a[1]}
        first = a[1][0][1]
        for _, v in a[1]:
            if not _same(first, v, types[id(first)], types[id(v)]):
                raise _Fault(f"the values of {a[0]} have different types")
        return types[id(first)]
    if op == "var":
        name = a[0]
        if name not in scope:
            raise _Fault(f"reads {name}, which nothing binds on every path before it")
        bound = scope[name]
        if not (bound == x.t or _record(bound) == _record(x.t)):
            raise _Fault(f"reads {name} as {type_name(x.t)}, and it is {type_name(bound)}")
        return x.t
    if op == "field":
        t = _record(_type(a[0], scope))
        if t not in RECORDS or a[1] not in t._fields:
            raise _Fault(f"{type_name(t)} has no field {a[1]}")
        return x.t
    if op in _BODIES:
        return _bodied(x, scope)
    ts = [_type(y, scope) if isinstance(y, Expr) else None for y in a]
    if op in ("+", "-", "<", "<=", "min"):
        _int(*zip(a, ts, strict=True))
        return x.t
    if op in ("==", "!="):
        if not _same(a[0], a[1], ts[0], ts[1]):
            raise _Fault(f"compares {type_name(ts[0])} with {type_name(ts[1])}")
        return bool
    if op in ("and", "or", "not"):
        for y, t in zip(a, ts, strict=True):
            _bool(y, t)
        return bool
    if op == "ite":
        _bool(a[0], ts[0])
        if not _same(a[1], a[2], ts[1], ts[2]):
            raise _Fault(f"the branches of an if give {type_name(ts[1])} and {type_name(ts[2])}")
        return ts[1] if not (a[1].op == "const" and a[1].args[0] == ()) else ts[2]
    if op in ("len", "last"):
        item = _seq(a[0], ts[0])
        return int if op == "len" else item
    if op in ("at", "prefix", "suffix"):
        _seq(a[0], ts[0])
        _int((a[1], ts[1]))
        return ts[0] if op != "at" else ts[0].item
    if op in ("append", "set_last", "insert", "contains"):
        item = _seq(a[0], ts[0])
        if not _fits(a[1], ts[1], item):
            raise _Fault(f"{op} of {type_name(ts[1])} to {type_name(ts[0])}")
        return bool if op == "contains" else ts[0]
    if op == "concat":
        if not _same(a[0], a[1], ts[0], ts[1]) or not isinstance(ts[0], SeqOf):
            raise _Fault(f"joins {type_name(ts[0])} and {type_name(ts[1])}")
        return ts[0] if not (a[0].op == "const" and a[0].args[0] == ()) else ts[1]
    if op in ("span", "exec_id", "call_id"):
        _int(*zip(a, ts, strict=True))
        return x.t
    if op == "repeat":
        _int((a[1], ts[1]))
        return SeqOf(ts[0])
    if op in ("race_key", "base_of", "is_race"):
        if ts[0] is not str:
            raise _Fault(f"{type_name(ts[0])} where a key (a str) is needed")
        return x.t
    if op == "is_none":
        return bool
    if op == "new":
        record, values = a
        for name, v in zip(record._fields, values, strict=True):
            want = _field_type(record, name)
            if not _fits(v, _type(v, scope), want):
                raise _Fault(f"a new {record.__name__} with {name} {type_name(_type(v, scope))}, not "
                             f"{type_name(want)}")
        return record
    if op == "with":
        record = _record(ts[0])
        for name, v in a[1]:
            want = _field_type(record, name)
            if not _fits(v, _type(v, scope), want):
                raise _Fault(f"{record.__name__} but {name} = {type_name(_type(v, scope))}, not {type_name(want)}")
        return record
    raise _Fault(f"no operator {op!r} in the language")


_BODIES = frozenset({"filter", "map", "count", "any", "all", "sum", "first", "update_last", "update_where", "fold",
                     "zip_all"})


def _bodied(x: Expr, scope: dict[str, Any]) -> Any:
    """The type of an operation with a body, which binds its own variables."""
    op, a = x.op, x.args
    ts = [_type(a[0], scope), _type(a[1], scope) if op in ("fold", "zip_all") else None]
    if op in ("filter", "map", "count", "any", "all", "sum", "first", "update_last", "update_where"):
        item = _seq(a[0], ts[0])
        inner = {**scope, a[1].args[0]: item}
        body = _type(a[2], inner)
        if op in ("filter", "count", "any", "all", "first", "update_last", "update_where"):
            _bool(a[2], body)
        if op == "sum":
            _int((a[2], body))
        if op in ("update_last", "update_where") and not _fits(a[3], _type(a[3], inner), item):
            raise _Fault(f"{op} changes {type_name(item)} into {type_name(_type(a[3], inner))}")
        return SeqOf(body) if op == "map" else x.t
    if op == "fold":
        item = _seq(a[0], ts[0])
        step = _type(a[4], {**scope, a[2].args[0]: ts[1], a[3].args[0]: item})
        if not _fits(a[4], step, ts[1]):
            raise _Fault(f"a fold from {type_name(ts[1])} whose step gives {type_name(step)}")
        return ts[1]
    if op == "zip_all":
        p, q = _seq(a[0], ts[0]), _seq(a[1], ts[1])
        _bool(a[4], _type(a[4], {**scope, a[2].args[0]: p, a[3].args[0]: q}))
        return bool
    raise _Fault(f"no operator {op!r} in the language")


def _field_type(record: type, name: str) -> Any:
    from .lang import _FIELD_TYPES
    return _FIELD_TYPES[record][name]
