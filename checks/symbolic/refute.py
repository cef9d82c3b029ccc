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

import random
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from pausecheck.model.lang import _FIELD_TYPES as FIELD_TYPES
from pausecheck.model.lang import RECORDS, SeqOf
from pausecheck.model.machine import Machine
from pausecheck.model.state import State

from .judge import ODD, Judge
from .relation import decode, lift, moves, post_fits
from .terms import state_term, term_of
from .values import CONCRETE, TooSmall

__all__ = ["BUDGET", "EDITS", "AROUND", "WALK", "Edits", "Refuter"]

BUDGET = 2_000  # states whose steps are taken around each counterexample to induction, at most
EDITS = 20_000  # states one edit away from reachable ones tried before z3's first round
AROUND = 4_000  # edits tried from each counterexample to induction z3 finds
WALK = 50  # edits in one walk


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
        self.last: tuple[Any, Any] = (None, None)  # the state last lifted to values, and its values
        self.explored = 0  # states whose steps were taken, over all rounds
        self.unconfirmed = 0  # breaks the lowering did not confirm

    def refute(self, pre: State, post: State, active: list[Any], budget: int | None = None) -> list[Any]:
        """The items of `active` (every one holds in `pre`, and in `post`) that a step from a state around them,
        where every item still kept holds, breaks; confirmed, in the order found."""
        active = list(active)
        check = self.judge.screen(active)
        dropped: list[Any] = []
        queue = deque(s for s in (pre, post) if s not in self.seen)
        self.seen.update(queue)
        taken = 0
        budget = self.budget if budget is None else budget
        while queue and taken < budget and not (taken % 64 == 0 and self.late()):
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

    def scout(self, sample: list[State], active: list[Any], edits: Edits, count: int, seed: int = 0) -> list[Any]:
        """The items of `active` broken by steps (two states deep) from states one edit away from states of
        `sample` (where every item of `active` holds), wherever every item still kept holds in them."""
        chooser = random.Random(seed)
        return self._tried((edits.edit(chooser.choice(sample), chooser) for _ in range(count)), active, 2)

    def wander(self, starts: list[State], active: list[Any], edits: Edits, steps: int, seed: int = 0) -> list[Any]:
        """The items of `active` broken by steps from states found by walking from `starts` (states where every
        item of `active` holds) by small edits, through states where every item still kept holds, each walk
        `WALK` edits long: z3's counterexamples to induction are the best places to start from."""
        chooser = random.Random(seed)
        where = [starts[0]]

        def walk() -> Iterator[State]:
            for k in range(steps):
                if k % WALK == 0:
                    where[0] = chooser.choice(starts)
                yield edits.edit(where[0], chooser)

        return self._tried(walk(), active, 1, where)

    def _tried(self, states: Iterable[State], active: list[Any], budget: int, where: list[State] | None = None
               ) -> list[Any]:
        """The items of `active` broken by steps from each of `states` where every item still kept holds (`budget`
        states deep); `where[0]` is set to each such state."""
        active = list(active)
        dropped: list[Any] = []
        check = self.judge.screen(active)
        for k, state in enumerate(states):
            if k % 64 == 0 and self.late():
                break
            if state in self.seen or check(state) != ([], []):
                continue
            if where is not None:
                where[0] = state
            more = self.refute(state, state, active, budget)
            if more:
                dropped += more
                gone = {id(c) for c in more}
                active = [c for c in active if id(c) not in gone]
                check = self.judge.screen(active)
        return dropped

    def _confirmed(self, before: State, after: State, item: Any, active: list[Any]) -> bool:
        """Is (before, after) a counterexample to induction for `item` in the relation z3 sees, with `active` kept?"""
        try:
            ok = not self._holds(item, after) and after in self._successors(before) and self._holds_all(before, active)
        except (*ODD, TooSmall):
            ok = False
        self.unconfirmed += not ok
        return ok

    def _holds(self, item: Any, state: State) -> bool:
        return self._holds_in(item, self._lifted(state))

    def _holds_in(self, item: Any, value: Any) -> bool:
        st = self.st
        if isinstance(item, str):
            return bool(state_term(item, st.caps, st.bounds, value, CONCRETE))
        return bool(term_of(item.expr, st.caps, st.bounds, value, CONCRETE))

    def _lifted(self, state: State) -> Any:
        if self.last[0] is not state:
            self.last = (state, lift(CONCRETE, self.st.caps, state))
        return self.last[1]

    def _holds_all(self, state: State, active: list[Any]) -> bool:
        if state in self.sure:
            return True
        if self.doubted.get(state, len(active) + 1) <= len(active):  # refused with as many kept: still refused
            return False
        value = self._lifted(state)
        if all(self._holds_in(c, value) for c in active):
            self.sure.add(state)
            return True
        self.doubted[state] = len(active)
        return False

    def _successors(self, state: State) -> set[State]:
        found = self.lowered.get(state)
        if found is None:
            st = self.st
            found = set()
            for move in moves(st.caps, st.bounds, st.reading, self._lifted(state), CONCRETE, st.rules):
                if move.guard and post_fits(CONCRETE, move.post):
                    found.add(decode(move.post))
            self.lowered[state] = found
        return found


class Edits:
    """Small edits of a state, anywhere inside it: a number one more or one less, a word another that the same
    field takes in `sample`, a flag flipped, a list's last element dropped or repeated."""

    def __init__(self, sample: list[State]) -> None:
        words: dict[tuple[type, str], set[Any]] = {}
        for state in sample[:: max(1, len(sample) // 2000)]:
            _words(state, State, words)
        self.words = {k: sorted(v) for k, v in words.items()}

    def edit(self, state: State, chooser: random.Random) -> State:
        return _edit(state, State, chooser, self.words)


def _words(value: Any, t: Any, out: dict[tuple[type, str], set[Any]]) -> None:
    for (name, ft), v in zip(FIELD_TYPES[t].items(), value, strict=True):
        if ft is str:
            out.setdefault((t, name), set()).add(v)
        elif isinstance(ft, SeqOf) and ft.item in RECORDS:
            for item in v:
                _words(item, ft.item, out)


def _edit(value: Any, t: Any, chooser: random.Random, words: dict[tuple[type, str], list[Any]]) -> Any:
    """The record `value` of type `t` with one edit somewhere inside it."""
    name, ft = chooser.choice(list(FIELD_TYPES[t].items()))
    v = getattr(value, name)
    if ft is bool:
        new: Any = not v
    elif ft is int:
        new = max(0, v + chooser.choice((-1, 1)))
    elif ft is str:
        new = chooser.choice(words.get((t, name)) or [v])
    elif not v:
        return value
    elif ft.item in RECORDS and chooser.random() < 0.7:
        k = chooser.randrange(len(v))
        new = v[:k] + (_edit(v[k], ft.item, chooser, words),) + v[k + 1:]
    else:
        new = v[:-1] if chooser.random() < 0.5 else v + v[-1:]
    return value._replace(**{name: new})
