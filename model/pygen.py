"""The explicit engine's form of the rules: the rulebook compiled to one Python successor function.

`successor_function(bounds, reading)` specialises every rule of `rules.RULES` to the bounds and
the reading (their values become constants, a reading's dead branches vanish), writes one Python
function that computes every enabled action with its successor, in the rule table's order, and
compiles it once per (bounds, reading). `step`, `enabled` (below) and the explorer all run it.

The generated code does what a careful hand would: each segment's execution and running attempt are
found once per state, a guard's parts are tested as soon as their variables are known (a part that
reads only the state before the loop over segments, a part that reads no parameter before the loop
over parameters), a boolean parameter's values are unrolled so that each branch folds, an effect's
`When`s split the code into straight paths, and each successor is built with one constructor per
changed record while records left alone stay the same objects (properties skip them by identity); an
update of a sequence's last matching element is a loop of statements, a fold that only appends is a sum
of tuples (in C), and an `all` of `all`s one comprehension. With `hoist` (the properties' tests,
`pycheck.py`), a lookup or sequence that reads no element variable is computed once, before the test
(a lookup by a loop of statements), and a zip whose test passes a pair of one record skips identical ones.
`source(bounds, reading)` shows the code.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from . import actions as _actions
from .lang import (
    Choose,
    End,
    Expr,
    Let,
    Opt,
    Rule,
    Set,
    When,
    free_vars,
    specialize,
    specialize_block,
    walk,
)
from .lowering import lowered
from .prebuilt import namespace
from .rules import EXECUTIONS, ONCE, RULES, SEGMENTS, SESSIONS
from .state import Artifact, Attempt, Execution, Question, Segment, State, Warning, id_key
from .tablecache import PerTable
from .tablecheck import check_rules

if TYPE_CHECKING:
    from .actions import Action
    from .config import Bounds
    from .reading import Reading

__all__ = ["successor_function", "source", "Successors", "enabled", "step"]

Successors = Callable[[State], list[tuple[Any, State]]]

_RECORDS = {r.__name__: r for r in (State, Execution, Segment, Attempt, Question, Warning, Artifact)}


def _update_last(seq: tuple, test: Callable[[Any], bool], change: Callable[[Any], Any]) -> tuple:
    for k in range(len(seq) - 1, -1, -1):
        if test(seq[k]):
            return seq[:k] + (change(seq[k]),) + seq[k + 1:]
    return seq


def _fold(seq: Iterable[Any], acc: Any, step: Callable[[Any, Any], Any]) -> Any:
    for x in seq:
        acc = step(acc, x)
    return acc


def _insert(segments: tuple, segment: Segment) -> tuple:
    """The segments with `segment` put in key order (replacing one of the same key)."""
    key = segment.execution
    others = tuple(x for x in segments if x.execution != key)
    return tuple(sorted(others + (segment,), key=lambda x: id_key(x.execution)))


_ACTIONS: dict[tuple[Any, ...], Any] = {}


def _act(key: tuple[Any, ...]) -> Any:
    """One shared action object per distinct action (they are immutable values)."""
    action = _ACTIONS.get(key)
    if action is None:
        action = _ACTIONS[key] = key[0](*key[1:])
    return action


_new = tuple.__new__  # a record built from its fields' tuple, without the NamedTuple's Python constructor

# The names the generated code uses (a build's modules import them from where they are defined).
_NAMESPACE: dict[str, Any] = {
    "_new": _new, "_update_last": _update_last, "_fold": _fold, "_insert": _insert, "_act": _act, "_ACTIONS": _ACTIONS,
    **_RECORDS,
    **{name: getattr(_actions, name) for name in _actions.__all__ if isinstance(getattr(_actions, name), type)},
}


class _Env:
    """What a name compiles to at one point of the generated code: variables, and the fields edited so far."""

    def __init__(self, names: dict[str, str], edits: dict[tuple[str, str], str] | None = None,
                 ended: bool = False) -> None:
        self.names, self.edits, self.ended = names, edits or {}, ended

    def bind(self, name: str, code: str) -> _Env:
        return _Env({**self.names, name: code}, self.edits, self.ended)

    def edit(self, record: str, field: str, code: str) -> _Env:
        return _Env(self.names, {**self.edits, (record, field): code}, self.ended)

    def end(self) -> _Env:
        return _Env(self.names, self.edits, True)


_BINOP = {"+": "+", "-": "-", "==": "==", "!=": "!=", "<": "<", "<=": "<="}
_REFLEXIVE = {"==": True, "<=": True, "!=": False, "<": False}  # x op x
_STATE_LOCALS = {"executions": "executions", "segments": "segments"}


class _Writer:
    """Writes one successor function, line by line."""

    def __init__(self, hoist: bool = False) -> None:
        self.lines: list[str] = []
        self.counter = 0
        # With `hoist`, each lookup (`first`) or `fold` that reads no variable of an enclosing operation is
        # computed once, before the expression that uses it: its code -> the local it is stored in.
        self.hoisted: dict[str, str] | None = {} if hoist else None
        # A hoisted lookup is computed by a loop, not a generator (a fifth of the time): its local -> the loop.
        self.loops: dict[str, list[str]] = {}
        self.inside = 0  # how many operations' bodies (run once per element) the code being written is in

    def _hoist(self, code: str) -> str:
        """The local a closed expression's code is computed into, once (equal up to renaming its own
        variables: the same local)."""
        assert self.hoisted is not None
        canonical = _canonical(code)
        return self.hoisted.setdefault(canonical, f"_h{len(self.hoisted)}")

    def _hoist_first(self, v: str, seq: str, body: str) -> str:
        """The local the first element of `seq` that passes `body` (or None) is computed into, once, by a loop."""
        local = self._hoist(f"next(({v} for {v} in {seq} if {body}), None)")
        if local not in self.loops:
            self.loops[local] = [f"for {v} in {seq}:", f"    if {body}:", f"        {local} = {v}",
                                 "        break", "else:", f"    {local} = None"]
        return local

    def preamble(self) -> list[str]:
        """The statements that compute every hoisted local, in order (each after those it reads), then forgets them."""
        out: list[str] = []
        for code, local in (self.hoisted or {}).items():
            out += self.loops.get(local) or [f"{local} = {code}"]
        if self.hoisted:
            self.hoisted.clear()
        self.loops.clear()
        return out

    def fresh(self, stem: str) -> str:
        self.counter += 1
        return f"{stem}{self.counter}"

    def line(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)

    # Expressions ---------------------------------------------------------------------------

    def expr(self, x: Expr, env: _Env) -> str:
        """The Python code of `x`; with hoisting, inside an operation's body, a sequence that reads none of
        its variables and cannot fail is computed once, before the expression, not once per element."""
        if self.hoisted is not None and self.inside and x.op in _SEQUENCES and _total(x):
            code = self._expr(x, env)
            return code if code in self.hoisted.values() else self._hoist(code)
        return self._expr(x, env)

    def _body(self, x: Expr, env: _Env) -> str:
        """The code of an operation's body, run once per element."""
        self.inside += 1
        try:
            return self.expr(x, env)
        finally:
            self.inside -= 1

    def _expr(self, x: Expr, env: _Env) -> str:  # noqa: C901 - one case per operator, as the language lists them
        op, a = x.op, x.args
        if op == "const":
            return repr(a[0])
        if op == "var":
            name = a[0]
            if name.startswith("_x"):
                return name
            if any(record == name for record, _ in env.edits):
                return self._materialised(name, x.t, env)
            return env.names[name]
        if op == "field":
            return self._field(a[0], a[1], env)
        if op == "==" and a[0].op == a[1].op == "var" and a[0].t not in (int, bool, str):
            left, right = self.expr(a[0], env), self.expr(a[1], env)  # records, sequences: the same object?
            return f"({left} is {right} or {left} == {right})"
        if op in _BINOP:
            left, right = self.expr(a[0], env), self.expr(a[1], env)
            if left == right and op in _REFLEXIVE:  # the same code both sides: the same value (code is pure)
                return repr(_REFLEXIVE[op])
            return f"({left} {_BINOP[op]} {right})"
        if op == "and":
            return f"({self.expr(a[0], env)} and {self.expr(a[1], env)})"
        if op == "or":
            return f"({self.expr(a[0], env)} or {self.expr(a[1], env)})"
        if op == "not":
            return f"(not {self.expr(a[0], env)})"
        if op == "ite":
            return f"({self.expr(a[1], env)} if {self.expr(a[0], env)} else {self.expr(a[2], env)})"
        if op == "min":
            return f"min({self.expr(a[0], env)}, {self.expr(a[1], env)})"
        if op == "len":
            return self._length(a[0], env)
        if op == "at":
            return f"{self.expr(a[0], env)}[{self.expr(a[1], env)}]"
        if op == "last":
            return f"{self.expr(a[0], env)}[-1]"
        if op == "append":
            return f"({self.expr(a[0], env)} + ({self.expr(a[1], env)},))"
        if op == "concat":
            return f"({self.expr(a[0], env)} + {self.expr(a[1], env)})"
        if op == "prefix":
            return f"{self.expr(a[0], env)}[:{self.expr(a[1], env)}]"
        if op == "suffix":
            return f"{self.expr(a[0], env)}[{self.expr(a[1], env)}:]"
        if op == "set_last":
            return f"({self.expr(a[0], env)}[:-1] + ({self.expr(a[1], env)},))"
        if op == "insert":
            return f"_insert({self.expr(a[0], env)}, {self.expr(a[1], env)})"
        if op == "contains":
            return f"({self.expr(a[1], env)} in {self.expr(a[0], env)})"
        if op == "span":
            return f"tuple(range({self.expr(a[0], env)}, {self.expr(a[1], env)}))"
        if op == "repeat":
            return f"(({self.expr(a[0], env)},) * {self.expr(a[1], env)})"
        if op == "update_where":
            seq, v = self.expr(a[0], env), a[1].args[0]
            return f"tuple([({self._body(a[3], env)} if {self._body(a[2], env)} else {v}) for {v} in {seq}])"
        if op in ("count", "any") and _is_element_test(a[1], a[2]):  # counting or finding a value: in C
            seq, value = self.expr(a[0], env), self.expr(a[2].args[1], env)
            return f"{seq}.count({value})" if op == "count" else f"({value} in {seq})"
        if op in _NESTING and a[2].op == op and not _is_element_test(a[2].args[1], a[2].args[2]):
            return self._flattened(x, env)
        if op in ("filter", "map", "count", "any", "all", "sum", "first"):
            seq, v = self.expr(a[0], env), a[1].args[0]
            body = self._body(a[2], env)
            if op == "first" and self.hoisted is not None and not _open(x):
                return self._hoist_first(v, seq, body)
            return {
                "filter": f"tuple([{v} for {v} in {seq} if {body}])",
                "map": f"tuple([{body} for {v} in {seq}])",
                "count": f"len([1 for {v} in {seq} if {body}])",
                "any": f"any([{body} for {v} in {seq}])",
                "all": f"all([{body} for {v} in {seq}])",
                "sum": f"sum([{body} for {v} in {seq}])",
                "first": f"next(({v} for {v} in {seq} if {body}), None)",
            }[op]
        if op == "update_last":
            v = a[1].args[0]
            return (f"_update_last({self.expr(a[0], env)}, lambda {v}: {self._body(a[2], env)}, "
                    f"lambda {v}: {self._body(a[3], env)})")
        if op == "fold":
            acc, v = a[2].args[0], a[3].args[0]
            parts = _appended(a[4], acc)
            if parts is not None:  # acc + what each element gives: their concatenation, in C
                seq, start = self.expr(a[0], env), self.expr(a[1], env)
                if len(parts) == 1 and parts[0].op == "var" and parts[0].args[0] == v:  # the elements themselves
                    code = f"sum({seq}, {start})"
                else:
                    items = " + ".join(self._body(part, env) for part in parts)
                    code = f"sum([{items} for {v} in {seq}], {start})"
            else:
                code = (f"_fold({self.expr(a[0], env)}, {self.expr(a[1], env)}, "
                        f"lambda {acc}, {v}: {self._body(a[4], env)})")
            if self.hoisted is not None and not _open(x):
                return self._hoist(code)
            return code
        if op == "zip_all":
            u, v = a[2].args[0], a[3].args[0]
            first, second = self.expr(a[0], env), self.expr(a[1], env)
            body = self._body(a[4], env)
            if not _reflexive(a[2], a[3], a[4]):
                return f"all([{body} for {u}, {v} in zip({first}, {second})])"
            # A test that passes a pair of one record passes every pair of a sequence and itself: where the
            # sequences, or two records, are the same object, there is nothing to test.
            return f"({first} is {second} or all([{u} is {v} or {body} for {u}, {v} in zip({first}, {second})]))"
        if op == "new":
            return f"_new({a[0].__name__}, ({''.join(self.expr(v, env) + ', ' for v in a[1])}))"
        if op == "with":
            return self._but(x, env)
        if op == "exec_id":
            return f"f'e{{{self.expr(a[0], env)}}}'"
        if op == "call_id":
            return f"f'c{{{self.expr(a[0], env)}}}'"
        if op == "race_key":
            return f"({self.expr(a[0], env)} + \"'\")"
        if op == "base_of":
            return f"{self.expr(a[0], env)}.rstrip(\"'\")"
        if op == "is_race":
            return f"({self.expr(a[0], env)}[-1] == \"'\")"
        if op == "is_none":
            return f"({self.expr(a[0], env)} is None)"
        raise ValueError(f"the Python engine cannot compile {op!r} (still unresolved: {x!r})")

    def _length(self, seq: Expr, env: _Env) -> str:
        """The length of a sequence, without building it where its parts' lengths tell it."""
        if seq.op == "concat":
            return f"({self._length(seq.args[0], env)} + {self._length(seq.args[1], env)})"
        if seq.op == "append":
            return f"({self._length(seq.args[0], env)} + 1)"
        if seq.op == "map":
            return self._length(seq.args[0], env)
        return f"len({self.expr(seq, env)})"

    def _flattened(self, x: Expr, env: _Env) -> str:
        """`all` of `all`s (`any` of `any`s, `sum` of `sum`s) as one comprehension over every level's elements."""
        op, loops, depth = x.op, [], 0
        try:
            while True:
                loops.append(f"for {x.args[1].args[0]} in {self.expr(x.args[0], env)}")
                self.inside += 1
                depth += 1
                body = x.args[2]
                if body.op != op or _is_element_test(body.args[1], body.args[2]):
                    return f"{op}([{self.expr(body, env)} {' '.join(loops)}])"
                x = body
        finally:
            self.inside -= depth

    def _field(self, obj: Expr, name: str, env: _Env) -> str:
        record = obj.t.item if isinstance(obj.t, Opt) else obj.t
        if obj.op == "var" and not obj.args[0].startswith("_x"):
            edited = env.edits.get((obj.args[0], name))
            if edited is not None:
                return edited
            if obj.args[0] == "S" and name in _STATE_LOCALS:
                return _STATE_LOCALS[name]
            return f"{env.names[obj.args[0]]}[{record._fields.index(name)}]"
        return f"{self.expr(obj, env)}[{record._fields.index(name)}]"

    def _materialised(self, name: str, record: type, env: _Env) -> str:
        """A whole record that the effect edited so far: built from its fields."""
        fields = ", ".join(env.edits.get((name, f)) or f"{env.names[name]}[{k}]" for k, f in enumerate(record._fields))
        return f"_new({record.__name__}, ({fields},))"

    def _but(self, x: Expr, env: _Env) -> str:
        obj, changes = x.args
        record = x.t
        code = self.expr(obj, env)
        arg = code if "(" not in code else "_r"
        changed = dict(changes)
        fields = ", ".join(self.expr(changed[f], env) if f in changed else f"{arg}[{k}]"
                           for k, f in enumerate(record._fields))
        built = f"_new({record.__name__}, ({fields},))"
        return built if arg == code else f"(lambda _r: {built})({code})"

    # Statements ----------------------------------------------------------------------------

    def assign(self, depth: int, local: str, value: Expr, env: _Env) -> None:
        """`local = value`; the last element that passes a test changed (`update_last`) by a loop of statements
        rather than a call with two lambdas (a third of the time)."""
        if value.op != "update_last":
            self.line(depth, f"{local} = {self.expr(value, env)}")
            return
        seq, v, test, change = value.args
        name = v.args[0]
        items = self.fresh("seq_")
        self.line(depth, f"{items} = {self.expr(seq, env)}")
        self.line(depth, f"for _k in range(len({items}) - 1, -1, -1):")
        self.line(depth + 1, f"{name} = {items}[_k]")
        self.line(depth + 1, f"if {self._body(test, env)}:")
        self.line(depth + 2, f"{local} = {items}[:_k] + ({self._body(change, env)},) + {items}[_k + 1:]")
        self.line(depth + 2, "break")
        self.line(depth, "else:")
        self.line(depth + 1, f"{local} = {items}")

    def block(self, stmts: tuple[Any, ...], env: _Env, depth: int, finish: Callable[[_Env, int], None]) -> None:
        """The statements as straight paths: a `When` writes both branches, each followed by what comes after."""
        for k, st in enumerate(stmts):
            if isinstance(st, Let):
                local = self.fresh(f"L_{st.name}_")
                self.assign(depth, local, st.value, env)
                env = env.bind(st.name, local)
            elif isinstance(st, Set):
                record, field = st.target.args[0].args[0], st.target.args[1]
                local = self.fresh(f"{record}_{field}_")
                self.assign(depth, local, st.value, env)
                env = env.edit(record, field, local)
            elif isinstance(st, End):
                env = env.end()
            elif isinstance(st, When):
                rest = stmts[k + 1:]
                self.line(depth, f"if {self.expr(st.test, env)}:")
                self.block(st.then + rest, env, depth + 1, finish)
                self.line(depth, "else:")
                self.block(st.otherwise + rest, env, depth + 1, finish)
                return
        finish(env, depth)


