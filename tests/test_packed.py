"""The packed states of a fingerprint search: what goes in comes out, equal and of the same classes, in
the order a breadth-first search reads them."""

from __future__ import annotations

import pytest
from pausecheck.checks.search.packed import BLOCK, PackedStates
from pausecheck.model import Machine
from pausecheck.model.state import State


def reachable(count: int) -> list[State]:
    """The first `count` states of the default machine in breadth-first order."""
    machine, seen = Machine(), [State()]
    known, i = {State()}, 0
    while len(seen) < count:
        for _, post in machine.successors(seen[i]):
            if post not in known:
                known.add(post)
                seen.append(post)
        i += 1
    return seen[:count]


def test_states_come_back_equal_and_of_their_classes_read_in_order_while_more_are_added() -> None:
    states = reachable(3 * BLOCK + 7)
    packed = PackedStates()
    for s in states[:BLOCK + 1]:
        packed.append(s)
    out = []
    for i, s in enumerate(states[BLOCK + 1:]):
        out.append(packed[i])
        packed.append(s)
        assert packed[len(packed) - 1] is s  # the last state appended is always at hand
    out.extend(packed[i] for i in range(len(out), len(packed)))
    assert out == states and len(packed) == len(states)
    assert all(type(a) is type(b) for a, b in zip(out, states, strict=True))
    assert [type(e) for e in out[-1].executions] == [type(e) for e in states[-1].executions]
    assert len(packed.blocks) == 3  # every full block was packed


def test_a_block_read_past_is_dropped() -> None:
    packed = PackedStates()
    for s in reachable(2 * BLOCK + 1):
        packed.append(s)
    assert packed[0] == State()
    packed[BLOCK]  # the reader moves to the second block: the first is dropped
    assert packed.blocks[0] is None
    with pytest.raises(IndexError, match="read and dropped"):
        packed[0]
