"""Several readings at once: the relation (`relation.py`) under a reading z3 chooses for the whole behaviour.

A reading is concrete in each call of `relation.moves`, so the envelope of readings r0 (the conformant
one), r1, ... is built around a choice variable: at each step the moves of every reading, each move's
guard conjoined with `choice` naming a reading that has it. A reading changes only the few rules that
read its switch (`reads("A-..", ...)`, `pick("A-..", ...)` in the rule table), and often not even
those at given bounds, so each rule is lowered once per *group* of readings whose specialisation of it
(`relation.plan`: the bounds and the reading resolved, constants folded) is the same, and a move is
shared by its group. A reading whose every rule is in the conformant group has, at these bounds,
exactly the conformant behaviours (`same_as_conformant`).

`diverges` says that a step takes a move of a reading's own that the conformant reading, from the same
state, does not have, or has leading elsewhere: the behaviour takes a branch of that reading.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

import z3
from pausecheck.model.config import Bounds
from pausecheck.model.lang import Rule, walk
from pausecheck.model.properties import PROPERTIES
from pausecheck.model.property import SOMETIMES, TRANSITION
from pausecheck.model.reading import CONFORMANT, Reading
from pausecheck.model.rules import RULES

from .relation import Caps, Move, moves, plan
from .terms import step_term
from .unrolled import KIND, Unrolling
from .values import Z3, leaves, pick

__all__ = ["Envelope", "EnvelopeUnrolling", "switches_read"]

ON = {p.name: p.on for p in PROPERTIES}


def switches_read(rule: Rule) -> frozenset[str]:
    """The ambiguities whose switch the rule reads (in its guard, its fields or its effect)."""
    return frozenset(x.args[0] for x in walk((rule.guard, rule.fields, rule.effect)) if x.op in ("reads", "pick"))


@dataclass(frozen=True)
class Group:
    """The readings (their indices) that specialise one rule alike, and the one it is lowered under."""

    rule: int  # index in the rule table
    members: tuple[int, ...]
    reading: Reading


@dataclass(frozen=True)
class Tagged:
    """A move of the envelope as lowered (its guard without the choice), and the group it belongs to."""

    group: Group
    move: Move


def _caps(bounds: Bounds, readings: tuple[Reading, ...]) -> Caps:
    """The capacities every one of the readings fits: the largest of each."""
    each = [Caps.of(bounds, r) for r in readings]
    return Caps(**{f.name: max(getattr(c, f.name) for c in each) for f in fields(Caps)})


class Envelope:
    """The moves of `readings` (the first the conformant one) at `bounds`, each guarded by the choice."""

    def __init__(self, bounds: Bounds, readings: tuple[Reading, ...], rules: tuple[Rule, ...] = RULES) -> None:
        if not readings or readings[0] != CONFORMANT:
            raise ValueError("an envelope's first reading is the conformant one")
        self.bounds, self.readings, self.rules = bounds, readings, rules
        self.choice = z3.BitVec("reading", max(1, (len(readings) - 1).bit_length()))
        self.caps = _caps(bounds, readings)
        self._alone = {i: (rule,) for i, rule in enumerate(rules)}  # kept alive: `plan` caches by identity
        self.groups: list[list[Group]] = [self._group(i) for i in range(len(rules))]

    def _group(self, index: int) -> list[Group]:
        """The readings of one rule in groups that specialise it alike (the conformant group first)."""
        rule = self._alone[index]
        read = switches_read(rule[0])
        shape: dict[str, list[int]] = {}
        conformant = repr(plan(self.bounds, (), rule))
        shape[conformant] = [0]
        for k, reading in enumerate(self.readings[1:], 1):
            if not read & {a for a, _ in reading.switches}:
                shape[conformant].append(k)
                continue
            # repr is structural for the rule language (an Expr is compared by identity, never by value)
            shape.setdefault(repr(plan(self.bounds, reading.switches, rule)), []).append(k)
        return [Group(index, tuple(members), self.readings[members[0]]) for members in shape.values()]

    def same_as_conformant(self, index: int) -> bool:
        """Reading `index` specialises every rule as the conformant reading does (at these bounds)."""
        return all(index in groups[0].members for groups in self.groups)

    def admits(self, group: Group) -> Any:
        """The choice names a reading of the group (True when the group has them all)."""
        if len(group.members) == len(self.readings):
            return z3.BoolVal(True)
        if 2 * len(group.members) <= len(self.readings):
            return z3.Or([self.choice == k for k in group.members])
        return z3.And([self.choice != k for k in range(len(self.readings)) if k not in group.members])

    def moves(self, state: Any) -> list[Tagged]:
        """Every move of every reading from the state value, in the rule table's order (a rule's groups in
        turn), each as lowered for its group."""
        found = []
        for index, groups in enumerate(self.groups):
            for group in groups:
                found += [Tagged(group, mv) for mv in
                          moves(self.caps, self.bounds, group.reading, state, Z3, self._alone[index])]
        return found


class EnvelopeUnrolling(Unrolling):
    """The unrolling (`unrolled.Unrolling`) of the envelope: one reading, the choice, for the whole behaviour."""

    def __init__(self, envelope: Envelope) -> None:
        self.envelope = envelope
        self._tagged: list[list[Tagged]] = []
        super().__init__(envelope.bounds, CONFORMANT, envelope.rules, envelope.caps)
        self.solver.add(z3.ULT(envelope.choice, len(envelope.readings)))

    def moves_from(self, t: int) -> list[Move]:
        while len(self._moves) <= t:
            tagged = self.envelope.moves(self.states[len(self._moves)])
            self._tagged.append(tagged)
            self._moves.append([Move(x.move.kind, x.move.fields, _guarded(self.envelope.admits(x.group), x.move.guard),
                                     x.move.post) for x in tagged])
        return self._moves[t]

    def violation(self, name: str, t: int) -> Any:
        """As `Unrolling.violation`, but a step property lowered once per action kind rather than once per move:
        the action's fields are those of the move the selector names (a property of a step reads only its
        kind and its fields), so that the terms do not grow with the moves the readings add."""
        kind = KIND[name]
        if kind not in (TRANSITION, SOMETIMES) or t == 0:
            return super().violation(name, t)
        pre, post, chosen, on = self.states[t - 1], self.states[t], self.selectors[t - 1], ON[name]
        of_kind: dict[type, list[tuple[int, Move]]] = {}
        for k, mv in enumerate(self.moves_from(t - 1)):
            if not on or mv.kind in on:
                of_kind.setdefault(mv.kind, []).append((k, mv))
        terms = []
        for action, found in of_kind.items():
            values = found[-1][1].fields
            for k, mv in reversed(found[:-1]):
                values = tuple(a if _equal(a, b) else pick(Z3, chosen == k, a, b)
                               for a, b in zip(mv.fields, values, strict=True))
            test = step_term(name, self.caps, self.bounds, pre, Move(action, values, None, None), post)
            terms.append(z3.And(z3.Or([chosen == k for k, _ in found]), test if kind == SOMETIMES else z3.Not(test)))
        return z3.Or(terms)

    def chosen(self, model: z3.ModelRef) -> Reading:
        """The reading a model chose."""
        return self.envelope.readings[model.eval(self.envelope.choice, model_completion=True).as_long()]

    def diverges(self, index: int, t: int) -> Any:
        """Step t takes a move of reading `index`'s own that the conformant reading, from the same state, does
        not enable or leads elsewhere (False when the reading has no move of its own)."""
        self.moves_from(t)
        tagged, chosen = self._tagged[t], self.selectors[t]
        conformant: dict[tuple[Any, ...], list[Move]] = {}
        for x in tagged:
            if 0 in x.group.members:
                conformant.setdefault(_key(x), []).append(x.move)
        steps = []
        for k, x in enumerate(tagged):
            if index in x.group.members and 0 not in x.group.members:
                # no conformant move of the same instance is enabled and leads to the same state
                elsewhere = [z3.Or(z3.Not(c.guard), *[a != b for a, b in zip(leaves(x.move.post), leaves(c.post),
                                                                               strict=True) if not a.eq(b)])
                             for c in conformant.get(_key(x), [])]
                steps.append(z3.And(chosen == k, *elsewhere))
        return z3.Or(steps) if steps else z3.BoolVal(False)


def _key(x: Tagged) -> tuple[Any, ...]:
    """A move's rule and action instance (its fields' terms, equal across groups for the same binder slot and
    parameters: z3 shares structurally equal terms)."""
    return (x.group.rule, x.move.kind, tuple(f.get_id() for f in leaves(x.move.fields)))


def _equal(a: Any, b: Any) -> bool:
    """Two values are the same term leaf by leaf."""
    x, y = leaves(a), leaves(b)
    return len(x) == len(y) and all(p.eq(q) for p, q in zip(x, y, strict=True))


def _guarded(admits: Any, guard: Any) -> Any:
    return guard if z3.is_true(admits) else z3.And(admits, guard)
