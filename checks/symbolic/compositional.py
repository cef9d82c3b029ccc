"""Two sessions from one, by induction: z3 proves that each session of a two-session behaviour behaves as
the one-session model, so that what holds of every one-session behaviour holds of each session beside
another, and of the two together where a property is the conjunction of the sessions' parts.

Over the relation derived from the rule table at the bounds with two sessions (`relation.py`), from
any state where the strengthening invariants hold (mined and cut down by Houdini, as for `prove
--induction`: they hold initially and are inductive together), with each session's spent share of the
budgets the sessions spend together kept as a ghost (`projected.Ghost`), z3 proves, for each session:

- *initial*: the initial state projects onto the one-session initial state;
- *fits*: the projection fits the one-session capacities (so the one-session relation sees all of it);
- *ghost*: the session's spent share stays within what the state records spent (so a budget the
  two-session model still allows, the one-session model allows the session too);
- *isolation*: a step that is another session's, or a crash that catches nothing of this session's,
  leaves the session's projection exactly as it was;
- *simulation*: a step that is the session's, or a crash that catches one of its segments, moves its
  projection by a step of the one-session model with the same action (its execution renamed), or not
  at all.

The same premises are proved for more sessions where the bounds say more (`--sessions N`).

By induction on the length of a behaviour, every two-session behaviour then projects, for each session,
onto a one-session behaviour (with stutters), so every state a session reaches beside another it reaches
alone. A property *carries* when z3 also proves that it holds of a two-session state (or step) wherever
it holds of both projections (or of each moving session's projected step); such a property, once
established for one session at these bounds (`pausecheck check`, `prove --induction`), holds for two.

A premise that fails comes with its counterexample: a two-session state where every kept invariant holds
and the step from it, which may be unreachable (then the invariants are too weak, not the rules wrong).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import z3
from pausecheck.model.actions import Crash
from pausecheck.model.config import Bounds
from pausecheck.model.formulas import FORMULAS
from pausecheck.model.lang import Rule
from pausecheck.model.machine import Machine
from pausecheck.model.properties import PROPERTIES
from pausecheck.model.property import ALWAYS
from pausecheck.model.reading import CONFORMANT, Reading
from pausecheck.model.rules import RULES
from pausecheck.model.state import INITIAL

from ..search.parallel import ordered
from .asking import Asker
from .candidates import Candidate, mine
from .inductive import Cti, Late, Step, houdini, sample_states
from .projected import Ghost, ghost_within, owner, seen_as, spent_after, view, view_fits
from .relation import Caps, fresh, lift, moves
from .terms import state_term, step_term
from .values import BITS, CONCRETE, Z3, same

__all__ = ["PREMISES", "Premise", "Composition", "prove_compositional", "many_sessions"]

# The premises, in the order they are proved, each with what it says.
PREMISES: dict[str, str] = {
    "initial": "the initial state projects onto the one-session initial state",
    "invariants": "the strengthening invariants hold initially and every step keeps them",
    "fits": "every projection fits the one-session capacities, and every step the many-session capacities",
    "ghost": "each session's spent share of the shared budgets stays within what the state records spent",
    "isolation": "a step of another session, or a crash that catches nothing of this one, leaves this "
                 "session's projection unchanged",
    "simulation": "a step of the session, or a crash that catches one of its segments, moves its projection by a "
                  "one-session step with the same action, or not at all",
}


@dataclass(frozen=True)
class Premise:
    """One premise (or one property's carrying) and what z3 said of it."""

    name: str
    proved: bool
    says: str
    session: int | None = None
    reason: str = ""
    cti: Cti | None = None


@dataclass
class Composition:
    """What `prove_compositional` established, and with what."""

    bounds: Bounds  # the one-session bounds; the proof is about `sessions` sessions at the same others
    sessions: int
    reading: Reading
    premises: list[Premise] = field(default_factory=list)
    carried: list[Premise] = field(default_factory=list)  # one per property: does it carry to many sessions?
    kept: list[Candidate] = field(default_factory=list)
    properties: list[str] = field(default_factory=list)  # the state properties kept among the invariants
    mined: int = 0
    rounds: int = 0
    sampled: int = 0
    seconds: float = 0.0
    incomplete: bool = False  # stopped at the deadline (or z3 gave up): nothing is established
    reached: str = ""  # the last step it told of (where a stop found it)

    @property
    def proved(self) -> bool:
        """Every premise proved (the theorem holds at these bounds)."""
        return not self.incomplete and bool(self.premises) and all(p.proved for p in self.premises)


class _Session:
    """One session's side of the step: its ghost before and after, its views, its one-session moves."""

    def __init__(self, st: Step, caps: Caps, one: Bounds, reading: Reading, rules: tuple[Rule, ...], k: int) -> None:
        self.k = k
        self.ghost = Ghost(*(z3.BitVec(f"spent{k}.{f}", BITS) for f in Ghost._fields))
        self.t0 = fresh(caps, f"alone{k}")
        self.moves = list(moves(caps, one, reading, self.t0, Z3, rules))
        self.v0 = view(Z3, caps, st.s0, k, self.ghost)
        self.crashed = z3.Or([z3.BoolVal(False)] + [m.guard for m in self.moves if m.kind is Crash])
        chosen = list(enumerate(st.moves))
        self.mine = z3.Or([z3.BoolVal(False)] + [z3.And(st.which == j, owner(Z3, st.s0, m, k)) for j, m in chosen])
        crash = z3.Or([z3.BoolVal(False)] + [st.which == j for j, m in chosen if m.kind is Crash])
        self.caught = z3.And(crash, self.crashed)
        self.after = spent_after(Z3, st.s0, st.s1, self.ghost, self.mine, self.caught)
        self.v1 = view(Z3, caps, st.s1, k, self.after)
        self.given = [ghost_within(Z3, st.s0, self.ghost), same(Z3, self.t0, self.v0)]
        # The chosen move's action as the session sees it, one set of values per kind of action.
        self.seen: dict[type, tuple[Any, ...]] = {}
        self.of_kind: dict[type, Any] = {}
        for j, m in chosen:
            if m.kind not in self.seen:
                self.seen[m.kind] = tuple(_like(x, f"seen{k}.{m.kind.__name__}.{i}") for i, x in enumerate(m.fields))
                self.of_kind[m.kind] = []
            self.of_kind[m.kind].append(st.which == j)
            self.given.append(z3.Implies(st.which == j, z3.And([a == b for a, b in zip(
                self.seen[m.kind], seen_as(Z3, st.s0, m, k), strict=True)] + [z3.BoolVal(True)])))

    def matched(self, extra: Callable[[Any], Any] = lambda m: z3.BoolVal(True)) -> Any:
        """The projection moved by a one-session move of the chosen move's kind and action (and `extra`)."""
        return z3.Or([z3.BoolVal(False)] + [
            z3.And(z3.Or(self.of_kind[kind]), z3.Or([z3.BoolVal(False)] + [
                z3.And([m.guard, same(Z3, m.post, self.v1), extra(m)]
                       + [a == b for a, b in zip(m.fields, self.seen[kind], strict=True)])
                for m in self.moves if m.kind is kind]))
            for kind in self.seen])


def _kept_by(prop: Any, caps: Caps, bounds: Bounds, pre: Any) -> Callable[[Any], Any]:
    """Does a one-session move from `pre` keep the transition property `prop`?"""
    def kept(m: Any) -> Any:
        return step_term(prop.name, caps, bounds, pre, m, m.post) if not prop.on or m.kind in prop.on else True
    return kept


def _like(x: Any, name: str) -> Any:
    return z3.Bool(name) if z3.is_bool(x) else z3.BitVec(name, BITS)


def many_sessions(bounds: Bounds) -> Bounds:
    """The bounds of the many-session side of the theorem: `bounds`, with two sessions where they say one."""
    return bounds.replace(sessions=max(2, bounds.sessions))


def prove_compositional(bounds: Bounds, reading: Reading = CONFORMANT, rules: tuple[Rule, ...] = RULES,
                        progress: Callable[[str], None] | None = None, deadline: float | None = None,
                        workers: int = 1) -> Composition:
    """The compositional theorem at `bounds` with `bounds.sessions` sessions (many where it says one) against one,
    under `reading` and the rule table `rules` (a mutant's), Houdini's queries asked on `workers` processes;
    `deadline` (on `time.perf_counter`) cuts it short, as incomplete."""
    started = time.perf_counter()
    one, many = bounds.replace(sessions=1), many_sessions(bounds)
    result = Composition(one, many.sessions, reading)

    def told(text: str) -> None:
        result.reached = text
        if progress is not None:
            progress(text)

    try:
        _prove(result, one, many, reading, rules, told, deadline, workers)
    except Late:
        result.incomplete = True
    result.seconds = time.perf_counter() - started
    return result


def _prove(result: Composition, one: Bounds, many: Bounds, reading: Reading, rules: tuple[Rule, ...],
           say: Callable[[str], None], deadline: float | None, workers: int = 1) -> None:
    machine = Machine(many, reading, rules)
    sample = sample_states(machine, late=lambda: deadline is not None and time.perf_counter() >= deadline)
    say(f"mining candidate invariants from {len(sample)} reachable {many.sessions}-session states")
    candidates = mine(sample, many, lambda: deadline is not None and time.perf_counter() >= deadline)
    st = Step(many, reading, rules)
    result.mined, result.sampled = len(candidates), len(sample)
    say(f"{len(candidates)} candidates; Houdini over the {many.sessions}-session step")
    # The state properties that hold initially are candidates too (each may need the others).
    invariants = [p.name for p in PROPERTIES if p.kind == ALWAYS and p.name in FORMULAS
                  and not FORMULAS[p.name].step and not machine.judge(p.name, None, None, INITIAL)[0]]
    asker = Asker(st, list(candidates) + invariants, None, deadline, workers)
    kept, result.rounds = houdini(st, asker.items, deadline, say, asker=asker)
    result.kept = [c for c in kept if isinstance(c, Candidate)]
    result.properties = [c for c in kept if isinstance(c, str)]
    hyps = [st.state(c, st.s0) for c in kept]
    caps = Caps.of(one, reading)

    def add(name: str, proved: bool, k: int | None = None, reason: str = "", cti: Cti | None = None) -> None:
        result.premises.append(Premise(name, proved, PREMISES[name], k, reason, cti))
        say(f"{name}{'' if k is None else f' (session {k})'}: {'proved' if proved else 'NOT PROVED'}")

    alone = lift(CONCRETE, caps, INITIAL)
    start = lift(CONCRETE, st.caps, INITIAL)
    for k in range(1, many.sessions + 1):
        add("initial", bool(same(CONCRETE, view(CONCRETE, caps, start, k, Ghost(0, 0, 0)), alone)), k)
    add("invariants", True, reason=f"{len(result.kept)} of {len(candidates)} candidates kept, with "
        f"{len(result.properties)} state properties")
    if st.whole(hyps, z3.BoolVal(True), deadline) is None:  # they hold of some state: nothing below is vacuous
        raise AssertionError("the kept invariants hold of no many-session state, though they hold initially")
    # Each step looked for in a fresh solver (`Step.whole`), `workers` at once, the answers in the report's order.
    for goal, (broken, found) in ordered(_settle, _goals(st, caps, one, many, reading, rules), jobs=workers,
                                         args=(st, hyps, machine, deadline)):
        if goal.overflow:
            add("fits", not broken, reason=f"a step overflows the many-session capacities: {found}" if broken else "")
        elif goal.premise:
            add(goal.premise, not broken, goal.session, goal.why if broken else "", found)
        else:
            result.carried.append(Premise(goal.why, not broken, "holds of many sessions where it holds of each "
                                          "session's projection" + (" step" if FORMULAS[goal.why].step else ""),
                                          None, "a state where both projections keep it and the whole does not"
                                          if broken else "", found))
            say(f"carries: {goal.why}: {'yes' if not broken else 'NO'}")


@dataclass(frozen=True)
class _Goal:
    """A step whose existence refutes a premise (`premise`, of session `session` or of the whole, `why` what the
    step shows) or keeps a property from carrying (`premise` empty, `why` its name); `given`: what holds of the
    step besides the kept invariants."""

    premise: str
    session: int | None
    goal: Any
    given: tuple[Any, ...]
    why: str

    @property
    def overflow(self) -> bool:
        """The many-session capacities' premise (no step leaves them): its finding is the overflow in words."""
        return self.premise == "fits" and self.session is None


def _goals(st: Step, caps: Caps, one: Bounds, many: Bounds, reading: Reading, rules: tuple[Rule, ...]
           ) -> list[_Goal]:
    """Every step to look for after Houdini, in the report's order."""
    found = [_Goal("fits", None, z3.Not(st.fits()), (), "")]
    sessions = [_Session(st, caps, one, reading, rules, k) for k in range(1, many.sessions + 1)]
    for s in sessions:
        checks = {
            "fits": (z3.Not(view_fits(Z3, s.v0)), f"session {s.k}'s projection overflows a one-session capacity"),
            "ghost": (z3.Not(ghost_within(Z3, st.s1, s.after)), "the session's share outgrows the state's count"),
            "isolation": (z3.And(z3.Not(s.mine), z3.Not(s.caught), z3.Not(same(Z3, s.v1, s.v0))),
                          f"a step that is not session {s.k}'s changes its projection"),
            "simulation": (z3.And(z3.Or(s.mine, s.caught), z3.Not(same(Z3, s.v1, s.v0)), z3.Not(s.matched())),
                           f"session {s.k}'s projection moves by no one-session step with the same action"),
        }
        found += [_Goal(name, s.k, goal, tuple(s.given), why) for name, (goal, why) in checks.items()]
    given = tuple(x for s in sessions for x in s.given)
    for prop in PROPERTIES:
        if prop.kind not in (ALWAYS, "transition") or prop.name not in FORMULAS:
            continue
        if FORMULAS[prop.name].step:
            # a session whose projection moves does so by a one-session step that keeps it (a stutter is no
            # step of the one-session model: there the whole step must keep it by itself)
            goal = z3.And([z3.Not(st.step(prop.name))] + [z3.Implies(
                z3.And(z3.Or(s.mine, s.caught), z3.Not(same(Z3, s.v1, s.v0))),
                s.matched(_kept_by(prop, caps, one, s.t0))) for s in sessions])
        else:
            goal = z3.And([z3.Not(state_term(prop.name, st.caps, many, st.s0))]
                          + [state_term(prop.name, caps, one, s.v0) for s in sessions])
        found.append(_Goal("", None, goal, given, prop.name))
    return found


def _settle(goal: _Goal, st: Step, hyps: list[Any], machine: Machine, deadline: float | None) -> tuple[bool, Any]:
    """Is there such a step from a state where the kept invariants hold? If so, its counterexample (None where it
    does not decode), or for the many-session capacities the overflow in words."""
    model = st.whole(hyps + list(goal.given), goal.goal, deadline)
    if model is None:
        return False, None
    return True, st.overflow(model) if goal.overflow else st.cti(model, machine)