_BINDING = {"filter": (1,), "map": (1,), "count": (1,), "any": (1,), "all": (1,), "sum": (1,), "first": (1,),
            "update_last": (1,), "update_where": (1,), "fold": (2, 3), "zip_all": (2, 3)}


def _open(x: Expr) -> set[str]:
    """The variables of enclosing operations that `x` reads (those bound inside it excepted); remembered
    per node, as a formula's specialised form is compiled into many tests."""
    found = _OPEN.get(x)
    if found is None:
        if len(_OPEN) >= 200_000:
            _OPEN.clear()
        used: set[str] = {x.args[0]} if x.op == "var" and x.args[0].startswith("_x") else set()
        for child in _children(x.args):
            used |= _open(child)
        found = _OPEN[x] = frozenset(used - {x.args[k].args[0] for k in _BINDING.get(x.op, ())})
    return found


_OPEN: dict[Expr, frozenset[str]] = {}  # nodes are hashed by identity


def _children(args: tuple[Any, ...]) -> Iterable[Expr]:
    """The expressions among a node's arguments (in tuples, and in (name, expression) pairs, too)."""
    for a in args:
        if isinstance(a, Expr):
            yield a
        elif isinstance(a, tuple):
            yield from _children(a)


# Operations whose value is a sequence built anew each time their code runs.
_SEQUENCES = frozenset({"concat", "append", "map", "filter", "span", "fold"})
_PARTIAL = frozenset({"at", "last", "first"})  # may fail, or give None, on some states


