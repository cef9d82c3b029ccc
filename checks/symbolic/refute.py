"""Counterexamples to induction found around the one z3 finds, so that a Houdini round drops many items, not one.

Houdini (`inductive.houdini`) asks z3 for a step from a state where every item still kept (candidates and
state properties) holds to a state where one fails. z3's model breaks one or two items: the solver has no
reason to break more. But its two states are a start. The state before satisfies every kept item, and so
does the state after once the items it breaks are dropped; from them the explicit model's steps are taken
breadth first (up to `BUDGET` states a round), through every state that satisfies every item still kept.
Each such state is itself one where every kept item holds, so a step from it to a state that breaks an
item is a counterexample to induction for that item, and the item is dropped at once: it is in no
inductive subset of what is kept, so the greatest one, which Houdini finds, stays the same. The states
are judged by each item's formula compiled to Python (`judge.py`), the expression z3 judges.

Each drop is confirmed on z3's own terms before it is made, by the relation's lowering on Python values
(`CONCRETE`, the cross-check's algebra): every kept item holds in the state before, the step is one of
the relation with a successor within the capacities, and the item fails after it. Where the explicit
model and the lowering part (an unreachable state may have them part: an index past a list's end), nothing
is dropped. Soundness never rests on any of this: a property is proved only when z3 finds the final set
inductive and it holds initially.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

from pausecheck.model.machine import Machine
from pausecheck.model.state import State

from .judge import ODD, Judge
from .relation import decode, lift, moves, post_fits
from .terms import state_term, term_of
from .values import CONCRETE, TooSmall

__all__ = ["BUDGET", "Refuter"]

BUDGET = 2_000  # states whose steps are taken around each counterexample to induction, at most


class Refuter:
    """Items broken around counterexamples to induction, over one Houdini run (its kept items only shrink)."""

    def __init__(self, machine: Machine, step: Any, items: list[Any], budget: int = BUDGET,
                 late: Callable[[], bool] = lambda: False) -> None:
        self.machine, self.st, self.budget, self.late = machine, step, budget, late
        self.judge = Judge(items, step.bounds)
        self.seen: set[State] = set()  # states every then-kept item held in, whose steps were taken
        self.sure: set[State] = set()  # states every then-kept item held in, by the lowering
        self.doubted: dict[State, int] = {}  # states where the lowering broke a kept item: how many were kept
        self.lowered: dict[State, set[State]] = {}  # the relation's successors of a state (fitting the capacities)
        self.explored = 0  # states whose steps were taken, over all rounds
        self.unconfirmed = 0  # breaks the lowering did not confirm

    def refute(self, pre: State, post: State, active: list[Any]) -> list[Any]:
        """The items of `active` (every one holds in `pre`, and in `post`) that a step from a state around them,
        where every item still kept holds, breaks; confirmed, in the order found."""
        active = list(active)
        check = self.judge.screen(active)
        dropped: list[Any] = []
        queue = deque(s for s in (pre, post) if s not in self.seen)
        self.seen.update(queue)
        taken = 0
        while queue and taken < self.budget and not (taken % 64 == 0 and self.late()):
            before = queue.popleft()
            taken += 1
            try:
                steps = self.machine.successors(before)
            except ODD:
                continue
            for _, after in steps:
                if after in self.seen:
                    continue
                broken, odd = check(after)
                sure = [c for c in broken if self._confirmed(before, after, c, active)]
                if sure:
                    gone = {id(c) for c in sure}
                    active = [c for c in active if id(c) not in gone]
                    dropped += sure
                    check = self.judge.screen(active)
                if len(sure) == len(broken) and not odd:  # every item still kept holds after it: go on from there
                    self.seen.add(after)
                    queue.append(after)
        self.explored += taken
        return dropped

    def _confirmed(self, before: State, after: State, item: Any, active: list[Any]) -> bool:
        """Is (before, after) a counterexample to induction for `item` in the relation z3 sees, with `active` kept?"""
        try:
            ok = self._holds_all(before, active) and after in self._successors(before) and not self._holds(item, after)
        except (*ODD, TooSmall):
            ok = False
        self.unconfirmed += not ok
        return ok

    def _holds(self, item: Any, state: State) -> bool:
        st = self.st
        value = lift(CONCRETE, st.caps, state)
        if isinstance(item, str):
            return bool(state_term(item, st.caps, st.bounds, value, CONCRETE))
        return bool(term_of(item.expr, st.caps, st.bounds, value, CONCRETE))

    def _holds_all(self, state: State, active: list[Any]) -> bool:
        if state in self.sure:
            return True
        if self.doubted.get(state, len(active) + 1) <= len(active):  # refused with as many kept: still refused
            return False
        if all(self._holds(c, state) for c in active):
            self.sure.add(state)
            return True
        self.doubted[state] = len(active)
        return False

    def _successors(self, state: State) -> set[State]:
        found = self.lowered.get(state)
        if found is None:
            st = self.st
            found = set()
            for move in moves(st.caps, st.bounds, st.reading, lift(CONCRETE, st.caps, state), CONCRETE, st.rules):
                if move.guard and post_fits(CONCRETE, move.post):
                    found.add(decode(move.post))
            self.lowered[state] = found
        return found
