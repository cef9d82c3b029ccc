"""The properties as Promela: what pan checks beside the rules, each reported once by a failed `assert`.

The properties are data in the rule language (`model/formulas.py`'s `FORMULAS`, or until it lands the
stand-ins of `checks/spin/properties.py`), each with a `name`, a `kind` and a boolean `expr`; they are
lowered with the algebra the rules use (`code.py`, `checks/symbolic/relation.py`'s `Lower`):

- `always` (free variable `S`, the state): one option of the loop of its own, enabled exactly in a state
  that breaks it: `!(expr)`, a pure expression evaluated once per state; its body fails
  `assert(holds_<name>)`. Its step leaves the state as it is (no state is added; a transition is).
- `transition` (also `P`, the post-state; `act.<field>`, a field of the step's action, read as a neutral
  constant ("", 0, False) where the action has no such field; `kind:<Action>`, whether the step is of
  that kind, a constant per rule (`model/formulas.py`'s `act` and `kind`); and the variables the step's
  rule binds: `e`, `g`, `run`, `session`, the parameters): checked inside every step whose rule binds what
  it reads (and is one of its `on` action kinds, if it names any), after the successor is computed and
  before any variable is written: the pre-state is still in the variables, the post-state in
  temporaries, so nothing is copied.
- `sometimes` (a witness): the same places, reached rather than broken: `assert(witness_<name>)` fails
  where it first holds, which pan reports like a violation, with its trail.
- deadlock: an option enabled in a state that is not final (`Machine.is_final`: every session ran its
  turns, every execution finished) where no rule moves (a poll, or a late answer, changes nothing):
  `assert(holds_deadlock)`. Every state is a valid end state of the process, so pan's own end-state check
  never fires: a final state is valid, a stuck one is this assertion.

Each report happens once: a hidden flag `_r[k]` (not in the state vector: it changes no state) is set
the first time, so that with `-c0` pan goes on to find every other property broken or witnessed and
writes one trail each (`-e`).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pausecheck.model.config import Bounds
from pausecheck.model.lang import Expr, free_vars, specialize, walk
from pausecheck.model.reading import Reading
from pausecheck.model.rules import S
from pausecheck.model.state import CANCELLED, COMPLETED, FAILED

from ..symbolic.relation import Lower
from .code import Code, text
from .promela import Move

__all__ = ["Assertions", "ALWAYS", "TRANSITION", "SOMETIMES", "DEADLOCK", "final_expr", "flag_name"]

ALWAYS, TRANSITION, SOMETIMES = "always", "transition", "sometimes"
DEADLOCK = "deadlock"
STEP_VARS = frozenset({"S", "P", "e", "g", "run", "session"})
STEP_PREFIXES = ("act.", "kind:")  # the step's action's fields and kind (`model/formulas.py`)
_NEUTRAL = {str: "", int: 0, bool: False}
GUARD = 4_000  # characters: a state check longer than this is computed with temporaries, not as a guard


def final_expr(bounds: Bounds) -> Expr:
    """`Machine.is_final` in the rule language: every session ran its turns, every execution finished."""
    ran = S.executions.size - S.new_turns.size == bounds.sessions * bounds.turns
    return ran & S.executions.all_of(lambda x: x.status.one_of(COMPLETED, FAILED, CANCELLED))


def flag_name(kind: str, name: str) -> str:
    """The hidden variable a report asserts (always 0): its name is what pan prints (a Promela identifier)."""
    return f"{'witness' if kind == SOMETIMES else 'holds'}_{re.sub(r'[^A-Za-z0-9_]', '_', name)}"


@dataclass
class Assertions:
    """The checks of one search (see the module's doc): `properties` are objects with `name`, `kind` and
    `expr` (and optionally `on`, the action kinds a transition property or witness looks at)."""

    bounds: Bounds
    reading: Reading
    properties: Sequence[Any]
    deadlock: bool = True
    reports: list[tuple[str, str]] = field(default_factory=list)  # (kind, name) by report index `_r[k]`
    skipped: dict[str, str] = field(default_factory=dict)  # name -> why pan does not check it

    def __post_init__(self) -> None:
        self.moves = self.deadlock
        self._scratch = self._heavy = 0
        self._exprs: dict[str, Expr] = {}
        for p in self.properties:
            if p.kind not in (ALWAYS, TRANSITION, SOMETIMES):
                self.skipped[p.name] = f"a {p.kind} property (the Python engine judges it)"
                continue
            expr = specialize(p.expr, self.bounds, self.reading)
            extra = {v for v in free_vars(expr) if p.kind == ALWAYS or not v.startswith(STEP_PREFIXES)} \
                - (STEP_VARS if p.kind != ALWAYS else {"S"})
            if extra:
                self.skipped[p.name] = f"reads {', '.join(sorted(extra))}, which no step binds"
                continue
            self._exprs[p.name] = expr
            self.reports.append((p.kind, p.name))
        if self.deadlock:
            self.reports.append((DEADLOCK, DEADLOCK))
        self._final = specialize(final_expr(self.bounds), self.bounds, self.reading)

    def _index(self, name: str) -> int:
        return next(k for k, (_kind, n) in enumerate(self.reports) if n == name)

    def _state_only(self, p: Any) -> bool:
        """Is it checked on states (an option of its own), not inside steps? An invariant; a witness of a
        state, which names no action kind (`on`), is not a step formula (`step`) and reads only `S`."""
        if p.kind == ALWAYS:
            return True
        stepwise = bool(getattr(p, "on", ())) or getattr(p, "step", False)
        return p.kind == SOMETIMES and not stepwise and free_vars(self._exprs[p.name]) <= {"S"}

    def declarations(self) -> list[str]:
        """The report flags and the names pan prints (hidden: outside the state vector)."""
        out = [f"hidden byte _r[{max(len(self.reports), 1)}];  /* the reports made: each property once */",
               f"hidden int _c[{max(self._scratch, 1)}];  /* the temporaries of the deadlock check */",
               f"hidden int _i[{max(self._heavy, 1)}];  /* the temporaries of the long state checks */"]
        out += [f"hidden byte {flag_name(kind, name)};" for kind, name in self.reports]
        return out

    def _report(self, kind: str, name: str) -> str:
        k = self._index(name)
        return f"_r[{k}] = 1; assert({flag_name(kind, name)})"

    def step(self, code: Code, L: Lower, rule: Any, env: dict[str, Any], pre: Any, post: Any,
             fields: tuple[Any, ...]) -> list[str]:
        """The checks of one step (transition properties, and witnesses that read the step), as statements;
        `fields` are the action's fields (specialised expressions, in the order of its dataclass)."""
        out = []
        names = [f.name for f in dataclasses.fields(rule.action)]
        field_of = {f"act.{n}": x for n, x in zip(names, fields, strict=True)}
        acts: dict[str, Any] = {}  # the fields read so far, lowered once (a field no check reads adds no code)
        for p in self.properties:
            if p.name not in self._exprs or p.kind == ALWAYS or self._state_only(p):
                continue
            on = getattr(p, "on", ()) or ()
            expr = self._of_step(self._exprs[p.name], rule.action, names)
            if (on and rule.action not in on) or not free_vars(expr) <= set(env) | set(field_of) | {"P"}:
                continue
            for v in free_vars(expr) & set(field_of) - set(acts):
                acts[v] = L.expr(field_of[v], env)
            value = L.expr(expr, {**env, **acts, "S": pre, "P": post})
            shows = value if p.kind == SOMETIMES else code.neg(value)
            if code.known(shows) is False:
                continue
            k = self._index(p.name)
            out.append(f"if :: (!_r[{k}] && {text(shows)}) -> {self._report(p.kind, p.name)} :: else -> skip fi")
        return out

    def _of_step(self, expr: Expr, action: type, names: list[str]) -> Expr:
        """The expression for a step of this action kind: `kind:<K>` and the fields it lacks as constants."""
        values = {}
        for v in free_vars(expr):
            if v.startswith("kind:"):
                values[v] = v[len("kind:"):] == action.__name__
            elif v.startswith("act.") and v[len("act."):] not in names:
                values[v] = None
        if not values:
            return expr
        typed = {x.args[0]: x.t for x in walk(expr) if x.op == "var" and x.args[0] in values}
        values = {v: _NEUTRAL[typed[v]] if value is None else value for v, value in values.items()}
        return specialize(expr, self.bounds, self.reading, values)

    def options(self, pure: Code, L: Lower, pre: Any, moves: list[Move]) -> list[tuple[str, list[str]]]:
        """The options of the state checks: always properties and witnesses of a state, each an option
        enabled exactly where it shows, when its test is short (GUARD characters); the longer ones together in
        one option, enabled until each is reported, whose body computes them with temporaries (`_i`: a pure
        expression of `no_loss` under faults runs to megabytes); then deadlock."""
        out, heavy = [], []
        for p in self.properties:
            if p.name not in self._exprs or not self._state_only(p):
                continue
            trial = Code(emit=True, array="_i", long=GUARD)
            value = Lower(trial, L.caps).expr(self._exprs[p.name], {"S": pre})
            if trial.used:
                heavy.append(p)
                continue
            shows = value if p.kind == SOMETIMES else trial.neg(value)
            if trial.known(shows) is not False:
                out.append((p.name, self._body(p.kind, p.name, shows)))
        if heavy:
            out.append((", ".join(p.name for p in heavy), self._together(L, pre, heavy)))
        if self.deadlock:
            out.append((DEADLOCK, self._stuck(pure, L, pre, moves)))
        return out

    def _together(self, L: Lower, pre: Any, heavy: list[Any]) -> list[str]:
        """One option for the state checks whose tests are long: enabled while one of them is unreported (a
        step that leaves the state as it is, once in each state), computing them with temporaries."""
        code = Code(emit=True, array="_i")
        tests = []
        for p in heavy:
            value = Lower(code, L.caps).expr(self._exprs[p.name], {"S": pre})
            tests.append((p, value if p.kind == SOMETIMES else code.neg(value)))
        self._heavy = code.used
        pending = " || ".join(f"!_r[{self._index(p.name)}]" for p in heavy)
        body = [f"        {statement};" for statement in code.statements]
        body += [f"        if :: (!_r[{self._index(p.name)}] && {text(shows)}) -> {self._report(p.kind, p.name)} "
                 f":: else -> skip fi;" for p, shows in tests if code.known(shows) is not False]
        body[-1] = body[-1].removesuffix(";") if body else body
        return [f"        ({pending}) ->", *body] if body else [f"        ({pending}) -> skip"]

    def _stuck(self, pure: Code, L: Lower, pre: Any, moves: list[Move]) -> list[str]:
        """The deadlock check: enabled where the state is not final and no option that always changes the
        state is enabled (a pure guard: a disjunction of guards); its body then tells, with temporaries of
        its own (`_c`), whether an option that may leave the state as it is (a late answer) changes it."""
        certain = [m.guard for m in moves if m.known is True]
        guard = pure.conj(pure.neg(L.expr(self._final, {"S": pre})), pure.neg(pure.disj(*certain)))
        code = Code(emit=True, array="_c")
        moving = code.disj(*[code.conj(m.guard, m.changes(code)) for m in moves if m.known is None])
        self._scratch = code.used
        k = self._index(DEADLOCK)
        test = f"(!_r[{k}] && {text(guard)})"
        if code.known(moving) is True:
            return [f"        {test} -> skip"]
        body = [f"        {statement};" for statement in code.statements]
        return [f"        {test} ->", *body,
                f"        if :: !{text(moving) if code.known(moving) is None else int(moving)} -> "
                f"{self._report(DEADLOCK, DEADLOCK)} :: else -> skip fi"]

    def _body(self, kind: str, name: str, shows: Any) -> list[str]:
        k = self._index(name)
        return [f"        (!_r[{k}] && {text(shows)}) ->", f"        {self._report(kind, name)}"]