def _total(x: Expr) -> bool:
    """Does `x` read no variable of an enclosing operation, and can it be computed on any state without
    failing (no indexing, no lookup, no field of a value that may be None)? Then computing it once
    before the expression that holds it, even where that expression would not reach it, is safe."""
    return not _open(x) and _safe(x)


def _safe(x: Expr) -> bool:
    """No indexing, no lookup and no field of a value that may be None anywhere in `x` (remembered)."""
    found = _SAFE.get(x)
    if found is None:
        if len(_SAFE) >= 200_000:
            _SAFE.clear()
        here = x.op not in _PARTIAL and not (x.op == "field" and isinstance(x.args[0].t, Opt))
        found = _SAFE[x] = here and all(_safe(child) for child in _children(x.args))
    return found


_SAFE: dict[Expr, bool] = {}


_BOUND = re.compile(r"\b_x\d+\b")


def _canonical(code: str) -> str:
    """Closed code with its own variables renamed in order of first appearance (`_b0`, `_b1`, ...), so
    that two copies of one expression written with different fresh names are one hoisted local."""
    names: dict[str, str] = {}
    return _BOUND.sub(lambda m: names.setdefault(m.group(0), f"_b{len(names)}"), code)


_NESTING = frozenset({"all", "any", "sum"})  # an operation of operations like it is one over the elements of all


