"""The small language the rules are written in: expressions over a state's fields, and statements.

The rules (`rules.py`) are data in this language, so that every engine derives its own form from
one source: the explicit successor function (`pygen.py`, generated Python), the z3 transition
relation and the Promela model (in `checks/`). Nothing here evaluates anything: an `Expr` is a node
of a tree, built with Python's operators for readability (`e.status == PAUSED`, `g.calls < B.calls`,
`~g.write_failed`), and each backend walks the tree.

What the language has, and nothing more (each a bounded operation, so that z3 and Promela can
unroll it over a state's capacities):
- field reads of records (`e.held`), constants, bounds (`B.calls`), the reading's choices
  (`pick("A-T5", prepend=..., append=...)`, `reads("A-T11", "hold")`), resolved before any engine runs;
- arithmetic (+, -, min), comparisons, boolean connectives (&, |, ~) and `ite` (if-then-else);
- sequences: length, `at`, `last`, append, concatenation (+), `prefix`/`suffix` (cut to a bound
  and what falls beyond), `filter`, `map`, `count`, `any_of`, `all_of`, `total`, `first` (an
  optional element), `update_last` / `update_where` (replace matching elements), `set_last`,
  `contains`, `span` (a run of integers), `repeat`, `fold`, `zip_all` (a test of the
  pairs at the same positions of two sequences);
- records: `new(Record, ...)` and `rec.but(field=...)`; the ids of executions and calls; the key of
  a racing resume's segment;
- statements: `Let` (a name for a value, rebindable), `Set` (a field of `e`, `g` or the state `S`),
  `When` (two branches), `End` (the segment `g` ends).

What a step means (the one semantics; `interpret.py` runs it as written, every engine is held to it):
- the guard and the action's fields are read on the state before the step;
- the effect's statements run in order, as written, each on the state the ones before it left: a `Let`
  names the value its expression has there; a `Set` changes that field there and then; `When` runs one
  branch; `End` removes the segment `g` from the state there and then;
- `e` is the execution whose id is the step's (`e.id` never changes), `g` the segment whose key is the
  step's (`g.execution` never changes): a read of `e.f` sees every earlier `Set` of `e.f` and every earlier
  edit of `S.executions` alike, and a read of `S.executions` sees every earlier `Set` of a field of `e`
  (and so for `g` and `S.segments`); `run` and `session`, and a rule's parameters, keep the values the step
  began with;
- a step whose statements could have no such meaning is refused when the table is built (`tablecheck.py`):
  a `Set` whose value is not of its field's type, a name read where no `Let` binds it on every path, `g`
  read after `End`, `e` or `g` read after an edit of their list that may drop them, a key set.

The engines compile a faster form in which the edits of `e` and `g` wait for the end of the step; where a
rule mixes a record with its list, `lowering.py` first rewrites it so that the faster form means the same.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .state import Artifact, Attempt, Execution, Question, Segment, State, Warning

__all__ = [
    "Expr", "SeqOf", "Opt", "RECORDS", "lift", "var", "ite", "pick", "reads", "new", "span", "repeat", "minimum",
    "exec_id", "call_id", "race_key", "base_of", "is_race", "B",
    "Stmt", "Let", "Set", "When", "End", "Binder", "Choose", "Rule", "free_vars", "walk", "specialize",
    "specialize_block", "same_rule", "reads_of", "fields_of", "site_of",
]

RECORDS: tuple[type, ...] = (State, Execution, Segment, Attempt, Question, Warning, Artifact)

# The language's own modules: a statement's site is the first frame outside them (the rules, a draft).
_OWN = tuple(os.path.join(os.path.dirname(__file__), name) for name in ("lang.py", "deviate.py", "lowering.py"))


def _site() -> str:
    """`file:line` where the statement or rule being built was written: the nearest frame outside the
    language's own modules (and the dataclass constructors they generate)."""
    frame = sys._getframe(2)
    while frame is not None and (frame.f_code.co_filename in _OWN or frame.f_code.co_filename.startswith("<")):
        frame = frame.f_back
    return "" if frame is None else f"{frame.f_code.co_filename}:{frame.f_lineno}"


