"""A search's state to and from a checkpoint's numbers (`checkpoint.py`), for `explore`.

Saving writes, for each state, its parent's number and which successor of the parent it is, and where
each discovery ends. Restoring re-runs those steps on the model: each state is rebuilt as the model's own
successor, so a checkpoint written by hand or damaged in a way its checksum misses can name only states
the model reaches, and every number that does not fit (a parent not yet stored, a successor the state does
not have, a state found twice, a property the model does not have) is one `CheckpointError`.
"""

from __future__ import annotations

import math
import time
from typing import Any

from .checkpoint import Checkpoint, Snapshot

__all__ = ["snapshot", "restore"]

LOOP_COUNTERS = ("i", "transitions", "depth", "level_end", "deadlocks")


def snapshot(search: Any, loop: dict[str, Any]) -> Snapshot:
    """The search's state as numbers, with the loop's counters (`loop`)."""
    violations = {name: [*_end(search, name), d.message] for name, d in search.violations.items()}
    witnesses = {name: [*_end(search, name), None] for name in search.witnesses}
    message = loop.pop("deadlock", None)
    deadlock = None if search.deadlock_at < 0 else [search.deadlock_at, message]
    return Snapshot(search.parent, search.choices, loop, violations, witnesses, deadlock)


def _end(search: Any, name: str) -> list[Any]:
    """[state, successor] where a discovery ends (successor None when it ends in the state)."""
    i, action = search.ends[name]
    if action is None:
        return [i, None]
    return [i, next(k for k, (taken, _) in enumerate(search.model.successors(search.states[i])) if taken == action)]


def restore(search: Any, checkpoint: Checkpoint, deadline: float | None) -> dict[str, Any] | None:
    """Rebuild the search from its checkpoint (the initial states are stored already); the loop's counters
    with the deadlock found so far ("deadlock": a Discovery or None), or None when `deadline` (a
    `time.perf_counter()` value) passed first."""
    saved = checkpoint.load()
    bad = checkpoint.damaged
    parents, choices, count, start = saved.parents, saved.choices, len(saved.parents), len(search.states)
    if count < start or any(parents[i] != -1 or choices[i] != search.choices[i] for i in range(start)):
        raise bad("its initial states are not this model's")
    successors, canonical, cached, options = search.model.successors, search.canonical, -1, []
    for i in range(start, count):
        p, c = parents[i], choices[i]
        if not 0 <= p < i:
            raise bad(f"state {i}: its parent {p} is not a state stored before it")
        if p != cached:
            cached, options = p, list(successors(search.states[p]))
        if not 0 <= c < len(options):
            raise bad(f"state {i}: state {p} has no successor {c}")
        action, post = options[c]
        key = post if canonical is None else canonical(post)
        if post == search.states[p] or search.known(key):
            raise bad(f"state {i}: successor {c} of state {p} is stored already")
        search.add(post, p, action, key, choice=c)
        if deadline is not None and (i & 1023) == 0 and time.perf_counter() >= deadline:
            return None
    loop = _loop(saved, count, bad)
    _discoveries(search, saved, count, bad)
    loop["deadlock"] = None
    if saved.deadlock is not None:
        if not (isinstance(saved.deadlock, list) and len(saved.deadlock) == 2 and _index(saved.deadlock[0], count)
                and isinstance(saved.deadlock[1], str)):
            raise bad("its deadlock is not [state, message]")
        search.deadlock_at = saved.deadlock[0]
        loop["deadlock"] = search.path(saved.deadlock[0], message=saved.deadlock[1])
    search.set_always([p for p in search.always if p.name not in search.violations])
    done = search.violations.keys() | search.witnesses.keys()
    search.edge = [p for p in search.edge if p.name not in done]
    return loop


def _index(value: Any, count: int) -> bool:
    return type(value) is int and 0 <= value < count


def _loop(saved: Snapshot, count: int, bad: Any) -> dict[str, Any]:
    loop = saved.loop
    for name in LOOP_COUNTERS:
        if type(loop.get(name)) is not int or loop[name] < 0:
            raise bad(f"its counter {name!r} is not a whole number of at least 0")
    seconds = loop.get("seconds")
    if type(seconds) not in (int, float) or not math.isfinite(seconds) or seconds < 0:
        raise bad("its counter 'seconds' is not a number of at least 0")
    if not loop["i"] <= loop["level_end"] <= count:
        raise bad("its position in the queue is past the states it holds")
    if (loop["deadlocks"] > 0) != (saved.deadlock is not None):
        raise bad("its count of deadlocks does not fit its deadlock")
    return {name: loop[name] for name in (*LOOP_COUNTERS, "seconds")}


def _discoveries(search: Any, saved: Snapshot, count: int, bad: Any) -> None:
    """The violations and witnesses, each rebuilt as a path of the model."""
    kinds = {p.name: p.kind for p in search.model.properties}
    for table, into, wanted in ((saved.violations, search.violations, ("always", "transition")),
                                (saved.witnesses, search.witnesses, ("sometimes",))):
        for name, end in table.items():
            if kinds.get(name) not in wanted:
                raise bad(f"it names a discovery of {name[:40]!r}, not a property of this kind in this model")
            if not (isinstance(end, list) and len(end) == 3 and _index(end[0], count)
                    and (end[1] is None or type(end[1]) is int)
                    and (isinstance(end[2], str) if wanted[0] == "always" else end[2] is None)):
                raise bad(f"its discovery of {name!r} is not [state, successor or null, message]")
            i, c, message = end
            extra = None
            if c is not None:
                options = list(search.model.successors(search.states[i]))
                if not 0 <= c < len(options):
                    raise bad(f"its discovery of {name!r}: state {i} has no successor {c}")
                extra = options[c]
            into[name] = search.path(i, extra, message)
            search.ends[name] = (i, None if extra is None else extra[0])