def _reflexive(u: Expr, v: Expr, test: Expr) -> bool:
    """Does `test` hold, by its shape, whenever `u` and `v` are one value (an `==` or `<=` of two sides equal
    once `v` is read as `u`, in `or`s, `and`s and both branches of an `ite`)?"""
    if test.op == "or":
        return _reflexive(u, v, test.args[0]) or _reflexive(u, v, test.args[1])
    if test.op == "and":
        return _reflexive(u, v, test.args[0]) and _reflexive(u, v, test.args[1])
    if test.op == "ite":
        return _reflexive(u, v, test.args[1]) and _reflexive(u, v, test.args[2])
    return test.op in ("==", "<=") and _same(test.args[0], test.args[1], {v.args[0]: u.args[0]})


def _same(x: Any, y: Any, renamed: dict[str, str]) -> bool:
    """Are `x` and `y` one expression once the variables of `renamed` are read as their new names?"""
    if isinstance(x, Expr) and isinstance(y, Expr):
        if x.op == y.op == "var":
            return renamed.get(x.args[0], x.args[0]) == renamed.get(y.args[0], y.args[0])
        return x.op == y.op and _same(x.args, y.args, renamed)
    if isinstance(x, tuple) and isinstance(y, tuple):
        return len(x) == len(y) and all(_same(a, b, renamed) for a, b in zip(x, y, strict=True))
    return not isinstance(x, (Expr, tuple)) and not isinstance(y, (Expr, tuple)) and type(x) is type(y) and x == y