def site_of(item: Any) -> str:
    """Where a statement or rule was written (`file:line`), or "" where it is not known."""
    return getattr(item, "_where", "")


@dataclass(frozen=True)
class SeqOf:
    """The type of a sequence (a tuple) whose elements have type `item`."""

    item: Any


@dataclass(frozen=True)
class Opt:
    """The type of an optional record: a value, or none (`first` of a sequence where nothing matches)."""

    item: Any


class Expr:
    """A node of the expression tree: an operator `op`, its arguments `args`, and its type `t`.

    Types are int, bool, str, a record class (`Execution`, ...), `SeqOf(...)` or `Opt(...)`. Operators
    build new nodes; `==` does too, so an Expr is hashed by identity and never compared as a value.
    """

    __slots__ = ("op", "args", "t")
    __hash__ = object.__hash__

    def __init__(self, op: str, args: tuple[Any, ...], t: Any) -> None:
        self.op, self.args, self.t = op, args, t

    def __repr__(self) -> str:
        return f"{self.op}{self.args!r}"

    # Records: a field read.
    def __getattr__(self, name: str) -> Expr:
        if name.startswith("__"):
            raise AttributeError(name)
        t = self.t.item if isinstance(self.t, Opt) else self.t
        if t in RECORDS and name in t._fields:
            return Expr("field", (self, name), _FIELD_TYPES[t][name])
        raise AttributeError(f"{_type_name(self.t)} has no field {name!r}")

    def but(self, **changes: Any) -> Expr:
        """The record with some fields changed."""
        for name in changes:
            if name not in self.t._fields:
                raise AttributeError(f"{_type_name(self.t)} has no field {name!r}")
        return Expr("with", (self, tuple((k, lift(v)) for k, v in changes.items())), self.t)

    # Arithmetic and comparisons.
    def __add__(self, other: Any) -> Expr:
        other = lift(other, self.t)
        if isinstance(self.t, SeqOf):
            return Expr("concat", (self, other), self.t)
        return Expr("+", (self, other), int)

    def __radd__(self, other: Any) -> Expr:
        return lift(other, self.t) + self

    def __sub__(self, other: Any) -> Expr:
        return Expr("-", (self, lift(other)), int)

    def __rsub__(self, other: Any) -> Expr:
        return Expr("-", (lift(other), self), int)

    def __eq__(self, other: Any) -> Expr:  # type: ignore[override]
        return Expr("==", (self, lift(other, self.t)), bool)

    def __ne__(self, other: Any) -> Expr:  # type: ignore[override]
        return Expr("!=", (self, lift(other, self.t)), bool)

    def __lt__(self, other: Any) -> Expr:
        return Expr("<", (self, lift(other)), bool)

    def __le__(self, other: Any) -> Expr:
        return Expr("<=", (self, lift(other)), bool)

    def __gt__(self, other: Any) -> Expr:
        return Expr("<", (lift(other), self), bool)

    def __ge__(self, other: Any) -> Expr:
        return Expr("<=", (lift(other), self), bool)

    # Booleans.
    def __and__(self, other: Any) -> Expr:
        return Expr("and", (self, lift(other)), bool)

    def __rand__(self, other: Any) -> Expr:
        return Expr("and", (lift(other), self), bool)

    def __or__(self, other: Any) -> Expr:
        return Expr("or", (self, lift(other)), bool)

    def __ror__(self, other: Any) -> Expr:
        return Expr("or", (lift(other), self), bool)

    def __invert__(self) -> Expr:
        return Expr("not", (self,), bool)

    def one_of(self, *values: Any) -> Expr:
        """Is this value one of these constants?"""
        test = self == values[0]
        for value in values[1:]:
            test = test | (self == value)
        return test

    # Sequences.
    def __bool__(self) -> bool:
        raise TypeError("an Expr has no truth value until an engine evaluates it: use &, |, ~ and ite, not and, "
                        "or, not and if")

    def __len__(self) -> int:
        raise TypeError("use .size, not len(): an Expr has no length until an engine evaluates it")

    @property
    def size(self) -> Expr:
        return Expr("len", (self,), int)

    def at(self, index: Any) -> Expr:
        return Expr("at", (self, lift(index)), self.t.item)

    @property
    def last(self) -> Expr:
        return Expr("last", (self,), self.t.item)

    def append(self, item: Any) -> Expr:
        return Expr("append", (self, lift(item, self.t.item)), self.t)

    def prefix(self, n: Any) -> Expr:
        """The first n elements (all if fewer)."""
        return Expr("prefix", (self, lift(n)), self.t)

    def suffix(self, n: Any) -> Expr:
        """What follows the first n elements."""
        return Expr("suffix", (self, lift(n)), self.t)

    def insert(self, item: Any) -> Expr:
        """The segments with one more, in the order of their keys (e1, e2, ..., e10, then racing e1', ...)."""
        return Expr("insert", (self, lift(item, self.t.item)), self.t)

    def set_last(self, item: Any) -> Expr:
        """The sequence with its last element replaced (it has one)."""
        return Expr("set_last", (self, lift(item, self.t.item)), self.t)

    def contains(self, item: Any) -> Expr:
        return Expr("contains", (self, lift(item, self.t.item)), bool)

    def filter(self, test: Callable[[Expr], Any]) -> Expr:
        x = _bound(self.t.item)
        return Expr("filter", (self, x, lift(test(x))), self.t)

    def map(self, fn: Callable[[Expr], Any]) -> Expr:
        x = _bound(self.t.item)
        body = lift(fn(x))
        return Expr("map", (self, x, body), SeqOf(body.t))

    def count(self, test: Callable[[Expr], Any]) -> Expr:
        x = _bound(self.t.item)
        return Expr("count", (self, x, lift(test(x))), int)

    def any_of(self, test: Callable[[Expr], Any]) -> Expr:
        x = _bound(self.t.item)
        return Expr("any", (self, x, lift(test(x))), bool)

    def all_of(self, test: Callable[[Expr], Any]) -> Expr:
        x = _bound(self.t.item)
        return Expr("all", (self, x, lift(test(x))), bool)

    def total(self, fn: Callable[[Expr], Any]) -> Expr:
        x = _bound(self.t.item)
        return Expr("sum", (self, x, lift(fn(x))), int)

    def first(self, test: Callable[[Expr], Any]) -> Expr:
        """The first element that passes, or none."""
        x = _bound(self.t.item)
        return Expr("first", (self, x, lift(test(x))), Opt(self.t.item))

    def update_last(self, test: Callable[[Expr], Any], change: Callable[[Expr], Any]) -> Expr:
        """The sequence with the last element that passes replaced (unchanged if none passes)."""
        x = _bound(self.t.item)
        return Expr("update_last", (self, x, lift(test(x)), lift(change(x), self.t.item)), self.t)

    def update_where(self, test: Callable[[Expr], Any], change: Callable[[Expr], Any]) -> Expr:
        """The sequence with every element that passes replaced."""
        x = _bound(self.t.item)
        return Expr("update_where", (self, x, lift(test(x)), lift(change(x), self.t.item)), self.t)

    def fold(self, init: Any, step: Callable[[Expr, Expr], Any]) -> Expr:
        """step(...step(step(init, x1), x2)..., xn)."""
        start = lift(init)
        acc, x = _bound(start.t), _bound(self.t.item)
        return Expr("fold", (self, lift(start), acc, x, lift(step(acc, x), start.t)), start.t)

    def zip_all(self, other: Any, test: Callable[[Expr, Expr], Any]) -> Expr:
        """Does `test` hold of each pair of elements at the same position, as far as both sequences go?"""
        x, y = _bound(self.t.item), _bound(other.t.item)
        return Expr("zip_all", (self, other, x, y, lift(test(x, y))), bool)

    # Optional values.
    @property
    def is_none(self) -> Expr:
        return Expr("is_none", (self,), bool)


