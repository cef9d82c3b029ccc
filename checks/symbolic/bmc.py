"""Bounded model checking: the behaviours of up to K steps unrolled in one incremental z3 solver.

`Unrolling` holds states s0..sk as fresh variables and, for each step, a selector naming the move
taken; growing it by one step adds one transition, so depth k+1 reuses everything asserted for k.
`bmc` asks, depth by depth, for a violation of each invariant and transition property, for each
witness and for a deadlock, and returns the first depth at which each is found: its minimal depth,
which the breadth-first search must agree with. A model of the solver is decoded into concrete
states and the explicit actions between them; every decoded step is re-checked on the explicit
machine, so a counterexample that the explicit model would not produce is an error, never a verdict.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import z3
from pausecheck.model import Machine
from pausecheck.model.machine import DEADLOCK
from pausecheck.model.properties import PROPERTIES
from pausecheck.model.property import ALWAYS, SOMETIMES

from ..explore import Discovery
from .properties import deadlocked, holds, step_holds, step_shows
from .rules import Move, Semantics, moves
from .state import SState, decode, fresh, initial, well_formed
from .unrolled import BmcResult, Drift, Found, UniverseTooSmall, _judged
from .vec import leaves, same, var

__all__ = ["Unrolling", "Found", "BmcResult", "bmc", "Drift", "UniverseTooSmall", "NAMES"]

NAMES: tuple[str, ...] = tuple(p.name for p in PROPERTIES) + (DEADLOCK,)


class Unrolling:
    """States s0..sk and the moves between them, asserted in one solver as the unrolling grows."""

    def __init__(self, m: Semantics, start: SState | None = None,
                 lemmas: Callable[[SState], z3.BoolRef] | None = None) -> None:
        self.m = m
        self.lemmas = lemmas
        self.solver = z3.SolverFor("QF_FD")
        self.states: list[SState] = [fresh(m.universe, "s0")]
        self.selectors: list[z3.ArithRef] = []
        self._moves: list[list[Move]] = []
        self.solver.add(well_formed(self.states[0]))
        if lemmas is not None:
            self.solver.add(lemmas(self.states[0]))
        if start is not None:
            self.solver.add(same(self.states[0], start))

    @property
    def depth(self) -> int:
        return len(self.states) - 1

    def moves_from(self, t: int) -> list[Move]:
        """The moves out of state t (built once)."""
        while len(self._moves) <= t:
            self._moves.append(moves(self.m, self.states[len(self._moves)]))
        return self._moves[t]

    def grow(self) -> None:
        """Add one step: a fresh state, reached from the last by one enabled move."""
        t = self.depth
        pre, post = self.states[t], fresh(self.m.universe, f"s{t + 1}")
        options = self.moves_from(t)
        chosen = var(f"move{t}")
        self.solver.add(chosen >= 0, chosen < len(options), well_formed(post))
        self.solver.add([z3.Implies(chosen == k, mv.guard) for k, mv in enumerate(options)])
        # Each variable of the new state: an if-chain over the moves that change it, else its old value.
        # Most moves leave most of a state alone, so the chains stay short.
        before, afters = leaves(pre), [leaves(mv.post) for mv in options]
        for index, new in enumerate(leaves(post)):
            value = before[index]
            for k, after in enumerate(afters):
                term = after[index]
                if not term.eq(before[index]):
                    value = z3.If(chosen == k, term, value)
            self.solver.add(new == value)
        if self.lemmas is not None:
            self.solver.add(self.lemmas(post))
        self.states.append(post)
        self.selectors.append(chosen)

    def violation(self, name: str, t: int) -> z3.BoolRef:
        """The term saying that state t (or, for a step property, step t) shows `name`: a broken invariant,
        a broken transition property, a witness, a deadlock, or (name None) a step overflowing the universe."""
        kind = KIND[name]
        if kind == ALWAYS:
            return z3.Not(holds(self.m, name, self.states[t]))
        if kind == DEADLOCK:
            return deadlocked(self.m, self.states[t], self.moves_from(t))
        if t == 0:
            return z3.BoolVal(False)
        pre, post, chosen = self.states[t - 1], self.states[t], self.selectors[t - 1]
        check: Callable[[Move], z3.BoolRef]
        if kind == SOMETIMES:
            check = lambda mv: step_shows(self.m, name, mv, pre, post)  # noqa: E731
        else:
            check = lambda mv: z3.Not(step_holds(self.m, name, mv, pre, post))  # noqa: E731
        return z3.Or([z3.And(chosen == k, check(mv)) for k, mv in enumerate(self.moves_from(t - 1))])

    def overflow(self, t: int) -> z3.BoolRef:
        """Some move enabled in state t leads out of the universe's capacities."""
        return z3.Or([z3.And(mv.guard, z3.Not(well_formed(mv.post))) for mv in self.moves_from(t)])

    def ask(self, term: z3.BoolRef) -> z3.ModelRef | None:
        """A model of the unrolling in which `term` holds, or None (unknown is an error)."""
        self.solver.push()
        self.solver.add(term)
        answer = self.solver.check()
        model = self.solver.model() if answer == z3.sat else None
        self.solver.pop()
        if answer == z3.unknown:
            raise RuntimeError(f"z3 gave up: {self.solver.reason_unknown()}")
        return model

    def path(self, model: z3.ModelRef, t: int, machine: Machine) -> Discovery:
        """The concrete states s0..st and the explicit actions between them, each step re-checked."""
        states = [decode(model, s) for s in self.states[:t + 1]]
        actions = []
        for i in range(t):
            mv = self.moves_from(i)[model.eval(self.selectors[i], model_completion=True).as_long()]
            found = [a for a, post in machine.successors(states[i]) if mv.matches(a) and post == states[i + 1]]
            if not found:
                raise Drift(f"step {i + 1} ({mv.label()}) from {states[i]} to {states[i + 1]} is no step of the "
                            "explicit model")
            actions.append(found[0])
        return Discovery(tuple(states), tuple(actions), None)


