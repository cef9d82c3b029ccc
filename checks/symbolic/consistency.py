"""Rule consistency: the clauses as constraints over bounded behaviours, asked of z3.

A behaviour here is a path of K steps from the initial state under *some* reading: the conformant one or
any single-switch reading (one reading for the whole behaviour, a variable z3 chooses: the envelope of
`envelope.py` over the relation derived from the rule table, every fault the bounds allow included), so
that the clauses, not the conformant rules alone, decide which behaviours are admitted.
The constraint of a clause is every property that formalises it (`model.properties`: a property
formalises all the clauses it cites together, so it is asserted while each of them is kept), and, for
the liveness clauses of `no_stuck_execution` (G6.5, G5.2), that the behaviour has finished by step K.
A clause's *trigger* is each witness that cites it.

Three questions, each a query of one incremental solver (`EnvelopeUnrolling`, the `Unrolling` of
`unrolled.py` over the envelope; every property judged by its formula, `terms.py`):

- `satisfiable`: all clauses together admit a behaviour in which every trigger the bounds allow occurs
  (so they are not satisfied vacuously); the behaviour is decoded and re-checked on the explicit model;
- `clashes`: for each reading, a behaviour that takes a branch where the reading differs from the
  conformant one, with every clause's constraint under its own literal: if none exists, a minimal
  unsatisfiable core of those literals names the clauses the reading clashes with;
- `dependencies`: drop one clause (every property citing it stops being asserted) and ask which of those
  properties still hold on every behaviour the remaining clauses admit: those that do not depend on it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import z3
from pausecheck.model import Bounds, Machine
from pausecheck.model.clauses import CLAUSES
from pausecheck.model.lang import Rule
from pausecheck.model.liveness import LIVENESS
from pausecheck.model.properties import PROPERTIES, missing_bound
from pausecheck.model.property import ALWAYS, SOMETIMES, TRANSITION
from pausecheck.model.reading import CONFORMANT, SWITCHES, Reading, reading_named
from pausecheck.model.rules import RULES

from ..search.explore import Discovery
from ..search.parallel import in_order
from .envelope import Envelope, EnvelopeUnrolling
from .relation import Caps
from .terms import term_of
from .unrolled import Drift, finished

__all__ = ["FINISHES", "Behaviours", "single_switch_readings", "Clash", "Dependency", "Satisfiable", "Split",
           "constraints", "triggers", "divergent_step", "asserted_by", "satisfiable", "clashes", "dependencies"]

FINISHES = "no_stuck_execution"  # its bounded reading: the behaviour has finished by step K
SAFETY = tuple(p.name for p in PROPERTIES if p.kind in (ALWAYS, TRANSITION))
_CLAUSES_OF = {p.name: p.clauses for p in PROPERTIES if p.name in SAFETY} | {
    p.name: p.clauses for p in LIVENESS if p.name == FINISHES}


def constraints() -> dict[str, tuple[str, ...]]:
    """Clause id -> the properties that formalise it (in the order of the catalogue; empty: none)."""
    return {c.id: tuple(n for n in SAFETY + (FINISHES,) if c.id in _CLAUSES_OF[n]) for c in CLAUSES}


def asserted_by(clauses: tuple[str, ...], finishing: bool = False) -> list[str]:
    """The properties these clauses assert (each needs every clause it cites; FINISHES only if `finishing`)."""
    chosen = set(clauses)
    return [n for n, cited in _CLAUSES_OF.items() if set(cited) <= chosen and (n != FINISHES or finishing)]


def triggers(bounds: Bounds) -> dict[str, tuple[str, ...]]:
    """Clause id -> the witnesses that cite it and that `bounds` can exercise."""
    found = {c.id: [] for c in CLAUSES}
    for p in PROPERTIES:
        if p.kind == SOMETIMES and missing_bound(p, bounds) is None:
            for clause in p.clauses:
                found[clause].append(p.name)
    return {c: tuple(names) for c, names in found.items()}


def single_switch_readings() -> tuple[Reading, ...]:
    """Every reading that sets one switch otherwise than the conformant reading, in the order of the switches
    and their values."""
    return tuple(reading_named(f"{s.ambiguity}={v}") for s in SWITCHES for v in s.values if v != s.default)


class Behaviours:
    """The behaviours of exactly `depth` steps (a poll pads a shorter one) under the conformant reading or
    any of `readings` (default: every single-switch reading), with a literal per clause that asserts the
    clause's constraint when assumed."""

    def __init__(self, bounds: Bounds, depth: int, readings: tuple[Reading, ...] | None = None,
                 rules: tuple[Rule, ...] = RULES, caps: Caps | None = None) -> None:
        self.bounds, self.depth, self.rules = bounds, depth, rules
        self.readings = (CONFORMANT,) + (single_switch_readings() if readings is None else readings)
        self.envelope = Envelope(bounds, self.readings, rules, caps)
        self.unrolling = u = EnvelopeUnrolling(self.envelope)
        u.solver.set("sat.core.minimize", True)  # cores come back (nearly) minimal: few deletion checks after
        for _ in range(depth):
            u.grow()
        # each property's violation at each step (a state, or the step into it), built once
        self.at = {name: [u.violation(name, t) for t in range(depth + 1)] for name in SAFETY}
        self.broken = {name: z3.Or(self.at[name]) for name in SAFETY}
        self.broken[FINISHES] = z3.Not(term_of(finished(bounds), u.caps, bounds, u.states[depth]))
        self.literal = {c: z3.Bool(f"clause {c}") for c in constraints()}
        self.finish = z3.Bool("finishes")  # asserts FINISHES while its clauses are kept (parts a and b only)
        for name, broken in self.broken.items():
            kept = [self.literal[c] for c in _CLAUSES_OF[name]] + ([self.finish] if name == FINISHES else [])
            u.solver.add(z3.Implies(z3.And(kept), z3.Not(broken)))

    def shown(self, witness: str) -> z3.BoolRef:
        """Some step of the behaviour shows the witness."""
        return z3.Or([self.unrolling.violation(witness, t) for t in range(1, self.depth + 1)])

    def reading(self, index: int) -> z3.BoolRef:
        return self.envelope.choice == index

    def same_as_conformant(self, index: int) -> bool:
        """Reading `index` has, at these bounds, exactly the conformant reading's rules."""
        return self.envelope.same_as_conformant(index)

    def diverges(self, index: int) -> z3.BoolRef:
        """Some step takes a branch where reading `index` leads elsewhere than the conformant reading."""
        return z3.Or([self.unrolling.diverges(index, t) for t in range(self.depth)])

    def check(self, *assumptions: z3.BoolRef) -> z3.CheckSatResult:
        answer = self.unrolling.solver.check(*assumptions)
        if answer == z3.unknown:
            raise RuntimeError(f"z3 gave up: {self.unrolling.solver.reason_unknown()}")
        return answer

    def kept(self, dropped: tuple[str, ...] = (), finish: bool = True) -> list[z3.BoolRef]:
        """The literals of every clause but `dropped` (and, with `finish`, the one that asks the behaviour
        to have finished by step K)."""
        return [lit for c, lit in self.literal.items() if c not in dropped] + ([self.finish] if finish else [])

    def behaviour(self) -> tuple[Reading, Discovery]:
        """The behaviour of the last satisfiable check: its reading, and its path re-checked on the explicit
        model under that reading."""
        model = self.unrolling.solver.model()
        reading = self.unrolling.chosen(model)
        return reading, self.unrolling.path(model, self.depth, Machine(self.bounds, reading, self.rules))

    def core(self, fixed: tuple[z3.BoolRef, ...]) -> list[str]:
        """After an unsatisfiable check of `fixed` and every literal: a minimal set of them that is still
        unsatisfiable with `fixed` (deletion-based), as clause ids and FINISHES."""
        names = {lit.get_id(): c for c, lit in self.literal.items()} | {self.finish.get_id(): FINISHES}
        core = _minimal(self, fixed, [lit for lit in self.unrolling.solver.unsat_core() if lit.get_id() in names])
        order = list(self.literal) + [FINISHES]
        return sorted((names[lit.get_id()] for lit in core), key=order.index)


