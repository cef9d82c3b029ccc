"""k-induction: the key properties proved for behaviours of any length.

The universe fixes the sessions, the tool calls of one execution and the artifacts; pauses, resumes,
failing write-backs and repeated observations are unbounded (a call pauses at most once, since only a
first attempt can ask, so questions are bounded by calls). A property is proved when it holds in the
initial state (base) and, together with the strengthening invariants below, is kept by every step from
any state where they all hold (the inductive step, over k steps). The strengthening invariants are
proved the same way, with the property that every enabled step fits the universe, so the capacities
never hide a behaviour. A goal that fails the step comes with its counterexample to induction.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import z3
from pausecheck.model.config import Bounds
from pausecheck.model.property import ALWAYS
from pausecheck.model.state import (
    APPROVED,
    CANCELLED,
    COMPLETED,
    DECLINED,
    FAILED,
    INTERRUPTED,
    PAUSED,
    PENDING,
    PUT_BACK,
    RUNNING,
    TAKEN,
    WORKING,
    WRITE_FAILED,
    State,
)

from .bmc import KIND, Unrolling
from .properties import holds, places, step_holds
from .rules import Move, Semantics, finished, running
from .state import SExecution, SState, Universe, code, decode, initial
from .vec import Vec, num

__all__ = ["KEY", "Invariant", "STRENGTHENING", "FITS", "Proof", "Outcome", "prove", "induction_semantics", "lemmas"]

# The six key properties: no double delivery, no loss, held never on the wire, no phantom failure (an
# interrupt is recorded interrupted, not failed), no phantom pause, one question per pause.
KEY: tuple[str, ...] = ("no_double_delivery", "no_loss", "held_hidden", "interrupted_not_failed", "no_phantom_pause",
                        "one_question_per_pause")
FITS = "fits_universe"  # every enabled step leads to a state the universe holds


@dataclass(frozen=True, slots=True)
class Invariant:
    """A strengthening invariant: named, explained, and proved like the properties it supports."""

    name: str
    doc: str
    term: Callable[[Semantics, SState], z3.BoolRef]


def _each(s: SState, test: Callable[[SExecution, int], z3.BoolRef]) -> z3.BoolRef:
    """`test` of every execution that exists (slot i holds e{i+1})."""
    return z3.And([z3.Implies(i < s.n_executions, test(e, i)) for i, e in enumerate(s.executions)])


def _one_of(term: z3.ArithRef, *words: str) -> z3.BoolRef:
    return z3.Or([term == code(w) for w in words])


def _refs(v: Vec, s: SState) -> z3.BoolRef:
    return v.all(lambda r: z3.And(r[0] >= 1, r[0] <= s.artifacts.length))


def _typed(m: Semantics, s: SState) -> z3.BoolRef:
    def execution(e: SExecution, i: int) -> z3.BoolRef:
        return z3.And(
            e.session >= 1, e.session <= m.bounds.sessions, _one_of(e.status, RUNNING, PAUSED, COMPLETED, FAILED),
            e.calls <= m.universe.calls,
            e.attempts.all(lambda a: z3.And(a[0] >= 1, a[0] <= e.calls,
                                            _one_of(a[1], RUNNING, COMPLETED, FAILED, INTERRUPTED, CANCELLED))),
            z3.And([z3.Implies(e.questions.present(j), z3.And(q[0] >= 1, q[0] <= e.calls, q[3] == j + 1,
                                                              _one_of(q[1], PENDING, APPROVED, DECLINED)))
                    for j, q in enumerate(e.questions.items)]),
            _refs(e.held, s), *[_refs(msg, s) for msg in e.messages],
            e.node_failures.all(lambda r: z3.Or(r[0] == 0, r[0] == 1)))
    segments = [z3.Implies(g.live, z3.And(_one_of(g.phase, WORKING, TAKEN, WRITE_FAILED, PUT_BACK),
                                          _refs(g.collected, s), _refs(g.taken, s)))
                for g in s.segments]
    return z3.And(_each(s, execution), *segments,
                  s.artifacts.all(lambda a: z3.And(a[0] >= 1, a[0] <= s.n_executions)),
                  s.warnings.all(lambda w: z3.And(w[0] >= 1, w[0] <= s.n_executions, w[1] >= 1,
                                                  w[1] <= s.artifacts.length)))


def _segments_run(m: Semantics, s: SState) -> z3.BoolRef:
    return z3.And([z3.If(i < s.n_executions, g.live == (e.status == code(RUNNING)), z3.Not(g.live))
                   for i, (e, g) in enumerate(zip(s.executions, s.segments, strict=True))])


def _attempts(m: Semantics, s: SState) -> z3.BoolRef:
    def execution(e: SExecution, i: int) -> z3.BoolRef:
        g = s.segments[i]
        busy, call = running(e)
        one = e.attempts.count(lambda a: a[1] == code(RUNNING)) <= 1
        last = e.attempts.last_where(lambda a: a[0] == call)[1]
        interrupted = e.attempts.count(lambda a: a[1] == code(INTERRUPTED))
        asked = e.questions.last()
        approved = e.questions.count(lambda q: q[1] == code(APPROVED))
        return z3.And(
            one, z3.Implies(busy, z3.And(g.phase == code(WORKING), z3.Not(g.write_failed), last[1] == code(RUNNING))),
            e.attempts.length == e.calls + approved,
            z3.If(e.status == code(PAUSED), z3.And(interrupted == 1, z3.Not(busy),
                                                   e.attempts.any(lambda a: z3.And(a[0] == asked[0],
                                                                                   a[1] == code(INTERRUPTED)))),
                  interrupted == 0),
            z3.Implies(finished(e.status), z3.Not(busy)))
    return _each(s, execution)


def _questions(m: Semantics, s: SState) -> z3.BoolRef:
    def execution(e: SExecution, i: int) -> z3.BoolRef:
        rows = list(enumerate(e.questions.items))
        distinct = [z3.Implies(e.questions.present(k), q[0] != p[0]) for k, q in rows for _, p in rows[:k]]
        only_last = [z3.Implies(z3.And(e.questions.present(j), j + 1 < e.questions.length), q[1] != code(PENDING))
                     for j, q in rows]
        first_attempts = []
        for j, q in rows:
            mine = lambda status, c=q[0]: e.attempts.count(lambda a: z3.And(a[0] == c, a[1] == code(status)))  # noqa: E731
            pending = q[1] == code(PENDING)
            first_attempts.append(z3.Implies(e.questions.present(j), z3.And(
                e.attempts.count(lambda a, c=q[0]: a[0] == c) == z3.If(q[1] == code(APPROVED), num(2), num(1)),
                mine(INTERRUPTED) == z3.If(pending, num(1), num(0)),
                mine(CANCELLED) == z3.If(pending, num(0), num(1)))))
        return z3.And(*distinct, *only_last, *first_attempts, e.questions.length <= e.calls)
    return _each(s, execution)


def _write_back(m: Semantics, s: SState) -> z3.BoolRef:
    def execution(e: SExecution, i: int) -> z3.BoolRef:
        g = s.segments[i]
        taking = z3.And(g.live, _one_of(g.phase, TAKEN, WRITE_FAILED))
        return z3.And(
            z3.Implies(taking, e.held.length == 0),
            z3.Implies(z3.And(g.live, g.phase == code(PUT_BACK)), g.taken.length == 0),
            z3.Implies(z3.And(g.live, g.phase == code(WORKING)), g.taken.length == 0),
            g.taken.length <= m.bounds.held_bound, e.held.length <= m.bounds.held_bound,
            z3.Implies(z3.Not(finished(e.status)), e.n_messages <= m.bounds.interim_writes),
            z3.Implies(z3.And(g.live, z3.Or(g.phase != code(WORKING), g.write_failed), z3.Not(g.final)),
                       e.n_messages < m.bounds.interim_writes))
    return _each(s, execution)


def _fresh(m: Semantics, s: SState) -> z3.BoolRef:
    return z3.And([z3.Implies(r > s.artifacts.length, places(s, r) == 0) for r in range(1, m.universe.artifacts + 1)])


STRENGTHENING: tuple[Invariant, ...] = (
    Invariant("typed", "every field holds a value of its type: statuses, phases, call numbers, refs of "
              "artifacts that exist, executions that exist", _typed),
    Invariant("segment_iff_running", "an execution has a segment in flight exactly when it is running", _segments_run),
    Invariant("attempt_trail", "at most one attempt runs, and it is its call's latest, in a segment free to work; a "
              "paused execution has exactly one interrupted attempt, of its latest question's call, any other none; "
              "attempts are the calls plus one per approval", _attempts),
    Invariant("questions_per_call", "each question is about a different call, only the latest may be pending; "
              "its call has one attempt, interrupted while the question is pending and cancelled once it is settled, "
              "and a second one once approved", _questions),
    Invariant("write_back_shape", "while a write-back holds what it took the held list is empty; only a write-back "
              "holds anything taken; held and taken lists within the bound; a live execution has written only "
              "interim messages, and an interim write-back under way has room for its message", _write_back),
    Invariant("calls_by_segment", "an execution has issued at most the calls of its segments: a bound's worth per "
              "settled question, plus those of the segment in flight (or a bound's worth, if paused or done)",
              lambda m, s: _each(s, lambda e, i: z3.And(s.segments[i].calls <= m.bounds.calls, e.calls <= m.bounds.calls
                                 * e.questions.count(lambda q: q[1] != code(PENDING))
                                 + z3.If(s.segments[i].live, s.segments[i].calls, num(m.bounds.calls))))),
    Invariant("fresh_refs_nowhere", "an artifact not yet produced is in no list", _fresh),
)


def induction_semantics(sessions: int, calls: int, artifacts: int, base: Bounds | None = None) -> Semantics:
    """The semantics proved: `sessions` sessions of one turn each, `calls` tool calls per execution (in
    all its segments), `artifacts` artifacts; pauses, write failures and observations unbounded; other
    bounds as in `base` (default: the default bounds)."""
    base = base or Bounds()
    bounds = base.replace(sessions=sessions, turns=1, calls=calls, pauses=calls, artifacts=artifacts)
    universe = Universe(executions=sessions, calls=calls, attempts=2 * calls, questions=calls,
                        messages=bounds.interim_writes + 1, artifacts=artifacts, node_failures=bounds.node_failures)
    return Semantics(bounds, universe, None, None, None, call_cap=calls)


@dataclass
class Outcome:
    """The verdict on one goal: proved, or why not (the base case fails, or a counterexample to induction)."""

    name: str
    proved: bool
    reason: str = ""
    pre: State | None = None  # the counterexample to induction: a state where every hypothesis holds ...
    post: State | None = None  # ... and the step from it that breaks the goal
    move: str = ""


@dataclass
class Proof:
    """What `prove` established."""

    semantics: Semantics
    k: int
    outcomes: list[Outcome]
    seconds: float


def _state_goals(m: Semantics, s: SState, names: tuple[str, ...],
                 invariants: tuple[Invariant, ...] = STRENGTHENING) -> list[tuple[str, z3.BoolRef]]:
    goals = [(inv.name, inv.term(m, s)) for inv in invariants]
    return goals + [(name, holds(m, name, s)) for name in names if KIND[name] == ALWAYS]


def _step_goals(m: Semantics, names: tuple[str, ...], options: list[Move], chosen: z3.ArithRef, pre: SState,
                post: SState) -> list[tuple[str, z3.BoolRef]]:
    return [(name, z3.And([z3.Implies(chosen == k, step_holds(m, name, mv, pre, post))
                           for k, mv in enumerate(options)]))
            for name in names if KIND[name] != ALWAYS]


def _safe_decode(model: z3.ModelRef, s: SState) -> State | None:
    try:
        return decode(model, s)
    except (IndexError, ValueError):
        return None


def prove(m: Semantics, names: tuple[str, ...] = KEY, k: int = 1,
          invariants: tuple[Invariant, ...] = STRENGTHENING) -> Proof:
    """k-induction of `names`, the strengthening `invariants` and FITS over the semantics `m`."""
    started = time.perf_counter()
    # Base: the initial state and the first k-1 steps keep every goal (bounded model checking).
    base = Unrolling(m, initial(m.universe))
    broken: dict[str, str] = {}
    for t in range(k):
        if t:
            base.grow()
        goals = _state_goals(m, base.states[t], names, invariants) + [(FITS, z3.Not(base.overflow(t)))]
        if t:
            goals += _step_goals(m, names, base.moves_from(t - 1), base.selectors[t - 1], base.states[t - 1],
                                 base.states[t])
        for name, goal in goals:
            if name not in broken and base.ask(z3.Not(goal)) is not None:
                broken[name] = f"fails within {t} steps of the initial state (base case)"
    # Step: k states in a row where every goal holds, then one more step.
    step = Unrolling(m)
    for _ in range(k):
        step.grow()
    for t in range(k):
        step.solver.add([goal for _, goal in _state_goals(m, step.states[t], names, invariants)])
        step.solver.add(z3.Not(step.overflow(t)))
        if t:
            step.solver.add([goal for _, goal in _step_goals(m, names, step.moves_from(t - 1), step.selectors[t - 1],
                                                               step.states[t - 1], step.states[t])])
    goals = _state_goals(m, step.states[k], names, invariants) + [(FITS, z3.Not(step.overflow(k)))]
    goals += _step_goals(m, names, step.moves_from(k - 1), step.selectors[k - 1], step.states[k - 1], step.states[k])
    outcomes = []
    for name, goal in goals:
        if name in broken:
            outcomes.append(Outcome(name, False, broken[name]))
            continue
        model = step.ask(z3.Not(goal))
        if model is None:
            outcomes.append(Outcome(name, True))
            continue
        chosen = step.moves_from(k - 1)[model.eval(step.selectors[k - 1], model_completion=True).as_long()]
        outcomes.append(Outcome(name, False, "not inductive: a step from a state where every goal holds breaks it",
                                _safe_decode(model, step.states[k - 1]), _safe_decode(model, step.states[k]),
                                chosen.label()))
    return Proof(m, k, outcomes, time.perf_counter() - started)


def lemmas(m: Semantics) -> Callable[[SState], z3.BoolRef] | None:
    """The strengthening invariants and key `always` properties that hold in every reachable state of `m`,
    as one term per state, so that bounded model checking may assume them; None if there are none.

    Houdini: prove them all by 1-induction, drop those not proved, and again, until what is left is
    inductive by itself (a mutant breaks some of them, and those it breaks must not be assumed)."""
    invariants = STRENGTHENING
    names = tuple(n for n in KEY if KIND[n] == ALWAYS)
    while True:
        proof = prove(m, names, 1, invariants)
        # FITS is not assumed, so it need not hold: a step out of the universe is one bounded model
        # checking reports itself, and every step it reasons about is one inside the universe.
        failed = {o.name for o in proof.outcomes if not o.proved} - {FITS}
        if not failed:
            break
        invariants = tuple(inv for inv in invariants if inv.name not in failed)
        names = tuple(n for n in names if n not in failed)
    if not invariants and not names:
        return None
    return lambda s: z3.And([goal for _, goal in _state_goals(m, s, names, invariants)])