def _appended(step: Expr, acc: str) -> list[Expr] | None:
    """The parts of a fold's step `acc + p1 + ... + pn` (sequences concatenated, none reading `acc`), else None."""
    parts: list[Expr] = []
    while step.op == "concat":
        parts.append(step.args[1])
        step = step.args[0]
    if not (parts and step.op == "var" and step.args[0] == acc):
        return None
    if any(x.op == "var" and x.args[0] == acc for part in parts for x in walk(part)):
        return None
    return parts[::-1]


def _is_element_test(item: Expr, test: Expr) -> bool:
    """Is `test` `item == value`, with a value that does not read `item`?"""
    name = item.args[0]
    return (test.op == "==" and test.args[0].op == "var" and test.args[0].args[0] == name
            and not any(x.op == "var" and x.args[0] == name for x in walk(test.args[1])))


def _parts(guard: tuple[Expr, ...]) -> list[Expr]:
    """The conjuncts of a guard, `and`s flattened, in order."""
    out: list[Expr] = []
    for x in guard:
        if x.op == "and":
            out += _parts((x.args[0], x.args[1]))
        else:
            out.append(x)
    return out


_BINDS = {SESSIONS.name: {"session"}, EXECUTIONS.name: {"e", "i"}, SEGMENTS.name: {"e", "g", "run"}, ONCE.name: set()}


