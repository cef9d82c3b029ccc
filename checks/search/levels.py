"""Checkpoints of a search spread over processes (`spread.py`): saved between two levels, resumed there.

Between two levels every process holds only what it owns (the states seen, as themselves or as fingerprints,
and each one's parent link) and the next level's states; nothing is in flight. So a checkpoint is, for each
process, one file of those (`Partition`'s fields, written by the process itself, in parallel), and one file of
the driver's: the level, what was found so far, and each process's file with its size and seal. The driver's
file is written last, whole to a temporary name then renamed: a kill mid-way leaves the previous checkpoint,
whose process files are removed only after. Only the local processes of `--workers` save (a Ray cluster's
actors could not be told apart from a foreign file's writer); `--fingerprint` alone saves through one process.

Unlike the one-process checkpoint (`restore.py`), a resume does not re-derive what it reads: re-deriving a
fingerprint store costs the whole search. Every file is sealed under this user's key (`sealing.py`), so only a
search of this user's wrote it; a file edited, cut, swapped with another's or of another search is refused in
one line. A fingerprint is Python's hash of a state, which differs from process to process unless
`PYTHONHASHSEED` is set: the file records a probe hash, a resume under another one is refused (naming the
variable), and the `pausecheck` command sets `PYTHONHASHSEED=0` itself for a fingerprint search it checkpoints.

    pausecheck-spread-checkpoint 1\\n
    <HMAC-SHA-256 of the rest, hex>\\n
    <JSON, sorted keys: key, workers, probe, level, the driver's findings, and for each process [file, bytes, seal]>

A process's file: the same two lines, then a JSON line (its counters, the properties found, the groups' owners,
each section's length in bytes), then the sections: parents' homes, parents' numbers, choices, the states seen
(a fingerprint table, or the states encoded and compressed), the next level (path keys, encoded states,
numbers; compressed).
"""

from __future__ import annotations

import hmac
import json
import os
import re
import zlib
from array import array
from pathlib import Path
from typing import Any

from .checkpoint import FILE, Checkpoint, CheckpointError, _plain, _sealer
from .explore import Fingerprints
from .partition import Partition, pack
from .sealing import key_path
from .spreadcheck import (
    COUNTERS,
    check_driver,
    check_part_header,
    damaged,
    guarded,
    numbers,
    same_shape,
    steps_of,
    strict_unpack,
)

__all__ = ["DRIVER", "MAGIC", "probe", "save_part", "load_part", "part_path", "save_driver", "load_driver"]

DRIVER = "spread.checkpoint"
MAGIC = b"pausecheck-spread-checkpoint 1\n"
PART = re.compile(r"spread-\d+\.\d+(\.writing)?")  # a process's file (being written) of some generation
SECTIONS = ("parent_home", "parent_at", "choice", "seen", "frontier")


def probe() -> int:
    """This process's hash of a fixed state-like value: equal in two processes only where their fingerprints are."""
    return hash(("pausecheck", "e1", ("running", 1)))


def _hexed(value: Any) -> Any:
    """JSON of a finding: bytes as {"hex": ...}, tuples as lists."""
    if isinstance(value, bytes):
        return {"hex": value.hex()}
    if isinstance(value, tuple | list):
        return [_hexed(item) for item in value]
    if isinstance(value, dict):
        return {k: _hexed(v) for k, v in value.items()}
    return value


def _unhexed(value: Any) -> Any:
    if isinstance(value, dict):
        return bytes.fromhex(value["hex"]) if set(value) == {"hex"} else {k: _unhexed(v) for k, v in value.items()}
    if isinstance(value, list):
        return tuple(_unhexed(item) for item in value)
    return value


def _write_sealed(path: Path, header: dict[str, Any], sections: list[bytes]) -> tuple[int, str]:
    """Write the magic line, the seal and the body (a JSON line, then the sections) to a temporary name, synced,
    then renamed to `path`; its size and seal."""
    line = json.dumps(header, sort_keys=True, ensure_ascii=True, allow_nan=False).encode("ascii") + b"\n"
    mac = _sealer()
    mac.update(line)
    for section in sections:
        mac.update(section)
    digest = mac.hexdigest()
    temporary = path.with_name(path.name + ".writing")
    with temporary.open("wb") as out:
        out.write(MAGIC + digest.encode("ascii") + b"\n" + line)
        for section in sections:
            out.write(section)
        out.flush()
        os.fsync(out.fileno())
    os.replace(temporary, path)
    return path.stat().st_size, digest


