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

from model import Machine

from .explore import Discovery

__all__ = ["violation_on", "shrink"]


def violation_on(machine: Machine, prop: Any, pre: Any, action: Any, post: Any) -> str | None:
    """The property's account of a violation on this step (for `always`: in the post-state)."""
    if prop == "deadlock":
        moved = any(nxt != post for _, nxt in machine.successors(post))
        return None if moved or machine.is_final(post) else "no action leads anywhere and the run is not finished"
    if prop.kind == "always":
        return prop.check(post, machine.context())
    if prop.kind == "transition" and (not prop.on or type(action) in prop.on):
        return prop.check(pre, action, post, machine.context())
    return None


def shrink(machine: Machine, actions: Sequence[Any], prop: Any) -> Discovery | None:
    """A shortest subsequence of `actions` whose path breaks `prop` (a Property or "deadlock")."""
    start = machine.init_states()[0]
    if prop != "deadlock" and prop.kind == "always":
        message = prop.check(start, machine.context())
        if message is not None:
            return Discovery((start,), (), message)
    seen = {(0, start)}
    parent: dict[tuple[int, Any], tuple[tuple[int, Any], Any]] = {}
    queue = deque([(0, start)])
    while queue:
        node = queue.popleft()
        position, state = node
        for j in range(position, len(actions)):
            post = machine.step(state, actions[j])
            if post is None:
                continue
            child = (j + 1, post)
            message = violation_on(machine, prop, state, actions[j], post)
            if message is not None:
                parent[child] = (node, actions[j])
                return _path(parent, child, message)
            if child not in seen:
                seen.add(child)
                parent[child] = (node, actions[j])
                queue.append(child)
    return None


def _path(parent: dict, node: tuple[int, Any], message: str) -> Discovery:
    states, steps = [node[1]], []
    while node in parent:
        node, action = parent[node]
        states.append(node[1])
        steps.append(action)
    return Discovery(tuple(reversed(states)), tuple(reversed(steps)), message)