def _minimal(b: Behaviours, fixed: tuple[z3.BoolRef, ...], core: list[z3.BoolRef]) -> list[z3.BoolRef]:
    """Drop from an unsatisfiable core each literal without which it stays unsatisfiable."""
    i = 0
    while i < len(core):
        trial = core[:i] + core[i + 1:]
        if b.check(*fixed, *trial) == z3.unsat:
            ids = {lit.get_id() for lit in b.unrolling.solver.unsat_core()}
            core = [lit for lit in trial if lit.get_id() in ids]
        else:
            i += 1
    return core


class Split:
    """The readings asked about, split by the capacities their states need (`Caps.of`): one `Behaviours`, one
    solver, per split, built when first asked for. A reading that can put an artifact on a list twice needs
    lists twice as long, and every state of a solver has its widest shape: asking the others of a solver
    with the shorter lists makes their queries about twice as fast."""

    def __init__(self, bounds: Bounds, depth: int, readings: tuple[Reading, ...] | None = None,
                 rules: tuple[Rule, ...] = RULES) -> None:
        self.bounds, self.depth, self.rules = bounds, depth, rules
        self.readings = single_switch_readings() if readings is None else readings
        self.parts: dict[Caps, list[Reading]] = {Caps.of(bounds, CONFORMANT): []}
        for reading in self.readings:
            self.parts.setdefault(Caps.of(bounds, reading), []).append(reading)
        self._built: dict[Caps, Behaviours] = {}

    def behaviours(self, caps: Caps) -> Behaviours:
        if caps not in self._built:
            self._built[caps] = Behaviours(self.bounds, self.depth, tuple(self.parts[caps]), self.rules, caps)
        return self._built[caps]

    def of(self, reading: Reading) -> tuple[Behaviours, int]:
        """The behaviours that hold `reading`, and its index there."""
        b = self.behaviours(Caps.of(self.bounds, reading))
        return b, b.readings.index(reading)

    def every(self) -> list[tuple[Behaviours, tuple[z3.BoolRef, ...]]]:
        """The behaviours of every split, built as needed, each with what to assume of its reading: after the
        first, not the conformant reading, which the first has asked about already."""
        parts = [caps for caps, readings in self.parts.items() if readings or len(self.parts) == 1]
        return [(b, (z3.Not(b.reading(0)),) if i else ()) for i, b in enumerate(map(self.behaviours, parts))]


