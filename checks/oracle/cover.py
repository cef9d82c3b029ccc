"""Covering sequences: action sequences from the initial state that together take every edge
(state, action) of the model's reachable graph within the bounds.

A depth-first walk: each state is entered once; there its self-loops (a poll, a late answer: steps
that change nothing) are taken in place, then each state-changing step. A step into a state not yet
entered carries the sequence on; the walk emits the sequence at a state with nowhere new to go, and
after a step into a state already entered. The next sequence replays the path to where the walk
branched (`fresh` marks where its new steps begin), so every edge is taken once as a new step and
the edges of a path are replayed only as the prefix of later sequences.

The sequences stream: the first is ready after one path's steps, whatever the size of the graph, and
what the walk keeps is the path it stands on and the states it entered, each in a few dozen bytes
(`CompactStates`, exact), so a graph of tens of millions of edges is walked in well under a gigabyte.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..search.compact import CompactStates

__all__ = ["Step", "Sequence", "Recorded", "covering_sequences"]

Step = tuple[Any, Any, Any]  # (pre-state, action, post-state)


@dataclass(frozen=True, slots=True)
class Recorded:
    """What a sequence sends and expects, as recorded in a file rather than computed from the model:
    the `apply` request of each step, and the observation (and held lists) expected after a step."""

    requests: tuple[dict[str, Any], ...]
    expected: dict[int, tuple[dict[str, Any], dict[str, Any] | None]]


@dataclass(frozen=True, slots=True)
class Sequence:
    """Steps from the initial state; those before `fresh` were new steps of an earlier sequence.
    `recorded`, if given, replaces what the model would send and expect (exported vectors)."""

    steps: tuple[Step, ...]
    fresh: int
    recorded: Recorded | None = None


def covering_sequences(machine: Any) -> Iterator[Sequence]:
    """Sequences that together take every edge of `machine`'s reachable graph, each edge once as new."""
    root = machine.init_states()[0]
    entered = CompactStates()
    entered.add(root, root)
    path: list[Step] = []  # the state-changing steps from the root to the state on top of the stack
    stack = [_children(machine, root)]
    current: list[Step] | None = list(stack[0].loops)  # the sequence being built, None once emitted
    fresh = 0
    while stack:
        children = stack[-1]
        if not children.moves:  # nowhere new to go from here: end the sequence, step back
            stack.pop()
            if current is not None:
                yield Sequence(tuple(current), fresh)
                current = None
            if path:
                path.pop()
            continue
        action, post = children.moves.pop()
        if current is None:
            current, fresh = list(path), len(path)
        step = (children.state, action, post)
        current.append(step)
        if not entered.add(post, post):  # an edge into a state already entered: covered, nothing new beyond it
            yield Sequence(tuple(current), fresh)
            current = None
            continue
        path.append(step)
        stack.append(_children(machine, post))
        current.extend(stack[-1].loops)


@dataclass(slots=True)
class _Children:
    state: Any
    loops: list[Step]
    moves: list[tuple[Any, Any]]  # in reverse canonical order: popped from the end


def _children(machine: Any, state: Any) -> _Children:
    loops, moves = [], []
    for action, post in machine.successors(state):
        if post == state:
            loops.append((state, action, post))
        else:
            moves.append((action, post))
    return _Children(state, loops, moves[::-1])
