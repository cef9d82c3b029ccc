"""A search's state to and from a checkpoint's numbers (`checkpoint.py`), for `explore`.

Saving writes, for each state, its parent's number and which of the parent's successors it is; the loop's
counters; and where each discovery ends. A checkpoint's checksum detects accidents, not a hand-made file
(anyone can recompute it), so restoring trusts none of those numbers. It re-runs the search's own expansion,
in the search's order, of the states the checkpoint says were expanded (its position in the queue), without
checking properties:
- the file must name exactly the states that re-run stores, in its order: a state dropped, duplicated,
  reordered, a parent after its child, a choice naming no successor are each one `CheckpointError`;
- the loop's counters (transitions, depth, the level's end, deadlocks, the first deadlock) are computed by
  the re-run and must equal the file's;
- each violation or witness the file names is re-derived by checking that property alone over the rebuilt
  states and steps, as the search checks it: it must be the first the search finds, where the file says,
  with the same message; the resumed search reports the re-derived one.
Any difference is one `CheckpointError` naming it. The seconds the search had run are not read: a resumed
search reports its own time.

What no resume can re-derive without every check the search made (and so the whole search's time) is that a
property the file does not name was not found before the checkpoint: a resume takes that absence only from a
file sealed under its user's key (`sealing.py`), which no one without the key can make.

The re-run costs what the search's expansion cost, without its checks: about the time the old rebuild took.
"""

from __future__ import annotations

import time
from typing import Any

from pausecheck.model.property import stutter_proof

from .checkpoint import Checkpoint, Snapshot

__all__ = ["snapshot", "restore", "STUCK"]

LOOP_COUNTERS = ("i", "transitions", "depth", "level_end", "deadlocks")
STUCK = "no action leads anywhere and the run is not finished"  # the message of every deadlock
KINDS = {"violation": ("always", "transition"), "witness": ("sometimes",)}


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
    return [i, _first_with(search.model.successors(search.states[i]), action)]


def _first_with(options: Any, action: Any) -> int:
    """The number of the first successor taken by this action: how a checkpoint names a step."""
    return next(k for k, (taken, _) in enumerate(options) if taken == action)


def restore(search: Any, checkpoint: Checkpoint, deadline: float | None) -> dict[str, Any] | None:
    """Rebuild the search from its checkpoint (the initial states are stored already); the loop's counters
    with the first deadlock ("deadlock": a Discovery or None), or None when `deadline` (a `time.perf_counter()`
    value) passed first."""
    saved = checkpoint.load()
    bad = checkpoint.damaged
    loop = _counters(saved, bad)  # the cheap refusals first: shapes, before any state is rebuilt
    claims = _claims(search, saved, bad)
    rerun = _Rerun(search, saved, [p for p in search.model.properties if p.name in claims], bad)
    if not rerun.run(loop["i"], deadline):
        return None
    derived = rerun.counters()
    for name in ("transitions", "depth", "level_end", "deadlocks"):
        if loop[name] != derived[name]:
            raise bad(f"its counter {name!r} is {_number(loop[name])}, but its states make {derived[name]:,}")
    _deadlock(search, saved, rerun, bad)
    for name, (label, i, c, message) in claims.items():
        _discovery(search, rerun, name, label, (i, c, message), bad)
    search.set_always([p for p in search.always if p.name not in search.violations])
    done = search.violations.keys() | search.witnesses.keys()
    search.edge = [p for p in search.edge if p.name not in done]
    return {**derived, "deadlock": rerun.stuck}


