"""Bounded breadth-first search over canonical states.

The explorer knows nothing about workflows. It takes a `Model` (initial states, successors, a final
test, properties with kinds) and `Limits`, and returns an immutable `Result`: statistics, the
shortest counterexample of every violated property, the shortest witness of every `sometimes`
property, the shortest deadlock, and whether the search was complete.
"""

from __future__ import annotations

import gc
import time
from array import array
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Protocol

from pausecheck.model.property import stutter_proof

from .budget import active
from .checkpoint import Checkpoint
from .compact import CompactStates
from .limits import NO_LIMITS, Limits, resident_bytes
from .packed import PackedStates
from .restore import STUCK, restore, snapshot

__all__ = ["Model", "Limits", "Discovery", "Result", "Progress", "NO_LIMITS", "explore", "stutter_proof"]

ALWAYS, TRANSITION, SOMETIMES = "always", "transition", "sometimes"


Progress = Callable[[int, int, int], None]  # (states, transitions, depth), about twice a second


class Model(Protocol):
    """What the explorer needs of a model."""

    properties: Sequence[Any]  # each with .name, .kind, .check, .on (action types; empty = all), and optionally
    # .stutter (for a transition property: the action types on which a step that changes nothing can break it;
    # it is skipped on the other types' such steps)

    def init_states(self) -> Iterable[Hashable]: ...
    # Optional: `canonical()` returns a function mapping a state to its symmetry class's representative
    # (or None): then one state per class is stored, the first concrete one found.
    def successors(self, state: Any) -> Iterator[tuple[Any, Any]]: ...
    def is_final(self, state: Any) -> bool: ...
    def context(self) -> Any: ...
    # Optional: `vetted(state)` returns None, or, for a state of a reference graph known to break no
    # property, a mapping from action to post-state: a step found there is checked only for the `sometimes`
    # properties not witnessed yet, and the state it leads to is not checked (`reference.py`).
    # Optional: `screen(always properties, context)` returns (a one-pass test `(state, parent)`, True
    # when every property it covers holds, given that they held in the parent; the properties it does
    # not cover), so that a state is checked property by property only when the screen fails.
    # Optional: `edge_screen(properties, action kind, stutter)` returns the checks of a step of that kind
    # (one compiled test for those it can decide at once, then the others' own), in place of each
    # property's check.
    # Optional: `spread_key()` returns a function mapping a state to a few integers (a tuple of ints, hashed
    # alike in every process) that change on few steps: a search spread over processes shares states out by
    # them (`partition.py`), else by the CRC-32 of their bytes.


OPTIONAL = ("canonical", "vetted", "screen", "edge_screen", "spread_key")  # the optional hooks above, by name


@dataclass(frozen=True, slots=True)
class Discovery:
    """A path from an initial state: the states and the actions between them, and what it shows."""

    states: tuple[Any, ...]  # states[0] is initial; states[i] follows actions[i - 1]
    actions: tuple[Any, ...]
    message: str | None  # for a violation, what broke; None for a witness


@dataclass(frozen=True, slots=True)
class Result:
    """The outcome of one search."""

    complete: bool
    states: int
    transitions: int
    depth: int
    seconds: float
    violations: Mapping[str, Discovery]  # property name -> shortest counterexample (read-only)
    witnesses: Mapping[str, Discovery]  # sometimes property name -> shortest witness (read-only)
    deadlocks: int
    deadlock: Discovery | None  # the shortest one
    stopped: str | None = None  # why an incomplete search stopped: max-states, max-depth, max-seconds,
    # max-memory, interrupted
    fingerprints: bool = False  # only 64-bit hashes of visited states were kept
    compact: bool = False  # visited states were kept exactly, packed (`compact.py`)

    @property
    def collision_probability(self) -> float:
        """With fingerprints, the chance that two of the states shared a hash, so that one was never
        explored: n(n-1)/2 pairs, each 2^-64 (hashes taken as uniform); 0 otherwise."""
        return self.states * (self.states - 1) / 2 ** 65 if self.fingerprints else 0.0

    @property
    def states_per_second(self) -> float:
        return self.states / self.seconds if self.seconds > 0 else float("inf")


