"""One breadth-first search spread over processes: `spread(model, workers=N)` returns what `explore` returns.

The states are partitioned by a few integers of each (`partition.py`); the driver only runs the levels: for
each, every process expands its states and counts the successors it found in groups that have no owner yet,
the driver names their owners (`partition.share`: where they were found, within an even share of the level),
every process writes a batch of successors (bytes) for each other process, then each process takes the
batches written to it, then numbers and checks its new states. Batches go from process to process (here,
files in a folder in memory; on Ray, objects of its store: `cluster.py`); what the driver receives at a
barrier is counts, the new groups and the discoveries made, a few kilobytes.

Every figure equals one process's: states, transitions, depth, deadlocks; and every discovery is the one its
breadth-first search makes first, with the same trace, rebuilt by asking each state's owner for its parent
and replaying the successor numbers from the initial state (path keys, `partition.py`). The violations and
witnesses are listed in the order that search finds them.

Limits hold for the whole: `--max-seconds` from the command's start, `--max-memory` the resident memory of the
driver and every process together (looked at while the driver waits); a stop, Ctrl-C or a limit, ends the level
under way, and the result is incomplete as one process's would be. `max_states` keeps the states one process
would have stored (the first of the level that fills it, in its order).
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import shutil
import signal
import tempfile
import time
from collections.abc import Sequence
from multiprocessing.connection import Connection, wait
from types import MappingProxyType
from typing import Any

from .checkpoint import Checkpoint
from .explore import NO_LIMITS, Discovery, Limits, Progress, Result, _over, resident_bytes
from .levels import DRIVER, load_driver, load_part, part_path, save_driver, save_part
from .parallel import worker_started
from .partition import Partition, share
from .restore import STUCK
from .spreadcheck import check_links

__all__ = ["spread", "Processes", "SpreadError"]

TICK = 0.2  # seconds between looks at the limits while the processes work
SAMPLES = 8  # states of each process's next level a resume replays from the initial state (`spreadcheck.py`)


class SpreadError(RuntimeError):
    """A worker process failed (its error, or that it ended): the search cannot go on."""


class Processes:
    """Worker processes on this machine, forked from this one (so the model need not travel), batches as files
    in a folder in memory (/dev/shm where there is one)."""

    def __init__(self, model: Any, workers: int, fingerprints: bool, limits: Limits, compact: bool = False) -> None:
        context = multiprocessing.get_context("fork")
        self.parts = workers
        self.limits = limits
        memory = "/dev/shm" if os.path.isdir("/dev/shm") else None
        self.folder = tempfile.mkdtemp(prefix="pausecheck-spread-", dir=memory)
        self.halt = context.Event()
        self.conns: list[Connection] = []
        self.procs: list[Any] = []
        for me in range(workers):
            here, there = context.Pipe()
            proc = context.Process(target=_serve, daemon=True, name=f"pausecheck-worker-{me}",
                                   args=(there, model, me, workers, (fingerprints, compact), self.halt, self.folder))
            proc.start()
            there.close()
            self.conns.append(here)
            self.procs.append(proc)

    def call(self, command: str, args: Sequence[Any], deadline: float | None = None) -> tuple[list[Any], str | None]:
        """Send each process its command (with its arguments) and wait for every answer, looking at the limits
        meanwhile: the answers, and the reason a stop was asked (a limit, an interrupt), if one was."""
        for conn, arg in zip(self.conns, args, strict=True):
            conn.send((command, arg))
        answers: dict[int, Any] = {}
        reason = None
        while len(answers) < self.parts:
            try:
                ready = wait([c for k, c in enumerate(self.conns) if k not in answers], TICK)
                for conn in ready:
                    k = self.conns.index(conn)
                    try:
                        kind, value = conn.recv()
                    except EOFError:
                        code = self.procs[k].exitcode
                        raise SpreadError(f"worker {k} ended unexpectedly (exit code {code})") from None
                    if kind == "error":
                        raise SpreadError(f"worker {k}: {value}") if isinstance(value, str) else value
                    answers[k] = value
                if reason is None:
                    reason = _over(self.limits, deadline, self.resident)
                    if reason is not None:
                        self.halt.set()
            except KeyboardInterrupt as stop:  # Ctrl-C, SIGTERM or a limit of the command: the workers stop too
                reason = getattr(stop, "reason", "interrupted")
                self.halt.set()
        return [answers[k] for k in range(self.parts)], reason

    def resident(self) -> int:
        """The resident memory of the driver and every worker."""
        total = resident_bytes()
        for proc in self.procs:
            try:
                with open(f"/proc/{proc.pid}/statm", "rb") as statm:
                    total += int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
            except (OSError, ValueError, IndexError):
                pass
        return total

    def close(self) -> None:
        for conn in self.conns:
            try:
                conn.send(("quit", None))
            except OSError:
                pass
        for proc in self.procs:
            proc.join(timeout=5)
            if proc.is_alive():
                proc.kill()
        shutil.rmtree(self.folder, ignore_errors=True)


def _serve(conn: Connection, model: Any, me: int, parts: int, store: tuple[bool, bool], halt: Any, folder: str) -> None:
    """A worker: one `Partition` (keeping fingerprints or compact states, as `store` says), run by the driver's
    commands until "quit"."""
    worker_started()  # the driver is interrupted, and stops the workers itself; a worker ends with the driver
    signal.signal(signal.SIGALRM, signal.SIG_IGN)
    part = Partition(model, me, parts, *store)
    while True:
        command, arg = conn.recv()
        if command == "quit":
            return
        try:
            conn.send(("ok", _run(part, command, arg, halt, folder)))
        except Exception as error:  # sent to the driver, which raises it
            try:
                conn.send(("error", error))
            except Exception:  # noqa: BLE001 - an error that does not pickle goes as its text
                conn.send(("error", f"{type(error).__name__}: {error}"))


def _run(part: Partition, command: str, arg: Any, halt: Any, folder: str) -> Any:
    if command == "start":
        part.start()
        part.adopt(-1)
        return part.summary()
    if command == "expand":
        level, found = arg
        part.forget(found)
        return part.expand(level, halt.is_set)[0]
    if command == "route":
        level, owners = arg
        for k, batch in enumerate(part.route(owners)):
            if batch:
                with open(os.path.join(folder, f"{level}.{part.me}.{k}"), "wb") as out:
                    out.write(batch)
        return None
    if command == "dedup":
        for k in range(part.parts):
            name = os.path.join(folder, f"{arg}.{k}.{part.me}")
            if k != part.me and os.path.exists(name):
                with open(name, "rb") as batch:
                    part.dedup(k, batch.read())
                os.unlink(name)
        return len(part.pending)
    if command == "summary":
        return part.summary()
    if command == "paths":
        return part.new_paths()
    if command == "adopt":
        level, cut = arg
        left = part.adopt(level, cut)
        return left, part.summary()
    if command == "chain":
        return [part.chain(number) for number in arg]
    if command == "save":
        return save_part(part, arg)
    if command == "load":
        load_part(part, *arg)
        frontier = part.frontier  # a few of its states, first and last among them, replayed by the driver
        chosen = sorted({k * (len(frontier) - 1) // (SAMPLES - 1) for k in range(SAMPLES)}) if frontier else []
        samples = [(frontier[k][2], frontier[k][1], frontier[k][0]) for k in chosen]
        owners = hashlib.sha256(repr(sorted(part.owners.items())).encode()).hexdigest()
        return part.summary(), samples, sorted(part.found), owners
    raise ValueError(f"unknown command {command!r}")


def spread(model: Any, workers: int = 2, limits: Limits = NO_LIMITS, progress: Progress | None = None,
           fingerprints: bool = False, compact: bool = False, transport: Any = None,
           checkpoint: Checkpoint | None = None, resume: bool = False) -> Result:
    """Breadth-first search of `model` over `workers` processes (or the `transport` given: `cluster.py`); the
    result is `explore`'s, figure for figure and trace for trace. Every worker keeps the states it owns as one
    process would: the states themselves, or with `fingerprints` 64-bit hashes of them, or with `compact` packed
    (`compact.py`). With `checkpoint`, the search is saved between two levels every `checkpoint.every` seconds
    (`levels.py`); with `resume` too, it starts where the checkpoint was saved, and ends as a search never
    stopped would, but for its seconds: this run's."""
    started = time.perf_counter()
    deadline = None if limits.max_seconds is None else started + limits.max_seconds
    team = transport if transport is not None else Processes(model, workers, fingerprints, limits, compact)
    try:
        return _Driver(model, team, limits, deadline, progress, started).run(fingerprints, compact, checkpoint, resume)
    finally:
        team.close()