class _Rerun:
    """The search's expansion of the checkpoint's first states, held against the file's numbers, with the
    claimed properties (`pending`) checked as the search checks them until each is found."""

    def __init__(self, search: Any, saved: Snapshot, pending: list[Any], bad: Any) -> None:
        self.search, self.saved, self.bad, self.stutter_proof = search, saved, bad, stutter_proof
        self.always = [p for p in pending if p.kind == "always"]
        self.edge = [p for p in pending if p.kind != "always"]
        self.found: dict[str, tuple[int, int | None, Any]] = {}  # name -> (state, successor or None, outcome)
        self.transitions = self.depth = self.deadlocks = 0
        self.level_end = len(search.states)
        self.position = 0
        self.stuck: Any = None  # the first deadlock, a Discovery

    def run(self, position: int, deadline: float | None) -> bool:
        """Expand states 0..position-1 as the search did; False if `deadline` passed first."""
        search, saved, bad = self.search, self.saved, self.bad
        parents, choices, count, states = saved.parents, saved.choices, len(saved.parents), search.states
        start = len(states)
        if count < start or any(parents[k] != -1 or choices[k] != search.choices[k] for k in range(start)):
            raise bad("its initial states are not this model's")
        if position > count:
            raise bad("its position in the queue is past the states it holds")
        for k in range(start):
            self.check_state(k, states[k])
        model, canonical, compact, index = search.model, search.canonical, search.compact, search.index
        store_add = states.add if compact else None
        successors, is_final = model.successors, model.is_final
        always, edge = self.always, self.edge  # emptied in place as each claimed property is re-found
        vetted = getattr(model, "vetted", None) if always or edge else None
        transitions, depth, level_end, deadlocks = 0, 0, start, 0
        for k in range(position):  # the search's loop (`explore`), its checks left out
            if k == level_end:
                depth, level_end = depth + 1, len(states)
            state, moved = states[k], False
            known = None if vetted is None else vetted(state)
            for ordinal, (action, post) in enumerate(successors(state)):
                transitions += 1
                stutter = post is state or post == state
                checked = True  # as in the search: a step the reference graph vouches for is checked for witnesses only
                if known is not None:
                    vetted_post = known.get(action)
                    checked = vetted_post is None or (vetted_post is not post and vetted_post != post)
                if edge:
                    self.check_step(k, ordinal, state, action, post, checked, stutter)
                if stutter:
                    continue
                moved = True
                key = post if canonical is None else canonical(post)
                j = len(states)
                if not (store_add(key, post) if compact else index.setdefault(key, j) == j):  # one hash, as the search
                    continue
                if j >= count or parents[j] != k or choices[j] != ordinal:
                    raise bad(self.mismatch(j, k, ordinal, key))
                search.add(post, k, action, key, indexed=True, choice=ordinal)
                if checked and always:
                    self.check_state(j, post)
            if not moved and not is_final(state):
                deadlocks += 1
                if self.stuck is None:
                    search.deadlock_at = k
                    self.stuck = search.path(k, message=STUCK)
            if deadline is not None and (k & 1023) == 0 and time.perf_counter() >= deadline:
                return False
        self.transitions, self.depth, self.level_end, self.deadlocks = transitions, depth, level_end, deadlocks
        if len(states) != count:
            raise bad(f"it holds {count:,} states, but expanding its first {position:,} stores {len(states):,}")
        if position < count and position == self.level_end:  # the search's next step, taken before it saved
            self.depth, self.level_end = self.depth + 1, count
        self.position = position
        return True

    def mismatch(self, j: int, k: int, ordinal: int, key: Any) -> str:
        """What is wrong where the file's state j differs from the search's (successor `ordinal` of state k)."""
        search, saved = self.search, self.saved
        count = len(saved.parents)
        if j >= count:
            return (f"it holds {count:,} states, but the search stores one more there (successor {ordinal} of "
                    f"state {k})")
        p, c = saved.parents[j], saved.choices[j]
        if not 0 <= p < j:
            return f"state {j}: its parent {p} is not a state stored before it"
        options = list(search.model.successors(search.states[p]))
        if not 0 <= c < len(options):
            return f"state {j}: state {p} has no successor {c}"
        post = options[c][1]
        named = post if search.canonical is None else search.canonical(post)
        if post == search.states[p]:
            return f"state {j}: successor {c} of state {p} is state {p} itself"
        if named != key and search.known(named):
            return f"state {j}: successor {c} of state {p} is stored already"
        return f"state {j}: the search stores successor {ordinal} of state {k} there, not successor {c} of state {p}"

    def check_state(self, j: int, state: Any) -> None:
        """The claimed invariants not re-found yet, in state j (as the search checks each state it stores)."""
        for p in list(self.always):
            message = p.check(state, self.search.ctx)
            if message is not None:
                self.found[p.name] = (j, None, message)
                self.always.remove(p)

    def check_step(self, k: int, ordinal: int, pre: Any, action: Any, post: Any, checked: bool, stutter: bool) -> None:
        """The claimed transition and sometimes properties not re-found yet, on this step, each where the search
        checks it: on the action types it names; a transition property not on a vouched-for step, nor on a step
        that changes nothing where it says no such step can break it."""
        for p in list(self.edge):
            if p.on and type(action) not in p.on:
                continue
            if p.kind == "transition" and (not checked or (stutter and self.stutter_proof(p, type(action)))):
                continue
            outcome = p.check(pre, action, post, self.search.ctx)
            if outcome if p.kind == "sometimes" else outcome is not None:
                self.found[p.name] = (k, ordinal, outcome)
                self.edge.remove(p)

    def counters(self) -> dict[str, int]:
        return {"i": self.position, "transitions": self.transitions, "depth": self.depth,
                "level_end": self.level_end, "deadlocks": self.deadlocks}