class Fingerprints:
    """A set of 64-bit fingerprints in one flat array (open addressing, linear probing): 16 bytes a
    fingerprint at most, where a Python set of ints takes about 90."""

    def __init__(self) -> None:
        self.table = array("q", [0]) * 1024
        self.mask = 1023
        self.count = 0

    def add(self, fingerprint: int) -> bool:
        """Add it; was it new?"""
        fingerprint = fingerprint or 1  # 0 marks an empty slot
        table, mask = self.table, self.mask
        j = fingerprint & mask
        while True:
            seen = table[j]
            if seen == 0:
                table[j] = fingerprint
                self.count += 1
                if 2 * self.count > mask:
                    self._grow()
                return True
            if seen == fingerprint:
                return False
            j = (j + 1) & mask

    def __contains__(self, fingerprint: int) -> bool:
        fingerprint = fingerprint or 1
        table, mask = self.table, self.mask
        j = fingerprint & mask
        while table[j]:
            if table[j] == fingerprint:
                return True
            j = (j + 1) & mask
        return False

    def _grow(self) -> None:
        old = self.table
        self.table, self.mask, self.count = array("q", [0]) * (2 * len(old)), 2 * len(old) - 1, 0
        for fingerprint in old:
            if fingerprint:
                self.add(fingerprint)


