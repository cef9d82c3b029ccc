"""Bounded model checking over the whole model: the relation derived from the rule table (`relation.py`)
unrolled step by step in one incremental z3 solver, every property judged by its formula (`terms.py`).

`Unrolling` holds states s0..sk as fresh values and, for each step, a selector naming the move taken;
growing it by one step adds one transition. `bmc` asks, depth by depth, for a violation of each
invariant and transition property, for each witness and for a deadlock, and returns the first depth
at which each shows: its minimal depth, which the breadth-first search must agree with. It asks only of
behaviours whose every step but the last changes the state: a shortest one is such a behaviour. Every reading
and every fault the bounds allow is in the relation. A model is decoded into concrete states and the
explicit actions between them, and every step is re-taken on the explicit machine: a path the
explicit model would not take is a `Drift`, never a verdict.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import z3
from pausecheck.model import Machine
from pausecheck.model.config import Bounds
from pausecheck.model.lang import Rule, lift
from pausecheck.model.machine import DEADLOCK
from pausecheck.model.properties import PROPERTIES
from pausecheck.model.property import ALWAYS, SOMETIMES
from pausecheck.model.reading import Reading
from pausecheck.model.rules import RULES, S

from ..search.explore import Discovery
from .crosscheck import action_of
from .relation import Caps, Move, decode, fresh, initial, moves, post_fits, well_formed
from .terms import state_term, step_term, term_of
from .values import Z3, OptV, Seq, leaves, reader, same

__all__ = ["Unrolling", "Found", "BmcResult", "bmc", "Drift", "UniverseTooSmall", "NAMES", "KIND"]

NAMES: tuple[str, ...] = tuple(p.name for p in PROPERTIES) + (DEADLOCK,)
KIND: dict[str, str] = {p.name: p.kind for p in PROPERTIES} | {DEADLOCK: DEADLOCK}
_ON = {p.name: p.on for p in PROPERTIES}


class Drift(AssertionError):
    """A solver's behaviour that the explicit model does not have: the two derivations differ."""


class UniverseTooSmall(RuntimeError):
    """A reachable step that would not fit the symbolic state's capacities."""


def finished(bounds: Bounds) -> Any:
    """The formula of a final state (`Machine.is_final`): every session ran its turns, every execution ended."""
    return (S.executions.size - S.new_turns.size == lift(bounds.sessions * bounds.turns)) & S.executions.all_of(
        lambda x: x.status.one_of("completed", "failed", "cancelled"))


def step_relation(pre: Any, post: Any, chosen: Any, options: list[Move]) -> Any:
    """`post` is reached from `pre` by the enabled move of `options` that `chosen` names, and is well formed."""
    parts = [z3.ULT(chosen, len(options)), well_formed(Z3, post)]
    parts += [z3.Implies(chosen == k, mv.guard) for k, mv in enumerate(options)]
    # Each variable of the new state: an if-chain over the moves that change it, else its old value.
    before, afters = leaves(pre), [leaves(mv.post) for mv in options]
    for index, new in enumerate(leaves(post)):
        value = before[index]
        for k, after in enumerate(afters):
            term = after[index]
            if not term.eq(before[index]):
                value = z3.If(chosen == k, term, value)
        parts.append(new == value)
    return z3.And(parts)


