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

import ctypes
import time
from collections.abc import Callable
from contextlib import closing
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

from ..search.budget import wrapped_stop
from .asking import Answer, Asker, Late, Query, solve
from .candidates import Candidate, mine
from .crosscheck import action_of
from .refute import AROUND, EDITS, Edits, Refuter
from .relation import Caps, decode, fresh, moves, post_fits, shaped, well_formed
from .sampling import PREFIX, reach, sample_states
from .terms import state_term, step_term, term_of
from .values import Z3, leaves, reader, same

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
        """Every goal proved: never of a proof stopped part way, whatever it had settled by then."""
        return not self.incomplete and bool(self.outcomes) and all(o.proved for o in self.outcomes)

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
        # Built once: every query of a move asks both (about 50 ms each to build at small bounds).
        self.formed0, self.formed1 = well_formed(Z3, self.s0), well_formed(Z3, self.s1)
        self._relation: Any = None  # s1 is the successor by the move `which` names (built when first asked)
        self._frames: dict[int, frozenset[int]] = {}
        self._linked: dict[int, Any] = {}  # move -> s1 is its successor
        self._terms: dict[tuple[Any, int], Any] = {}  # (a property's name or a candidate, s0 or s1) -> its term
        self._kept: dict[tuple[str, int], Any] = {}  # (a transition property, move) -> kept by it
        self._reads: dict[int, tuple[Any, frozenset[int]]] = {}  # z3 id -> (the term, the constants it reads)

    def frame(self, k: int) -> frozenset[int]:
        """The leaves of s1 (by z3 id) that move k may change: those whose successor's term, simplified, is not
        s0's own leaf. A move bound to a segment changes every execution's entries under a condition (the
        segment names its execution by a value), so its frame is about half the state; `Poll` changes nothing,
        a write of a message a few leaves (at every fault at the defaults: 0 to 231 of 262)."""
        changed = self._frames.get(k)
        if changed is None:
            post = leaves(shaped(Z3, self.caps, self.moves[k].post))
            changed = self._frames[k] = frozenset(
                a1.get_id() for a0, a1, p in zip(leaves(self.s0), leaves(self.s1), post, strict=True)
                if not (z3.is_expr(p) and z3.simplify(p).eq(a0)))
        return changed

    def touches(self, k: int, term: Any) -> bool:
        """Can move k change the value of `term` (over s1)? Not when every leaf of s1 it reads is outside the
        move's frame: linked, those leaves equal s0's, so the term says of s1 what it says of s0."""
        return not self._leaves_of(term).isdisjoint(self.frame(k))

    def _leaves_of(self, term: Any) -> frozenset[int]:
        """The constants a term reads (by z3 id), each subterm walked once across every term asked about. The
        memo holds each subterm it names: z3 gives a freed term's id to the next term it makes."""
        memo, stack = self._reads, [term]
        while stack:
            t = stack[-1]
            if t.get_id() in memo:
                stack.pop()
                continue
            children = [c for c in t.children() if c.get_id() not in memo]
            if children:
                stack.extend(children)
                continue
            stack.pop()
            if z3.is_const(t) and t.decl().kind() == z3.Z3_OP_UNINTERPRETED:
                memo[t.get_id()] = (t, frozenset((t.get_id(),)))
            else:
                memo[t.get_id()] = (t, frozenset().union(*(memo[c.get_id()][1] for c in t.children())))
        return memo[term.get_id()][1]

    def ask(self, k: int, facts: list[Any], goal: Any, deadline: float | None, linked: bool = True
            ) -> z3.ModelRef | None:
        """A model of move k from a well-formed state s0 where `facts` hold, to s1 (well formed, the move's
        successor, unless `linked` is false: then s1 is free), where `goal` holds; None where there is none.
        A fresh solver over facts: z3 bit-blasts one move's query (QF_BV: the terms are bit-vectors and
        Booleans only), simplifying with every fact and substituting the successor. At every fault at the
        defaults, a query of the whole step took one to two minutes, one of a move a few seconds, and an
        incremental solver a move, with the items behind assumed literals, up to seven times longer
        (docs/speed.md)."""
        m = self.moves[k]
        given = [self.formed0, m.guard] + ([self.formed1, self.linked(k)] if linked else [])
        return _model(given + facts + [goal], deadline)

    def whole(self, facts: list[Any], goal: Any, deadline: float | None) -> z3.ModelRef | None:
        """A model of a step by any move (`which`) from a well-formed state s0 where `facts` hold, to the
        successor s1 where `goal` holds; None where there is none. A fresh solver, as `ask`: at the defaults with
        two sessions, 1.4 s a query of `prove --compositional` against 8 s in one incremental solver."""
        if self._relation is None:
            self._relation = z3.Or([z3.And(self.which == k, m.guard, same(Z3, self.s1, m.post))
                                    for k, m in enumerate(self.moves)])
        return _model([self.formed0, self.formed1, self._relation, *facts, goal], deadline)

    def linked(self, k: int) -> Any:
        """s1 is move k's successor (built once per move)."""
        if k not in self._linked:
            self._linked[k] = same(Z3, self.s1, self.moves[k].post)
        return self._linked[k]

    def state(self, name_or_candidate: Any, s: Any) -> Any:
        """The term of a state property or a candidate over s (s0 or s1: built once each, asked in every round)."""
        if s is not self.s0 and s is not self.s1:
            return self._state(name_or_candidate, s)
        key = (name_or_candidate, 0 if s is self.s0 else 1)
        if key not in self._terms:
            self._terms[key] = self._state(name_or_candidate, s)
        return self._terms[key]

    def _state(self, name_or_candidate: Any, s: Any) -> Any:
        if isinstance(name_or_candidate, Candidate):
            return term_of(name_or_candidate.expr, self.caps, self.bounds, s)
        return state_term(name_or_candidate, self.caps, self.bounds, s)

    def step(self, name: str) -> Any:
        """The transition property `name` kept by the chosen step."""
        return z3.And([z3.Implies(self.which == k, self.kept_by(name, k)) for k in range(len(self.moves))])

    def looks(self, name: str, k: int) -> bool:
        """Does the transition property `name` look at move k's kind of step?"""
        on = _ON[name]
        return not on or self.moves[k].kind in on

    def kept_by(self, name: str, k: int) -> Any:
        """The transition property `name` kept by move k (true of a move it does not look at)."""
        if not self.looks(name, k):
            return z3.BoolVal(True)
        if (name, k) not in self._kept:
            self._kept[(name, k)] = step_term(name, self.caps, self.bounds, self.s0, self.moves[k], self.s1)
        return self._kept[(name, k)]

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

    def cti(self, model: z3.ModelRef, machine: Machine, k: int | None = None) -> Cti | None:
        """The counterexample to induction in a model of the whole step, or of move k's (`part`)."""
        read = reader(model)
        try:
            pre, post = decode(self.s0, read), decode(self.s1, read)
            action = action_of(self.moves[read(self.which) if k is None else k], read)
        except (IndexError, ValueError, KeyError):
            return None
        try:
            replays = machine.step(pre, action) == post
        except (IndexError, ValueError, KeyError, TypeError):
            replays = False
        return Cti(pre, action, post, replays)