class _Search:
    """The mutable bookkeeping of one search, discarded when it returns."""

    def __init__(self, model: Model, fingerprints: bool = False, compact: bool = False, choices: bool = False) -> None:
        self.model = model
        self.fingerprints = fingerprints  # keep 64-bit hashes of visited states, and only the frontier's states
        self.compact = compact  # keep every state exactly, packed: the store is its own index
        self.seen = Fingerprints()
        self.ctx = model.context()
        self.index: dict[Any, int] = {}
        # The states by number: with fingerprints, only those still to expand, packed.
        self.states: Any = CompactStates() if compact else PackedStates() if fingerprints else []
        self.parent = array("q")
        # With a checkpoint: which of its parent's successors (or which initial state) each state is.
        self.choices: array | None = array("q") if choices else None
        self.via: list[Any] = []
        # Where each discovery ends, for a checkpoint: property name -> (state, action of the last step or None).
        self.ends: dict[str, tuple[int, Any]] = {}
        self.deadlock_at = -1
        self.interned: dict[Any, Any] = {}
        self.violations: dict[str, Discovery] = {}
        self.witnesses: dict[str, Discovery] = {}
        self.screener = getattr(model, "screen", None)
        self.screen: Any = None  # set with the invariants below
        self.set_always([p for p in model.properties if p.kind == ALWAYS])
        self.edge = [p for p in model.properties if p.kind in (TRANSITION, SOMETIMES)]
        self.by_type: dict[type, tuple[Any, ...]] = {}
        self.still: dict[type, tuple[Any, ...]] = {}  # by action kind, the checks of a step that changes nothing
        self.wanted: dict[type, tuple[Any, ...]] = {}  # by action kind, the sometimes checks alone
        canonical = getattr(model, "canonical", None)
        self.canonical = canonical() if canonical is not None else None

    def known(self, key: Any) -> bool:
        """Has a state with this key been stored (by its fingerprint, in that mode)?"""
        if self.fingerprints:
            return hash(key) in self.seen
        return key in (self.states if self.compact else self.index)

    def add(self, state: Any, parent: int, action: Any, key: Any = None, indexed: bool = False, choice: int = 0) -> int:
        """Store a state not seen before (its key recorded already where `indexed`), the `choice`-th successor of
        its parent (or initial state); its number."""
        key = state if key is None else key
        if self.compact:
            if not indexed:  # the compact store records the key and the state in one
                self.states.add(key, state)
            i = len(self.states) - 1
        else:
            i = len(self.states)
            if not indexed:
                if self.fingerprints:
                    self.seen.add(hash(key))
                else:
                    self.index[key] = i
            self.states.append(state)
        self.parent.append(parent)
        if self.choices is not None:
            self.choices.append(choice)
        self.via.append(None if action is None else self.interned.setdefault(action, action))
        return i

    def path(self, i: int, extra: tuple[Any, Any] | None = None, message: str | None = None) -> Discovery:
        if self.fingerprints:
            return self.replayed(i, extra, message)
        states, actions = [], []
        while i >= 0:
            states.append(self.states[i])
            if self.via[i] is not None:
                actions.append(self.via[i])
            i = self.parent[i]
        states.reverse()
        actions.reverse()
        if extra is not None:
            actions.append(extra[0])
            states.append(extra[1])
        return Discovery(tuple(states), tuple(actions), message)

    def replayed(self, i: int, extra: tuple[Any, Any] | None, message: str | None) -> Discovery:
        """The path to state i when states are not kept: its actions, from the parents, replayed from the
        initial state (the first successor under each action is the one the search took)."""
        actions = []
        while self.via[i] is not None:
            actions.append(self.via[i])
            i = self.parent[i]
        actions.reverse()
        first = next(iter(self.model.init_states()))
        states = [first]
        for action in actions:
            states.append(next(post for taken, post in self.model.successors(states[-1]) if taken == action))
        if extra is not None:
            actions.append(extra[0])
            states.append(extra[1])
        return Discovery(tuple(states), tuple(actions), message)

    def set_always(self, always: list[Any]) -> None:
        """The invariants still to check, and the screen over those it covers."""
        self.always = always
        self.screen, rest = self.screener(always, self.ctx) if self.screener is not None else (None, always)
        self.always_checks = tuple(p.check for p in rest)

    def check_state(self, i: int, state: Any, parent: Any = None) -> None:
        """Check the invariants in `state`, number i, reached from `parent` (in which they all held, or
        were recorded broken and dropped), or initial."""
        ctx = self.ctx
        if self.screen is not None and not self.screen(state, parent):
            self.found_in_state(i)
            return
        for check in self.always_checks:
            if check(state, ctx) is not None:
                self.found_in_state(i)
                return

    def found_in_state(self, i: int) -> None:
        """Some invariant fails in state i: record each that does, and stop checking them."""
        for p in self.always:
            message = p.check(self.states[i], self.ctx)
            if message is not None:
                self.violations[p.name] = self.path(i, message=message)
                self.ends[p.name] = (i, None)
        self.set_always([p for p in self.always if p.name not in self.violations])

    def edge_checks(self, action_type: type, stutter: bool = False) -> tuple[Any, ...]:
        """The check functions of the transition and sometimes properties looking at this kind of action; for
        a step that changes nothing, without the transition properties no such step of this kind can break."""
        table = self.still if stutter else self.by_type
        checks = table.get(action_type)
        if checks is None:
            checks = self.checks_of([p for p in self.edge if (not p.on or action_type in p.on) and not (
                stutter and p.kind == TRANSITION and stutter_proof(p, action_type))], action_type, stutter)
            table[action_type] = checks
        return checks

    def checks_of(self, properties: list[Any], action_type: type, stutter: bool = False) -> tuple[Any, ...]:
        """The functions that check a step of this kind (with `stutter`: one that changes nothing) for these
        properties: the model's own screen of them (`edge_screen`: one compiled test where it can), else
        each property's check."""
        screen = getattr(self.model, "edge_screen", None)
        return tuple(p.check for p in properties) if screen is None else screen(properties, action_type, stutter)

    def witness_checks(self, action_type: type) -> tuple[Any, ...]:
        """The check functions of the sometimes properties not witnessed yet looking at this kind of action
        (all a vetted step needs: it breaks nothing)."""
        checks = self.wanted.get(action_type)
        if checks is None:
            checks = self.checks_of([p for p in self.edge if p.kind == SOMETIMES and (not p.on or action_type in p.on)],
                                    action_type)
            self.wanted[action_type] = checks
        return checks

    def found_on_edge(self, i: int, action: Any, post: Any) -> None:
        """Some check reported on this step (a falsy witness outcome may bring it here too): record every
        property it breaks or witnesses, and stop checking those."""
        pre, found = self.states[i], False
        for p in self.edge:
            if p.on and type(action) not in p.on:
                continue
            outcome = p.check(pre, action, post, self.ctx)
            if p.kind == TRANSITION and outcome is not None:
                self.violations[p.name] = self.path(i, (action, post), outcome)
                self.ends[p.name] = (i, action)
                found = True
            elif p.kind == SOMETIMES and outcome:
                self.witnesses[p.name] = self.path(i, (action, post))
                self.ends[p.name] = (i, action)
                found = True
        if found:
            done = self.violations.keys() | self.witnesses.keys()
            self.edge = [p for p in self.edge if p.name not in done]
            self.by_type.clear()
            self.still.clear()
            self.wanted.clear()


