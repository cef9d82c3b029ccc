"""The compositional claim checked state by state: each session of a many-session search behaves as the
one-session model (`model/projection.py`).

`simulate(bounds, reading)` searches the model at `bounds` (two sessions or more) breadth-first, with
each session's spent budgets kept beside the state (the ghost of `projection.py`), and checks on every
step and for every session that the session's projection

- moves by a step of the one-session model at the same bounds with one session (the step's action as
  that session sees it, to the same projected state), where the step is that session's or a crash;
- does not move at all where the step is another session's (isolation: nothing another session does
  changes what this one holds, shows or records);
- of the initial state is the one-session initial state.

Where all three hold on every reachable step, every state a session reaches beside others it reaches
alone, by the same steps: this is the induction that `prove --compositional` is to establish for every
state at once; here it is checked on the states these bounds reach.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from pausecheck.model import Bounds, Machine
from pausecheck.model.actions import Crash
from pausecheck.model.lang import Rule
from pausecheck.model.projection import NOTHING_SPENT, project, project_action, spent_after
from pausecheck.model.reading import CONFORMANT, Reading
from pausecheck.model.rules import RULES

__all__ = ["Mismatch", "Simulation", "simulate"]


@dataclass(frozen=True)
class Mismatch:
    """A step whose projection onto `session` is not a one-session step (nor a stutter where it should be)."""

    session: int
    pre: Any
    action: Any
    post: Any
    why: str


@dataclass
class Simulation:
    """What `simulate` checked: states and steps of the many-session search, projections that moved."""

    states: int = 0
    steps: int = 0
    moved: int = 0  # projections that moved by a one-session step
    projected: set[Any] = field(default_factory=set)  # every projected state reached
    mismatches: list[Mismatch] = field(default_factory=list)


def simulate(bounds: Bounds, reading: Reading = CONFORMANT, rules: tuple[Rule, ...] = RULES,
             max_mismatches: int = 10) -> Simulation:
    """Check the projection of every reachable step onto every session (see the module's doc), under the
    rule table `rules` (a mutant's) for both models; stop after `max_mismatches`."""
    many = Machine(bounds, reading, rules)
    one = _Alone(Machine(bounds.replace(sessions=1), reading, rules))
    sessions = range(1, bounds.sessions + 1)
    result = Simulation()
    (init,) = many.init_states()
    (alone,) = one.init_states()
    start = (init, (NOTHING_SPENT,) * bounds.sessions)
    for k in sessions:
        if project(init, k) != alone:
            result.mismatches.append(Mismatch(k, None, None, init, "the initial state does not project to the "
                                              "one-session initial state"))
    seen, queue = {start}, deque([start])
    while queue and len(result.mismatches) < max_mismatches:
        state, spent = queue.popleft()
        result.states += 1
        views = [project(state, k, spent[k - 1]) for k in sessions]
        result.projected.update(views)
        crashable = {k for k in sessions if _can_crash(one, views[k - 1])}
        for action, post in many.successors(state):
            result.steps += 1
            after = spent_after(spent, state, action, post, crashable.__contains__)
            for k in sessions:
                _check(result, one, k, state, action, post, views[k - 1], project(post, k, after[k - 1]))
            if (post, after) not in seen:
                seen.add((post, after))
                queue.append((post, after))
    return result


class _Alone:
    """The one-session model's steps from each projected state, computed once (projections repeat)."""

    def __init__(self, machine: Machine) -> None:
        self.machine = machine
        self.steps: dict[Any, frozenset[tuple[Any, Any]]] = {}

    def init_states(self) -> Any:
        return self.machine.init_states()

    def successors(self, view: Any) -> frozenset[tuple[Any, Any]]:
        found = self.steps.get(view)
        if found is None:
            found = self.steps[view] = frozenset(self.machine.successors(view))
        return found


def _can_crash(one: _Alone, view: Any) -> bool:
    """Can the one-session model crash in this state (a crash counts for a session that can)?"""
    return any(isinstance(a, Crash) for a, _ in one.successors(view))


def _check(result: Simulation, one: _Alone, k: int, state: Any, action: Any, post: Any, view: Any,
           view_after: Any) -> None:
    seen_as = project_action(action, state, k)
    if isinstance(action, Crash) and view_after.crashes == view.crashes:  # not at one of its crash points
        seen_as = None
    if seen_as is None:
        if view_after != view:
            result.mismatches.append(Mismatch(k, state, action, post, f"another session's step changes session {k}"))
        return
    if view_after == view:
        return
    if (seen_as, view_after) in one.successors(view):
        result.moved += 1
        return
    result.mismatches.append(Mismatch(k, state, action, post, f"session {k}'s projection moves by no one-session "
                                      f"step {seen_as}"))
