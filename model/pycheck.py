"""The explicit engine's form of the properties: each formula (`formulas.py`) compiled to a Python test.

`compiled_for(bounds)` writes one Python function per formula (and per action kind, for a step's
formula, whose `kind(...)` and missing fields are constants there), with the code generator of the
successor function (`pygen.py`), and compiles them once per bounds:
- `state[name](s)`: does the invariant hold in the state?
- `each[name](x)`: does the invariant of each execution record hold of this record?
- `step[name, kind](s, a, p)`: does the step from `s` by the action `a` to `p` keep the transition
  property (or, for a witness, show it)?
`source(bounds)` shows the code.

A search calls one screen per state and one per step instead (`all_hold`, `attention`): the formulas
joined into one expression, in which the tests of every element of one sequence (of every pair of two)
that several formulas make are one walk (`_merged`), so that a step that changed one execution record
pays one loop over the records, not one per frame condition.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .formulas import ACT_FIELDS, ACTION_KINDS, FORMULAS, step_values
from .lang import Expr, specialize, var
from .prebuilt import namespace
from .pygen import _NAMESPACE, _Env, _safe, _same, _Writer
from .reading import CONFORMANT

__all__ = ["Tests", "compiled_for", "compiled_expr", "compiled_step_expr", "compiled_all", "source"]

_ENV = {"S": "s", "P": "p", "x": "x", **{f"act.{f}": f"a.{f}" for f in ACT_FIELDS}}


@dataclass(frozen=True)
class Tests:
    """The compiled tests of every formula under one set of bounds (a step's, per action kind, on first use)."""

    bounds: Any
    state: dict[str, Callable[[Any], bool]]
    each: dict[str, Callable[[Any], bool]]
    steps: dict[tuple[str, type], Callable[[Any, Any, Any], bool]]

    screens: dict[Any, Callable[..., bool]]

    def step(self, name: str, kind: type) -> Callable[[Any, Any, Any], bool]:
        """The test of a step's formula on steps of this action kind."""
        found = self.steps.get((name, kind))
        if found is None:
            w = _Writer(hoist=True)
            _function(w, "step", "s, a, p", FORMULAS[name].expr, self.bounds, step_values(kind))
            found = self.steps[name, kind] = _compile("\n".join(w.lines) + "\n")["step"]
        return found

    def all_hold(self, names: tuple[str, ...], each: bool = False) -> Callable[[Any], bool]:
        """One test that every invariant named holds in a state (of a record, with `each`: their `each`
        formulas), written as one expression so that a search pays one call, not one per invariant."""
        key = (names, each)
        found = self.screens.get(key)
        if found is None:
            formulas = [FORMULAS[n].each if each else FORMULAS[n].expr for n in names]
            found = self.screens[key] = _combined(self.bounds, "x" if each else "s", formulas, [])
        return found

    def attention(self, keep: tuple[str, ...], show: tuple[str, ...], kind: type,
                  stutter: bool = False) -> Callable[[Any, Any, Any], bool]:
        """One test of a step of this kind: does it break a transition property of `keep`, or show a witness
        of `show`? (Only then need a search look at them one by one.) It takes a step check's arguments.
        With `stutter`, for steps that change nothing: each formula read with the state after as the state
        before, so that what both sides compute is computed once."""
        key = (keep, show, kind, stutter)
        found = self.screens.get(key)
        if found is None:
            values = step_values(kind)
            same = _unchanged if stutter else (lambda x: x)
            found = self.screens[key] = _combined(self.bounds, "s, a, p, ctx=None",
                                                  [same(FORMULAS[n].expr) for n in keep],
                                                  [same(FORMULAS[n].expr) for n in show], values)
        return found


def _combined(bounds: Any, params: str, hold: list[Any], show: list[Any],
              values: dict[str, Any] | None = None) -> Callable[..., bool]:
    """A function of `params`. Of a state or a record: do all of `hold` hold? Of a step (`s, a, p`):
    does it break one of `hold` or show one of `show`, where a search must look at them one by one?"""
    w = _Writer(hoist=True)
    merged = _merged([_specialized(x, bounds, values) for x in hold])
    held = " and ".join(w.expr(x, _Env(dict(_ENV))) for x in merged) or "True"
    shown = " or ".join(_code(w, x, bounds, values) for x in show) or "False"
    _define(w, "combined", params, f"return (not ({held})) or {shown}" if "p" in params else f"return {held}")
    return _compile("\n".join(w.lines) + "\n")["combined"]


_UNCHANGED: dict[Any, Any] = {}  # a formula -> its form on a step that changes nothing


def _unchanged(x: Any) -> Any:
    """A step formula read on a step that changes nothing: the state after (`P`) is the state before (`S`)."""
    found = _UNCHANGED.get(x)
    if found is None:
        found = _UNCHANGED[x] = _replaced(x)
    return found


def _replaced(x: Any) -> Any:
    if not isinstance(x, Expr):
        return tuple(_replaced(a) for a in x) if isinstance(x, tuple) else x
    if x.op == "var" and x.args[0] == "P":
        return var("S", x.t)
    return Expr(x.op, tuple(_replaced(a) for a in x.args), x.t)


def _compile(code: str) -> dict[str, Any]:
    return namespace(code, "<pausecheck properties>", _NAMESPACE)


def _function(w: _Writer, name: str, params: str, x: Any, bounds: Any, values: dict[str, Any] | None = None) -> None:
    _define(w, name, params, f"return {_code(w, x, bounds, values)}")


_SPECIALIZED: dict[tuple[Any, ...], Any] = {}  # (the formula, bounds, values) -> its specialized form


def _code(w: _Writer, x: Any, bounds: Any, values: dict[str, Any] | None = None) -> str:
    return w.expr(_specialized(x, bounds, values), _Env(dict(_ENV)))


def _specialized(x: Any, bounds: Any, values: dict[str, Any] | None = None) -> Expr:
    key = (x, bounds, tuple(sorted((values or {}).items())))  # a formula is hashed by identity
    found = _SPECIALIZED.get(key)
    if found is None:
        if len(_SPECIALIZED) >= 4096:
            _SPECIALIZED.clear()
        found = _SPECIALIZED[key] = specialize(x, bounds, CONFORMANT, values)
    return found


def _merged(formulas: list[Expr]) -> list[Expr]:
    """The conjuncts of the formulas, in order, with the tests of every element of one sequence (`all`) or
    every pair of two (`zip_all`) joined into one test where the first of them stands, so that the
    sequences are walked once. A test moves there only if it cannot fail (`_safe`) or comes first in its
    own formula: evaluated earlier than before, it could otherwise fail where a conjunct before it
    would have stopped the evaluation."""
    out: list[Expr] = []
    for formula in formulas:
        for k, x in enumerate(_conjuncts(formula)):
            if x.op == "const" and x.args[0] is True:
                continue
            into = next((j for j, y in enumerate(out) if y.op == x.op and x.op in _WALKS and (k == 0 or _safe(x))
                         and _same(x.args[:_WALKS[x.op]], y.args[:_WALKS[x.op]], {})), None)
            if into is None:
                out.append(x)
            else:
                out[into] = _joined(out[into], x)
    return out


_WALKS = {"all": 1, "zip_all": 2}  # the operations whose tests can be joined: how many sequences they walk


def _conjuncts(x: Expr) -> list[Expr]:
    return _conjuncts(x.args[0]) + _conjuncts(x.args[1]) if x.op == "and" else [x]


def _joined(first: Expr, second: Expr) -> Expr:
    """One walk of the sequences of two `all`s (two `zip_all`s) over the same: both tests, the second's
    variables renamed to the first's."""
    n = _WALKS[first.op]
    names = {b.args[0]: a.args[0] for a, b in zip(first.args[n:-1], second.args[n:-1], strict=True)}
    return Expr(first.op, first.args[:-1] + (Expr("and", (first.args[-1], _renamed(second.args[-1], names)), bool),),
                bool)


def _renamed(x: Any, names: dict[str, str]) -> Any:
    """An expression with the variables of `names` renamed."""
    if isinstance(x, tuple):
        return tuple(_renamed(a, names) for a in x)
    if not isinstance(x, Expr):
        return x
    if x.op == "var":
        return Expr("var", (names.get(x.args[0], x.args[0]),) + x.args[1:], x.t) if x.args[0] in names else x
    return Expr(x.op, _renamed(x.args, names), x.t)


# The parameters' types, for a compiler that reads them (a build's mypyc, `checks/build.py`); free in `exec`.
_TYPES = {"s": "State", "p": "State", "x": "Execution"}


def _define(w: _Writer, name: str, params: str, result: str) -> None:
    """A function of `params` returning `result`, the lookups it hoisted computed first."""
    typed = ", ".join(f"{p}: {_TYPES[p]}" if p in _TYPES else p for p in params.split(", "))
    w.line(0, f"def {name}({typed}):")
    if params.startswith("s"):
        w.line(1, "executions = s[0]")
        w.line(1, "segments = s[1]")
    for line in w.preamble():
        w.line(1, line)
    w.line(1, result)


def _write(bounds: Any, kinds: tuple[type, ...] = ()) -> tuple[str, dict[str, str], dict[str, str]]:
    """The code of every state formula's test (and, for each of `kinds`, every step formula's)."""
    w = _Writer(hoist=True)
    state, each = {}, {}
    for k, f in enumerate(FORMULAS.values()):
        if f.step:
            for kind in kinds:
                _function(w, f"step_{k}_{kind.__name__}", "s, a, p", f.expr, bounds, step_values(kind))
            continue
        state[f.name] = f"state_{k}"
        _function(w, state[f.name], "s", f.expr, bounds)
        if f.each is not None:
            each[f.name] = f"each_{k}"
            _function(w, each[f.name], "x", f.each, bounds)
    return "\n".join(w.lines) + "\n", state, each


def source(bounds: Any, kinds: tuple[type, ...] = ACTION_KINDS) -> str:
    """The Python source of every property's test under these bounds (step formulas for each of `kinds`)."""
    return _write(bounds, kinds)[0]


_COMPILED: dict[Any, Tests] = {}


def compiled_for(bounds: Any) -> Tests:
    """The compiled tests of every formula under these bounds (compiled once, then cached)."""
    found = _COMPILED.get(bounds)
    if found is None:
        code, state, each = _write(bounds)
        namespace = _compile(code)
        found = Tests(bounds, {n: namespace[f] for n, f in state.items()}, {n: namespace[f] for n, f in each.items()},
                      {}, {})
        if len(_COMPILED) >= 64:
            _COMPILED.clear()
        _COMPILED[bounds] = found
    return found


def compiled_expr(x: Any, bounds: Any) -> Callable[[Any], Any]:
    """Any expression over the state `S`, compiled to a function of a state (for engines that sample the
    reachable states: `checks/symbolic/candidates.py`)."""
    w = _Writer(hoist=True)
    _function(w, "value", "s", x, bounds)
    return _compile("\n".join(w.lines) + "\n")["value"]


def compiled_step_expr(x: Any, bounds: Any, kind: type) -> Callable[[Any, Any, Any], Any]:
    """Any expression over a step (`S`, `P`, `act`, `kind`), compiled to a function of (pre, action, post) for
    steps of this action kind (`blame.py`)."""
    w = _Writer(hoist=True)
    _function(w, "value", "s, a, p", x, bounds, step_values(kind))
    return _compile("\n".join(w.lines) + "\n")["value"]


def compiled_all(xs: list[Any], bounds: Any) -> Callable[[Any], bool]:
    """One test that every expression over the state `S` of `xs` holds, their walks over one sequence joined
    (`_merged`), so that a screen of many candidate invariants pays one loop per sequence, not one each."""
    return _combined(bounds, "s", xs, [])