def _rule(w: _Writer, rule: Rule, bounds: Any, reading: Any) -> None:
    """The code of one rule: its loops, guard tests, and one successor per path of its effect."""
    w.line(1, f"# {rule.action.__name__}: {rule.doc}")
    guard = [specialize(x, bounds, reading) for x in _parts(rule.guard)]
    if any(x.op == "const" and not x.args[0] for x in guard):
        w.line(1, "# (never enabled under these bounds and this reading)")
        return
    guard = [x for x in guard if x.op != "const"]
    binder_vars = _BINDS[rule.over.name]
    chosen = {c.name for c in rule.choose}
    outer = [x for x in guard if not (free_vars(x) & (binder_vars | chosen))]
    inner = [x for x in guard if all(x is not y for y in outer)]
    env = _Env({"S": "s", "e": "e", "g": "g", "run": "run", "session": "session"})
    depth = 1
    if outer:
        w.line(depth, f"if {' and '.join(w.expr(x, env) for x in outer)}:")
        depth += 1
    over = rule.over
    if over is SESSIONS:
        w.line(depth, f"for session in range(1, {bounds.sessions + 1}):")
        depth += 1
    elif over is EXECUTIONS:
        w.line(depth, "for i, e in enumerate(executions):")
        depth += 1
    elif over is SEGMENTS:
        w.line(depth, "for j, g, i, e, run in live:")
        depth += 1
    before = [x for x in inner if not (free_vars(x) & chosen)]
    if before:
        w.line(depth, f"if {' and '.join(w.expr(x, env) for x in before)}:")
        depth += 1
    rest = [x for x in inner if all(x is not y for y in before)]
    _choices(w, rule, list(rule.choose), {}, rest, env, depth, bounds, reading)
    w.line(depth, "pass")