KIND: dict[str, str] = {p.name: p.kind for p in PROPERTIES} | {DEADLOCK: DEADLOCK}


def bmc(m: Semantics, machine: Machine, depth: int, names: tuple[str, ...] = NAMES, *,
        lemmas: Callable[[SState], z3.BoolRef] | None = None, deadline: float | None = None,
        progress: Callable[[int, int], None] | None = None) -> BmcResult:
    """Check `names` on every behaviour of up to `depth` steps; each found one at its minimal depth.

    The default (conformant) behaviours; the explicit `machine` (same bounds) re-checks every decoded
    path and judges what the path shows, so the message of a violation is the explicit model's own."""
    started = time.perf_counter()
    result = BmcResult(depth, {name: Found(name, KIND[name]) for name in names})
    unrolling = Unrolling(m, initial(m.universe), lemmas)
    for t in range(depth + 1):
        if deadline is not None and time.perf_counter() > deadline:
            result.depth, result.complete = t - 1, False
            break
        if t > 0:
            unrolling.grow()
        # One query for every property still open at this depth (and for a step out of the universe); each
        # model found settles every property it shows (at this depth, their minimal one), and the query is
        # asked again of the rest until unsat.
        overflow = unrolling.overflow(t)
        open_ = {f.name: (f, unrolling.violation(f.name, t)) for f in result.found.values() if f.depth is None}
        while True:
            model = unrolling.ask(z3.Or(overflow, *[term for _, term in open_.values()]))
            if model is None:
                break
            if z3.is_true(model.eval(overflow, model_completion=True)):
                raise UniverseTooSmall(f"a step from depth {t} does not fit the symbolic universe {m.universe}")
            path = unrolling.path(model, t, machine)
            for name, (f, term) in list(open_.items()):
                if z3.is_true(model.eval(term, model_completion=True)):
                    f.depth, f.discovery = t, _judged(path, f, machine)
                    del open_[name]
        if progress is not None:
            progress(t, sum(1 for f in result.found.values() if f.depth is not None))
    result.seconds = time.perf_counter() - started
    return result
