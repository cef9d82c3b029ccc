"""One process's share of a search spread over processes (`spread.py`): the work, without the transport.

Every state has an *owner*, the process that remembers it as one process's search would (the state itself;
with fingerprints a 64-bit hash of it; with `compact`, packed), decides whether it is new, expands it and
checks it. With the model's `spread_key` (a few integers of a state), the states of one key, a *group*, have
one owner, which the driver names the first time the group is found (`share`): the process that found most of
its states, unless that would take it too far past an even share of the level's new states; the initial
states' groups by the hash of the key. Without a key, the owner is the CRC-32 of the
state's bytes (`codec.py`) modulo the number of processes. The key changes on few steps, so most successors
are their parent's process's own: those stay objects, and only the others are written as bytes and sent. A
level goes in four steps, each a barrier for the driver:

1. `expand`: each process expands its states of the level, in the search's order, checking every step (the
   transition and `sometimes` properties); each successor that moves and is new here is kept, with its *path
   key*, its parent (process, number there) and which successor it is; one owned by another process is
   screened for the invariants beside its parent (where the screen fails, an invariant may be broken) and
   written as bytes in a batch for its owner, with what the screen said; one whose group has no owner yet is
   held, and counted by group: the count of each is the process's *census* of the level;
2. `route`: the driver names an owner for each new group (`share`, from every census); each process sends
   the batches, with the states held put where their owner is;
3. `dedup`: the owner takes the batches sent to it and keeps, for each state it has not seen, the first finding
   (the least path key);
4. `adopt`: the owner numbers its new states in path-key order (the next level's states here), rebuilds those
   that came as bytes, screens the others beside their parents, and checks property by property those whose
   screen failed.

The path key of a state is the sequence of successor numbers that leads to it from an initial state through
the first finding of each state on the way: the order of path keys in a level is the order in which one
process's breadth-first search numbers that level (which state it finds first, and through which parent), so
every discovery, every parent and every trace are the ones that search gives, whoever owns what. A successor
number is one byte below 255, else 255 and four bytes, which keeps byte order the numbers' order.

Nothing here knows whether the other processes are local or on a Ray cluster; batches are bytes.
"""

from __future__ import annotations

import gc
import time
import zlib
from array import array
from collections.abc import Callable
from operator import itemgetter
from typing import Any

from .codec import codec_for
from .compact import CompactStates
from .explore import ALWAYS, SOMETIMES, TRANSITION, Fingerprints, stutter_proof

__all__ = ["Partition", "Census", "share", "step_key", "pack", "unpack"]

Stop = Callable[[], bool]
Census = tuple[list[int], dict[Any, int]]  # a process's new states of a level by owner, and by group without one
# What sending a state to its owner costs (writing it, reading it back, screening it beside its parent), against
# expanding a state: about one and a half (benchmarks/spread.py; docs/speed.md).
SEND = 1.5


def share(censuses: list[Census]) -> dict[Any, int]:
    """The owner of each group first found in a level, from every process's census of it: the groups from the
    largest, each to the process where it costs least, counting the states it would take that process past an
    even share of the level's new states, and SEND for each of its states found elsewhere (sent there). The same
    answer from the same censuses, whatever their order of arrival: the groups are sorted by size, then by text."""
    parts = len(censuses)
    load = [sum(found[k] for found, _ in censuses) for k in range(parts)]
    sizes: dict[Any, list[int]] = {}
    for k, (_, groups) in enumerate(censuses):
        for group, count in groups.items():
            sizes.setdefault(group, [0] * parts)[k] += count
    even = (sum(load) + sum(map(sum, sizes.values()))) / parts
    owners = {}
    for group, votes in sorted(sizes.items(), key=lambda item: (-sum(item[1]), repr(item[0]))):
        size = sum(votes)
        home = min(range(parts), key=lambda k: (max(0.0, load[k] + size - even) + SEND * (size - votes[k]), load[k], k))
        owners[group] = home
        load[home] += size
    return owners


