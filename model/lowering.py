"""A rule lowered to the form every engine runs alike: the language's in-order meaning made explicit.

The language (`lang.py`) runs an effect's statements in order, on the state: `e` is the execution with the
step's id, `g` the segment with the step's key, each read where it is now. The engines (`pygen.py`, the z3
relation, the Promela model) compile a faster form: they keep the edits of `e` and `g` aside and write them
back when the step ends, and they read `S.executions` and `S.segments` as they were set last. The two agree
unless a rule mixes the record and its list, where they would not (an edit of `S.executions` lost under a
later write-back of `e`, a read of `S.segments` blind to `End`):

- the record `e` (or `g`) is edited or ends, and the list is read after that, on some path;
- the record is edited or ends, and the list is set, anywhere in the effect;
- the list is set, and the record is read after that, on some path.

Such a rule is lowered (`lowered(rule)`; any other rule is returned as it is, the same object): every
statement about the record becomes one about the list. `Set(e.f, v)` updates, in `S.executions`, the
record with `e`'s id; a read of `e.f` reads the record with `e`'s id in `S.executions` as it is there and
then; `End` removes `g`'s key from `S.segments`. The ids never change (`tablecheck.py` refuses a `Set` of
`e.id` or `g.execution`, and a list edit that may drop the record before it is read again), so the record
is always found. `tests/test_semantics.py` holds every engine, through this lowering, to the interpreter.
"""

from __future__ import annotations

import dataclasses
from itertools import count
from typing import Any

from .lang import End, Expr, Let, Rule, Set, When, new, var
from .state import Execution, Segment, State

__all__ = ["lowered", "mixed", "RECORD_LISTS"]

# Each record a binder gives, with its list in the state, its key field and its type.
RECORD_LISTS: dict[str, tuple[str, str, type]] = {"e": ("executions", "id", Execution),
                                                  "g": ("segments", "execution", Segment)}

_DONE: dict[int, tuple[Rule, Rule]] = {}  # id(rule) -> (rule, its lowered form)
_FRESH = count(1)


def lowered(rule: Rule) -> Rule:
    """The rule with every record it mixes with its list lowered to edits of the list; else itself."""
    found = _DONE.get(id(rule))
    if found is None or found[0] is not rule:
        found = _DONE[id(rule)] = (rule, _lower(rule))
    return found[1]


def _lower(rule: Rule) -> Rule:
    effect = rule.effect
    for record in _records(rule):
        if mixed(effect, record):
            effect = _Rewrite(record).block(effect)
    return rule if effect is rule.effect else dataclasses.replace(rule, effect=effect)


def _records(rule: Rule) -> tuple[str, ...]:
    return {"executions": ("e",), "segments": ("g", "e")}.get(rule.over.name, ())


# ---------------------------------------------------------------------------------------------
# Which rules mix a record and its list


def mixed(stmts: tuple[Any, ...], record: str) -> bool:
    """Does the effect mix `record` (`e` or `g`) with its list in one of the three ways the module names?"""
    listed = RECORD_LISTS[record][0]
    found = [False]
    edits = {"record": False, "list": False}

    def walk(block: tuple[Any, ...], edited: bool, replaced: bool) -> tuple[bool, bool]:
        for st in block:
            for x in _read_by(st):
                if (edited and reads_list(x, listed)) or (replaced and reads_record(x, record)):
                    found[0] = True
            if isinstance(st, Set) and _target(st) == (record, st.target.args[1]):
                edited = edits["record"] = True
            elif isinstance(st, End) and record == "g":
                edited = edits["record"] = True
            elif isinstance(st, Set) and _target(st) == ("S", listed):
                replaced = edits["list"] = True
            elif isinstance(st, When):
                a, b = walk(st.then, edited, replaced), walk(st.otherwise, edited, replaced)
                edited, replaced = a[0] or b[0], a[1] or b[1]
        return edited, replaced

    walk(stmts, False, False)
    return found[0] or (edits["record"] and edits["list"])


def _read_by(st: Any) -> tuple[Expr, ...]:
    """The expressions a statement reads itself (a `When`'s test; not its branches)."""
    if isinstance(st, (Let, Set)):
        return (st.value,)
    if isinstance(st, When):
        return (st.test,)
    return ()


def _target(st: Set) -> tuple[str, str]:
    return st.target.args[0].args[0], st.target.args[1]


def reads_list(x: Any, listed: str) -> bool:
    """Does `x` read the state's list `listed` (or the whole state)?"""
    if not isinstance(x, Expr):
        return isinstance(x, tuple) and any(reads_list(y, listed) for y in x)
    if x.op == "field" and x.args[0].op == "var" and x.args[0].args[0] == "S":
        return x.args[1] == listed
    if x.op == "var":
        return x.args[0] == "S"
    return any(reads_list(y, listed) for y in x.args)


def reads_record(x: Any, record: str) -> bool:
    """Does `x` read `record` other than by its key (which never changes)?"""
    if not isinstance(x, Expr):
        return isinstance(x, tuple) and any(reads_record(y, record) for y in x)
    if x.op == "field" and x.args[0].op == "var" and x.args[0].args[0] == record:
        return x.args[1] != RECORD_LISTS[record][1]
    if x.op == "var":
        return x.args[0] == record
    return any(reads_record(y, record) for y in x.args)


# ---------------------------------------------------------------------------------------------
# The rewrite


class _Rewrite:
    """Statements about one record rewritten as statements about its list."""

    def __init__(self, record: str) -> None:
        self.record = record
        self.listed, self.key, self.type = RECORD_LISTS[record]
        self.ref = var(record, self.type)
        self.state = var("S", State)

    def _list(self) -> Expr:
        return getattr(self.state, self.listed)

    def _is_it(self, x: Expr) -> Expr:
        return getattr(x, self.key) == getattr(self.ref, self.key)

    def current(self) -> Expr:
        """The record as the state holds it now (always there: see the module's note)."""
        return self._list().first(self._is_it)

    def expr(self, x: Any) -> Any:
        if isinstance(x, tuple):
            return tuple(self.expr(y) for y in x)
        if not isinstance(x, Expr):
            return x
        if x.op == "field" and x.args[0].op == "var" and x.args[0].args[0] == self.record:
            return x if x.args[1] == self.key else getattr(self.current(), x.args[1])
        if x.op == "var" and x.args[0] == self.record:
            now = self.current()
            return new(self.type, *(getattr(now, f) for f in self.type._fields))
        args = tuple(self.expr(a) for a in x.args)
        return x if all(a is b for a, b in zip(args, x.args, strict=True)) else Expr(x.op, args, x.t)

    def block(self, stmts: tuple[Any, ...]) -> tuple[Any, ...]:
        out: list[Any] = []
        for st in stmts:
            if isinstance(st, Set) and _target(st)[0] == self.record:
                field = st.target.args[1]
                local = Let(f"_{self.record}_{field}_{next(_FRESH)}", self.expr(st.value))
                out += [local, Set(self._list(), self._list().update_where(
                    self._is_it, lambda x, local=local, field=field: x.but(**{field: local.ref})))]
            elif isinstance(st, End) and self.record == "g":
                out.append(Set(self._list(), self._list().filter(lambda x: ~self._is_it(x))))
            elif isinstance(st, Set):
                out.append(Set(st.target, self.expr(st.value)))
            elif isinstance(st, Let):
                out.append(Let(st.name, self.expr(st.value)))
            elif isinstance(st, When):
                out.append(When(self.expr(st.test), self.block(st.then), self.block(st.otherwise)))
            else:
                out.append(st)
        return tuple(out)