def divergent_step(bounds: Bounds, reading: Reading, path: Discovery, rules: tuple[Rule, ...] = RULES) -> int:
    """The first step of a path (under `reading`) whose successor the conformant reading does not give: the
    branch the reading takes, found on the explicit model (a Drift if there is none)."""
    conformant = Machine(bounds, CONFORMANT, rules)
    for t, action in enumerate(path.actions):
        if conformant.step(path.states[t], action) != path.states[t + 1]:
            return t
    raise Drift(f"z3 says the behaviour takes a branch of {reading.name}; on the explicit model every step is "
                "the conformant reading's too")


@dataclass
class Satisfiable:
    """Part (a): behaviours that satisfy every clause's constraint and finish, and together show every
    trigger the bounds allow; one behaviour if they can all occur in one."""

    depth: int
    triggers: tuple[str, ...]
    behaviours: list[tuple[str, Discovery, tuple[str, ...]]] = field(default_factory=list)  # (reading, path, shown)
    apart: tuple[str, ...] = ()  # a minimal set of triggers that no one behaviour shows together
    impossible: tuple[str, ...] = ()  # triggers no behaviour of `depth` steps shows with every clause kept
    seconds: float = 0.0

    @property
    def one(self) -> bool:
        return len(self.behaviours) == 1 and not self.impossible