_counter = [0]


def _bound(t: Any) -> Expr:
    """A fresh variable, bound by a sequence operation."""
    _counter[0] += 1
    return Expr("var", (f"_x{_counter[0]}",), t)


def _type_name(t: Any) -> str:
    return getattr(t, "__name__", repr(t))


def _type_of(value: Any) -> Any:
    if isinstance(value, bool):
        return bool
    if isinstance(value, int):
        return int
    if isinstance(value, str):
        return str
    raise TypeError(f"no constant of {value!r}")


def lift(value: Any, like: Any = None) -> Expr:
    """An Expr as it is; a Python constant as a constant node (an empty tuple takes the type `like`)."""
    if isinstance(value, Expr):
        return value
    if isinstance(value, tuple):
        if value:
            raise TypeError("a constant sequence must be empty; build others with append")
        return Expr("const", ((),), like if isinstance(like, SeqOf) else SeqOf(int))
    return Expr("const", (value,), _type_of(value))


def var(name: str, t: Any) -> Expr:
    """A variable a binder, a choice or a `Let` gives a value."""
    return Expr("var", (name,), t)


def ite(test: Any, then: Any, otherwise: Any) -> Expr:
    """`then` if `test` holds, else `otherwise`."""
    a = lift(then)
    b = lift(otherwise, a.t)
    a = lift(then, b.t)
    return Expr("ite", (lift(test), a, b), a.t)


