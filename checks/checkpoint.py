"""Checkpoints: a long search's state written to disk now and then, so that a crash or a kill loses
at most the time since the last one.

A checkpoint holds numbers only, never code or objects: for each state found, the number of its parent
and which of the parent's successors (or which initial state) it is; the loop's counters; and where each
discovery ends (a state's number, a successor's, a message). A resume rebuilds the states by re-running
those steps on the model, so a checkpoint can only ever name states the model reaches, and a damaged,
foreign or hand-made file is refused with one line, whatever its shape (`restore.py` checks every number).
Rebuilding costs one expansion of each state the search had expanded, without checking properties: about
three quarters of the time the search took to get there (4.3 s for 158,535 states saved 5.6 s into a
search, here).

The file is a packed binary of our own (no pickle: loading it runs nothing):

    pausecheck-checkpoint 2\\n
    <sha-256 of everything after this line, hex>\\n
    <header: one line of JSON, sorted keys: key, states, loop, violations, witnesses, deadlock>\\n
    <parents: `states` signed 64-bit little-endian><choices: `states` signed 64-bit little-endian>

It is written whole to a temporary name, flushed to disk, then renamed over the previous one: a crash
mid-write leaves the previous checkpoint intact. The key (pausecheck version, model version, bounds,
reading, mutant, and how states are stored: --symmetry, --compact) must match the resuming search's.
A resumed search visits the same states in the same order as one never stopped, so its counts and
traces are the same.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import sys
from array import array
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pausecheck.traces.input_file import InputError, parse_json

__all__ = ["Checkpoint", "CheckpointError", "Snapshot", "FILE", "MAGIC"]

FILE = "search.checkpoint"
MAGIC = b"pausecheck-checkpoint 2\n"
MAX_HEADER = 16 << 20  # bytes of the JSON header line: discoveries' messages, never near this


class CheckpointError(Exception):
    """A checkpoint that cannot be used: missing, damaged, or from another search."""


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A search's state as plain numbers: what `explore` saves and what a resume re-runs.

    `parents[i]` is the number of state i's parent (-1 for an initial state) and `choices[i]` which of the
    parent's successors, in the model's order, it is (for an initial state, which initial state). A
    discovery is `[state, successor or null, message]`: the path to the state, then that successor's
    step if any; the deadlock is `[state, message]`."""

    parents: array
    choices: array
    loop: dict[str, Any]
    violations: dict[str, list[Any]] = field(default_factory=dict)
    witnesses: dict[str, list[Any]] = field(default_factory=dict)
    deadlock: list[Any] | None = None


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """Where to keep a search's checkpoint, how often, and the key naming the search."""

    folder: Path
    every: float  # seconds between checkpoints
    key: tuple[Any, ...]

    @property
    def path(self) -> Path:
        return self.folder / FILE

    def save(self, snapshot: Snapshot) -> None:
        """Write atomically: a temporary file, flushed and synced, then renamed over the old one."""
        self.folder.mkdir(parents=True, exist_ok=True)
        header = {"key": _plain(self.key), "states": len(snapshot.parents), "loop": snapshot.loop,
                  "violations": snapshot.violations, "witnesses": snapshot.witnesses, "deadlock": snapshot.deadlock}
        body = (json.dumps(header, sort_keys=True, ensure_ascii=True, allow_nan=False).encode("ascii") + b"\n"
                + _little(snapshot.parents) + _little(snapshot.choices))
        temporary = self.path.with_suffix(".writing")
        with temporary.open("wb") as out:
            out.write(MAGIC + hashlib.sha256(body).hexdigest().encode("ascii") + b"\n" + body)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, self.path)

    def load(self) -> Snapshot:
        """The saved snapshot; refused (CheckpointError, one line) if damaged or of another search or version.
        Its numbers are checked against the model when the search re-runs them (`explore`)."""
        data = self._read()
        if not data.startswith(MAGIC):
            raise self.damaged("not a pausecheck checkpoint of this version (its first line differs)")
        digest, _, body = data[len(MAGIC):].partition(b"\n")
        if hashlib.sha256(body).hexdigest().encode("ascii") != digest:
            raise self.damaged("its checksum does not match its contents")
        line, _, numbers = body.partition(b"\n")
        try:
            header = parse_json(line.decode("utf-8"), str(self.path))
        except (InputError, UnicodeDecodeError) as error:
            raise self.damaged(f"its header is not JSON ({error})") from None
        if not isinstance(header, dict):
            raise self.damaged("its header is not a JSON object")
        if header.get("key") != _plain(self.key):
            raise CheckpointError(f"{self.path}: a checkpoint of another search ({_describe(header.get('key'))}); "
                                  f"this one is {_describe(_plain(self.key))}")
        count = header.get("states")
        if type(count) is not int or count < 0 or len(numbers) != 16 * count:
            raise self.damaged(f"it names {_short(count)} states but holds {len(numbers)} bytes of numbers")
        parents, choices = array("q"), array("q")
        parents.frombytes(numbers[:8 * count])
        choices.frombytes(numbers[8 * count:])
        if sys.byteorder != "little":
            parents.byteswap()
            choices.byteswap()
        loop, violations, witnesses = header.get("loop"), header.get("violations"), header.get("witnesses")
        if not isinstance(loop, dict) or not isinstance(violations, dict) or not isinstance(witnesses, dict):
            raise self.damaged("its header lacks the loop's counters or the discoveries")
        return Snapshot(parents, choices, loop, violations, witnesses, header.get("deadlock"))

    def damaged(self, why: str) -> CheckpointError:
        """The one-line error for a checkpoint that cannot be used."""
        return CheckpointError(f"{self.path}: damaged checkpoint: {why}")

    def _read(self) -> bytes:
        """The file's bytes: a regular file no larger than its header says it can be."""
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)
        except FileNotFoundError:
            raise CheckpointError(f"{self.path}: no checkpoint to resume from") from None
        except OSError as error:
            raise CheckpointError(f"{self.path}: cannot read the checkpoint: {error.strerror or error}") from None
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise self.damaged("not a regular file")
            with os.fdopen(os.dup(fd), "rb") as source:
                head = source.read(len(MAGIC) + 65)
                header = source.readline(MAX_HEADER + 1)
                if len(header) > MAX_HEADER:
                    raise self.damaged(f"its header is longer than {MAX_HEADER >> 20} MiB")
                rest = info.st_size - len(head) - len(header)
                if rest < 0 or rest > _memory_for_numbers():
                    raise self.damaged("its size does not fit its contents")
                return head + header + source.read(rest)
        except OSError as error:
            raise CheckpointError(f"{self.path}: cannot read the checkpoint: {error.strerror or error}") from None
        finally:
            os.close(fd)


def _memory_for_numbers() -> int:
    """At most a quarter of the machine's memory for the numbers (1 GiB where it cannot be read): a file
    larger than that could not have been written by a search this machine can resume."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 4
    except (OSError, ValueError):
        return 1 << 30


def _little(numbers: array) -> bytes:
    if sys.byteorder == "little":
        return numbers.tobytes()
    swapped = array(numbers.typecode, numbers)
    swapped.byteswap()
    return swapped.tobytes()


def _plain(value: Any) -> Any:
    """The key as JSON reads it back: tuples as lists."""
    if isinstance(value, tuple | list):
        return [_plain(item) for item in value]
    return value


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _describe(key: Any) -> str:
    if not isinstance(key, list) or len(key) != 6:
        return "unknown"
    version, model, bounds, reading, mutant, stored = key
    try:
        flags = " ".join(f"{k}={v}" for k, v in bounds)
        text = (f"pausecheck {version}, {model}, {flags}, reading {reading}" + (f", mutant {mutant}" if mutant else "")
                + "".join(f", --{option}" for option in stored))
    except (TypeError, ValueError):
        return "unknown"
    return ascii(text)[1:-1] if len(text) <= 300 else "unknown"