class _Step:
    """One step of the relation over template variables, lowered once: the state `pre`, the move `chosen`
    out of it and the state `post`, with every term the unrolling asks of a step or a state. Each step of
    an unrolling is a copy of it by z3's substitution (in C++): lowering the rules and the properties in
    Python is most of the cost of BMC (at the default bounds, several times the solver's), so it is paid
    once per unrolling instead of once per depth."""

    def __init__(self, unrolling: Unrolling) -> None:
        u = self.u = unrolling
        self.pre, self.post = fresh(u.caps, "pre"), fresh(u.caps, "post")
        self.chosen = z3.BitVec("chosen", 16)
        self.leaves = (leaves(self.pre), leaves(self.post))
        self.moves = list(moves(u.caps, u.bounds, u.reading, self.pre, Z3, u.rules))
        self._terms: dict[str, Any] = {}

    def transition(self) -> Any:
        """`post` is reached from `pre` by the enabled move `chosen`, and is well formed."""
        return step_relation(self.pre, self.post, self.chosen, self.moves)

    def term(self, key: str) -> Any:
        """The template term named `key` (built once): a property's violation, the transition, the overflow."""
        found = self._terms.get(key)
        if found is None:
            found = self._terms[key] = self._build(key)
        return found

    def _build(self, key: str) -> Any:
        u, pre, post = self.u, self.pre, self.post
        if key == "#transition":
            return self.transition()
        if key == "#overflow":  # some move enabled in `pre` leads out of the capacities
            return z3.Or([z3.And(mv.guard, z3.Not(post_fits(Z3, mv.post))) for mv in self.moves])
        kind = KIND[key]
        if kind == ALWAYS:  # of the state `pre`
            return z3.Not(state_term(key, u.caps, u.bounds, pre))
        if kind == DEADLOCK:  # of the state `pre`
            final = term_of(finished(u.bounds), u.caps, u.bounds, pre)
            return z3.And(z3.Not(final), *[z3.Or(z3.Not(mv.guard), same(Z3, mv.post, pre)) for mv in self.moves])
        on = _ON[key]  # of the step from `pre` by `chosen` to `post`
        shows: Callable[[Move], Any] = (
            (lambda mv: step_term(key, u.caps, u.bounds, pre, mv, post)) if kind == SOMETIMES else
            (lambda mv: z3.Not(step_term(key, u.caps, u.bounds, pre, mv, post))))
        return z3.Or([z3.And(self.chosen == k, shows(mv)) for k, mv in enumerate(self.moves)
                      if not on or mv.kind in on])

    def at(self, term: Any, t: int) -> Any:
        """The template term copied to step t: `pre` is state t, `chosen` the move out of it, `post` state t+1
        (a term of `pre` alone needs only state t)."""
        u = self.u
        pairs = list(zip(self.leaves[0], leaves(u.states[t]), strict=True))
        if t < u.depth:
            pairs += list(zip(self.leaves[1], leaves(u.states[t + 1]), strict=True)) + [(self.chosen, u.selectors[t])]
        return z3.substitute(term, *pairs)


class Unrolling:
    """States s0..sk and the moves between them, asserted in one solver as the unrolling grows."""

    def __init__(self, bounds: Bounds, reading: Reading, rules: tuple[Rule, ...] = RULES,
                 caps: Caps | None = None) -> None:
        self.bounds, self.reading, self.rules = bounds, reading, rules
        self.caps = caps or Caps.of(bounds, reading)
        self.solver = z3.SolverFor("QF_FD")
        self.states: list[Any] = [fresh(self.caps, "s0")]
        self.selectors: list[Any] = []
        self._moves: dict[int, list[Move]] = {}
        self.solver.add(well_formed(Z3, self.states[0]), same(Z3, self.states[0], initial(Z3, self.caps)))

    @property
    def depth(self) -> int:
        return len(self.states) - 1

    @functools.cached_property
    def template(self) -> _Step:
        """The step lowered once over template variables (built when first asked)."""
        return _Step(self)

    def moves_from(self, t: int) -> list[Move]:
        """The moves out of state t (copied from the template once, when asked)."""
        if t not in self._moves:
            pairs = list(zip(self.template.leaves[0], leaves(self.states[t]), strict=True))

            def copy(v: Any) -> Any:
                if isinstance(v, Seq):
                    return Seq(copy(v.length), tuple(copy(x) for x in v.items), v.t)
                if isinstance(v, OptV):
                    return OptV(copy(v.present), copy(v.value))
                if isinstance(v, tuple):
                    return tuple(copy(x) for x in v)
                return z3.substitute(v, *pairs)

            self._moves[t] = [Move(mv.kind, copy(mv.fields), copy(mv.guard), copy(mv.post))
                              for mv in self.template.moves]
        return self._moves[t]

    def grow(self) -> None:
        """Add one step: a fresh state, reached from the last by one enabled move."""
        t = self.depth
        self.states.append(fresh(self.caps, f"s{t + 1}"))
        self.selectors.append(z3.BitVec(f"move{t}", 16))
        self.solver.add(self.transition(t))

    def transition(self, t: int) -> Any:
        """Step t: the template's transition copied to it."""
        return self.template.at(self.template.term("#transition"), t)

    def chosen_move(self, t: int, read: Callable[[Any], Any]) -> Move:
        """The move a model chose at step t, its fields copied to that step."""
        chosen = self.template.moves[read(self.selectors[t])]
        return Move(chosen.kind, tuple(self.template.at(f, t) if z3.is_expr(f) else f for f in chosen.fields),
                    chosen.guard, chosen.post)

    def violation(self, name: str, t: int) -> Any:
        """The term saying that state t (or, for a step property, step t) shows `name`: a broken invariant,
        a broken transition property, a witness, or a deadlock."""
        if KIND[name] in (ALWAYS, DEADLOCK):
            return self.template.at(self.template.term(name), t)
        if t == 0:
            return z3.BoolVal(False)
        return self.template.at(self.template.term(name), t - 1)

    def overflow(self, t: int) -> Any:
        """Some move enabled in state t leads out of the capacities."""
        return self.template.at(self.template.term("#overflow"), t)

    def ask(self, term: Any) -> z3.ModelRef | None:
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
        """The concrete states s0..st and the explicit actions between them, each step re-taken."""
        read = reader(model)
        states = [decode(s, read) for s in self.states[:t + 1]]
        actions = []
        for i in range(t):
            action = action_of(self.chosen_move(i, read), read)
            if machine.step(states[i], action) != states[i + 1]:
                raise Drift(f"step {i + 1} ({action}) from {states[i]} to {states[i + 1]} is no step of the "
                            "explicit model")
            actions.append(action)
        return Discovery(tuple(states), tuple(actions), None)