def _model(facts: list[Any], deadline: float | None) -> z3.ModelRef | None:
    """A model of the facts in a fresh solver (QF_BV: bit-vectors and Booleans only), or None where there is none."""
    solver = z3.SolverFor("QF_BV")
    solver.add(facts)
    return solver.model() if solve(solver, deadline) == z3.sat else None


def prove(bounds: Bounds, reading: Reading = CONFORMANT, names: tuple[str, ...] = KEY,
          rules: tuple[Rule, ...] = RULES, progress: Callable[[str], None] | None = None,
          deadline: float | None = None, screen: int = PREFIX, workers: int = 1) -> Proof:
    """1-induction of `names` at these bounds and reading under `rules` (a mutant's table: its candidates are
    mined from its own states, and a counterexample replays on its own explicit model), with the
    strengthening invariants Houdini keeps, the candidates screened on the first `screen` reachable states,
    z3's queries asked on `workers` processes; `deadline` (on `time.perf_counter`) cuts it short, as an
    incomplete proof."""
    started = time.perf_counter()
    proof = Proof(bounds, reading)
    try:
        _prove(proof, names, rules, progress or (lambda text: None), deadline, screen, workers)
    except Late:
        late = deadline is not None and time.perf_counter() >= deadline
        proof.incomplete, proof.stopped = True, "max-seconds" if late else "z3 gave up"
    except KeyboardInterrupt as stop:  # Ctrl-C, SIGTERM (the CLI maps it), or a limit's watchdog: report what was
        proof.incomplete, proof.stopped = True, getattr(stop, "reason", "interrupted")  # reached, as a search does
    except ctypes.ArgumentError as error:  # an interrupt that came while z3's terms were built: the same stop
        stopped = wrapped_stop(error)
        if stopped is None:
            raise
        proof.incomplete, proof.stopped = True, stopped
    proof.seconds = time.perf_counter() - started
    return proof