class _Driver:
    """The levels of one spread search, and the gathering of what the workers found."""

    def __init__(self, model: Any, team: Any, limits: Limits, deadline: float | None, progress: Progress | None,
                 started: float) -> None:
        self.model, self.team, self.limits, self.deadline = model, team, limits, deadline
        self.progress, self.started = progress, started
        self.best: dict[str, tuple[Any, ...]] = {}  # property -> the first discovery of it
        self.summaries: list[dict[str, Any]] = []
        self.stopped: str | None = None
        self.critical = 0.0  # CPU seconds: the sum over the levels of the slowest worker's
        self.crowded = 0  # states: the sum over the levels of the new states of the worker with the most

    def call(self, command: str, args: Sequence[Any]) -> list[Any]:
        answers, reason = self.team.call(command, args, self.deadline)
        if reason is not None and self.stopped is None:
            self.stopped = reason
        return answers

    def gather(self, summaries: list[dict[str, Any]]) -> None:
        if self.summaries:  # the CPU of the slowest worker in this level: the levels wait for it
            self.critical += max(s["cpu"] - t["cpu"] for s, t in zip(summaries, self.summaries, strict=True))
        self.crowded += max(s["states"] - (t["states"] if self.summaries else 0)
                            for s, t in zip(summaries, self.summaries or summaries, strict=True))
        self.summaries = summaries
        for home, summary in enumerate(summaries):
            for found in summary["discoveries"]:
                name = found[5]
                if name not in self.best or found[:4] < self.best[name][:4]:
                    self.best[name] = (*found, home)

    def run(self, fingerprints: bool, compact: bool, checkpoint: Checkpoint | None = None,
            resume: bool = False) -> Result:
        parts, limits = self.team.parts, self.limits
        level = depth = generation = 0
        if checkpoint is not None and resume:
            generation, loop, files = load_driver(checkpoint, parts, fingerprints,
                                                  {p.name for p in self.model.properties})
            level, depth, self.critical, self.crowded = loop["level"], loop["depth"], loop["critical"], loop["crowded"]
            answers = self.call("load", [(*file, level) for file in files])
            self.summaries = [answer[0] for answer in answers]  # this run's CPU from here: not the levels before
            self.best = {name: tuple(found) for name, found in loop["best"].items()}
            samples, found_by, owners = ([answer[k] for answer in answers] for k in (1, 2, 3))
            check_links(checkpoint.folder / DRIVER, self.model, level, self.best, self.summaries, samples, found_by,
                        owners, self.ordinals, self.replay)
            if self.progress is not None:
                self.progress(self.states, self.transitions, depth)
        else:
            self.gather(self.call("start", [None] * parts))
        next_save = None if checkpoint is None else time.perf_counter() + checkpoint.every
        complete = True
        while sum(s["frontier"] for s in self.summaries) and self.stopped in (None, "max-states"):
            if limits.max_depth is not None and level >= limits.max_depth:
                depth, complete, self.stopped = level, False, "max-depth"
                break
            depth = level
            owners = share(self.call("expand", [(level, set(self.best))] * parts))
            if not self.halted():
                self.call("route", [(level, owners)] * parts)
            if not self.halted():
                pending = sum(self.call("dedup", [level] * parts))
            if self.halted():  # a limit or Ctrl-C cut the level short: what it found, not its new states (storing
                self.gather(self.call("summary", [None] * parts))  # them takes seconds at a level of millions,
                break  # longer than the watchdog waits for the report)
            cut = self.cut(pending)
            answers = self.call("adopt", [(level, cut)] * parts)
            if any(left for left, _ in answers):
                complete = False
                self.stopped = self.stopped or "max-states"
            self.gather([summary for _, summary in answers])
            if self.progress is not None:
                self.progress(self.states, self.transitions, depth)
            level += 1
            if next_save is not None and self.stopped is None and time.perf_counter() >= next_save:
                assert checkpoint is not None
                generation += 1
                checkpoint.folder.mkdir(parents=True, exist_ok=True)
                files = self.call("save", [part_path(checkpoint, generation, k) for k in range(parts)])
                save_driver(checkpoint, parts, generation, {"level": level, "depth": depth, "best": self.best,
                                                            "critical": self.critical, "crowded": self.crowded}, files)
                next_save = time.perf_counter() + checkpoint.every
        if self.halted():
            complete = False
        self.team.usage = {"cpu": [s["cpu"] for s in self.summaries], "levels_cpu": self.critical,  # for benchmarks
                           "levels_states": self.crowded,
                           "routed": sum(s["routed"] for s in self.summaries),
                           "sent": sum(s["sent"] for s in self.summaries),
                           "crossed": sum(s["crossed"] for s in self.summaries)}
        return self.result(complete, depth, fingerprints, compact)

    def halted(self) -> bool:
        """A limit of time or memory, or Ctrl-C, stopped the search (--max-states ends its level first)."""
        return self.stopped not in (None, "max-states")

    @property
    def states(self) -> int:
        return sum(s["states"] for s in self.summaries)

    @property
    def transitions(self) -> int:
        return sum(s["transitions"] for s in self.summaries)

    def cut(self, pending: int) -> bytes | None:
        """With --max-states, the path key of the first new state one process would not have stored, if any."""
        if self.limits.max_states is None:
            return None
        room = self.limits.max_states - self.states
        if pending <= room:
            return None
        if room <= 0:
            return b""
        paths = sorted(p for ps in self.call("paths", [None] * self.team.parts) for p in ps)
        return paths[room]

    def result(self, complete: bool, depth: int, fingerprints: bool, compact: bool) -> Result:
        chosen = sorted(self.best.values(), key=lambda found: found[:4])
        violations: dict[str, Discovery] = {}
        witnesses: dict[str, Discovery] = {}
        for found in chosen:
            _, _, _, _, kind, name, number, ordinal, message, home = found
            path = self.path(home, number, None if ordinal < 0 else ordinal, message)
            (violations if kind == "violation" else witnesses)[name] = path
        firsts = [(s["deadlock"], home) for home, s in enumerate(self.summaries) if s["deadlock"] is not None]
        deadlock = None
        if firsts:
            (_, _, number), home = min(firsts, key=lambda first: first[0][:2])
            deadlock = self.path(home, number, None, STUCK)
        return Result(complete=complete, states=self.states, transitions=self.transitions, depth=depth,
                      seconds=time.perf_counter() - self.started, violations=MappingProxyType(violations),
                      witnesses=MappingProxyType(witnesses), deadlocks=sum(s["deadlocks"] for s in self.summaries),
                      deadlock=deadlock, stopped=self.stopped, fingerprints=fingerprints, compact=compact)

    def path(self, home: int, number: int, extra: int | None, message: str | None) -> Discovery:
        """The path to a state (and on by its successor `extra`), from its owners' parent links, replayed."""
        states, actions = self.replay(self.ordinals(home, number, extra))
        return Discovery(states, actions, message)

    def ordinals(self, home: int, number: int, extra: int | None, hops: int | None = None) -> list[int]:
        """The successor numbers from an initial state to a state (and on by `extra`), read from its owners'
        parent links (at most `hops` of them, else ValueError)."""
        ordinals = [] if extra is None else [extra]
        while True:
            answers, _ = self.team.call("chain", [[number] if k == home else [] for k in range(self.team.parts)])
            parent_home, parent, choice = answers[home][0]
            ordinals.append(choice)
            if parent_home < 0:
                break
            if hops is not None and len(ordinals) > hops:
                raise ValueError(f"more than {hops} parent links from a state of that level")
            home, number = parent_home, parent
        ordinals.reverse()
        return ordinals

    def replay(self, ordinals: list[int]) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
        """The states and actions of a path of successor numbers."""
        states = [list(self.model.init_states())[ordinals[0]]]
        actions = []
        for ordinal in ordinals[1:]:
            action, post = list(self.model.successors(states[-1]))[ordinal]
            actions.append(action)
            states.append(post)
        return tuple(states), tuple(actions)
