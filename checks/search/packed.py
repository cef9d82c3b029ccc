"""The states of a fingerprint search, packed: compressed blocks of pickled states, read once in order.

A search that keeps only fingerprints of the states it has visited (`explore(fingerprints=True)`) still
holds the states it has yet to expand: the rest of the level being expanded and all of the next. As
objects, with what they do not share with their parents, that is several hundred bytes a state, most of
a fingerprint search's memory. `PackedStates` keeps them as blocks of `BLOCK` states, each pickled
(NamedTuples rebuilt by `tuple.__new__`, so in C) and compressed with zlib: under 20 bytes a state at the
default bounds. Only the block being written and the block being read are unpacked; a block is dropped
once read, because a breadth-first search reads each state once, in the order it was added.
"""

from __future__ import annotations

import copyreg
import io
import pickle
import zlib
from typing import Any

__all__ = ["PackedStates", "BLOCK"]

BLOCK = 256  # states per packed block: large enough to compress well, small enough to cost nothing unpacked


def _namedtuple_reducers() -> dict[type, Any]:
    """Pickle every NamedTuple class as its class and its fields, rebuilt by `tuple.__new__` (in C,
    where pickle's default calls the class's Python `__new__`); any other class as pickle does."""
    table = dict(copyreg.dispatch_table)
    for cls in tuple.__subclasses__():
        if hasattr(cls, "_fields") and vars(cls).get("__slots__") == ():
            table[cls] = _reducer(cls)
    return table


def _reducer(cls: type) -> Any:
    def reduce(record: tuple) -> tuple[Any, tuple[type, tuple]]:
        return tuple.__new__, (cls, tuple(record))
    return reduce


class PackedStates:
    """A list of states that supports what a breadth-first search does with it: append, read the states
    in increasing order (each as often as wanted until the next is read) and the last one appended."""

    def __init__(self) -> None:
        self.blocks: list[bytes | None] = []  # full blocks, packed; None once read
        self.tail: list[Any] = []  # the block being appended to
        self.head: list[Any] = []  # the block being read, unpacked
        self.head_at = -1
        self.count = 0
        self.table = _namedtuple_reducers()

    def __len__(self) -> int:
        return self.count

    def append(self, state: Any) -> None:
        if len(self.tail) == BLOCK:  # packed only now, so that the last state appended is always at hand
            out = io.BytesIO()
            pickler = pickle.Pickler(out, pickle.HIGHEST_PROTOCOL)
            pickler.dispatch_table = self.table
            pickler.dump(self.tail)
            self.blocks.append(zlib.compress(out.getvalue(), 1))
            self.tail = []
        self.tail.append(state)
        self.count += 1

    def __getitem__(self, i: int) -> Any:
        b = i // BLOCK
        if b == len(self.blocks):
            return self.tail[i - b * BLOCK]
        if b != self.head_at:
            blob = self.blocks[b]
            if blob is None:
                raise IndexError(f"state {i} was read and dropped")
            self.head, self.head_at, self.blocks[b] = pickle.loads(zlib.decompress(blob)), b, None
        return self.head[i - b * BLOCK]
