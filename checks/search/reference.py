"""A vetted reference graph: a machine's every reachable state and step, each known to break no property,
so that the search of a deviation from it (a mutant) checks only what the deviation changed.

A mutant differs from the default rules in a few steps; most of the states it reaches, and most of its
steps, are the default's own. Properties are pure functions of (state, context) or (pre, action, post,
context), so on a step the default also takes, with the same context, every property gives what it gave
in the default: no `always` or `transition` property fails (the default breaks none, which building the
reference checks on every state and step). `Vetted` searches a deviant machine with its own successors
(its rule table's) and tells the explorer, from the reference, which steps are the reference's own
(`explore`'s optional `vetted` hook): those skip their checks, and so does the state they lead to.
Every other step, and every state first reached by one, is checked in full. The `sometimes` properties
are not vetted: a search checks those it has not witnessed yet on every step, vetted or not, as a plain
search does (most are witnessed within a few levels). Verdicts, witnesses, counts and shortest traces
are the same as without the reference (tests/test_reference.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from pausecheck.model import Machine
from pausecheck.model.actions import Action
from pausecheck.model.properties import ALWAYS, TRANSITION
from pausecheck.model.rules import RULES
from pausecheck.model.state import State

from ..drafts import draft_of
from .explore import stutter_proof

__all__ = ["Steps", "Reference", "reference", "Vetted"]

# One reference state's steps: by action, in the rules' order, the post-state.
Steps = dict[Action, State]


@dataclass(frozen=True, slots=True)
class Reference:
    """The reference graph of one machine: every reachable state's steps."""

    machine: Machine
    steps: dict[State, Steps]


def reference(machine: Machine, max_states: int | None = None) -> Reference | None:
    """The machine's vetted graph, or None where it breaks some property (then nothing is known good),
    or has more than `max_states` states (then it would cost more than it saves). The machine's successors
    must be a base table's own (`RULES` or a draft's, not a mutant's deviation of it): the reference vets
    deviations of that table."""
    drafted = draft_of(machine.rules)
    if machine.rules is not RULES and (drafted is None or drafted.rules is not machine.rules):
        raise ValueError("a reference is of a base table's own successors (the rules, or a draft's), "
                         "not a mutant's")
    ctx = machine.context()
    all_hold, rest = machine.screen([p for p in machine.properties if p.kind == ALWAYS], ctx)
    always = [p.check for p in rest]
    by_type: dict[tuple[type, bool], tuple[Any, ...]] = {}  # by (action kind, changes nothing?), as the explorer
    steps: dict[State, Steps] = {}
    frontier = list(machine.init_states())

    def holds(state: State, parent: State | None) -> bool:
        return all_hold(state, parent) and all(check(state, ctx) is None for check in always)

    if not all(holds(s, None) for s in frontier):
        return None
    seen = set(frontier)
    while frontier:
        level = []
        for pre in frontier:
            known: Steps = {}
            for action, post in machine.successors(pre):
                kind = (type(action), post is pre or post == pre)
                checks = by_type.get(kind)
                if checks is None:  # one compiled test of them where it can (a bool), the others' checks after it
                    checks = by_type[kind] = machine.edge_screen([
                        p for p in machine.properties if p.kind == TRANSITION and (not p.on or kind[0] in p.on)
                        and not (kind[1] and stutter_proof(p, kind[0]))], *kind)
                for check in checks:
                    outcome = check(pre, action, post, ctx)
                    if outcome is not None and outcome is not False:
                        return None
                known[action] = post
                if post not in seen:
                    if not holds(post, pre):
                        return None
                    seen.add(post)
                    level.append(post)
            steps[pre] = known
            if max_states is not None and len(seen) > max_states:
                return None
        frontier = level
    return Reference(machine, steps)



class Vetted:
    """A deviation of the reference's machine (same bounds, reading, properties and wire view), searched
    with the reference: the explorer's `Model`, with the `vetted` hook."""

    def __init__(self, machine: Machine, ref: Reference) -> None:
        base = ref.machine
        if (machine.bounds, machine.reading, machine.properties, machine.show) != \
                (base.bounds, base.reading, base.properties, base.show):
            raise ValueError("a reference vets only deviations of its own machine: the same bounds, reading, "
                             "properties and wire view")
        self.machine, self.properties, self._steps = machine, machine.properties, ref.steps

    def vetted(self, state: State) -> Steps | None:
        """The reference's steps from this state (post-state by action), if it is a reference state."""
        return self._steps.get(state)

    def successors(self, state: State) -> Iterable[tuple[Action, State]]:
        """The deviant machine's own successors (its rule table's); the explorer compares each step with
        the reference's (`vetted`) to skip the checks of those the deviation leaves as they were."""
        return self.machine.successors(state)

    def init_states(self) -> Iterable[State]:
        return self.machine.init_states()

    def is_final(self, state: State) -> bool:
        return self.machine.is_final(state)

    def context(self) -> Any:
        return self.machine.context()

    def canonical(self) -> Callable[[State], State] | None:
        return self.machine.canonical()

    def screen(self, properties: Any, ctx: Any) -> Any:
        return self.machine.screen(properties, ctx)

    def spread_key(self) -> Callable[[State], tuple[int, ...]]:
        return self.machine.spread_key()

    def edge_screen(self, properties: Any, kind: type, stutter: bool = False) -> Any:
        return self.machine.edge_screen(properties, kind, stutter)