def explore(
    model: Model,
    limits: Limits = NO_LIMITS,
    progress: Progress | None = None,
    checkpoint: Checkpoint | None = None,
    resume: bool = False,
    fingerprints: bool = False,
    compact: bool = False,
) -> Result:
    """Breadth-first search of every state reachable within the model's bounds and the limits.

    `progress(states, transitions, depth)` is called about twice a second, if given. A limit reached
    or a KeyboardInterrupt (Ctrl-C, or SIGTERM where the CLI maps it) ends the search early: the
    result is incomplete, says why in `stopped`, and keeps what was found so far.

    With `checkpoint`, the search's state is saved every `checkpoint.every` seconds (`checkpoint.py`);
    with `resume` too, it starts from the saved state, every number of it re-derived on the model
    (`restore.py`), and ends as a search never stopped would, but for its seconds: this run's.

    With `fingerprints`, only a 64-bit hash of each visited state is kept (and the states still to
    expand, packed: `packed.py`), as TLC does: a seventh of the memory, at the risk that two states share
    a hash and the second is never explored (`Result.collision_probability` bounds it). Traces are
    rebuilt by replaying their actions. Not with a checkpoint.

    With `compact`, every visited state is kept exactly, packed in a few dozen bytes (`compact.py`): no
    risk of a collision, at about twice the time per state.
    """
    if fingerprints and checkpoint is not None:
        raise ValueError("a search keeping only fingerprints cannot be checkpointed")
    if fingerprints and compact:
        raise ValueError("a search keeps fingerprints or compact states, not both")
    started = time.perf_counter()
    search = _Search(model, fingerprints, compact, choices=checkpoint is not None)
    canonical, seen = search.canonical, search.seen
    for ordinal, state in enumerate(model.init_states()):
        key = state if canonical is None else canonical(state)
        if not search.known(key):
            search.check_state(search.add(state, -1, None, key, choice=ordinal), state)
    transitions, depth, level_end, complete = 0, 0, len(search.states), True
    deadlocks, deadlock, stopped = 0, None, None
    i = 0
    if checkpoint is not None and resume:
        deadline = None if limits.max_seconds is None else started + limits.max_seconds
        loop = restore(search, checkpoint, deadline)  # the time it takes counts against --max-seconds
        if loop is None:
            return _cut_short(search, started)
        i, transitions, depth, level_end = loop["i"], loop["transitions"], loop["depth"], loop["level_end"]
        deadlocks, deadlock = loop["deadlocks"], loop["deadlock"]  # all re-derived on the model (`restore.py`)
    index, store = search.index, search.states  # bound after a resume, which replaces them
    successors, by_type, still, wanted, ctx = model.successors, search.by_type, search.still, search.wanted, search.ctx
    vetted = getattr(model, "vetted", None)
    next_report = started + 0.5
    next_save = started + checkpoint.every if checkpoint is not None else None
    deadline = None if limits.max_seconds is None else started + limits.max_seconds
    try:
        while i < len(search.states):
            if i == level_end:
                depth, level_end = depth + 1, len(search.states)
            if limits.max_depth is not None and depth >= limits.max_depth:
                complete, stopped = False, "max-depth"
                break
            if (i & 1023) == 0 and i:
                gc.freeze()  # the states stored so far live until the end: the collector need not scan them again
                stopped = _over(limits, deadline)
                if stopped:
                    complete = False
                    break
                if next_save is not None and complete and time.perf_counter() >= next_save:  # never a cut search
                    assert checkpoint is not None
                    checkpoint.save(snapshot(search, {
                        "i": i, "transitions": transitions, "depth": depth, "level_end": level_end,
                        "deadlocks": deadlocks, "deadlock": None if deadlock is None else deadlock.message,
                        "seconds": time.perf_counter() - started}))
                    next_save = time.perf_counter() + checkpoint.every
            state = search.states[i]
            moved = False
            known = None if vetted is None else vetted(state)
            for ordinal, (action, post) in enumerate(successors(state)):
                transitions += 1
                stutter = post is state or post == state
                checked = True
                if known is not None:
                    vetted_post = known.get(action)  # a vetted step: only the witnesses still wanted
                    checked = vetted_post is None or (vetted_post is not post and vetted_post != post)
                if checked:
                    checks = (still if stutter else by_type).get(type(action))
                    if checks is None:
                        checks = search.edge_checks(type(action), stutter)
                else:
                    checks = wanted.get(type(action))
                    if checks is None:
                        checks = search.witness_checks(type(action))
                for check in checks:  # the step's checks; the bookkeeping only when one reports
                    outcome = check(state, action, post, ctx)
                    if outcome is not None and outcome is not False:
                        search.found_on_edge(i, action, post)
                        break
                if stutter:
                    continue
                moved = True
                key = post if canonical is None else canonical(post)
                if limits.max_states is not None and len(search.states) >= limits.max_states:
                    if not search.known(key):
                        complete, stopped = False, "max-states"
                    continue
                if fingerprints:
                    fresh = seen.add(hash(key))
                elif compact:
                    fresh = store.add(key, post)
                else:
                    new = len(search.states)
                    fresh = index.setdefault(key, new) == new  # one hash of the state, whether it is new or not
                if fresh:
                    j = search.add(post, i, action, key, indexed=True, choice=ordinal)
                    if checked:  # a vetted step leads to a vetted state
                        search.check_state(j, post, state)
            if not moved and not model.is_final(state):
                deadlocks += 1
                if deadlock is None:
                    search.deadlock_at = i
                    deadlock = search.path(i, message=STUCK)
            i += 1
            if progress is not None and (i & 1023) == 0 and time.perf_counter() >= next_report:
                progress(len(search.states), transitions, depth)
                next_report = time.perf_counter() + 0.5
    except KeyboardInterrupt as stop:  # Ctrl-C, SIGTERM mapped to it, or a command's limit: keep what was found
        complete, stopped = False, getattr(stop, "reason", "interrupted")
    finally:
        gc.unfreeze()  # what the search froze is the collector's again (garbage cycles among it included)
    return Result(
        complete=complete,
        states=len(search.states),
        transitions=transitions,
        depth=depth,
        seconds=time.perf_counter() - started,  # after a resume, this run's: the time before is not vouched for
        violations=MappingProxyType(search.violations),
        witnesses=MappingProxyType(search.witnesses),
        deadlocks=deadlocks,
        deadlock=deadlock,
        stopped=stopped,
        fingerprints=fingerprints,
        compact=compact,
    )


def _cut_short(search: _Search, started: float) -> Result:
    """A resume stopped by --max-seconds while it re-ran the checkpoint: nothing established yet."""
    return Result(complete=False, states=len(search.states), transitions=0, depth=0,
                  seconds=time.perf_counter() - started, violations=MappingProxyType({}),
                  witnesses=MappingProxyType({}), deadlocks=0, deadlock=None, stopped="max-seconds",
                  compact=search.compact)


def _over(limits: Limits, deadline: float | None, used: Callable[[], int] = resident_bytes) -> str | None:
    """Which time or memory limit the search has reached, if any (`used`: the resident memory the limit is on).
    Where it is the command's own limit too (`--max-seconds`, `--max-memory`), its budget is told that the
    search stops itself for it, so that the watchdog does not interrupt the report that follows."""
    reason = None
    if deadline is not None and time.perf_counter() >= deadline:
        reason = "max-seconds"
    elif limits.max_memory is not None and used() >= limits.max_memory:
        reason = "max-memory"
    if reason is not None:

        budget = active()
        if budget is not None and budget.over() == reason:
            budget.reached(reason)
    return reason
