"""Hypothesis strategies shared by the tests: bounds, actions, machines and random walks.

Two sizes of bounds: `bounds()` for random walks (a walk costs the same whatever the bounds, so
they may be generous), `tiny_bounds()` for exhaustive exploration (one execution, every choice at
most 2, so a search stays under two seconds and mostly well under a tenth).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterator
from typing import Any

from hypothesis import strategies as st
from pausecheck.model import ACTION_TYPES, BOUND_HELP, SWITCHES, Action, Bounds, Machine, State, reading_named

__all__ = [
    "bounds", "tiny_bounds", "ids", "action_of", "actions", "machines", "walks", "machine_walks",
    "transitions", "RICH", "reachable", "first_reachable", "reachable_states", "edge_check",
]


def _up_to(**ceilings: int) -> st.SearchStrategy[Bounds]:
    """Bounds with every field between its minimum and the given ceiling (a fault not given stays off);
    shrinks to the minimums."""
    fields = {name: st.integers(minimum, ceilings.get(name, 0)) for name, (minimum, _) in BOUND_HELP.items()}
    return st.builds(Bounds, **fields)


def bounds(max_sessions: int = 2, max_turns: int = 2) -> st.SearchStrategy[Bounds]:
    """Small bounds, every field at or above its minimum."""
    return _up_to(sessions=max_sessions, turns=max_turns, calls=3, per_call=2, artifacts=4, pauses=2,
                  write_failures=2, observations=2, interim_writes=1, node_failures=1, held_bound=2,
                  crashes=1, expiries=1, races=1, new_turns=1)


def tiny_bounds() -> st.SearchStrategy[Bounds]:
    """Bounds of one execution small enough to explore exhaustively (at most a few tens of thousands
    of states: interim messages and node failures are kept to one of them at a time by `assume`)."""
    return _up_to(sessions=1, turns=1, calls=2, per_call=1, artifacts=2, pauses=2, write_failures=1,
                  observations=1, interim_writes=1, node_failures=1, held_bound=1).filter(
        lambda b: b.interim_writes + b.node_failures + b.observations + b.write_failures <= 2)


def ids(prefix: str) -> st.SearchStrategy[str]:
    """Identifiers as the model mints them: e1, e2, ... or c1, c2, ..."""
    return st.integers(1, 20).map(lambda n: f"{prefix}{n}")


# The model's ids for the fields that hold them; any other text is still a valid JSON string.
_ID_PREFIX = {"execution": "e", "call": "c"}


def _field(name: str, type_name: str, realistic: bool) -> st.SearchStrategy[object]:
    if type_name == "bool":
        return st.booleans()
    if type_name == "int":
        return st.integers(0, 5) if realistic else st.integers()
    if realistic:
        return ids(_ID_PREFIX[name])
    return st.one_of(ids(_ID_PREFIX[name]), st.text(max_size=8))


def action_of(cls: type, realistic: bool = True) -> st.SearchStrategy[Action]:
    """Actions of one kind; `realistic=False` widens ids to any text and ints to any integer."""
    fields = {f.name: _field(f.name, f.type, realistic) for f in dataclasses.fields(cls)}
    return st.builds(cls, **fields)


def actions(realistic: bool = True) -> st.SearchStrategy[Action]:
    """Actions of every kind."""
    return st.one_of([action_of(cls, realistic) for cls in ACTION_TYPES])


# The conformant reading and every single change from it.
READINGS = [reading_named("conformant")] + [reading_named(f"{s.ambiguity}={v}") for s in SWITCHES for v in s.values
                                            if v != s.default]


def machines() -> st.SearchStrategy[Machine]:
    """Machines under small bounds (faults included), conformant or with one switch set otherwise."""
    return st.builds(Machine, bounds(), st.sampled_from(READINGS))


@st.composite
def walks(draw: st.DrawFn, machine: Machine, max_steps: int = 40) -> list[tuple[Action, State]]:
    """A random path from the initial state, as (action, state reached) pairs.

    Each step picks one of `machine.successors(state)` by index; the walk stops after `max_steps`
    or where nothing is enabled. Indices shrink towards 0, so a failing walk shrinks towards taking
    the first enabled action at every step. Such walks are shallow: polls and early write-backs are
    enabled nearly everywhere, and fewer than one walk in a hundred holds an artifact across a
    pause. Hence `reachable_states` below, for tests that look at single states.
    """
    (state,) = machine.init_states()
    path: list[tuple[Action, State]] = []
    for _ in range(max_steps):
        options = list(machine.successors(state))
        if not options:
            break
        action, state = options[draw(st.integers(0, len(options) - 1))]
        path.append((action, state))
    return path


def machine_walks(max_steps: int = 40) -> st.SearchStrategy[tuple[Machine, list[tuple[Action, State]]]]:
    """A machine under small bounds together with a random walk of it."""
    return machines().flatmap(lambda m: walks(m, max_steps).map(lambda w: (m, w)))


def transitions(machine: Machine, walk: list[tuple[Action, State]]) -> Iterator[tuple[State, Action, State]]:
    """The walk as (pre, action, post) steps, starting from the initial state."""
    (pre,) = machine.init_states()
    for action, post in walk:
        yield pre, action, post
        pre = post


# One execution under bounds where every `sometimes` witness occurs but those of two executions,
# interim messages and node failures (94,827 states, about 4 s to enumerate; random walks over
# `bounds()` cover the rest). A state drawn uniformly from its state space is deep
# where a random walk is shallow: nearly all have paused, 29% hold artifacts, half have seen a
# failed write-back.
RICH = Machine(Bounds(calls=2, per_call=1, artifacts=2, pauses=2, write_failures=1, observations=1, interim_writes=0,
                      node_failures=0, held_bound=1))


@functools.cache
def reachable(machine: Machine) -> tuple[State, ...]:
    """Every state reachable in `machine`, in breadth-first order (computed once per machine)."""
    return first_reachable(machine)


def first_reachable(machine: Machine, count: int | None = None) -> tuple[State, ...]:
    """The first `count` states `machine` reaches (all, without a count), in breadth-first order."""
    order = list(machine.init_states())
    seen = set(order)
    for state in order:  # `order` grows while we iterate: a queue without pops
        for _, post in machine.successors(state):
            if post not in seen and (count is None or len(order) < count):
                seen.add(post)
                order.append(post)
    return tuple(order)


def reachable_states(machine: Machine = RICH) -> st.SearchStrategy[State]:
    """A state drawn uniformly from everything `machine` can reach (shrinks towards the initial)."""
    return st.deferred(lambda: st.sampled_from(reachable(machine)))


def edge_check(machine: Machine, prop: Any, pre: State, action: Action, post: State) -> Any:
    """Run a transition or sometimes check on one step; False where the property ignores the action."""
    if prop.on and not isinstance(action, prop.on):
        return False
    return prop.check(pre, action, post, machine.context())
