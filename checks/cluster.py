"""Searches on a Ray cluster: batches of independent searches, and one search partitioned by state.

An optional extra (`pip install 'pausecheck[ray]'`); this module is the only importer of `ray`.
`connect()` joins the cluster named by its address or by `RAY_ADDRESS`, or starts a local instance.

- `ray_run_all` runs a batch (mutants, readings) as Ray tasks: the same function `parallel.run_all`
  runs in local processes, results in the order given.
- `partitioned_search` splits one breadth-first search across Ray actors. Each actor owns the states
  whose fingerprint (CRC-32 of the state's repr, the same in every process) falls in its partition:
  it remembers them, checks the `always` properties on each new one, expands its share of each level
  and checks the transition and `sometimes` properties on each step. The driver routes every
  successor to its owner, level by level, so depths are breadth-first depths. It returns counts
  and verdicts (which properties are violated or witnessed, at which depth, how many deadlocks),
  not traces: the local search gives the shortest trace of anything it reports.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import ray
from pausecheck.model import Bounds, Machine, reading_named
from pausecheck.model.properties import ALWAYS, SOMETIMES, TRANSITION

__all__ = ["connect", "ray_run_all", "partitioned_search", "Partitioned"]

T = TypeVar("T")
R = TypeVar("R")


def connect(address: str | None = None, cpus: int | None = None) -> None:
    """Join the Ray cluster at `address` (or `RAY_ADDRESS`); with neither, start a local instance."""
    if ray.is_initialized():
        return
    address = address or os.environ.get("RAY_ADDRESS")
    if address:
        ray.init(address=address, log_to_driver=False)
    else:
        ray.init(num_cpus=cpus, include_dashboard=False, log_to_driver=False)


def ray_run_all(work: Callable[..., R], items: Sequence[T], args: tuple[Any, ...] = (),
                done: Callable[[T, R], Any] | None = None) -> list[R]:
    """`work(item, *args)` for each item as a Ray task; results in item order."""
    connect()
    remote = ray.remote(work)
    refs = [remote.remote(item, *args) for item in items]
    results = []
    for item, ref in zip(items, refs, strict=True):
        results.append(ray.get(ref))
        if done is not None:
            done(item, results[-1])
    return results


def fingerprint(state: Any) -> int:
    """The same number for the same state in every process (Python's own hash of a str is salted)."""
    return zlib.crc32(repr(state).encode())


@dataclass(frozen=True, slots=True)
class Partitioned:
    """What a partitioned search established: counts and verdicts, with the depth each was first seen."""

    states: int
    transitions: int
    depth: int
    violated: dict[str, int]  # property -> depth of the step (or state) that shows it
    witnessed: dict[str, int]
    deadlocks: int
    partitions: int


@ray.remote
class _Part:
    """One partition's states, and the checks on them and on the steps from them."""

    def __init__(self, bounds: Bounds, reading: str, parts: int, me: int) -> None:
        self.machine = Machine(bounds, reading_named(reading))
        self.ctx = self.machine.context()
        self.parts, self.me = parts, me
        self.seen: set[Any] = set()
        self.frontier: list[Any] = []
        self.transitions, self.deadlocks = 0, 0
        self.violated: dict[str, int] = {}
        self.witnessed: dict[str, int] = {}

    def admit(self, states: list[Any], depth: int) -> int:
        """Keep the states not seen before as the next frontier; check `always` properties on them."""
        for state in states:
            if state not in self.seen:
                self.seen.add(state)
                self.frontier.append(state)
                for p in self.machine.properties:
                    if p.kind == ALWAYS and p.name not in self.violated and p.check(state, self.ctx) is not None:
                        self.violated[p.name] = depth
        return len(self.frontier)

    def expand(self, depth: int) -> list[list[Any]]:
        """Expand the frontier: its successors bucketed by owning partition; steps checked here."""
        buckets: list[list[Any]] = [[] for _ in range(self.parts)]
        for state in self.frontier:
            moved = False
            for action, post in self.machine.successors(state):
                self.transitions += 1
                for p in self.machine.properties:
                    if p.kind == ALWAYS or (p.on and type(action) not in p.on):
                        continue
                    outcome = p.check(state, action, post, self.ctx)
                    if p.kind == TRANSITION and outcome is not None:
                        self.violated.setdefault(p.name, depth + 1)
                    elif p.kind == SOMETIMES and outcome:
                        self.witnessed.setdefault(p.name, depth + 1)
                if post != state:
                    moved = True
                    buckets[fingerprint(post) % self.parts].append(post)
            if not moved and not self.machine.is_final(state):
                self.deadlocks += 1
        self.frontier = []
        return buckets

    def totals(self) -> tuple[int, int, int, dict[str, int], dict[str, int]]:
        return len(self.seen), self.transitions, self.deadlocks, self.violated, self.witnessed


def partitioned_search(bounds: Bounds, reading: str = "conformant", parts: int = 2) -> Partitioned:
    """One exhaustive breadth-first search of the machine at `bounds`, its states split across `parts` actors."""
    connect()
    actors = [_Part.remote(bounds, reading, parts, k) for k in range(parts)]
    initial = Machine(bounds).init_states()
    incoming: list[list[Any]] = [[] for _ in range(parts)]
    for state in initial:
        incoming[fingerprint(state) % parts].append(state)
    depth = 0
    while sum(ray.get([actor.admit.remote(incoming[k], depth) for k, actor in enumerate(actors)])):
        buckets = ray.get([actor.expand.remote(depth) for actor in actors])
        incoming = [[s for sent in buckets for s in sent[k]] for k in range(parts)]
        depth += 1
    totals = ray.get([actor.totals.remote() for actor in actors])
    violated: dict[str, int] = {}
    witnessed: dict[str, int] = {}
    for _, _, _, v, w in totals:
        for name, d in v.items():
            violated[name] = min(d, violated.get(name, d))
        for name, d in w.items():
            witnessed[name] = min(d, witnessed.get(name, d))
    for actor in actors:
        ray.kill(actor)
    return Partitioned(states=sum(t[0] for t in totals), transitions=sum(t[1] for t in totals), depth=depth - 1,
                       violated=violated, witnessed=witnessed, deadlocks=sum(t[2] for t in totals), partitions=parts)
