"""Shrinking: from a behaviour that breaks a property, the shortest sub-behaviour that still does.

A sub-behaviour keeps some of the given steps, in their order, and drops the rest. Two passes:

1. for a trace longer than EXACT_UP_TO steps, a greedy pass (`oracle/minimise.py`: drop whole
   executions, then chunks of steps, halving the chunk when none can go) while the model still
   enables every remaining step and the same property still breaks; at most quadratic in the
   number of tries, and most tries drop much at once;
2. an exact breadth-first search over (how far into the steps, model state) on what is left: a
   shortest subsequence that is enabled from the initial state and breaks the same property.

`exact=True` skips the first pass: the exact minimum over the whole input, cubic in its length
(fine for the tens of steps people write; minutes for hundreds).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import Any

from pausecheck.model import Machine

from .oracle.conform import Divergence
from .oracle.minimise import minimise, path_of
from .search.explore import Discovery, Progress

__all__ = ["shrink"]


EXACT_UP_TO = 60  # steps: at most this many go straight to the exact search


def shrink(machine: Machine, actions: Sequence[Any], name: str, progress: Progress | None = None,
           exact: bool = False) -> Discovery | None:
    """A short subsequence of `actions` whose path breaks property `name` (or "deadlock"): a
    shortest one of what the greedy pass leaves (of all of `actions` with `exact`).

    `progress(nodes seen, steps tried, current length)` is called every 1,024 nodes, if given."""
    if not exact and len(actions) > EXACT_UP_TO:
        actions = _greedy(machine, list(actions), name, progress)
        if actions is None:
            return None
    return _exact(machine, actions, name, progress)


def _greedy(machine: Machine, actions: list[Any], name: str, progress: Progress | None) -> list[Any] | None:
    """What the greedy pass leaves of `actions` (None if they do not break `name` at all);
    `progress(tries, tries, length tried)` every 64 tries."""
    tries = 0

    def fails(tried: list[Any]) -> Divergence | None:
        nonlocal tries
        tries += 1
        if progress is not None and tries % 64 == 0:
            progress(tries, tries, len(tried))
        path = path_of(machine, tried)
        if path is None:
            return None
        for i, (pre, action, post) in enumerate(path, 1):
            broken, message = machine.judge(name, pre, action, post)
            if broken:
                return Divergence(tuple(path[:i]), i, "property", message or name, ())
        return None

    first = fails(actions)
    return None if first is None else [action for _, action, _ in minimise(first, fails).steps]


def _exact(machine: Machine, actions: Sequence[Any], name: str, progress: Progress | None) -> Discovery | None:
    start = machine.init_states()[0]
    broken, message = machine.judge(name, None, None, start)
    if broken:
        return Discovery((start,), (), message)
    seen = {(0, start)}
    parent: dict[tuple[int, Any], tuple[tuple[int, Any], Any]] = {}
    queue = deque([(0, start, 0)])
    tried = popped = 0
    while queue:
        position, state, length = queue.popleft()
        node = (position, state)
        popped += 1
        if progress is not None and popped & 1023 == 0:
            progress(len(seen), tried, length)
        for j in range(position, len(actions)):
            post = machine.step(state, actions[j])
            tried += 1
            if post is None:
                continue
            child = (j + 1, post)
            broken, message = machine.judge(name, state, actions[j], post)
            if broken:
                parent[child] = (node, actions[j])
                return _path(parent, child, message)
            if child not in seen:
                seen.add(child)
                parent[child] = (node, actions[j])
                queue.append((j + 1, post, length + 1))
    return None


def _path(parent: dict, node: tuple[int, Any], message: str) -> Discovery:
    states, steps = [node[1]], []
    while node in parent:
        node, action = parent[node]
        states.append(node[1])
        steps.append(action)
    return Discovery(tuple(reversed(states)), tuple(reversed(steps)), message)
