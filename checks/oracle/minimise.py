"""Shrinking a failing behaviour by re-running it: drop whole executions, then chunks of steps, while
the failure persists (greedy, ddmin-style). Used by `fuzz` and by `shrink --runtime`, where each try
re-runs the model's property or the runtime itself.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from pausecheck.model import Machine, StartTurn

from .conform import Divergence, divergence_at
from .cover import Sequence

__all__ = ["Fails", "minimise", "path_of", "broken"]

Fails = Callable[[list[Any]], Divergence | None]  # the divergence a sequence of actions shows, or None


def path_of(machine: Machine, actions: list[Any]) -> list[tuple[Any, Any, Any]] | None:
    """The model's steps for these actions from the initial state, or None if one is not enabled."""
    state, path = machine.init_states()[0], []
    for action in actions:
        post = machine.step(state, action)
        if post is None:
            return None
        path.append((state, action, post))
        state = post
    return path


def broken(machine: Machine, path: list[tuple[Any, Any, Any]], name: str) -> Divergence | None:
    """The first step of `path` that breaks the property `name`, as a divergence."""
    prop = next(p for p in machine.properties if p.name == name)
    for i, (pre, action, post) in enumerate(path, 1):
        broken, message = machine.judge(name, pre, action, post)
        if broken:
            return divergence_at(Sequence(tuple(path), 0), i, "property", f"{name}: {message}", clauses=prop.clauses,
                                 prop=name)
    return None


def _without_execution(actions: list[Any], n: int) -> list[Any]:
    """The actions with every step of the n-th execution dropped, the later ones renumbered."""
    out, started = [], 0
    for action in actions:
        if isinstance(action, StartTurn):
            started += 1
            if started == n:
                continue
            out.append(action)
            continue
        number = int(action.execution[1:])
        if number == n:
            continue
        out.append(dataclasses.replace(action, execution=f"e{number - 1}") if number > n else action)
    return out


def minimise(found: Divergence, fails: Fails) -> Divergence:
    """Drop whole executions, then chunks of steps, while `fails(actions)` still returns a divergence
    (ddmin-style, greedy); the result records where the failure was first found."""
    best, actions = found, [action for _, action, _ in found.steps]
    n = 1
    while n <= sum(isinstance(a, StartTurn) for a in actions):
        result = fails(_without_execution(actions, n))
        if result is not None:
            best, actions = result, [action for _, action, _ in result.steps]
        else:
            n += 1
    best = _chunks(best, actions, fails)
    return dataclasses.replace(best, found_at=found.found_at or found.step)


def _chunks(best: Divergence, actions: list[Any], fails: Fails) -> Divergence:
    chunk = max(len(actions) // 2, 1)
    while True:
        i, dropped = 0, False
        while i < len(actions):
            result = fails(actions[:i] + actions[i + chunk:])
            if result is not None:
                best, actions, dropped = result, [action for _, action, _ in result.steps], True
            else:
                i += chunk
        if chunk == 1 and not dropped:
            return best
        chunk = chunk if dropped else max(chunk // 2, 1)