def step_key(ordinal: int) -> bytes:
    """A successor number as path-key bytes whose byte order is the numbers' order."""
    return bytes((ordinal,)) if ordinal < 255 else b"\xff" + ordinal.to_bytes(4, "big")


STEPS = tuple(step_key(ordinal) for ordinal in range(255))  # the one-byte step keys, looked up


def pack(fields: list[bytes], numbers: array) -> bytes:
    """Byte strings and numbers as one batch: the count, each string's length, the numbers, the strings."""
    lengths = array("I", map(len, fields))
    return array("I", [len(fields), len(numbers)]).tobytes() + lengths.tobytes() + numbers.tobytes() + b"".join(fields)


def unpack(batch: bytes) -> tuple[list[bytes], array]:
    """The byte strings and numbers of `pack`."""
    head = array("I")
    head.frombytes(batch[:8])
    count, numbered = head
    lengths = array("I")
    lengths.frombytes(batch[8:8 + 4 * count])
    at = 8 + 4 * count
    numbers = array("q")
    numbers.frombytes(batch[at:at + 8 * numbered])
    at += 8 * numbered
    fields = []
    for size in lengths:
        fields.append(batch[at:at + size])
        at += size
    return fields, numbers


class Partition:
    """The states one process owns (to tell new from seen), and the states it is home to (to expand them and to
    walk a trace back through them)."""

    def __init__(self, model: Any, me: int, parts: int, fingerprints: bool = False, compact: bool = False) -> None:
        gc.disable()  # states are acyclic tuples, freed by their counts: the collector would only rescan them
        self.model, self.me, self.parts = model, me, parts
        self.ctx = model.context()
        first = next(iter(model.init_states()))
        self.codec = codec_for(first)
        canonical = getattr(model, "canonical", None)
        self.canonical = canonical() if canonical is not None else None
        spread_key = getattr(model, "spread_key", None)
        self.spread_key = spread_key() if spread_key is not None else None
        if self.spread_key is not None:
            self.check_key(self.spread_key(first))
        self.fingerprints = fingerprints
        # The states seen: exactly, each key's entry (below) while it is new in the level under way, then an
        # empty list; with fingerprints or compact, the states of the levels before (64-bit hashes of their
        # keys, or the keys packed) and the entries of the level under way by key (or its hash).
        self.exact = not fingerprints and not compact
        self.index: dict[Any, list[Any]] = {}
        self.seen: Any = Fingerprints() if fingerprints else CompactStates() if compact else None
        self.owned = 0
        self.routed = 0  # bytes of the batches sent to the other processes
        self.sent = self.crossed = 0  # successors sent to their owner elsewhere; those found new there
        # The states this process is home to, by number: its parent's home and number there, and which
        # successor of it the state is (for an initial state: -1, -1 and its place among the initial states).
        self.parent_home, self.parent_at, self.choice = array("b"), array("q"), array("q")
        self.frontier: list[tuple[bytes, Any, int]] = []  # (path key, state, number), in path-key order
        self.found: set[str] = set()  # properties found anywhere (told at each barrier) or here
        self.always: list[Any] = []
        self.screen: Any = None
        self.always_checks: tuple[Any, ...] = ()
        self.edge: list[Any] = []
        self.by_kind: tuple[dict[type, tuple[Any, ...]], ...] = ({}, {})  # by stutter, then action kind
        self.forget(set())
        self.transitions = self.deadlocks = 0
        # The entries of the states new in this level: [path key, key, parent's home, parent's number there,
        # successor number, the state (or its bytes, or b"" where it is its key), the parent where it is here, else
        # whether the finder's screen of it beside its parent failed (or None for an initial state)]
        self.pending: list[list[Any]] = []
        self.discoveries: list[tuple[Any, ...]] = []
        self.deadlock: tuple[int, bytes, int] | None = None  # (level, path key, number) of the first here
        self.owners: dict[Any, int] = {}  # group (spread key) -> its owner, as the driver named it (`share`)
        # This level's findings of groups without an owner yet, new here: by key, each with its group, in order.
        self.held: dict[Any, tuple[Any, list[Any]]] = {}
        self.out: list[tuple[list[bytes], list[bytes], list[bytes], array]] = []  # this level's batches, unsent

    # -- what is still to check ---------------------------------------------------------------------------------

    def forget(self, found: set[str]) -> None:
        """Stop checking these properties (found here or elsewhere)."""
        self.found |= found
        props = [p for p in self.model.properties if p.name not in self.found]
        self.always = [p for p in props if p.kind == ALWAYS]
        screener = getattr(self.model, "screen", None)
        self.screen, rest = screener(self.always, self.ctx) if screener is not None else (None, self.always)
        self.always_checks = tuple(p.check for p in rest)
        self.edge = [p for p in props if p.kind in (TRANSITION, SOMETIMES)]
        self.by_kind = ({}, {})

    def _edge_checks(self, kind: type, stutter: bool) -> tuple[Any, ...]:
        checks = self.by_kind[stutter].get(kind)
        if checks is None:
            props = [p for p in self.edge if (not p.on or kind in p.on)
                     and not (stutter and p.kind == TRANSITION and stutter_proof(p, kind))]
            screen = getattr(self.model, "edge_screen", None)
            checks = tuple(p.check for p in props) if screen is None else screen(props, kind, stutter)
            self.by_kind[stutter][kind] = checks
        return checks

    def _suspect(self, state: Any, parent: Any) -> bool:
        """Might an invariant still checked fail in `state`? Beside its parent where it was found here (the screen
        skips the records they share), else on every record: where a record the screen skips beside the parent
        breaks one, the parent broke it too, and was found a level before."""
        if self.screen is not None and not self.screen(state, parent):
            return True
        ctx = self.ctx
        return any(check(state, ctx) is not None for check in self.always_checks)

    def _check_state(self, level: int, path: bytes, number: int, state: Any) -> None:
        """Record each invariant still checked that fails in this state (of this level), and stop checking it."""
        broken = []
        for index, p in enumerate(self.model.properties):
            if p.kind == ALWAYS and p.name not in self.found:
                message = p.check(state, self.ctx)
                if message is not None:
                    broken.append(p.name)
                    self.discoveries.append((level - 1, path, 1, index, "violation", p.name, number, -1, message))
        if broken:
            self.forget(set(broken))

    def _on_edge(self, level: int, path: bytes, number: int, ordinal: int, state: Any, action: Any, post: Any) -> None:
        """A step's check reported: record every property it breaks or witnesses, and stop checking those."""
        done = set()
        for index, p in enumerate(self.model.properties):
            if p.kind not in (TRANSITION, SOMETIMES) or p.name in self.found or (p.on and type(action) not in p.on):
                continue
            outcome = p.check(state, action, post, self.ctx)
            if p.kind == TRANSITION and outcome is not None:
                self.discoveries.append((level, path + step_key(ordinal), 0, index, "violation", p.name, number,
                                         ordinal, outcome))
                done.add(p.name)
            elif p.kind == SOMETIMES and outcome:
                self.discoveries.append((level, path + step_key(ordinal), 0, index, "witness", p.name, number,
                                         ordinal, None))
                done.add(p.name)
        if done:
            self.forget(done)

    # -- the steps of a level ------------------------------------------------------------------------------------

    @staticmethod
    def check_key(value: Any) -> None:
        """A spread key must hash alike in every process: integers (flags included) and tuples of them."""
        if isinstance(value, tuple):
            for item in value:
                Partition.check_key(item)
        elif not isinstance(value, int):
            raise TypeError(f"a spread key holds integers only, not {type(value).__name__}")

    def owner(self, key: Any) -> int:
        """The process that owns the state of this key: the same in every process (a group without an owner yet
        goes by the hash of its key, as the initial states' groups do)."""
        if self.parts == 1:
            return 0
        if self.spread_key is None:
            return zlib.crc32(self.codec.encode(key)) % self.parts
        group = self.spread_key(key)
        home = self.owners.get(group)
        return hash(group) % self.parts if home is None else home

    def start(self) -> None:
        """Level 0: every process lists the initial states and keeps those it owns (their groups by the hash of
        the key: every process names the same owners without a word)."""
        for ordinal, state in enumerate(self.model.init_states()):
            key = state if self.canonical is None else self.canonical(state)
            home = self.owner(key)
            if self.spread_key is not None and self.parts > 1:
                self.owners[self.spread_key(key)] = home
            if home == self.me:
                self._offer([step_key(ordinal), key, -1, -1, ordinal, state, None])

    def expand(self, level: int, stop: Stop) -> tuple[Census, bool]:
        """Expand this level's states here, in path-key order, keeping the successors this process owns and
        writing the others for their owners (`route` sends them); this level's census, and whether a stop asked
        for cut the level short."""
        model, ctx, encode, canonical = self.model, self.ctx, self.codec.encode, self.canonical
        successors, is_final, by_kind = model.successors, model.is_final, self.by_kind
        me, parts, offer, owner, spread_key = self.me, self.parts, self._offer, self.owner, self.spread_key
        index, pending, exact, owners, held = self.index, self.pending, self.exact, self.owners, self.held
        suspect = self._suspect
        groups: dict[Any, int] = {}
        self.out = out = [([], [], [], array("q")) for _ in range(parts)]
        stopped, transitions = False, 0
        for count, (path, state, number) in enumerate(self.frontier):
            if (count & 255) == 255 and stop():
                stopped = True
                break
            moved = False
            for ordinal, (action, post) in enumerate(successors(state)):
                transitions += 1
                stutter = post is state or post == state
                checks = by_kind[stutter].get(type(action))
                if checks is None:
                    checks = self._edge_checks(type(action), stutter)
                for check in checks:
                    outcome = check(state, action, post, ctx)
                    if outcome is not None and outcome is not False:
                        self._on_edge(level, path, number, ordinal, state, action, post)
                        by_kind = self.by_kind
                        break
                if stutter:
                    continue
                moved = True
                key = post if canonical is None else canonical(post)
                step = path + (STEPS[ordinal] if ordinal < 255 else step_key(ordinal))
                if parts == 1:
                    home = me
                elif spread_key is None:
                    home = owner(key)
                else:
                    group = spread_key(key)
                    home = owners.get(group, -1)
                    if home < 0:  # a group found for the first time: held until the driver names its owner
                        entry = [step, key, me, number, ordinal, post, state]
                        if held.setdefault(key, (group, entry))[1] is entry:
                            groups[group] = groups.get(group, 0) + 1
                        continue
                if home == me:
                    entry = [step, key, me, number, ordinal, post, state]
                    if exact:  # one look-up: new, seen, or found here before (through a lesser path key)
                        if index.setdefault(key, entry) is entry:
                            pending.append(entry)
                    else:
                        offer(entry)
                else:
                    keys, paths, bodies, numbers = out[home]
                    keys.append(encode(key))
                    paths.append(step)
                    bodies.append(b"" if key is post or key == post else encode(post))
                    numbers.extend((number, ordinal, suspect(post, state)))  # screened here, beside its parent
            if not moved and not is_final(state):
                self.deadlocks += 1
                if self.deadlock is None or (level, path) < self.deadlock[:2]:
                    self.deadlock = (level, path, number)
        self.frontier = []
        self.transitions += transitions
        found = [len(pending) if k == me else len(keys) for k, (keys, _, _, _) in enumerate(out)]
        return (found, groups), stopped

    def route(self, owners: dict[Any, int]) -> list[bytes]:
        """The owners of the groups first found in this level (`share`): keep the states held that this process
        owns, and write the others for theirs; the batch for each owner (none for this one)."""
        self.owners.update(owners)
        encode, me, suspect = self.codec.encode, self.me, self._suspect
        out = self.out or [([], [], [], array("q")) for _ in range(self.parts)]
        for key, (group, entry) in self.held.items():
            home = owners[group]
            if home == me:
                self._offer(entry)
            else:
                keys, paths, bodies, numbers = out[home]
                post = entry[5]
                keys.append(encode(key))
                paths.append(entry[0])
                bodies.append(b"" if key is post or key == post else encode(post))
                numbers.extend((entry[3], entry[4], suspect(post, entry[6])))
        self.held = {}
        self.out = []
        self.sent += sum(len(keys) for keys, _, _, _ in out)
        batches = [b"" if k == me else pack(keys + paths + bodies, numbers)
                   for k, (keys, paths, bodies, numbers) in enumerate(out)]
        self.routed += sum(map(len, batches))
        return batches

    def _offer(self, entry: list[Any]) -> None:
        """A finding of a state this process owns (its entry): new unless seen; the least path key wins."""
        key = entry[1]
        if self.exact:
            mark = key
        else:
            mark = hash(key) if self.fingerprints else key
            if mark in self.seen:
                return
        best = self.index.setdefault(mark, entry)
        if best is entry:
            self.pending.append(entry)
        elif best and entry[0] < best[0]:
            best[:] = entry

    def dedup(self, finder: int, batch: bytes) -> None:
        """Take the findings another process sent."""
        if not batch:
            return
        fields, numbers = unpack(batch)
        n, offer, decode, before = len(numbers) // 3, self._offer, self.codec.decode, len(self.pending)
        for k in range(n):  # the finder's screen of the state comes in place of its parent
            offer([fields[n + k], decode(fields[k]), finder, numbers[3 * k], numbers[3 * k + 1], fields[2 * n + k],
                   numbers[3 * k + 2] != 0])
        self.crossed += len(self.pending) - before

    def new_paths(self) -> list[bytes]:
        """The path keys of the new states this process owns (for a cut by --max-states)."""
        return sorted(entry[0] for entry in self.pending)

    def adopt(self, level: int, cut: bytes | None = None) -> int:
        """Make the new states (those before the cut, if any) states of the next level (`level + 1`): remembered,
        numbered here, checked where their screen failed. How many were left out by the cut."""
        entries = sorted(self.pending, key=itemgetter(0))  # by path key (each its own), in runs already sorted
        chosen = entries if cut is None else [entry for entry in entries if entry[0] < cut]
        left = len(entries) - len(chosen)
        decode, suspect, index, seen, exact = self.codec.decode, self._suspect, self.index, self.seen, self.exact
        for entry in entries[len(chosen):]:  # left out: not seen
            del index[entry[1] if not self.fingerprints else hash(entry[1])]
        self.frontier = frontier = []
        parent_home, parent_at, choice = self.parent_home, self.parent_at, self.choice
        for entry in chosen:
            path, key, home, parent, ordinal, state, before = entry
            if exact:
                entry.clear()  # seen: an empty entry
            elif self.fingerprints:
                seen.add(hash(key))
            else:
                seen.add(key, key)
            if type(state) is bytes:
                state = decode(state) if state else key
            number = len(choice)
            parent_home.append(home)
            parent_at.append(parent)
            choice.append(ordinal)
            frontier.append((path, state, number))
            if before if type(before) is bool else suspect(state, before):
                self._check_state(level + 1, path, number, state)
        if not exact:
            index.clear()
        self.owned += len(chosen)
        self.pending = []
        return left

    def summary(self) -> dict[str, Any]:
        """What the driver gathers at a barrier: counts so far, the first deadlock here, and the discoveries made
        since the last barrier (then forgotten here)."""
        out = {"transitions": self.transitions, "deadlocks": self.deadlocks, "deadlock": self.deadlock,
               "discoveries": self.discoveries, "frontier": len(self.frontier), "states": self.owned,
               "cpu": time.process_time(), "routed": self.routed, "sent": self.sent, "crossed": self.crossed}
        self.discoveries = []
        return out

    def chain(self, number: int) -> tuple[int, int, int]:
        """Where the state numbered here came from: its parent's home and number there, and its successor number
        (for an initial state, -1, -1 and its place among the initial states)."""
        return self.parent_home[number], self.parent_at[number], self.choice[number]