RECENT = 2  # the moves that broke something in this many latest rounds (and none since) start Houdini's next pass


def houdini(st: Step, items: list[Any], deadline: float | None, say: Callable[[str], None],
            seen: Callable[[int, list[Any], list[Any]], None] = lambda rounds, active, dropped: None,
            around: Callable[[Cti, list[Any]], list[Any]] | None = None, asker: Asker | None = None
            ) -> tuple[list[Any], int]:
    """The largest subset of `items` (candidates and state properties, each holding initially) that is
    inductive together over the step `st`, and the rounds it took. Move by move (`Step.ask`), z3 is asked
    for a step from a state where all the items kept hold to one where some item fails; each such
    counterexample is a round, which drops every item the step breaks, and with `around(cti, kept)` every
    item that steps around it break (`Refuter.refute`). Done when no move breaks anything.

    The moves are asked in passes: every query of a pass assumes the items kept at its start, so that its queries
    are known before any is answered and the workers of `asker` (made here, in this process, if none is given) each
    take the next as soon as they are done, whatever the others' queries cost. The answers are taken in the order of
    the pass, which ends at its first round (the queries after it would assume an item now dropped). A pass starts
    with the moves that broke something in the last `RECENT` rounds and were not asked since without breaking
    anything, the latest first (a move that broke an item tends to break the next one too, so a late round costs a
    few queries, not a pass over every move), then goes on from the latest one's place, in the moves' order (so that
    the early rounds, found all along the moves, do not ask the first ones again and again). Done after a pass that
    breaks nothing. A move is asked only of the items it touches (`Step.touches`): one that changes nothing an item
    reads keeps it, unasked, in every pass. Each pass depends only on the one before, so a proof is the same from
    run to run and at any number of workers (of two or more: `Asker.each`). `seen(rounds, active, dropped)` is told
    after each round, so that a stop part way knows how far it got."""
    asker = asker or Asker(st, items, None, deadline)
    index = {id(c): i for i, c in enumerate(asker.items)}
    alive = [index[id(c)] for c in items]
    dropped: list[int] = []
    rounds, dropping, count = 0, True, len(st.moves)
    latest: list[int] = []  # the moves that broke something and broke something the last time asked, latest first
    while dropping:
        hyps, dropping = tuple(alive), False
        recent, start = latest[:RECENT], latest[0] if latest else 0
        order = recent + [k for k in list(range(start, count)) + list(range(start)) if k not in recent]
        batch = [Query(k, hyps, ("items", touched), hyps) for k in order
                 if (touched := tuple(i for i in alive if st.touches(k, asker.post[i])))]
        with closing(asker.each(batch)) as answers:  # left at the first round: the provers under way ended
            for asked, (q, a) in enumerate(answers, 1):
                if not a.found:  # a move that breaks nothing now is asked in its place next time, not first
                    latest = [k for k in latest if k != q.k]
                    say(f"Houdini pass {rounds + 1} (after {rounds} rounds, {len(alive)} items left): {asked}/"
                        f"{len(batch)} moves asked, none breaks an item yet")
                    continue
                failed = list(a.failing)  # of the items kept: the pass ends at its first round
                alive = _but(alive, failed)
                more: list[int] = []
                if around is not None and a.cti is not None:
                    more = [index[id(c)] for c in around(a.cti, [asker.items[i] for i in alive])]
                    alive = _but(alive, more)
                rounds += 1
                latest, dropping = [q.k] + [k for k in latest if k != q.k], True
                dropped += failed + more
                seen(rounds, [asker.items[i] for i in alive], [asker.items[i] for i in dropped])
                say(f"Houdini round {rounds}: {len(failed)} dropped by a {st.moves[q.k].kind.__name__} step, "
                    f"{len(more)} by steps around it, {len(alive)} left: "
                    + "; ".join(_named(asker.items[i]) for i in failed + more))
                break
    seen(rounds, [asker.items[i] for i in alive], [asker.items[i] for i in dropped])
    return [asker.items[i] for i in alive], rounds


def _but(alive: list[int], gone: list[int]) -> list[int]:
    out = set(gone)
    return [i for i in alive if i not in out]


def _named(item: Any) -> str:
    return item if isinstance(item, str) else item.name


