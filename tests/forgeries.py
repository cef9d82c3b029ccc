"""Forging checkpoints as anyone can (issue 45): a real checkpoint's contents edited, then signed again with
a right SHA-256, so that only what it says can be wrong. Shared by `test_checkpoint_forgery.py` (named
forgeries of the model's checkpoints) and `test_input_fuzz.py` (Hypothesis draws them on `Ladder`, a model
small enough that a resume costs a millisecond)."""

from __future__ import annotations

import functools
import json
from array import array
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from hypothesis import strategies as st
from pausecheck.checks.search.checkpoint import MAGIC, Checkpoint, CheckpointError, seal
from pausecheck.checks.search.explore import explore
from pausecheck.checks.search.restore import STUCK

__all__ = ["Parts", "parts_of", "sign", "packed", "Ladder", "ladder_saved", "figures", "uninterrupted", "forged",
           "forged_case"]


@dataclass(frozen=True)
class Parts:
    """A checkpoint's contents, to edit: its header and its numbers."""

    header: dict[str, Any]
    parents: list[int]
    choices: list[int]

    @property
    def count(self) -> int:
        return len(self.parents)

    @property
    def position(self) -> int:
        return self.header["loop"]["i"]

    def signed(self) -> bytes:
        """The file a forger holding the key writes: its states counted, its seal right."""
        return sign(json.dumps({**self.header, "states": self.count}).encode(),
                    packed(self.parents) + packed(self.choices))

    def edited(self, **changes: Any) -> Parts:
        """A copy with header fields (the loop's by their names too) replaced."""
        header = json.loads(json.dumps(self.header))
        for name, value in changes.items():
            (header["loop"] if name in header["loop"] else header)[name] = value
        return replace(self, header=header)

    def numbers(self, parents: list[int], choices: list[int]) -> Parts:
        return replace(self, parents=parents, choices=choices)


def packed(numbers: list[int]) -> bytes:
    return b"".join(n.to_bytes(8, "little", signed=True) for n in numbers)


def sign(line: bytes, numbers: bytes) -> bytes:
    body = line + b"\n" + numbers
    return seal(body)


def parts_of(data: bytes) -> Parts:
    line, _, numbers = data[len(MAGIC):].partition(b"\n")[2].partition(b"\n")
    values = array("q")
    values.frombytes(numbers)
    n = len(values) // 2
    return Parts(json.loads(line), values[:n].tolist(), values[n:].tolist())


# -- a small model with every kind of discovery ---------------------------------------------------------------


@dataclass(frozen=True)
class _Property:
    name: str
    kind: str
    check: Any
    on: tuple[type, ...] = ()


class Ladder:
    """States 0 to 1,499, each leading to the next two; every fiftieth also to itself (a step that changes
    nothing); 900 a dead end. An invariant breaks in 700, a transition property on the step 300 -> 302, a
    witness on 600 -> 601, one witness never: all but the last before the checkpoint saved at 1,024."""

    properties = (
        _Property("not_700", "always", lambda s, ctx: "700 reached" if s == 700 else None),
        _Property("no_jump_from_300", "transition", lambda p, a, q, ctx: "jumped" if (p, q) == (300, 302) else None),
        _Property("step_from_600", "sometimes", lambda p, a, q, ctx: (p, q) == (600, 601)),
        _Property("never", "sometimes", lambda p, a, q, ctx: False),
    )

    def init_states(self) -> list[int]:
        return [0]

    def successors(self, state: int) -> list[tuple[str, int]]:
        if state == 900:
            return []
        steps = [(f"+{k}", state + k) for k in (1, 2) if state + k < 1500]
        return steps + [("wait", state)] if state % 50 == 0 else steps

    def is_final(self, state: int) -> bool:
        return state >= 1498

    def context(self) -> None:
        return None


def figures(result: Any) -> tuple[Any, ...]:
    """Everything a search reports but its time: counts, and each discovery's path and message."""
    def path(d: Any) -> Any:
        return None if d is None else (d.states, d.actions, d.message)
    return (result.complete, result.states, result.transitions, result.depth, result.deadlocks, path(result.deadlock),
            {k: path(d) for k, d in result.violations.items()}, {k: path(d) for k, d in result.witnesses.items()})


@functools.cache
def uninterrupted(model: type) -> tuple[Any, ...]:
    """The figures of a search of this model never stopped."""
    return figures(explore(model()))


def ladder_saved(folder: Path) -> Parts:
    """The checkpoint a search of `Ladder` saves at 1,024 states expanded: every kind of discovery in it."""
    saved = Checkpoint(folder, 0.0, ("ladder",))
    explore(Ladder(), checkpoint=saved)
    return parts_of(saved.path.read_bytes())