def _choices(w: _Writer, rule: Rule, left: list[Choose], values: dict[str, Any], guard: list[Expr], env: _Env,
             depth: int, bounds: Any, reading: Any) -> None:
    """Unroll boolean parameters (each value specialises the rest), loop over the others."""
    if left:
        choice, rest = left[0], left[1:]
        domain = choice.domain(bounds)
        if choice.t is bool:
            for value in domain:
                _choices(w, rule, rest, {**values, choice.name: value}, guard, env, depth, bounds, reading)
            return
        w.line(depth, f"for {choice.name} in {domain!r}:")
        _choices(w, rule, rest, values, guard, env.bind(choice.name, choice.name), depth + 1, bounds, reading)
        w.line(depth + 1, "pass")
        return
    tests = [specialize(x, bounds, reading, values) for x in guard]
    if any(x.op == "const" and not x.args[0] for x in tests):
        return
    tests = [x for x in tests if x.op != "const"]
    if tests:
        w.line(depth, f"if {' and '.join(w.expr(x, env) for x in tests)}:")
        depth += 1
    fields = ", ".join(w.expr(specialize(x, bounds, reading, values), env) for x in rule.fields)
    key = f"({rule.action.__name__}, {fields})"
    action = f"(_ACTIONS.get({key}) or _act({key}))"  # the shared action without a call; made on first use
    effect = specialize_block(rule.effect, bounds, reading, values)
    w.block(effect, env, depth, lambda end_env, d: _successor(w, rule, end_env, d, action))


