"""Shrinking: from a behaviour that breaks a property, the shortest sub-behaviour that still does.

A sub-behaviour keeps some of the given steps, in their order, and drops the rest. The search is a
breadth-first search over (how far into the given steps, model state): it finds a shortest
subsequence of the steps that is enabled from the initial state and breaks the same property, with
the same clauses. It is exact, and cheap for traces of the lengths people write or runtimes log.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import Any

from pausecheck.model import Machine

from .explore import Discovery, Progress

__all__ = ["shrink"]


def shrink(machine: Machine, actions: Sequence[Any], name: str, progress: Progress | None = None) -> Discovery | None:
    """A shortest subsequence of `actions` whose path breaks property `name` (or "deadlock").

    `progress(nodes seen, steps tried, current length)` is called every 1,024 nodes, if given."""
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
