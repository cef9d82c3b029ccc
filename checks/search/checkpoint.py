"""Checkpoints: a long search's state written to disk now and then, so that a crash or a kill loses
at most the time since the last one.

A checkpoint holds numbers only, never code or objects: for each state found, the number of its parent
and which of the parent's successors (or which initial state) it is; the loop's counters; and where each
discovery ends (a state's number, a successor's, a message). Its checksum detects accidents, not a
hand-made file (anyone can recompute it), so a resume trusts none of those numbers: it re-runs the
search's expansion on the model and requires the file to name exactly the states, counters and first
discoveries that re-run finds (`restore.py`). What it cannot re-derive without every check the search
made is that a property the file does not name was not found: so the file is sealed under a key of its
user's (`sealing.py`), and a file edited or sealed under another key is refused. A damaged, foreign or
hand-made file is refused with one line, whatever its shape. Rebuilding costs one expansion of each
state the search had expanded, without checking properties: about half the time the search took to get
there (0.75 to 0.98 s of CPU for the 59,903 states a search of the defaults stored in 1.3 to 1.8 s,
here).

The file is read as a stream, never whole: the header line, then, only when the file's size is exactly
what the header's count of states makes (and that many states could fit in this process's memory), the
numbers straight into the two arrays the resume uses, the checksum computed as they arrive. So a file
padded past its states, a sparse one of gigabytes included, is refused before its numbers are read.

The file is a packed binary of our own (no pickle: loading it runs nothing):

    pausecheck-checkpoint 3\\n
    <HMAC-SHA-256, under this user's key (`sealing.py`), of everything after this line, hex>\\n
    <header: one line of JSON, sorted keys: key, states, loop, violations, witnesses, deadlock>\\n
    <parents: `states` signed 64-bit little-endian><choices: `states` signed 64-bit little-endian>

It is written whole to a temporary name, flushed to disk, then renamed over the previous one: a crash
mid-write leaves the previous checkpoint intact. The key (pausecheck version, model version, bounds,
reading, mutant, and how states are stored: --symmetry, --compact) must match the resuming search's.
A resumed search visits the same states in the same order as one never stopped, so its counts and
traces are the same.
"""

from __future__ import annotations

import hmac
import json
import os
import stat
import sys
from array import array
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from pausecheck.traces.input_file import InputError, parse_json

from .sealing import SealError, key_path, sealer

__all__ = ["Checkpoint", "CheckpointError", "Snapshot", "FILE", "MAGIC", "seal"]