def _counters(saved: Snapshot, bad: Any) -> dict[str, Any]:
    """The file's counters, each a whole number of at least 0 (compared, never used, but for the position)."""
    loop = saved.loop
    for name in LOOP_COUNTERS:
        if type(loop.get(name)) is not int or loop[name] < 0:
            raise bad(f"its counter {name!r} is not a whole number of at least 0")
    if not loop["i"] <= loop["level_end"] <= len(saved.parents):
        raise bad("its position in the queue is past the states it holds")
    return {name: loop[name] for name in LOOP_COUNTERS}


def _claims(search: Any, saved: Snapshot, bad: Any) -> dict[str, tuple[str, int, int | None, Any]]:
    """The discoveries the file names, shape-checked: name -> (violation or witness, state, successor or None,
    message)."""
    kinds = {p.name: p.kind for p in search.model.properties}
    count, claims = len(saved.parents), {}
    for label, table in (("violation", saved.violations), ("witness", saved.witnesses)):
        for name, end in table.items():
            if kinds.get(name) not in KINDS[label]:
                raise bad(f"it names a discovery of {name[:40]!r}, not a property of this kind in this model")
            if not (isinstance(end, list) and len(end) == 3 and _index(end[0], count)
                    and (end[1] is None or type(end[1]) is int)
                    and (isinstance(end[2], str) if label == "violation" else end[2] is None)):
                raise bad(f"its discovery of {name!r} is not [state, successor or null, message]")
            claims[name] = (label, *end)
    return claims


def _discovery(search: Any, rerun: _Rerun, name: str, label: str, claimed: tuple[int, int | None, Any],
               bad: Any) -> None:
    """A claimed discovery, re-derived: the first the search finds, where the file says, with its message."""
    found = rerun.found.get(name)
    if found is None:
        raise bad(f"its {label} of {name!r} does not occur in the states and steps it holds")
    i, ordinal, outcome = found
    extra = None
    if ordinal is not None:
        options = list(search.model.successors(search.states[i]))
        extra = options[ordinal]
        ordinal = _first_with(options, extra[0])  # a checkpoint names a step by its action's first successor
    message = outcome if label == "violation" else None
    if (i, ordinal) != claimed[:2]:
        raise bad(f"its {label} of {name!r} ends at {_at(*claimed[:2])}, but the search finds it first at "
                  f"{_at(i, ordinal)}")
    if message != claimed[2]:
        raise bad(f"its {label} of {name!r} says {_short(claimed[2])}, not the model's {_short(message)}")
    into = search.violations if label == "violation" else search.witnesses
    into[name] = search.path(i, extra, message)
    search.ends[name] = (i, None if extra is None else extra[0])


def _deadlock(search: Any, saved: Snapshot, rerun: _Rerun, bad: Any) -> None:
    """The file's first deadlock, [state, message] or null, must be the re-run's."""
    claimed = saved.deadlock
    if claimed is not None and not (isinstance(claimed, list) and len(claimed) == 2
                                    and _index(claimed[0], len(saved.parents)) and isinstance(claimed[1], str)):
        raise bad("its deadlock is not [state, message]")
    first = None if rerun.stuck is None else search.deadlock_at
    if (None if claimed is None else claimed[0]) != first or (claimed is not None and claimed[1] != STUCK):
        raise bad(f"its first deadlock is {'none' if claimed is None else _short(claimed)}, but the search's is "
                  f"{'none' if first is None else f'state {first}'}")


def _at(i: int, c: int | None) -> str:
    return f"state {i}" if c is None else f"successor {c} of state {i}"


def _index(value: Any, count: int) -> bool:
    return type(value) is int and 0 <= value < count


def _number(value: int) -> str:
    return f"{value:,}" if abs(value) < 10**18 else _short(value)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