def _without(items: list[Any], gone: list[Any]) -> list[Any]:
    out = {id(c) for c in gone}
    return [c for c in items if id(c) not in out]


def _prove(proof: Proof, names: tuple[str, ...], rules: tuple[Rule, ...], say: Callable[[str], None],
           deadline: float | None, screen: int = PREFIX, workers: int = 1) -> None:
    """The proof, recorded in `proof` as it goes (its stage and figures), so that a stop keeps them."""
    bounds, reading = proof.bounds, proof.reading
    machine = Machine(bounds, reading, rules)

    def late() -> bool:
        return deadline is not None and time.perf_counter() >= deadline

    def found(count: int) -> None:
        proof.sampled = count

    def screened(done: int, of: int) -> None:
        proof.screened = (done, of)

    reached = reach(machine, prefix=screen, late=late, told=found)
    if late():
        raise Late
    proof.sampled, proof.stage = len(reached.states), MINING
    say(f"mining candidate invariants from {len(reached.sample):,} reachable states, screened on {proof.sampled:,}")
    candidates = mine(reached.sample, bounds, late, screened, reached.states, workers)
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

    def around(cti: Cti, active: list[Any]) -> list[Any]:
        more = refuter.refute(cti.pre, cti.post, active)
        more += refuter.wander([cti.pre, cti.post], _without(active, more), edits, AROUND, proof.rounds)
        proof.refuted += len(more)
        return more

    asker = Asker(st, _without(items, early), machine, deadline, workers)
    # Houdini over the candidates and the state properties together (each may need the others).
    active, _ = houdini(st, asker.items, deadline, say, seen, around, asker)
    proof.stage = GOALS
    proof.kept = [c for c in active if isinstance(c, Candidate)]
    proved_always = {c for c in active if isinstance(c, str)}
    index = {id(c): i for i, c in enumerate(asker.items)}
    hyps = tuple(index[id(c)] for c in active)
    every = list(range(len(st.moves)))
    # Every goal's queries in one stream (the workers kept busy from one goal to the next): for each goal, the
    # first of its moves (in their order) that breaks it, if any.
    goals: dict[tuple[Any, ...], list[int]] = {}
    for name in always:
        if name not in base_broken and name not in proved_always:
            after = st.state(name, st.s1)
            goals[("state", name)] = [k for k in every if st.touches(k, after)]
    queries = [Query(k, hyps, goal) for goal, asked in goals.items() for k in asked]
    # The transition properties: one query a move for all those that look at it (the first move in order that
    # breaks one, and that move's counterexample, being the answer either way).
    queries += [Query(k, hyps, ("steps", looking)) for k in every
                if (looking := tuple(n for n in steps if st.looks(n, k)))]
    queries += [Query(k, hyps, ("fits",)) for k in every]
    found: dict[tuple[Any, ...], Answer] = {}
    broke: dict[str, Any] = {}  # a transition property -> the counterexample of the first move that breaks it

    def outcome(name: str) -> Outcome:
        if name in base_broken:
            return Outcome(name, False, "fails in the initial state")
        if name in proved_always:
            return Outcome(name, True)
        broken = found.get(("state", name))
        return Outcome(name, False, "not inductive: a step from a state where it and every kept invariant hold breaks "
                       "it", None if broken is None else broken.cti)

    # What is settled without z3 first, so that a stop in the goals' queries reports it.
    proof.outcomes[:] = [outcome(n) for n in always if n in base_broken or n in proved_always]
    for asked, (q, a) in enumerate(asker.each(queries), 1):
        say(f"the goals, with the {len(hyps)} items Houdini kept: {asked}/{len(queries)} queries answered")
        if a.found and q.goal[0] == "steps":
            for name, cti in a.broken:
                broke.setdefault(name, cti)
        elif a.found and q.goal not in found:
            found[q.goal] = a
    outcomes = proof.outcomes
    outcomes[:] = [outcome(n) for n in always]
    for name in steps:
        kept = name not in broke
        outcomes.append(Outcome(name, kept, "" if kept else "not inductive: a step from a state where every kept "
                                "invariant holds breaks it", broke.get(name)))
    over = found.get(("fits",))
    fits = over is None
    overflow = None if over is None else over.overflow
    outcomes.append(Outcome(FITS, fits, "" if fits else "a step from a state where every kept invariant holds "
                            f"overflows a capacity ({overflow}): the proof does not cover every behaviour"))