def _read_sealed(path: Path, size: int | None = None, digest: str | None = None) -> tuple[dict[str, Any], bytes]:
    """The JSON line and the sections of a sealed file, refused (one line) unless its seal holds (and its size and
    seal are those the driver's file names)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise CheckpointError(f"{path}: no checkpoint to resume from") from None
    except OSError as error:
        raise CheckpointError(f"{path}: cannot read the checkpoint: {error.strerror or error}") from None
    if not data.startswith(MAGIC):
        raise CheckpointError(f"{path}: damaged checkpoint: not a pausecheck checkpoint of a spread search of this "
                              f"version (its first line differs)")
    if size is not None and len(data) != size:
        raise CheckpointError(f"{path}: damaged checkpoint: {len(data):,} bytes where the checkpoint names {size:,}")
    seal_end = data.find(b"\n", len(MAGIC))
    line_end = data.find(b"\n", seal_end + 1)
    if seal_end < 0 or line_end < 0:
        raise CheckpointError(f"{path}: damaged checkpoint: it ends inside its header")
    seal = data[len(MAGIC):seal_end]
    mac = _sealer()
    mac.update(memoryview(data)[seal_end + 1:])
    if not hmac.compare_digest(mac.hexdigest().encode("ascii"), seal) or (
            digest is not None and not hmac.compare_digest(digest.encode("ascii"), seal)):
        raise CheckpointError(f"{path}: damaged checkpoint: its seal does not match its contents: edited, swapped, "
                              f"or sealed under another key than {key_path()}")
    try:
        header = json.loads(data[seal_end + 1:line_end])
    except ValueError as error:
        raise CheckpointError(f"{path}: damaged checkpoint: its header is not JSON ({error})") from None
    if not isinstance(header, dict):
        raise CheckpointError(f"{path}: damaged checkpoint: its header is not a JSON object")
    return header, data[line_end + 1:]


# -- a process's own part -----------------------------------------------------------------------------------------


def save_part(part: Partition, path: str) -> tuple[str, int, str]:
    """Write this process's part of a checkpoint between two levels: the file's name, its size and its seal."""
    assert not part.pending and not part.held and not part.discoveries, "saved only between two levels"
    if part.fingerprints:
        seen = part.seen.table.tobytes()
    elif part.exact:
        seen = zlib.compress(pack([part.codec.encode(key) for key in part.index], array("q")), 1)
    else:
        raise CheckpointError("a search keeping compact states over processes cannot be checkpointed yet")
    paths, states = [p for p, _, _ in part.frontier], [part.codec.encode(s) for _, s, _ in part.frontier]
    frontier = zlib.compress(pack(paths + states, array("q", [n for _, _, n in part.frontier])), 1)
    sections = [part.parent_home.tobytes(), part.parent_at.tobytes(), part.choice.tobytes(), seen, frontier]
    header = {
        "me": part.me, "parts": part.parts, "fingerprints": part.fingerprints,
        "seen_count": part.seen.count if part.fingerprints else len(part.index),
        "counters": {name: getattr(part, name) for name in ("owned", "routed", "sent", "crossed", "transitions",
                                                            "deadlocks")},
        "deadlock": _hexed(part.deadlock), "found": sorted(part.found),
        "owners": [[_plain(group), home] for group, home in sorted(part.owners.items())],
        "sections": [len(section) for section in sections],
    }
    size, digest = _write_sealed(Path(path), header, sections)
    return path, size, digest


def load_part(part: Partition, path: str, size: int, digest: str, level: int) -> None:
    """Take this process's part back from the file the driver's checkpoint names (its size and seal checked), the
    part of the search whose next level is `level`: every field and count checked (`spreadcheck.py`)."""
    header, body = _read_sealed(Path(path), size, digest)
    names = {p.name for p in part.model.properties}
    check_part_header(path, header, part.me, part.parts, part.fingerprints, names)
    lengths, counters = header["sections"], header["counters"]
    if sum(lengths) != len(body):
        raise damaged(path, f"its sections take {sum(lengths):,} bytes, the file holds {len(body):,}")
    sections, at = [], 0
    for length in lengths:
        sections.append(body[at:at + length])
        at += length
    owned, seen_count = counters["owned"], header["seen_count"]
    part.parent_home = numbers(path, "parents' homes", sections[0], "b", owned, -1, part.parts)
    part.parent_at = numbers(path, "parents' numbers", sections[1], "q", owned, -1, 2**62)
    part.choice = numbers(path, "successor numbers", sections[2], "q", owned, 0, 2**62)
    sample = None if part.spread_key is None else part.spread_key(next(iter(part.model.init_states())))
    if not all(sample is not None and same_shape(group, sample) for group, _ in header["owners"]):
        raise damaged(path, "its owners name a group that is not a group of this model's states")
    part.owners = {_unhexed(group): home for group, home in header["owners"]}
    if part.fingerprints:
        part.seen = _fingerprints(path, sections[3], seen_count)
    else:
        keys, _ = strict_unpack(path, "the states seen", guarded(path, "the states seen",
                                                                  lambda: zlib.decompress(sections[3])))
        if len(keys) != seen_count or seen_count != owned:
            raise damaged(path, f"it stores {len(keys):,} states and numbers {owned:,}")
        part.index = {_decoded(part, path, key): [] for key in keys}
        if len(part.index) != owned:
            raise damaged(path, "a state is stored twice")
        if part.parts > 1 and any(part.owner(key) != part.me for key in part.index):
            raise damaged(path, "it stores a state another process owns")
    fields, order = strict_unpack(path, "the next level", guarded(path, "the next level",
                                                                  lambda: zlib.decompress(sections[4])))
    half = len(order)
    if len(fields) != 2 * half or list(order) != list(range(owned - half, owned)):
        raise damaged(path, "its next level must be the states it numbered last, in order")
    if any(steps_of(key) != level + 1 for key in fields[:half]):
        raise damaged(path, f"its next level's path keys must each be {level + 1} step(s), one a level")
    part.frontier = [(fields[k], _decoded(part, path, fields[half + k]), order[k]) for k in range(half)]
    if part.parts > 1 and any(part.owner(_canonical(part, state)) != part.me for _, state, _ in part.frontier):
        raise damaged(path, "its next level holds a state another process owns")
    for name in COUNTERS:
        setattr(part, name, counters[name])
    part.deadlock = _unhexed(header["deadlock"])
    part.found = set()
    part.forget(set(header["found"]))


def _fingerprints(path: str, section: bytes, count: int) -> Fingerprints:
    """The fingerprint table of a file: a power of two of slots, at most half of them in use, `count` of them."""
    seen = Fingerprints()
    table = array("q")
    slots = len(section) // table.itemsize
    if len(section) % table.itemsize or slots < 1024 or slots & (slots - 1):
        raise damaged(path, "its fingerprint table must be a power of two of 8-byte slots, at least 1,024")
    table.frombytes(section)
    used = slots - table.count(0)
    if used != count or 2 * count > slots - 1:
        raise damaged(path, f"its fingerprint table has {used:,} of {slots:,} slots in use, where it names {count:,} "
                      f"(at most half may be)")
    seen.table, seen.mask, seen.count = table, slots - 1, count
    return seen


def _decoded(part: Partition, path: str, blob: bytes) -> Any:
    """A state from its bytes, refused unless it encodes back to them."""
    state = guarded(path, "a state", lambda: part.codec.decode(blob))
    if guarded(path, "a state", lambda: part.codec.encode(state)) != blob:
        raise damaged(path, "a state's bytes are not those of a state of this model")
    return state


def _canonical(part: Partition, state: Any) -> Any:
    return state if part.canonical is None else part.canonical(state)


# -- the driver's file --------------------------------------------------------------------------------------------


def part_path(checkpoint: Checkpoint, generation: int, me: int) -> str:
    """Where process `me` writes its part of the checkpoint of this generation."""
    return str(checkpoint.folder / f"spread-{generation}.{me}")


def save_driver(checkpoint: Checkpoint, workers: int, generation: int, loop: dict[str, Any],
                parts: list[tuple[str, int, str]]) -> None:
    """Write the driver's file over the previous one, then remove the process files of earlier generations."""
    header = {"key": _plain(checkpoint.key), "workers": workers, "probe": probe(), "generation": generation,
              "loop": _hexed(loop), "parts": [[os.path.basename(name), size, digest] for name, size, digest in parts]}
    _write_sealed(checkpoint.folder / DRIVER, header, [])
    kept = {os.path.basename(name) for name, _, _ in parts}
    for old in checkpoint.folder.glob("spread-*.*"):
        if PART.fullmatch(old.name) and old.name not in kept:
            old.unlink(missing_ok=True)