def pick(ambiguity: str, **values: Any) -> Expr:
    """The expression the reading's value of `ambiguity` names (keys: the values, '-' for '_')."""
    options = tuple((k.replace("_", "-"), lift(v)) for k, v in values.items())
    return Expr("pick", (ambiguity, options), options[0][1].t)


def reads(ambiguity: str, value: str) -> Expr:
    """Does the reading give `ambiguity` this value?"""
    return Expr("reads", (ambiguity, value), bool)


def new(record: type, *values: Any) -> Expr:
    """A new record, its fields in order (trailing fields with defaults may be left out)."""
    names = record._fields
    given = [lift(v, _FIELD_TYPES[record][n]) for v, n in zip(values, names, strict=False)]
    defaults = [lift(record._field_defaults[n], _FIELD_TYPES[record][n]) for n in names[len(values):]]
    return Expr("new", (record, tuple(given + defaults)), record)


def span(start: Any, stop: Any) -> Expr:
    """The integers start, start + 1, ..., stop - 1."""
    return Expr("span", (lift(start), lift(stop)), SeqOf(int))


def repeat(item: Any, n: Any) -> Expr:
    item = lift(item)
    return Expr("repeat", (item, lift(n)), SeqOf(item.t))


def minimum(a: Any, b: Any) -> Expr:
    return Expr("min", (lift(a), lift(b)), int)


def exec_id(n: Any) -> Expr:
    """The id of the n-th execution: e1, e2, ..."""
    return Expr("exec_id", (lift(n),), str)


def call_id(n: Any) -> Expr:
    """The id of an execution's n-th tool call: c1, c2, ..."""
    return Expr("call_id", (lift(n),), str)


def race_key(execution: Any) -> Expr:
    """The key of a racing second resume's segment of an execution (A-T7): e1 -> e1'."""
    return Expr("race_key", (lift(execution),), str)


def base_of(key: Any) -> Expr:
    """The execution a segment key belongs to: e1' -> e1."""
    return Expr("base_of", (lift(key),), str)


def is_race(key: Any) -> Expr:
    """Is this the key of a racing resume's segment?"""
    return Expr("is_race", (lift(key),), bool)


class _Bounds:
    """`B.calls` is the bound `calls` (resolved before any engine runs)."""

    def __getattr__(self, name: str) -> Expr:
        if name.startswith("__"):
            raise AttributeError(name)
        return Expr("bound", (name,), int)