def satisfiable(bounds: Bounds, depth: int, progress: Callable[[str], None] | None = None,
                rules: tuple[Rule, ...] = RULES) -> Satisfiable:
    """Behaviours of `depth` steps under every clause: one showing every trigger if there is one, else a
    few that show them all between them (each query asks for every trigger still unshown; a minimal set
    that cannot occur together is split by putting its last trigger off to a later behaviour)."""
    started = time.perf_counter()
    b = Behaviours(bounds, depth, (), rules)
    wanted = tuple(sorted({w for names in triggers(bounds).values() for w in names},
                          key=[p.name for p in PROPERTIES].index))
    shows = {w: z3.Bool(f"trigger {w}") for w in wanted}
    for w, lit in shows.items():
        b.unrolling.solver.add(z3.Implies(lit, b.shown(w)))
    result = Satisfiable(depth, wanted)
    left, later = list(wanted), []
    while left or later:
        if not left:
            left, later = later, []
        if b.check(*b.kept(), *(shows[w] for w in left)) == z3.sat:
            model = b.unrolling.solver.model()
            reading, path = b.behaviour()
            shown = tuple(w for w in wanted if z3.is_true(model.eval(b.shown(w), model_completion=True)))
            result.behaviours.append((reading.name, path, shown))
            left = [w for w in left if w not in shown]
            later = [w for w in later if w not in shown]
            if progress is not None:
                progress(f"behaviour {len(result.behaviours)} shows {len(shown)} trigger(s)")
            continue
        ids = {shows[w].get_id(): w for w in left}
        # The solver's own core (minimised by the SAT solver, not by deletion: each deletion is a deep query).
        core = [ids[lit.get_id()] for lit in b.unrolling.solver.unsat_core() if lit.get_id() in ids]
        if len(core) <= 1:  # impossible on its own (or the clauses alone are unsatisfiable: core empty)
            result.impossible += tuple(core) if core else tuple(left)
            left = [w for w in left if w not in core] if core else []
            continue
        result.apart = result.apart or tuple(core)
        left.remove(core[-1])
        later.append(core[-1])
    result.seconds = time.perf_counter() - started
    return result


@dataclass
class Clash:
    """Part (b), one reading: does it clash with the clauses within `depth` steps, and with which?"""

    reading: str
    diverges: bool  # some behaviour takes a branch where the reading differs from the conformant one
    clauses: tuple[str, ...] = ()  # a minimal clashing set (empty: no clash within the depth)
    finishing: bool = False  # the clash needs the behaviour to have finished by step K (FINISHES)
    seconds: float = 0.0


def clashes(bounds: Bounds, depth: int, readings: tuple[Reading, ...] | None = None,
            done: Callable[[Clash], None] | None = None, rules: tuple[Rule, ...] = RULES) -> list[Clash]:
    """Each reading against the clauses: a minimal unsatisfiable core where they clash."""
    split = Split(bounds, depth, readings, rules)
    found = []
    for reading in split.readings:
        started = time.perf_counter()
        b, index = split.of(reading)
        fixed = (b.reading(index), b.diverges(index))
        if b.same_as_conformant(index) or b.check(*fixed) == z3.unsat:
            clash = Clash(reading.name, False)
        elif b.check(*fixed, *b.kept()) == z3.sat:
            # decoded and re-taken on the explicit model, where one step leaves the conformant reading (Drift if not)
            divergent_step(bounds, reading, b.behaviour()[1], rules)
            clash = Clash(reading.name, True)
        else:
            core = b.core(fixed)
            clash = Clash(reading.name, True, tuple(c for c in core if c != FINISHES), FINISHES in core)
        clash.seconds = time.perf_counter() - started
        found.append(clash)
        if done is not None:
            done(clash)
    return found