def load_driver(checkpoint: Checkpoint, workers: int, fingerprints: bool,
                names: set[str]) -> tuple[int, dict[str, Any], list[tuple[str, int, str]]]:
    """The generation, the driver's loop and each process's file (name, size, seal) of the checkpoint to resume,
    refused in one line if it is of another search, another number of processes or another hash, or if a field
    is not what it should be (`names`: the model's properties)."""
    path = checkpoint.folder / DRIVER
    if not path.exists() and (checkpoint.folder / FILE).exists():
        raise CheckpointError(f"{checkpoint.folder}: a checkpoint of a search in one process (resume it without "
                              f"--workers and --fingerprint)")
    header, _ = _read_sealed(path)
    if header.get("key") != _plain(checkpoint.key):
        raise CheckpointError(f"{path}: a checkpoint of another search (other bounds, reading, rules, store or "
                              f"version)")
    if header.get("workers") != workers:
        raise CheckpointError(f"{path}: a checkpoint of a search over {header.get('workers')} processes; resume it "
                              f"with --workers {header.get('workers')}")
    if fingerprints and header.get("probe") != probe():
        raise CheckpointError(f"{path}: this process hashes states otherwise than the one that saved the "
                              f"fingerprints (run it with the PYTHONHASHSEED it ran with; pausecheck sets 0)")
    check_driver(path, header, workers, names)
    parts = [(str(checkpoint.folder / name), size, digest) for name, size, digest in header["parts"]]
    return header["generation"], _unhexed(header["loop"]), parts