B = _Bounds()


def _field_types() -> dict[type, dict[str, Any]]:
    seq_int = SeqOf(int)
    return {
        State: {"executions": SeqOf(Execution), "segments": SeqOf(Segment), "warnings": SeqOf(Warning),
                "artifacts": SeqOf(Artifact), "write_failures": int, "crashes": int, "crashed": seq_int,
                "new_turns": seq_int, "races": int},
        Execution: {"id": str, "session": int, "status": str, "calls": int, "attempts": SeqOf(Attempt),
                    "questions": SeqOf(Question), "held": seq_int, "messages": SeqOf(seq_int), "unhandled": int,
                    "write_failures": int, "node_failures": SeqOf(bool)},
        Segment: {"execution": str, "calls": int, "collected": seq_int, "write_failed": bool, "phase": str,
                  "taken": seq_int, "final": bool, "closing": str},
        Attempt: {"call": str, "status": str},
        Question: {"call": str, "status": str, "observations": int, "id": int},
        Warning: {"execution": str, "ref": int},
        Artifact: {"execution": str, "call": str},
    }


_FIELD_TYPES = _field_types()
assert all(tuple(types) == record._fields for record, types in _FIELD_TYPES.items()), \
    "lang._field_types lists every field of every record, in order"


# ---------------------------------------------------------------------------------------------
# Statements and rules


@dataclass(frozen=True)
class Let:
    """Give `name` the value `value` from here on (a later Let of the same name rebinds it)."""

    name: str
    value: Expr

    def __post_init__(self) -> None:
        object.__setattr__(self, "_where", _site())

    @property
    def ref(self) -> Expr:
        return var(self.name, self.value.t)


@dataclass(frozen=True)
class Set:
    """Set a field of the execution `e`, the segment `g` or the state `S` (a field read `target`)."""

    target: Expr
    value: Any

    def __post_init__(self) -> None:
        if self.target.op != "field" or self.target.args[0].op != "var":
            raise TypeError(f"Set needs a field of e, g or S, got {self.target!r}")
        object.__setattr__(self, "value", lift(self.value, self.target.t))
        object.__setattr__(self, "_where", _site())


@dataclass(frozen=True)
class When:
    """`then` if `test` holds, else `otherwise`."""

    test: Expr
    then: tuple[Stmt, ...]
    otherwise: tuple[Stmt, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "_where", _site())


@dataclass(frozen=True)
class End:
    """The segment `g` ends (it leaves the state)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "_where", _site())


Stmt = Let | Set | When | End


@dataclass(frozen=True)
class Binder:
    """What a rule ranges over: each session (`session`), each execution (`e`), each segment in flight
    (`g`, with its execution `e`, the racing resume's too), or the state once (`state`)."""

    name: str


@dataclass(frozen=True)
class Choose:
    """A parameter of the action, taken from a fixed domain in order (the guard may restrict it)."""

    name: str
    domain: Callable[[Any], tuple[Any, ...]]  # bounds -> the values, in order
    t: Any = bool

    @property
    def ref(self) -> Expr:
        return var(self.name, self.t)


@dataclass(frozen=True, eq=False)  # compared and hashed by identity: engines cache what they derive per rule
class Rule:
    """One action kind: what it ranges over, its parameters, when it is enabled, the action's fields,
    what it does, the clauses it enacts and a one-line doc."""

    action: type
    over: Binder
    guard: tuple[Expr, ...]  # a conjunction, in the order a reader (and the engines) test it
    fields: tuple[Expr, ...]  # the action's fields, in its dataclass order
    effect: tuple[Stmt, ...]
    clauses: tuple[str, ...]
    doc: str
    choose: tuple[Choose, ...] = field(default=())

    def __post_init__(self) -> None:
        object.__setattr__(self, "_where", _site())


# ---------------------------------------------------------------------------------------------
# Analysis shared by the engines


def walk(node: Any) -> Sequence[Expr]:
    """Every Expr in a tree (an Expr, a statement, or a tuple of them), parents first."""
    out: list[Expr] = []
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, Expr):
            out.append(item)
            stack.extend(reversed(item.args))
        elif isinstance(item, tuple):
            stack.extend(reversed(item))
        elif isinstance(item, (Let, Set, When)):
            stack.extend(reversed([getattr(item, f) for f in item.__dataclass_fields__]))
    return out


