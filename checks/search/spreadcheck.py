"""What a spread search's resume checks before it trusts a checkpoint's files (`levels.py`).

A seal says only that a search of this user's key wrote the file; a holder of the key can still edit one, or
put another search's files in its place. So every field is checked for its type, length and range, and every
count against what the files hold: the states a process numbers against its parent links and its store (a
fingerprint table: its slots in use, its room), the next level against the last numbers and the level the
driver's file names (each path key one step a level), each finding against the process and state it names,
and the first state of each process's next level replayed from the initial state along its parent links under
the model resumed (`replayed`). Each problem is a `CheckpointError` of one line.

What is still taken on trust: the fingerprints themselves (which states they stand for), the states of the
levels before (the exact store's are decoded, not replayed), the properties found so far and their messages,
and the counters the driver reports (transitions, deadlocks, bytes routed).
"""

from __future__ import annotations

import zlib
from array import array
from collections.abc import Callable
from typing import Any

from .checkpoint import CheckpointError
from .explore import SOMETIMES
from .partition import STEPS, step_key

__all__ = ["damaged", "whole", "check_part_header", "numbers", "strict_unpack", "steps_of", "check_driver",
           "check_links", "guarded", "same_shape", "COUNTERS"]

COUNTERS = ("owned", "routed", "sent", "crossed", "transitions", "deadlocks")
KINDS = ("violation", "witness")


def damaged(path: Any, what: str) -> CheckpointError:
    return CheckpointError(f"{path}: damaged checkpoint: {what}")


def whole(value: Any, low: int = 0, high: int | None = None) -> bool:
    """A whole number (not a flag) in [low, high)."""
    return type(value) is int and value >= low and (high is None or value < high)


def guarded(path: Any, what: str, read: Callable[[], Any]) -> Any:
    """`read()`, with any error decoding bytes it raises refused as a damaged checkpoint."""
    try:
        return read()
    except (zlib.error, ValueError, TypeError, IndexError, KeyError, EOFError, OverflowError, MemoryError,
            AttributeError, RecursionError) as error:
        raise damaged(path, f"{what} cannot be read ({type(error).__name__}: {error})") from None


def check_part_header(path: Any, header: dict[str, Any], me: int, parts: int, fingerprints: bool,
                      names: set[str]) -> None:
    """The JSON line of a process's file: its fields' types and ranges (`names`: the model's properties)."""
    if header.get("me") != me or header.get("parts") != parts or header.get("fingerprints") is not fingerprints:
        raise damaged(path, "not this process's part of this search")
    lengths, counters = header.get("sections"), header.get("counters")
    if not isinstance(lengths, list) or len(lengths) != 5 or not all(whole(n) for n in lengths):
        raise damaged(path, "its sections must be five lengths in bytes")
    if not isinstance(counters, dict) or sorted(counters) != sorted(COUNTERS) or \
            not all(whole(counters[name]) for name in COUNTERS):
        raise damaged(path, f"its counters must be {', '.join(COUNTERS)}, each a whole number")
    if not whole(header.get("seen_count")) or header["seen_count"] > counters["owned"]:
        raise damaged(path, "it stores more states than it numbers")
    found = header.get("found")
    if not isinstance(found, list) or not all(isinstance(name, str) and name in names for name in found):
        raise damaged(path, "its properties found must be names of the model's properties")
    deadlock = header.get("deadlock")
    if (deadlock is None) != (counters["deadlocks"] == 0):
        raise damaged(path, "it counts deadlocks without naming its first, or names one without counting it")
    if deadlock is not None and not (isinstance(deadlock, list) and len(deadlock) == 3 and whole(deadlock[0], -1)
                                     and _hexed_bytes(deadlock[1]) and whole(deadlock[2], 0, counters["owned"])):
        raise damaged(path, "its first deadlock must be [level, path key, number of a state it numbers]")
    owners = header.get("owners")
    if not isinstance(owners, list) or not all(isinstance(pair, list) and len(pair) == 2 and whole(pair[1], 0, parts)
                                               and _key(pair[0]) for pair in owners):
        raise damaged(path, f"its owners must be [group, process from 0 to {parts - 1}] pairs")