def forged_case(data: st.DataObject, parts: Parts, folder: Path) -> None:
    """A drawn forgery of the Ladder's checkpoint: refused in one line, or the uninterrupted search exactly."""
    folder.mkdir(exist_ok=True)
    checkpoint = Checkpoint(folder, 3600.0, ("ladder",))
    checkpoint.path.write_bytes(data.draw(forged(parts)))
    try:
        result = explore(Ladder(), checkpoint=checkpoint, resume=True)
    except CheckpointError as error:
        assert "\n" not in str(error) and "damaged checkpoint" in str(error), str(error)
    else:
        assert figures(result) == uninterrupted(Ladder)


# -- drawn forgeries ------------------------------------------------------------------------------------------

NUMBERS = st.one_of(st.integers(-3, 3), st.integers(-(2**63), 2**63 - 1), st.sampled_from([2**62, 10**30]))
VALUES = st.one_of(NUMBERS, st.floats(allow_nan=False), st.sampled_from([None, "1", True, [], 1e308]))


@st.composite
def forged(draw: st.DrawFn, parts: Parts) -> bytes:
    """One to three edits of what a checkpoint says, each of a kind a forger would make, then signed. Never a
    discovery deleted: a resume takes their absence on trust (`checks/search/restore.py`)."""
    for _ in range(draw(st.integers(1, 3))):
        parts = draw(st.sampled_from([_states, _numbers, _counters, _discoveries, _deadlock]))(draw, parts)
    return parts.signed()


def _near(draw: st.DrawFn, parts: Parts, value: int) -> int:
    """A value near this one, or anywhere."""
    return draw(st.one_of(st.integers(value - 3, value + 3), NUMBERS))


def _states(draw: st.DrawFn, parts: Parts) -> Parts:
    """States dropped, duplicated or swapped (each entry still a real successor of a real state)."""
    parents, choices = list(parts.parents), list(parts.choices)
    j = draw(st.integers(1, parts.count - 2))
    how = draw(st.sampled_from(["drop", "duplicate", "swap"]))
    if how == "drop":
        k = draw(st.integers(1, 3))
        del parents[j:j + k], choices[j:j + k]
    elif how == "duplicate":
        parents.insert(j, parents[j])
        choices.insert(j, choices[j])
    else:
        parents[j], parents[j + 1], choices[j], choices[j + 1] = parents[j + 1], parents[j], choices[j + 1], choices[j]
    return parts.numbers(parents, choices)


def _numbers(draw: st.DrawFn, parts: Parts) -> Parts:
    """One parent or choice set to a value near the true one or anywhere."""
    parents, choices = list(parts.parents), list(parts.choices)
    which = draw(st.sampled_from([parents, choices]))
    j = draw(st.integers(0, parts.count - 1))
    which[j] = min(max(_near(draw, parts, which[j]), -(2**63)), 2**63 - 1)  # a signed 64-bit number, as stored
    return parts.numbers(parents, choices)


def _counters(draw: st.DrawFn, parts: Parts) -> Parts:
    """A counter (the position in the queue included, and the seconds) set near its value or to anything."""
    name = draw(st.sampled_from(sorted(parts.header["loop"])))
    value = parts.header["loop"][name]
    return parts.edited(**{name: draw(VALUES) if draw(st.booleans()) or type(value) is not int
                           else _near(draw, parts, value)})


def _discoveries(draw: st.DrawFn, parts: Parts) -> Parts:
    """A discovery added or moved: any property's name (or none's) in either table, at a drawn state and
    step, with its message or another."""
    table = draw(st.sampled_from(["violations", "witnesses"]))
    names = [p.name for p in Ladder.properties] + ["no_such_property"]
    name = draw(st.sampled_from(names))
    end = parts.header[table].get(name, [0, None, None])
    state = draw(st.one_of(st.just(end[0]), st.integers(0, parts.count - 1), NUMBERS))
    step = draw(st.one_of(st.just(end[1]), st.none(), st.integers(-1, 3)))
    message = draw(st.sampled_from([end[2], None, "700 reached", "jumped", "forged"]))
    header = json.loads(json.dumps(parts.header))
    header[table][name] = [state, step, message]
    return replace(parts, header=header)


def _deadlock(draw: st.DrawFn, parts: Parts) -> Parts:
    """The first deadlock removed, moved or reworded, its count perhaps made to fit."""
    deadlock = draw(st.one_of(st.none(), st.tuples(st.integers(0, parts.count - 1),
                                                   st.sampled_from([STUCK, "stuck"])).map(list)))
    changed = parts.edited(deadlock=deadlock)
    return changed.edited(deadlocks=int(deadlock is not None)) if draw(st.booleans()) else changed