FILE = "search.checkpoint"
MAGIC = b"pausecheck-checkpoint 3\n"
MAX_HEADER = 16 << 20  # bytes of the JSON header line: discoveries' messages, never near this
CHUNK = 1 << 20  # bytes of numbers read (and checksummed) at a time
# The least memory a resume needs for each state it rebuilds, however the states are kept: 83 bytes packed
# (--compact; README, Speed), its parent and choice (16) and its step.
REBUILT_STATE_BYTES = 100


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

    def sealable(self) -> None:
        """Whether this user's key can seal (and so open) a checkpoint: CheckpointError in one line if not."""
        _sealer()

    def save(self, snapshot: Snapshot) -> None:
        """Write atomically: a temporary file, flushed and synced, then renamed over the old one."""
        self.folder.mkdir(parents=True, exist_ok=True)
        header = {"key": _plain(self.key), "states": len(snapshot.parents), "loop": snapshot.loop,
                  "violations": snapshot.violations, "witnesses": snapshot.witnesses, "deadlock": snapshot.deadlock}
        body = (json.dumps(header, sort_keys=True, ensure_ascii=True, allow_nan=False).encode("ascii") + b"\n"
                + _little(snapshot.parents) + _little(snapshot.choices))
        temporary = self.path.with_suffix(".writing")
        with temporary.open("wb") as out:
            out.write(seal(body))
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, self.path)

    def load(self) -> Snapshot:
        """The saved snapshot; refused (CheckpointError, one line) if damaged, of another search or version, or
        larger than the states it names. Read as a stream: the header first, then, only when the file's size is
        exactly what the header's count of states makes, the numbers straight into their arrays, the checksum
        computed as they arrive; so the file is held once, as those arrays. Its numbers, counters and discoveries
        are not trusted: a resume re-derives them on the model (`restore.py`)."""
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)  # O_NONBLOCK: a FIFO named like it cannot hang us
        except FileNotFoundError:
            raise CheckpointError(f"{self.path}: no checkpoint to resume from") from None
        except OSError as error:
            raise CheckpointError(f"{self.path}: cannot read the checkpoint: {error.strerror or error}") from None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise self.damaged("not a regular file")
            with os.fdopen(os.dup(fd), "rb") as source:
                return self._parse(source, os.fstat(fd).st_size)
        except OSError as error:
            raise CheckpointError(f"{self.path}: cannot read the checkpoint: {error.strerror or error}") from None
        finally:
            os.close(fd)

    def _parse(self, source: BinaryIO, size: int) -> Snapshot:
        """The snapshot in an open file of `size` bytes, its parts checked in the order that reads least: the
        first line, the header (its key, its count of states), the size that count makes, then the numbers."""
        if source.read(len(MAGIC)) != MAGIC:
            raise self.damaged("not a pausecheck checkpoint of this version (its first line differs)")
        digest = source.read(65)
        line = source.readline(MAX_HEADER + 1)
        if len(line) > MAX_HEADER:
            raise self.damaged(f"its header is longer than {MAX_HEADER >> 20} MiB")
        header = self._header(line)
        count = header.get("states")
        if type(count) is not int or count < 0:
            raise self.damaged(f"it names {_short(count)} states")
        held = size - len(MAGIC) - len(digest) - len(line)
        if held != 16 * count:  # before reading a byte of them: a file padded (or sparse) past its states is refused
            raise self.damaged(f"it names {count:,} states but holds {held:,} bytes of numbers, not {16 * count:,}")
        if count * REBUILT_STATE_BYTES > _memory():
            raise self.damaged(f"it names {count:,} states, more than this process's memory could rebuild")
        checksum = _sealer()
        checksum.update(line)
        parents, choices = _numbers(source, count, checksum), _numbers(source, count, checksum)
        if len(parents) + len(choices) != 2 * count:
            raise self.damaged("it was cut short while it was read")
        if not hmac.compare_digest(checksum.hexdigest().encode("ascii") + b"\n", digest):
            raise self.damaged(f"its seal does not match its contents: edited, or sealed under another key than "
                               f"{key_path()} (a checkpoint resumes only where its user's key is)")
        loop, violations, witnesses = header.get("loop"), header.get("violations"), header.get("witnesses")
        if not isinstance(loop, dict) or not isinstance(violations, dict) or not isinstance(witnesses, dict):
            raise self.damaged("its header lacks the loop's counters or the discoveries")
        return Snapshot(parents, choices, loop, violations, witnesses, header.get("deadlock"))

    def _header(self, line: bytes) -> dict[str, Any]:
        """The header line as a JSON object of this search (its key), or the one line refusing it."""
        if not line.endswith(b"\n"):
            raise self.damaged("it ends inside its header")
        try:
            header = parse_json(line.decode("utf-8"), str(self.path))
        except (InputError, UnicodeDecodeError) as error:
            raise self.damaged(f"its header is not JSON ({error})") from None
        if not isinstance(header, dict):
            raise self.damaged("its header is not a JSON object")
        if header.get("key") != _plain(self.key):
            raise CheckpointError(f"{self.path}: a checkpoint of another search ({_describe(header.get('key'))}); "
                                  f"this one is {_describe(_plain(self.key))}")
        return header

    def damaged(self, why: str) -> CheckpointError:
        """The one-line error for a checkpoint that cannot be used."""
        return CheckpointError(f"{self.path}: damaged checkpoint: {why}")


def seal(body: bytes) -> bytes:
    """The checkpoint file of `body` (its header line and numbers): the magic line, the seal, the body."""
    mac = _sealer()
    mac.update(body)
    return MAGIC + mac.hexdigest().encode("ascii") + b"\n" + body


def _sealer() -> Any:
    try:
        return sealer()
    except SealError as error:
        raise CheckpointError(str(error)) from None


def _numbers(source: BinaryIO, count: int, checksum: Any) -> array:
    """`count` signed 64-bit little-endian numbers read straight into an array, a chunk at a time, each chunk
    added to the checksum as it arrives (no copy of the file beside the array); shorter if the file ends."""
    numbers = array("q", [0]) * count
    view, done = memoryview(numbers).cast("B"), 0
    with view:
        while done < len(view):
            got = source.readinto(view[done:done + CHUNK])
            if not got:
                break
            checksum.update(view[done:done + got])
            done += got
    del numbers[done // 8:]
    if sys.byteorder != "little":
        numbers.byteswap()
    return numbers


def _memory() -> int:
    """The bytes this process may use: the machine's memory, or less where an address-space or data limit is
    set (1 GiB where neither can be read). A checkpoint naming more states than fit in it could not have been
    written by a search this process can resume, so it is refused before its numbers are read."""
    try:
        limit = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (OSError, ValueError):
        limit = 1 << 30
    try:
        import resource  # POSIX only

        for which in (resource.RLIMIT_AS, resource.RLIMIT_DATA):
            soft = resource.getrlimit(which)[0]
            if soft != resource.RLIM_INFINITY:
                limit = min(limit, soft)
    except (ImportError, OSError, ValueError):
        pass
    return limit


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