def free_vars(node: Any) -> frozenset[str]:
    """The names of the variables an expression reads that no operation inside it binds (the
    variables a sequence operation binds are named `_x<n>` and occur only inside it)."""
    return frozenset(x.args[0] for x in walk(node) if x.op == "var" and not x.args[0].startswith("_x"))




def same_rule(a: Rule, b: Rule) -> bool:
    """Do two rules say the same thing: the same action, binder, parameters, guard, fields and effect, read
    node by node (the variables a sequence operation binds matched up, whatever their fresh names)? Their
    docs and clause lists are not compared: they change what a reader is told, not what the rule does."""
    if a is b:
        return True
    renamed: dict[str, str] = {}
    return (a.action is b.action and a.over == b.over and len(a.choose) == len(b.choose)
            and all(_same_choice(x, y) for x, y in zip(a.choose, b.choose, strict=True))
            and _alike(a.guard, b.guard, renamed) and _alike(a.fields, b.fields, renamed)
            and _alike(a.effect, b.effect, renamed))


def _same_choice(x: Choose, y: Choose) -> bool:
    code = getattr(x.domain, "__code__", None), getattr(y.domain, "__code__", None)
    return x.name == y.name and x.t == y.t and (x.domain is y.domain or (
        code[0] is not None and code[1] is not None and code[0].co_code == code[1].co_code
        and code[0].co_consts == code[1].co_consts))


def _alike(x: Any, y: Any, renamed: dict[str, str]) -> bool:
    """Node by node, a bound variable `_x<n>` of one side matched with the other's at its first meeting."""
    if x is y:
        return True
    if isinstance(x, Expr) and isinstance(y, Expr):
        if x.op != y.op or x.t != y.t:
            return False
        if x.op == "var" and x.args[0].startswith("_x") and y.args[0].startswith("_x"):
            return renamed.setdefault(x.args[0], y.args[0]) == y.args[0]
        return _alike(x.args, y.args, renamed)
    if isinstance(x, tuple) and isinstance(y, tuple):
        return len(x) == len(y) and all(_alike(a, b, renamed) for a, b in zip(x, y, strict=True))
    if type(x) is not type(y):
        return False
    if isinstance(x, (Let, Set, When)):
        return all(_alike(getattr(x, f), getattr(y, f), renamed) for f in x.__dataclass_fields__)
    return isinstance(x, End) or x == y


def reads_of(rule: Rule) -> frozenset[str]:
    """The ambiguities a rule reads (its `reads` and `pick` nodes)."""
    nodes = walk((rule.guard, rule.fields, rule.effect))
    return frozenset(x.args[0] for x in nodes if x.op in ("reads", "pick"))


def fields_of(rule: Rule) -> tuple[frozenset[str], frozenset[str]]:
    """The record fields a rule reads (in its guard, fields and effect) and those it sets."""
    read = frozenset(x.args[1] for x in walk((rule.guard, rule.fields, rule.effect)) if x.op == "field")
    sets: list[str] = []
    stack: list[Any] = list(rule.effect)
    while stack:
        item = stack.pop()
        if isinstance(item, Set):
            sets.append(item.target.args[1])
        elif isinstance(item, When):
            stack.extend(item.then + item.otherwise)
    return read, frozenset(sets)


# ---------------------------------------------------------------------------------------------
# Specialisation: the bounds and the reading resolved, constants folded, dead branches dropped