def _hexed_bytes(value: Any) -> bool:
    if not (isinstance(value, dict) and set(value) == {"hex"} and isinstance(value["hex"], str)):
        return False
    try:
        bytes.fromhex(value["hex"])
    except ValueError:
        return False
    return True


def same_shape(value: Any, sample: Any) -> bool:
    """Whether JSON `value` is a group key of the kind `sample` is (a tuple, of any length, of items each of the
    kind of one of the sample's; or a whole number or flag as the sample is)."""
    if isinstance(sample, tuple):
        return isinstance(value, list) and all(any(same_shape(v, s) for s in sample) if sample else _key(v)
                                               for v in value)
    return type(value) is type(sample)


def _key(value: Any) -> bool:
    """A group's key as JSON: whole numbers (flags included) in nested lists."""
    if isinstance(value, list):
        return all(_key(item) for item in value)
    return isinstance(value, int)


def numbers(path: Any, what: str, section: bytes, typecode: str, count: int, low: int, high: int) -> array:
    """A section of `count` numbers, each in [low, high)."""
    out = array(typecode)
    if len(section) != count * out.itemsize:
        raise damaged(path, f"{what}: {len(section):,} bytes where {count:,} numbers take {count * out.itemsize:,}")
    out.frombytes(section)
    if count and (min(out) < low or max(out) >= high):
        raise damaged(path, f"{what}: a number out of range (from {low} to {high - 1})")
    return out


def strict_unpack(path: Any, what: str, batch: bytes) -> tuple[list[bytes], array]:
    """`partition.unpack`, refusing a batch whose counts and lengths do not add up to its size."""
    if len(batch) < 8:
        raise damaged(path, f"{what}: cut short")
    head = array("I")
    head.frombytes(batch[:8])
    count, numbered = head
    lengths = array("I")
    end = 8 + 4 * count
    if len(batch) < end:
        raise damaged(path, f"{what}: cut short")
    lengths.frombytes(batch[8:end])
    if len(batch) != end + 8 * numbered + sum(lengths):
        raise damaged(path, f"{what}: its counts and lengths do not add up to its size")
    values = array("q")
    values.frombytes(batch[end:end + 8 * numbered])
    at, fields = end + 8 * numbered, []
    for size in lengths:
        fields.append(batch[at:at + size])
        at += size
    return fields, values


def steps_of(key: bytes) -> int | None:
    """How many steps a path key holds (one byte each, or 0xff and four), None if it is not one."""
    steps = at = 0
    while at < len(key):
        at += 5 if key[at] == 0xFF else 1
        steps += 1
    return steps if at == len(key) else None


assert steps_of(b"".join(STEPS[:3])) == 3


def check_driver(path: Any, header: dict[str, Any], workers: int, names: set[str]) -> None:
    """The driver's JSON: its generation, its loop (level, depth, figures, findings) and its processes' files."""
    generation, loop, files = header.get("generation"), header.get("loop"), header.get("parts")
    if not whole(generation, 1):
        raise damaged(path, "its generation must be a whole number from 1")
    if not isinstance(loop, dict) or not whole(loop.get("level"), 1) or loop.get("depth") != loop["level"] - 1:
        raise damaged(path, "its loop must name the next level (from 1) and the depth before it")
    if not all(isinstance(loop.get(name), int | float) and not isinstance(loop.get(name), bool)
               and loop[name] >= 0 for name in ("critical", "crowded")):
        raise damaged(path, "its figures (critical, crowded) must be numbers from 0")
    best = loop.get("best")
    if not isinstance(best, dict):
        raise damaged(path, "its findings must be an object")
    for name, found in best.items():
        if not (name in names and isinstance(found, list) and len(found) == 10 and found[5] == name
                and whole(found[0], -1) and _hexed_bytes(found[1]) and whole(found[2], 0, 2) and whole(found[3])
                and found[4] in KINDS and whole(found[6]) and whole(found[7], -1)
                and (found[8] is None or isinstance(found[8], str)) and whole(found[9], 0, workers)):
            raise damaged(path, f"its finding of {name!r} is not one of a property of this model, found by one "
                          f"of its {workers} processes")
    if not isinstance(files, list) or len(files) != workers or not all(
            isinstance(f, list) and len(f) == 3 and f[0] == f"spread-{generation}.{k}" and whole(f[1])
            and isinstance(f[2], str) and len(f[2]) == 64 for k, f in enumerate(files)):
        raise damaged(path, f"its processes' files must be {workers} entries [spread-{generation}.K, size, seal]")


