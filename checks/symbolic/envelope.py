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

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

import z3
from pausecheck.model.config import Bounds
from pausecheck.model.formulas import ACT_FIELDS, ACTION_KINDS, FORMULAS
from pausecheck.model.lang import Rule, specialize, walk
from pausecheck.model.properties import PROPERTIES
from pausecheck.model.property import SOMETIMES, TRANSITION
from pausecheck.model.reading import CONFORMANT, Reading
from pausecheck.model.rules import RULES

from .relation import Caps, Lower, Move, moves, plan
from .unrolled import KIND, Unrolling, step_relation
from .values import Z3, Algebra, OptV, Seq, leaves

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

    def __init__(self, bounds: Bounds, readings: tuple[Reading, ...], rules: tuple[Rule, ...] = RULES,
                 caps: Caps | None = None) -> None:
        if not readings or readings[0] != CONFORMANT:
            raise ValueError("an envelope's first reading is the conformant one")
        self.bounds, self.readings, self.rules = bounds, readings, rules
        self.choice = z3.BitVec("reading", len(readings).bit_length())  # room for the bound len(readings)
        self.caps = caps or _caps(bounds, readings)
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

    def moves(self, state: Any, A: Algebra = Z3) -> list[Tagged]:
        """Every move of every reading from the state value, in the rule table's order (a rule's groups in
        turn), each as lowered for its group (over `A`: z3 terms, or Python values for the tests)."""
        found = []
        for index, groups in enumerate(self.groups):
            for group in groups:
                found += [Tagged(group, mv) for mv in
                          moves(self.caps, self.bounds, group.reading, state, A, self._alone[index])]
        return found


class EnvelopeUnrolling(Unrolling):
    """The unrolling (`unrolled.Unrolling`) of the envelope: one reading, the choice, for the whole behaviour."""

    def __init__(self, envelope: Envelope) -> None:
        self.envelope = envelope
        self._tagged: list[list[Tagged]] = []
        self._actions: list[dict[str, Any]] = []
        super().__init__(envelope.bounds, CONFORMANT, envelope.rules, envelope.caps)
        self.solver.add(z3.ULT(envelope.choice, len(envelope.readings)))

    def moves_from(self, t: int) -> list[Move]:
        """The moves out of state t (built once, step by step: a reading's moves differ from the template's),
        each guarded by the choice naming a reading that has it."""
        while len(self._tagged) <= t:
            k = len(self._tagged)
            tagged = self.envelope.moves(self.states[k])
            self._tagged.append(tagged)
            self._moves[k] = [Move(x.move.kind, x.move.fields, _guarded(self.envelope.admits(x.group), x.move.guard),
                                   x.move.post) for x in tagged]
        return self._moves[t]

    def transition(self, t: int) -> Any:
        return step_relation(self.states[t], self.states[t + 1], self.selectors[t], self.moves_from(t))

    def chosen_move(self, t: int, read: Callable[[Any], Any]) -> Move:
        return self.moves_from(t)[read(self.selectors[t])]

    def violation(self, name: str, t: int) -> Any:
        """As `Unrolling.violation`, but a step property lowered once per step rather than once per move: the
        step's kind and the action's fields are those of the move the selector names, so that the terms do
        not grow with the moves the readings add."""
        kind = KIND[name]
        if kind not in (TRANSITION, SOMETIMES) or t == 0:
            return super().violation(name, t)
        chosen, on = self.selectors[t - 1], ON[name]
        env = {"S": self.states[t - 1], "P": self.states[t], **self._action(t - 1)}
        test = Lower(Z3, self.caps).expr(_specialized(name, self.bounds), env)
        shows = test if kind == SOMETIMES else z3.Not(test)
        if not on:
            return shows
        return z3.And(z3.Or([chosen == k for k, mv in enumerate(self.moves_from(t - 1)) if mv.kind in on]), shows)

    def _action(self, t: int) -> dict[str, Any]:
        """What a step formula reads of the action of step t: `kind:K` (is it of kind K?) and `act.f` (its field
        f, neutral for a kind without one), each a term of the step's selector."""
        while len(self._actions) <= t:
            k = len(self._actions)
            options, chosen = self.moves_from(k), self.selectors[k]
            named = {f"kind:{K.__name__}": z3.Or([chosen == i for i, mv in enumerate(options) if mv.kind is K])
                     for K in ACTION_KINDS}
            for field_name, t_ in ACT_FIELDS.items():
                neutral = _NEUTRAL[t_]
                values = []
                for mv in options:
                    have = {f.name: v for f, v in zip(fields(mv.kind), mv.fields, strict=True)}
                    values.append(have.get(field_name, neutral))
                named[f"act.{field_name}"] = _mux(chosen, values)
            self._actions.append(named)
        return self._actions[t]

    def overflow(self, t: int) -> Any:
        """Some move enabled in state t leads out of the capacities (a sequence it lengthens past its own)."""
        pre = self.states[t]
        return z3.Or([z3.And(mv.guard, z3.Or(grown)) for mv in self.moves_from(t)
                      if (grown := _past_capacity(mv.post, pre))])

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


_NEUTRAL = {str: Z3.num(0), int: Z3.num(0), bool: Z3.boolean(False)}  # "" is 0 (values.encode_str)
_SPECIALIZED: dict[tuple[str, Bounds], Any] = {}


def _specialized(name: str, bounds: Bounds) -> Any:
    """A step property's formula with the bounds resolved (the step's kind and fields left as variables)."""
    key = (name, bounds)
    if key not in _SPECIALIZED:
        _SPECIALIZED[key] = specialize(FORMULAS[name].expr, bounds, CONFORMANT)
    return _SPECIALIZED[key]


def _past_capacity(post: Any, pre: Any) -> list[Any]:
    """For each sequence of a successor whose length is not the predecessor's term: it is past its capacity."""
    found: list[Any] = []

    def go(a: Any, b: Any) -> None:
        if isinstance(a, Seq):
            if not a.length.eq(b.length):
                found.append(z3.Not(a.length <= a.cap))
            for x, y in zip(a.items, b.items, strict=True):
                go(x, y)
        elif isinstance(a, OptV):
            go(a.value, b.value)
        elif isinstance(a, tuple):
            for x, y in zip(a, b, strict=True):
                go(x, y)

    go(post, pre)
    return found


def _mux(chosen: Any, values: list[Any]) -> Any:
    """The value of the move `chosen` names, one if-then-else per distinct value."""
    by_id: dict[int, tuple[Any, list[int]]] = {}
    for k, v in enumerate(values):
        by_id.setdefault(v.get_id(), (v, []))[1].append(k)
    distinct = list(by_id.values())
    out = distinct[-1][0]
    for v, ks in reversed(distinct[:-1]):
        out = z3.If(z3.Or([chosen == k for k in ks]), v, out)
    return out


def _guarded(admits: Any, guard: Any) -> Any:
    return guard if z3.is_true(admits) else z3.And(admits, guard)