def specialize(x: Expr, bounds: Any, reading: Any, values: dict[str, Any] | None = None) -> Expr:
    """The expression with bounds, the reading's choices and the given variables' `values` replaced by
    constants, and every operation on constants alone folded (so that a reading's dead branches vanish)."""
    values = values or {}

    def go(x: Any) -> Any:
        if not isinstance(x, Expr):
            return x
        op = x.op
        if op == "bound":
            return Expr("const", (getattr(bounds, x.args[0]),), int)
        if op == "reads":
            return Expr("const", (reading.value(x.args[0]) == x.args[1],), bool)
        if op == "pick":
            chosen = dict(x.args[1]).get(reading.value(x.args[0]))
            if chosen is None:
                raise KeyError(f"pick({x.args[0]}) names no expression for the value {reading.value(x.args[0])!r}")
            return go(chosen)
        if op == "var" and x.args[0] in values:
            return Expr("const", (values[x.args[0]],), x.t)
        args = tuple(_go_arg(a, go) for a in x.args)
        return _fold(Expr(op, args, x.t))

    return go(x)


def _go_arg(a: Any, go: Callable[[Any], Any]) -> Any:
    """An argument rebuilt: an Expr through `go`, a tuple (of Exprs, or of (name, Expr) pairs) item by item."""
    if isinstance(a, Expr):
        return go(a)
    if isinstance(a, tuple):
        return tuple(_go_arg(v, go) for v in a)
    return a


def _const(x: Any) -> bool:
    return isinstance(x, Expr) and x.op == "const"


_ARITH: dict[str, Callable[[Any, Any], Any]] = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b, "<=": lambda a, b: a <= b, "min": min,
}


def _fold(x: Expr) -> Expr:
    op, args = x.op, x.args
    if op in _ARITH and _const(args[0]) and _const(args[1]):
        return Expr("const", (_ARITH[op](args[0].args[0], args[1].args[0]),), x.t)
    # Every integer of the model (a count, a length, a bound, an id's number) is at least 0.
    if op == "<" and _const(args[1]) and args[1].args[0] == 0:
        return Expr("const", (False,), bool)
    if op == "<=" and _const(args[0]) and args[0].args[0] == 0 and args[1].t is int:
        return Expr("const", (True,), bool)
    if op in ("+", "-") and _const(args[1]) and args[1].args[0] == 0:
        return args[0]
    if op == "==" and args[0].t is bool and _const(args[0]):
        return args[1] if args[0].args[0] else Expr("not", (args[1],), bool)
    if op == "not" and _const(args[0]):
        return Expr("const", (not args[0].args[0],), bool)
    if op in ("and", "or"):
        absorbing = op == "or"  # True absorbs an `or`, False an `and`
        for a, b in ((args[0], args[1]), (args[1], args[0])):
            if _const(a):
                return a if a.args[0] == absorbing else b
    if op == "ite" and _const(args[0]):
        return args[1] if args[0].args[0] else args[2]
    if op in ("concat",):
        if _const(args[0]) and args[0].args[0] == ():
            return args[1]
        if _const(args[1]) and args[1].args[0] == ():
            return args[0]
    return x


def specialize_block(stmts: tuple[Any, ...], bounds: Any, reading: Any,
                     values: dict[str, Any] | None = None) -> tuple[Any, ...]:
    """The statements specialised as `specialize` does, a `When` on a constant replaced by its branch."""
    out: list[Any] = []
    for st in stmts:
        if isinstance(st, Let):
            out.append(Let(st.name, specialize(st.value, bounds, reading, values)))
        elif isinstance(st, Set):
            out.append(Set(st.target, specialize(st.value, bounds, reading, values)))
        elif isinstance(st, When):
            test = specialize(st.test, bounds, reading, values)
            then = specialize_block(st.then, bounds, reading, values)
            otherwise = specialize_block(st.otherwise, bounds, reading, values)
            if _const(test):
                out.extend(then if test.args[0] else otherwise)
            else:
                out.append(When(test, then, otherwise))
        else:
            out.append(st)
    return tuple(out)