def _successor(w: _Writer, rule: Rule, env: _Env, depth: int, action: str) -> None:
    """Build the successor from the edits of one path, and add it with its action."""
    edits = env.edits
    e_fields = [f for f in Execution._fields if ("e", f) in edits]
    g_fields = [f for f in Segment._fields if ("g", f) in edits]
    s_fields = {f: edits[("S", f)] for f in State._fields if ("S", f) in edits}
    if ("executions" in s_fields and e_fields) or ("segments" in s_fields and (g_fields or env.ended)):
        raise ValueError(f"{rule.action.__name__}: an effect edits both the state's records and one of them")
    executions = s_fields.get("executions", "executions")
    segments = s_fields.get("segments", "segments")
    if e_fields:
        built = ", ".join(edits.get(("e", f)) or f"e[{k}]" for k, f in enumerate(Execution._fields))
        w.line(depth, f"executions_ = executions[:i] + (_new(Execution, ({built})),) + executions[i + 1:]")
        executions = "executions_"
    if env.ended:
        segments = "segments[:j] + segments[j + 1:]"
    elif g_fields:
        built = ", ".join(edits.get(("g", f)) or f"g[{k}]" for k, f in enumerate(Segment._fields))
        segments = f"segments[:j] + (_new(Segment, ({built})),) + segments[j + 1:]"
    if not (e_fields or g_fields or env.ended or s_fields):
        w.line(depth, f"out.append(({action}, s))")
        return
    parts = [executions, segments] + [s_fields.get(f) or f"s[{k}]" for k, f in enumerate(State._fields) if k >= 2]
    w.line(depth, f"out.append(({action}, _new(State, ({', '.join(parts)}))))")


def _write(bounds: Any, reading: Any, rules: tuple[Rule, ...]) -> str:
    w = _Writer()
    w.line(0, "def successors(s: State):")  # typed for a compiler that reads it (`checks/build.py`)
    w.line(1, "executions = s[0]")
    w.line(1, "segments = s[1]")
    w.line(1, "out = []")
    w.line(1, "live = []")
    w.line(1, "for j, g in enumerate(segments):")
    w.line(2, "key = g[0]")
    w.line(2, "i = int(key[1:-1] if key[-1] == \"'\" else key[1:]) - 1")
    w.line(2, "e = executions[i]")
    w.line(2, "for run in e[4]:")
    w.line(3, "if run[1] == 'running':")
    w.line(4, "break")
    w.line(2, "else:")
    w.line(3, "run = None")
    w.line(2, "live.append((j, g, i, e, run))")
    for rule in rules:
        _rule(w, lowered(rule), bounds, reading)
    w.line(1, "return out")
    return "\n".join(w.lines) + "\n"


def source(bounds: Any, reading: Any, rules: tuple[Rule, ...] = RULES) -> str:
    """The Python source of the successor function for these bounds and this reading."""
    return _write(bounds, reading, rules)


def successor_function(bounds: Any, reading: Any, rules: tuple[Rule, ...] = RULES) -> Successors:
    """The successor function of these rules under these bounds and this reading: state -> every enabled
    action with its successor, in the rule table's order (compiled once, then cached)."""
    # a reading's meaning is its switches
    return _COMPILED.get(rules, (bounds, reading.switches), lambda: _compiled(bounds, reading, rules))


_COMPILED: PerTable[Successors] = PerTable(512)


def _compiled(bounds: Any, reading: Any, rules: tuple[Rule, ...]) -> Successors:
    check_rules(rules)  # a statement the language cannot mean is refused here, in one line, never compiled
    code = _write(bounds, reading, rules)
    names = {**_NAMESPACE, **{rule.action.__name__: rule.action for rule in rules}}  # a draft's own actions too
    return namespace(code, f"<pausecheck rules {reading.name}>", names)["successors"]


def enabled(bounds: Bounds, reading: Reading, state: State, rules: tuple[Rule, ...] = RULES) -> list[Action]:
    """Every enabled action in canonical order (rule table order, then each rule's own order); `rules` is
    this table or a deviation of it (a mutant's, `deviate.py`)."""
    return [action for action, _ in successor_function(bounds, reading, rules)(state)]


def step(bounds: Bounds, reading: Reading, state: State, action: Action,
         rules: tuple[Rule, ...] = RULES) -> State | None:
    """The successor of `state` under `action`, or None if the action is not enabled there; `rules` is
    this table or a deviation of it (a mutant's), so that a mutant's trace replays on its own rules."""
    successors = successor_function(bounds, reading, rules)
    last = _LAST_STEP  # a replay, a conformance run or a test often steps from one state several times
    if last[0] is not successors or last[1] is not state:
        last[:] = [successors, state, dict(successors(state))]
    return last[2].get(action)


_LAST_STEP: list = [None, None, {}]  # (successor function, state, {action: successor}) of the latest step