def check_links(where: Any, model: Any, level: int, best: dict[str, tuple[Any, ...]], summaries: list[dict[str, Any]],
                samples: list[list[tuple[int, Any, bytes]]], found_by: list[list[str]], owner_maps: list[str],
                ordinals: Callable[..., list[int]], replay: Callable[[list[int]], tuple[Any, Any]]) -> None:
    """The parent links of a resumed checkpoint against its findings and the model resumed: the owners each
    process names for the groups (`owner_maps`, one digest each: the same everywhere), the properties each
    process counts as found (each one the driver has a finding of), each finding's
    property, kind, state and path key; each process's first deadlock; and a few states of each process's next
    level (`samples`, the first and the last among them), which its links must lead to from the initial state,
    through its path key. `ordinals(home,
    number, extra, hops)` reads a state's links, `replay(ordinals)` steps the model along them."""
    properties = model.properties
    canonical = getattr(model, "canonical", lambda: None)() or (lambda state: state)

    def links(home: int, number: int, extra: int | None, what: str) -> list[int]:
        try:
            return ordinals(home, number, extra, level + 1)
        except (IndexError, ValueError, TypeError, KeyError) as error:
            raise damaged(where, f"{what}: its parent links do not lead to an initial state "
                          f"({type(error).__name__}: {error})") from None

    if len(set(owner_maps)) > 1:
        raise damaged(where, "its processes name different owners for the same groups")
    for home, told in enumerate(found_by):
        if not set(told) <= set(best):
            raise damaged(where, f"process {home} counts as found a property the driver has no finding of")
    for name, found in best.items():
        _, path, _, index, kind, _, number, ordinal, _, home = found
        what = f"its finding of {name!r}"
        if not (index < len(properties) and properties[index].name == name
                and kind == ("witness" if properties[index].kind == SOMETIMES else "violation")):
            raise damaged(where, f"{what}: not a finding of that property")
        if number >= summaries[home]["states"]:
            raise damaged(where, f"{what}: names a state process {home} does not number")
        steps = links(home, number, None if ordinal < 0 else ordinal, what)
        if b"".join(map(step_key, steps)) != path or found[0] != len(steps) - 2:
            raise damaged(where, f"{what}: its path key and level are not those of its parent links")
    for home, summary in enumerate(summaries):
        if summary["deadlock"] is not None:
            at, path, number = summary["deadlock"]
            steps = links(home, number, None, f"process {home}'s first deadlock")
            if b"".join(map(step_key, steps)) != path or at != len(steps) - 1:
                raise damaged(where, f"process {home}'s first deadlock: its path key and level are not those of "
                              f"its parent links")
    for home, taken in enumerate(samples):
        for number, state, path in taken:
            steps = links(home, number, None, f"process {home}'s next level")
            if b"".join(map(step_key, steps)) != path or len(steps) != level + 1:
                raise damaged(where, f"process {home}'s next level: a state's path key is not its parent links'")
            try:
                reached = replay(steps)[0][-1]
            except (IndexError, ValueError, TypeError) as error:
                raise damaged(where, f"process {home}'s parent links do not replay under this model "
                              f"({type(error).__name__}: {error})") from None
            if canonical(reached) != canonical(state):
                raise damaged(where, f"process {home}'s parent links lead elsewhere than its next level's states: "
                              f"a checkpoint of another search, or edited")