@dataclass
class Dependency:
    """Part (c), one clause: the properties that stop holding when it is dropped (each with the reading
    and length of a behaviour that breaks it while every other clause holds) and those that still hold."""

    clause: str
    formalised_by: tuple[str, ...]
    fail: dict[str, tuple[str, int]] = field(default_factory=dict)
    hold: tuple[str, ...] = ()
    seconds: float = 0.0


def dependencies(bounds: Bounds, depth: int, readings: tuple[Reading, ...] | None = None,
                 done: Callable[[Dependency], None] | None = None, rules: tuple[Rule, ...] = RULES,
                 jobs: int | None = 1) -> list[Dependency]:
    """For each clause with a safety property: drop it and see which of its properties no longer follow (asked
    of each split of the readings in turn), the clauses shared among `jobs` processes (None: every core) forked
    once the solvers are built; `done` hears of each clause in the clauses' order. What is reported of a clause
    does not depend on what its process asked before: the step is the first at which a behaviour breaks the
    property, the reading the first (in the order of the readings) of such a behaviour."""
    split = Split(bounds, depth, readings, rules)
    asked = [(clause, names) for clause, names in
             ((c, tuple(n for n in names if n != FINISHES)) for c, names in constraints().items()) if names]
    if jobs != 1:
        split.every()  # built here: the workers forked below each start with the solvers
    return in_order(_depends, asked, jobs=jobs, args=(split,), fresh=False, done=done)


def _depends(asked: tuple[str, tuple[str, ...]], split: Split) -> Dependency:
    """One clause dropped: which of its properties some behaviour of the other clauses breaks."""
    started = time.perf_counter()
    clause, names = asked
    dep = Dependency(clause, names)
    open_ = list(names)
    for b, others in split.every():
        kept = b.kept((clause,), finish=False)
        # Step by step, as bounded model checking does: one query per step is several times cheaper than
        # one for any step (the solver keeps what it learns from the earlier steps).
        for t in range(b.depth + 1):
            while open_ and b.check(*others, *kept, z3.Or([b.at[n][t] for n in open_])) == z3.sat:
                model = b.unrolling.solver.model()
                broken = [n for n in open_ if z3.is_true(model.eval(b.at[n][t], model_completion=True))]
                least = b.readings.index(b.unrolling.chosen(model))
                for n in broken:
                    dep.fail[n] = _first_reading(b, (*others, *kept, b.at[n][t]), least, n)
                    open_.remove(n)
    dep.hold = tuple(open_)
    dep.seconds = time.perf_counter() - started
    return dep


def _first_reading(b: Behaviours, given: tuple[z3.BoolRef, ...], below: int, name: str) -> tuple[str, int]:
    """The first reading (by index, at most `below`, which has one) with a behaviour where `given` holds, and
    the step at which that behaviour first breaks `name`, decoded and re-taken on the explicit model."""
    low, least = 0, below
    while low < least:  # halving: is there one among the readings low..middle?
        middle = (low + least - 1) // 2
        if b.check(*given, z3.ULE(b.envelope.choice, middle)) == z3.sat:
            least = b.readings.index(b.unrolling.chosen(b.unrolling.solver.model()))
        else:
            low = middle + 1
    if b.check(*given, b.reading(least)) != z3.sat:
        raise AssertionError(f"the reading {b.readings[least].name} no longer breaks {name}")
    reading, _ = b.behaviour()
    return reading.name, _first_break(b, b.unrolling.solver.model(), name)


def _first_break(b: Behaviours, model: z3.ModelRef, name: str) -> int:
    """The step at which the decoded behaviour first breaks `name`."""
    for t in range(b.depth + 1):
        if z3.is_true(model.eval(b.at[name][t], model_completion=True)):
            return t
    raise AssertionError(f"{name} is not broken in the model")