@dataclass
class Found:
    """What BMC established for one property: the minimal depth it shows at, with the path, or None."""

    name: str
    kind: str
    depth: int | None = None
    discovery: Discovery | None = None


@dataclass
class BmcResult:
    """The outcome of bounded model checking up to `depth` steps."""

    depth: int
    found: dict[str, Found] = field(default_factory=dict)
    seconds: float = 0.0
    complete: bool = True  # False: stopped at a deadline before `depth`


def bmc(machine: Machine, depth: int, names: tuple[str, ...] = NAMES, *, rules: tuple[Rule, ...] = RULES,
        caps: Caps | None = None, deadline: float | None = None,
        progress: Callable[[int, int], None] | None = None) -> BmcResult:
    """Check `names` on every behaviour of up to `depth` steps of the machine's bounds and reading; each found
    one at its minimal depth. The explicit `machine` re-takes every decoded step and judges what the path
    shows, so the message of a violation is the explicit model's own. `caps` widen the capacities (a
    mutant's states may need more)."""
    started = time.perf_counter()
    result = BmcResult(depth, {name: Found(name, KIND[name]) for name in names})
    unrolling = Unrolling(machine.bounds, machine.reading, rules, caps)
    for t in range(depth + 1):
        if deadline is not None and time.perf_counter() > deadline:
            result.depth, result.complete = t - 1, False
            break
        if t > 0:
            unrolling.grow()
        if t > 1:
            # A shortest behaviour that shows a property never stays put before its last step (a step that
            # leaves the state as it was, a poll, could be cut out), so every step before the last one moves:
            # the same minimal depths, and z3 no longer refutes every shorter behaviour again, padded (at the
            # default bounds, 26.5 s against 56.1 s).
            unrolling.solver.add(z3.Not(same(Z3, unrolling.states[t - 2], unrolling.states[t - 1])))
        # One query for every property still open at this depth (and for a step out of the capacities); each
        # model found settles every property it shows (at this depth, their minimal one), and the query is
        # asked again of the rest until unsat.
        overflow = unrolling.overflow(t)
        open_ = {f.name: (f, unrolling.violation(f.name, t)) for f in result.found.values() if f.depth is None}
        while True:
            model = unrolling.ask(z3.Or(overflow, *[term for _, term in open_.values()]))
            if model is None:
                break
            if z3.is_true(model.eval(overflow, model_completion=True)):
                raise UniverseTooSmall(f"a step from depth {t} does not fit the symbolic capacities {unrolling.caps}")
            path = unrolling.path(model, t, machine)
            for name, (f, term) in list(open_.items()):
                if z3.is_true(model.eval(term, model_completion=True)):
                    f.depth, f.discovery = t, _judged(path, f, machine)
                    del open_[name]
        if progress is not None:
            progress(t, sum(1 for f in result.found.values() if f.depth is not None))
    result.seconds = time.perf_counter() - started
    return result


def _judged(path: Discovery, found: Found, machine: Machine) -> Discovery:
    """The path with the explicit model's verdict on its last step (a Drift if it shows nothing there)."""
    pre, action = (path.states[-2], path.actions[-1]) if path.actions else (None, None)
    shown, message = machine.judge(found.name, pre, action, path.states[-1])
    if not shown:
        raise Drift(f"z3 says the path of {len(path.actions)} steps shows {found.name}; the explicit model disagrees")
    return Discovery(path.states, path.actions, message)
