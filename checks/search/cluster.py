"""Searches on a Ray cluster: batches of independent searches, and one search partitioned by state.

An optional extra (`pip install 'pausecheck[ray]'`); this module is the only importer of `ray`.
`connect()` joins the cluster named by its address or by `RAY_ADDRESS`, or starts a local instance.

- `ray_run_all` runs a batch (mutants, readings) as Ray tasks: the same function `parallel.run_all`
  runs in local processes, results in the order given.
- `ray_spread` runs one breadth-first search spread over Ray actors (`spread.py`, `partition.py`): the
  states partitioned by a few integers of each, batches passed from actor to actor through Ray's
  object store, level by level; the result is `explore`'s, traces included.
"""

from __future__ import annotations

import dataclasses
import logging
import os
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import ray
from pausecheck.model import Machine, property_named
from pausecheck.model.rules import RULES

from .explore import NO_LIMITS, _over, resident_bytes
from .partition import Partition
from .spread import spread

__all__ = ["connect", "ray_run_all", "ray_spread", "RayTeam"]

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
        # Ray's notice that a local instance has token authentication on (its default, kept) and its INFO lines
        # stay out of pausecheck's output; its warnings of anything else still show.
        logging.getLogger("ray._private.authentication.authentication_token_setup").setLevel(logging.ERROR)
        ray.init(num_cpus=cpus, include_dashboard=False, log_to_driver=False, logging_level=logging.WARNING)


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


class RayTeam:
    """The processes of a spread search (`spread.py`) as Ray actors: each actor a `Partition`; the batches one
    actor writes for another are objects of Ray's store, passed by reference, so they go from actor to actor
    (across machines, Ray's object transfer) and never through the driver. A small actor holds the stop flag
    (set by the driver on a limit or Ctrl-C, read by each worker every few thousand states) and the resident
    memory each worker reports with it, so that --max-memory is for the whole."""

    def __init__(self, model: Any, workers: int | None, fingerprints: bool, limits: Any,
                 address: str | None = None, compact: bool = False) -> None:
        connect(address)
        self.parts = workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
        self.limits = limits
        self.halt = _Halt.remote(self.parts)
        shared = ray.put(_portable(model))
        self.actors = [_Worker.remote(shared, me, self.parts, (fingerprints, compact), self.halt)
                       for me in range(self.parts)]
        self.batches: list[list[Any]] = []

    def call(self, command: str, args: Sequence[Any], deadline: float | None = None) -> tuple[list[Any], str | None]:
        """As `Processes.call`: every actor's answer, and the reason a stop was asked, if one was."""
        if command == "route":
            refs = [actor.route.options(num_returns=self.parts + 1).remote(*arg) for actor, arg in
                    zip(self.actors, args, strict=True)]
            self.batches = [r[1:] for r in refs]
            waiting = [r[0] for r in refs]
        elif command == "dedup":
            waiting = [actor.dedup.remote(k, *[sent[k] for sent in self.batches])
                       for k, actor in enumerate(self.actors)]
        else:
            waiting = [getattr(actor, command).remote(arg) for actor, arg in zip(self.actors, args, strict=True)]
        reason = None
        pending = list(waiting)
        while pending:
            try:
                _, pending = ray.wait(pending, num_returns=len(pending), timeout=0.2)
                if reason is None:
                    reason = _over(self.limits, deadline, lambda: resident_bytes() + ray.get(self.halt.memory.remote()))
                    if reason is not None:
                        self.halt.set.remote()
            except KeyboardInterrupt as stop:
                reason = getattr(stop, "reason", "interrupted")
                self.halt.set.remote()
        if command == "dedup":
            self.batches = []
        return ray.get(waiting), reason

    def close(self) -> None:
        for actor in self.actors:
            ray.kill(actor)
        ray.kill(self.halt)


@ray.remote(num_cpus=0)
class _Halt:
    """The stop flag of a spread search, and the resident memory each worker last reported."""

    def __init__(self, parts: int) -> None:
        self.stopped = False
        self.resident = [0] * parts

    def set(self) -> None:
        self.stopped = True

    def poll(self, me: int, resident: int) -> bool:
        self.resident[me] = resident
        return self.stopped

    def memory(self) -> int:
        return sum(self.resident)


@ray.remote
class _Worker:
    """One `Partition` of a spread search, on a Ray worker."""

    def __init__(self, model: Any, me: int, parts: int, store: tuple[bool, bool], halt: Any) -> None:
        self.part = Partition(_rebuilt(model), me, parts, *store)
        self.halt = halt
        self.polls = 0

    def _stop(self) -> bool:
        self.polls += 1  # asked every 256 states: the flag is read every 16th time
        return self.polls % 16 == 0 and ray.get(self.halt.poll.remote(self.part.me, resident_bytes()))

    def start(self, _: Any) -> dict[str, Any]:
        self.part.start()
        self.part.adopt(-1)
        return self.part.summary()

    def expand(self, arg: tuple[int, set[str]]) -> Any:
        level, found = arg
        self.part.forget(found)
        return self.part.expand(level, self._stop)[0]

    def route(self, level: int, owners: dict[Any, int]) -> list[Any]:
        return [level, *self.part.route(owners)]

    def dedup(self, me: int, *batches: bytes) -> int:
        for finder, batch in enumerate(batches):
            if finder != me:
                self.part.dedup(finder, batch)
        return len(self.part.pending)

    def paths(self, _: Any) -> list[bytes]:
        return self.part.new_paths()

    def adopt(self, arg: tuple[int, bytes | None]) -> tuple[int, dict[str, Any]]:
        left = self.part.adopt(*arg)
        return left, self.part.summary()

    def chain(self, numbers: list[int]) -> list[tuple[int, int, int]]:
        return [self.part.chain(number) for number in numbers]


def _portable(model: Any) -> Any:
    """What travels to the actors for the model: a Machine with the rules and properties of the registry as
    their names (their checks are closures and the rules hold lambdas, which do not travel by value: the
    actors import them); anything else as it is (Ray's pickling by value)."""
    if isinstance(model, Machine) and model.rules is RULES and all(
            property_named(p.name) is p for p in model.properties):
        return ("machine", dataclasses.replace(model, rules=(), properties=()), tuple(p.name for p in model.properties))
    return ("as is", model, ())


def _rebuilt(portable: tuple[str, Any, tuple[str, ...]]) -> Any:
    kind, model, names = portable
    if kind == "machine":
        return dataclasses.replace(model, rules=RULES, properties=tuple(property_named(n) for n in names))
    return model


def ray_spread(model: Any, workers: int | None = None, address: str | None = None, **options: Any) -> Any:
    """`spread.spread` on Ray actors: `workers` of them (default: one per CPU of the cluster), on the cluster at
    `address` (or `RAY_ADDRESS`; a local instance without either). The result is `explore`'s."""
    team = RayTeam(model, workers, options.get("fingerprints", False), options.get("limits", NO_LIMITS), address,
                   options.get("compact", False))
    return spread(model, team.parts, transport=team, **options)
