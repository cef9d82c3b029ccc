"""Induction over the whole model: properties proved for behaviours of any length, by z3, over the
transition relation derived from the rule table (`relation.py`) and the properties' formulas (`terms.py`).

At given bounds and reading, with every fault the bounds allow, a property is proved when it holds in
the initial state and every step from any state where it and the strengthening invariants hold keeps
it (1-induction). The strengthening invariants are found, not written: candidates mined from the
reachable states (`candidates.py`) are cut down by Houdini to the largest subset that holds initially
and is inductive together, so what is assumed is itself proved. One goal more is proved with them:
every enabled step's successor fits the symbolic capacities, so that they hide no behaviour.

A property that is not inductive relative to what Houdini kept is reported with its counterexample to
induction: a state where every kept invariant and the property hold, and a step from it, replayed on
the explicit model (`Cti.replays`), after which the property fails. Such a state may be unreachable;
it says that the proof needs a stronger invariant, or, where the property fails at the bounds, where.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import z3
from pausecheck.model.config import Bounds
from pausecheck.model.formulas import FORMULAS
from pausecheck.model.lang import Rule
from pausecheck.model.machine import Machine
from pausecheck.model.properties import PROPERTIES
from pausecheck.model.reading import CONFORMANT, Reading
from pausecheck.model.rules import RULES
from pausecheck.model.state import INITIAL, State

from .candidates import Candidate, mine
from .crosscheck import action_of
from .refute import AROUND, EDITS, Edits, Refuter
from .relation import Caps, decode, fresh, moves, post_fits, well_formed
from .sampling import reach, sample_states
from .terms import state_term, step_term, term_of
from .values import Z3, reader, same

__all__ = ["KEY", "FITS", "Cti", "Outcome", "Proof", "Step", "Late", "prove", "sample_states", "houdini", "solve",
           "SAMPLING", "MINING", "BUILDING", "HOUDINI", "GOALS"]

# The six key properties: no double delivery, no loss, held never on the wire, no phantom failure (an
# interrupt is recorded interrupted, not failed), no phantom pause, one question per pause.
KEY: tuple[str, ...] = ("no_double_delivery", "no_loss", "held_hidden", "interrupted_not_failed", "no_phantom_pause",
                        "one_question_per_pause")
FITS = "fits_capacities"  # every enabled step's successor fits the symbolic capacities
_ON = {p.name: p.on for p in PROPERTIES}


@dataclass(frozen=True)
class Cti:
    """A counterexample to induction: a state, a step from it, and the state after."""

    pre: State
    action: Any
    post: State
    replays: bool  # the explicit model takes the same step to the same state


@dataclass(frozen=True)
class Outcome:
    """The verdict on one goal."""

    name: str
    proved: bool
    reason: str = ""
    cti: Cti | None = None


# Where a proof is, in order: what a stopped proof names as the stage it was stopped in.
SAMPLING, MINING, BUILDING, HOUDINI, GOALS = ("sampling the reachable states", "mining candidate invariants",
                                              "building the symbolic step", "Houdini", "the goals")


@dataclass
class Proof:
    """What `prove` established, and with what. Filled in as the proof goes, so that a proof stopped
    part way (`incomplete`) still says how far it got: the figures are those reached by then."""

    bounds: Bounds
    reading: Reading
    outcomes: list[Outcome] = field(default_factory=list)  # the goals settled (all of them unless stopped)
    kept: list[Candidate] = field(default_factory=list)  # the strengthening invariants Houdini proved
    mined: int = 0  # candidates mined
    rounds: int = 0  # Houdini's rounds finished
    seconds: float = 0.0
    sampled: int = 0  # reachable states found (breadth first, then by the simulation): those screened
    incomplete: bool = False  # stopped (deadline, interrupt, z3 gave up): nothing is established
    stage: str = SAMPLING  # the stage reached (where a stopped proof was stopped)
    stopped: str | None = None  # what stopped it: "max-seconds", "max-memory", "interrupted" or "z3 gave up"
    screened: tuple[int, int] = (0, 0)  # states the candidates were screened on, of those found (mining)
    dropped: int = 0  # candidates and state properties Houdini dropped
    refuted: int = 0  # of those, the ones dropped by states around a counterexample to induction (`refute.py`)
    explored: int = 0  # states whose steps Houdini took around its counterexamples to induction
    left: int = 0  # candidates and state properties Houdini has not dropped
    standing: list[str] = field(default_factory=list)  # the state properties among those left (once Houdini
    # is done: the properties proved inductive with the kept invariants)

    @property
    def proved(self) -> bool:
        return all(o.proved for o in self.outcomes)

    def progress(self) -> str:
        """How far a stopped proof got, in words: the figures of each stage it finished or was in."""
        said = [f"{'found' if self.stage == SAMPLING else 'sampled'} {self.sampled:,} reachable states"]
        if self.stage == MINING:
            done, of = self.screened
            said.append(f"screened the candidates on {done:,} of them" if of else "instantiating the templates")
        if self.stage in (BUILDING, HOUDINI, GOALS):
            said.append(f"mined {self.mined:,} candidate invariants")
        around = f" ({self.refuted:,} of them by {self.explored:,} states around its counterexamples)"
        if self.stage == HOUDINI:
            said.append(f"Houdini ran {self.rounds} round(s), dropped {self.dropped:,}{around}, {self.left:,} left "
                        f"(not yet proved inductive), among them the properties {', '.join(self.standing) or 'none'}")
        if self.stage == GOALS:
            said.append(f"Houdini kept {len(self.kept):,} in {self.rounds} round(s), dropped {self.dropped:,}{around}; "
                        f"inductive with them: {', '.join(self.standing) or 'no property'}")
            if self.outcomes:
                said.append("settled: " + ", ".join(f"{o.name} {'proved' if o.proved else 'NOT proved'}"
                                                     for o in self.outcomes))
        return f"stopped in {self.stage}: " + "; ".join(said) if said else f"stopped in {self.stage}"


class Step:
    """One symbolic step: a state `s0` (well formed), a move from it chosen by `which`, the state `s1`."""

    def __init__(self, bounds: Bounds, reading: Reading, rules: tuple[Rule, ...], caps: Caps | None = None) -> None:
        self.bounds, self.reading, self.rules = bounds, reading, rules
        self.caps = caps or Caps.of(bounds, reading)
        self.s0, self.s1 = fresh(self.caps, "s0"), fresh(self.caps, "s1")
        self.moves = list(moves(self.caps, bounds, reading, self.s0, Z3, rules))
        self.which = z3.BitVec("which", 16)
        self.solver = z3.Solver()
        self.solver.add(well_formed(Z3, self.s0), well_formed(Z3, self.s1))
        self.solver.add(z3.Or([z3.And(self.which == k, m.guard, same(Z3, self.s1, m.post))
                               for k, m in enumerate(self.moves)]))

    def state(self, name_or_candidate: Any, s: Any) -> Any:
        if isinstance(name_or_candidate, Candidate):
            return term_of(name_or_candidate.expr, self.caps, self.bounds, s)
        return state_term(name_or_candidate, self.caps, self.bounds, s)

    def step(self, name: str) -> Any:
        """The transition property `name` kept by the chosen step."""
        on = _ON[name]
        return z3.And([z3.Implies(self.which == k, step_term(name, self.caps, self.bounds, self.s0, m, self.s1))
                       for k, m in enumerate(self.moves) if not on or m.kind in on])

    def fits(self) -> Any:
        return z3.And([z3.Implies(m.guard, post_fits(Z3, m.post)) for m in self.moves])

    def overflow(self, model: z3.ModelRef) -> str:
        """Which step overflows, from which state (in words)."""
        read = reader(model)
        for m in self.moves:
            if read(m.guard) and not read(post_fits(Z3, m.post)):
                try:
                    return f"{action_of(m, read)} from {decode(self.s0, read)}"
                except (IndexError, ValueError, KeyError):
                    return f"a {m.kind.__name__} step"
        return "a step"

    def cti(self, model: z3.ModelRef, machine: Machine) -> Cti | None:
        read = reader(model)
        try:
            pre, post = decode(self.s0, read), decode(self.s1, read)
            action = action_of(self.moves[read(self.which)], read)
        except (IndexError, ValueError, KeyError):
            return None
        try:
            replays = machine.step(pre, action) == post
        except (IndexError, ValueError, KeyError, TypeError):
            replays = False
        return Cti(pre, action, post, replays)


class Late(Exception):
    """The deadline passed (or z3 gave up) before the proof was done."""


def prove(bounds: Bounds, reading: Reading = CONFORMANT, names: tuple[str, ...] = KEY,
          rules: tuple[Rule, ...] = RULES, progress: Callable[[str], None] | None = None,
          deadline: float | None = None) -> Proof:
    """1-induction of `names` at these bounds and reading under `rules` (a mutant's table: its candidates are
    mined from its own states, and a counterexample replays on its own explicit model), with the
    strengthening invariants Houdini keeps; `deadline` (on `time.perf_counter`) cuts it short, as an
    incomplete proof."""
    started = time.perf_counter()
    proof = Proof(bounds, reading)
    try:
        _prove(proof, names, rules, progress or (lambda text: None), deadline)
    except Late:
        late = deadline is not None and time.perf_counter() >= deadline
        proof.incomplete, proof.stopped = True, "max-seconds" if late else "z3 gave up"
    except KeyboardInterrupt as stop:  # Ctrl-C, SIGTERM (the CLI maps it), or a limit's watchdog: report what was
        proof.incomplete, proof.stopped = True, getattr(stop, "reason", "interrupted")  # reached, as a search does
    proof.seconds = time.perf_counter() - started
    return proof


def solve(solver: z3.Solver, deadline: float | None, assumptions: list[Any] | None = None) -> Any:
    """The solver's verdict (under `assumptions`), within what is left of the deadline (Late if none is, or z3
    gives up)."""
    if deadline is not None:
        left = deadline - time.perf_counter()
        if left <= 0:
            raise Late
        solver.set("timeout", max(1, int(left * 1000)))
    verdict = solver.check(*(assumptions or []))
    if verdict == z3.unknown:
        raise Late
    return verdict


def houdini(st: Step, items: list[Any], deadline: float | None, say: Callable[[str], None],
            seen: Callable[[int, list[Any], list[Any]], None] = lambda rounds, active, dropped: None,
            around: Callable[[Any, list[Any]], list[Any]] | None = None) -> tuple[list[Any], int]:
    """The largest subset of `items` (candidates and state properties, each holding initially) that is
    inductive together over the step `st`, and the rounds it took: each round drops every item that z3's
    step, from a state where all those kept hold, breaks, and with `around(model, kept)` every item that
    steps around it break (`Refuter.refute`). One solver context throughout: each item is switched on by a
    literal assumed true while it is kept and false once dropped, so what z3 learns in a round serves the next.
    `seen(rounds, active, dropped)` is told after each round, so that a stop part way knows how far it got."""
    active = list(items)
    on = {id(c): z3.Bool(f"houdini.{n}") for n, c in enumerate(items)}
    post = {id(c): st.state(c, st.s1) for c in items}
    st.solver.push()
    st.solver.add([z3.Implies(on[id(c)], st.state(c, st.s0)) for c in items])
    st.solver.add(z3.Or([z3.And(on[id(c)], z3.Not(post[id(c)])) for c in items]))
    dropped: list[Any] = []
    rounds = 0
    try:
        while True:
            rounds += 1
            verdict = solve(st.solver, deadline, [on[id(c)] for c in active] + [z3.Not(on[id(c)]) for c in dropped])
            if verdict != z3.sat:
                seen(rounds, active, dropped)
                return active, rounds
            model = st.solver.model()
            failed = [c for c in active if z3.is_false(model.eval(post[id(c)], model_completion=True))]
            active = _without(active, failed)
            more = around(model, active) if around is not None else []
            active = _without(active, more)
            dropped += failed + more
            seen(rounds, active, dropped)
            kind = st.moves[model.eval(st.which, model_completion=True).as_long()].kind.__name__
            say(f"Houdini round {rounds}: {len(failed)} dropped by a {kind} step, {len(more)} by steps around it, "
                f"{len(active)} left: " + "; ".join(c if isinstance(c, str) else c.name for c in failed + more))
    finally:
        st.solver.pop()


def _without(items: list[Any], gone: list[Any]) -> list[Any]:
    out = {id(c) for c in gone}
    return [c for c in items if id(c) not in out]


def _prove(proof: Proof, names: tuple[str, ...], rules: tuple[Rule, ...], say: Callable[[str], None],
           deadline: float | None) -> None:
    """The proof, recorded in `proof` as it goes (its stage and figures), so that a stop keeps them."""
    bounds, reading = proof.bounds, proof.reading
    machine = Machine(bounds, reading, rules)

    def late() -> bool:
        return deadline is not None and time.perf_counter() >= deadline

    def found(count: int) -> None:
        proof.sampled = count

    def screened(done: int, of: int) -> None:
        proof.screened = (done, of)

    reached = reach(machine, late=late, told=found)
    if late():
        raise Late
    proof.sampled, proof.stage = len(reached.states), MINING
    say(f"mining candidate invariants from {len(reached.sample):,} reachable states, screened on {proof.sampled:,}")
    candidates = mine(reached.sample, bounds, late, screened, reached.states)
    if late():
        raise Late
    proof.mined, proof.stage = len(candidates), BUILDING
    say(f"{len(candidates)} candidates; building the symbolic step")
    # A table other than the rules (a mutant's, a draft's) may hold longer lists than the bounds' capacities
    # (an artifact held twice): widened to cover every state reached, so that what it breaks can be said.
    st = Step(bounds, reading, rules, None if rules is RULES else Caps.of(bounds, reading).covering(reached.states))
    always = [n for n in names if not FORMULAS[n].step]
    steps = [n for n in names if FORMULAS[n].step]
    # Base: what does not hold initially is no candidate, and no property.
    base_broken = {n for n in always if machine.judge(n, None, None, INITIAL)[0]}
    items = list(candidates) + [n for n in always if n not in base_broken]
    proof.stage, proof.left, proof.standing = HOUDINI, len(items), [c for c in items if isinstance(c, str)]

    refuter = Refuter(machine, st, items, late=late)

    # Before z3: what steps from states one edit away from reachable ones break, where every item holds there.
    edits = Edits(reached.sample)
    early = refuter.scout(reached.sample, items, edits, EDITS)
    proof.dropped = proof.refuted = len(early)
    say(f"{len(early)} dropped by steps around {refuter.explored:,} states near reachable ones, before z3")

    def seen(rounds: int, active: list[Any], dropped: list[Any]) -> None:
        proof.rounds, proof.dropped, proof.left = rounds, len(early) + len(dropped), len(active)
        proof.standing = [c for c in active if isinstance(c, str)]
        proof.explored = refuter.explored

    def around(model: z3.ModelRef, active: list[Any]) -> list[Any]:
        cti = st.cti(model, machine)
        if cti is None:
            return []
        more = refuter.refute(cti.pre, cti.post, active)
        more += refuter.wander([cti.pre, cti.post], _without(active, more), edits, AROUND, proof.rounds)
        proof.refuted += len(more)
        return more

    # Houdini over the candidates and the state properties together (each may need the others).
    active, _ = houdini(st, _without(items, early), deadline, say, seen, around)
    proof.stage = GOALS
    pre = {id(c): st.state(c, st.s0) for c in active}
    proof.kept = [c for c in active if isinstance(c, Candidate)]
    proved_always = {c for c in active if isinstance(c, str)}
    outcomes = proof.outcomes
    hypotheses = [pre[id(c)] for c in active]

    def refuted(goal: Any, extra: list[Any]) -> Cti | None:
        st.solver.push()
        st.solver.add(hypotheses + extra + [z3.Not(goal)])
        verdict = solve(st.solver, deadline)
        found = st.cti(st.solver.model(), machine) if verdict == z3.sat else None
        st.solver.pop()
        return found if verdict == z3.sat else None

    for name in always:
        if name in base_broken:
            outcomes.append(Outcome(name, False, "fails in the initial state"))
        elif name in proved_always:
            outcomes.append(Outcome(name, True))
        else:
            cti = refuted(st.state(name, st.s1), [st.state(name, st.s0)])
            outcomes.append(Outcome(name, False, "not inductive: a step from a state where it and every kept "
                                    "invariant hold breaks it", cti))
    for name in steps:
        cti = refuted(st.step(name), [])
        outcomes.append(Outcome(name, cti is None, "" if cti is None else
                                "not inductive: a step from a state where every kept invariant holds breaks it", cti))
    st.solver.push()
    st.solver.add(hypotheses + [z3.Not(st.fits())])
    fits = solve(st.solver, deadline) != z3.sat
    overflow = None if fits else st.overflow(st.solver.model())
    st.solver.pop()
    outcomes.append(Outcome(FITS, fits, "" if fits else "a step from a state where every kept invariant holds "
                            f"overflows a capacity ({overflow}): the proof does not cover every behaviour"))
