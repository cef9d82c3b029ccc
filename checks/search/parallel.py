"""Independent searches on every local core: one process per search, results in the order given.

Mutants, readings and engine comparisons are batches of searches that share nothing; each runs in
a worker process (by default a fresh one per search, so that one search's memory is returned before
the next starts). `run_all` fans such a batch out and returns every result; `ordered` gives them one by one
in the batch's order as they come in (z3's queries of a proof, the clauses of `consistency`), and stops the
rest when its reader stops early.

The workers are forked from this process and driven over pipes by this process alone: no pool thread runs
beside the command, so however the batch ends (every result in, a failed search, a limit, Ctrl-C, SIGTERM),
every worker is killed and reaped before `run_all` (or `ordered`) returns or raises, and nothing is left to
print after the command's last line.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
from collections.abc import Callable, Iterator, Sequence
from multiprocessing.connection import Connection, wait
from typing import Any, TypeVar

__all__ = ["workers", "run_all", "ordered", "in_order", "WorkerLost", "worker_started"]

_PR_SET_PDEATHSIG = 1  # Linux prctl(2): the signal a process gets when its parent ends

T = TypeVar("T")
R = TypeVar("R")


class WorkerLost(RuntimeError):
    """A worker process ended without sending its result (killed by the system, or its own code exited)."""


def workers() -> int:
    """How many searches run at once by default: the cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def run_all(work: Callable[..., R], items: Sequence[T], *, jobs: int | None = None, args: tuple[Any, ...] = (),
            key: Callable[[T], Any] | None = None, done: Callable[[T, R], Any] | None = None,
            fresh: bool = True) -> list[R]:
    """`work(item, *args)` for each item, `jobs` at once (default: every core), results in item order.

    The workers are forked, so `work`, its arguments and the items need not pickle; the results (and an
    error a search raises, which is raised here) must. Items start in the order of `key` if given (the
    longest first, so that none is left alone at the end); `done(item, result)` is called here as each one
    finishes. With one job, or one item, everything runs here, in order. `fresh`: each item in a new process
    (its memory returned at once); otherwise the workers are reused, and what a worker caches serves its
    later items.
    """
    jobs = min(jobs or workers(), len(items))  # a pool larger than the batch would only fork idle processes
    if jobs <= 1 or len(items) <= 1:
        results = []
        for item in items:
            results.append(work(item, *args))
            if done is not None:
                done(item, results[-1])
        return results
    order = sorted(range(len(items)), key=lambda i: key(items[i])) if key is not None else list(range(len(items)))
    pool = _Pool(work, items, args, fresh)
    out: dict[int, R] = {}
    try:
        queue = iter(order)
        for _ in range(jobs):
            pool.give(None, next(queue))
        while len(out) < len(items):
            for conn in wait(list(pool.busy)):
                i, result = pool.take(conn)
                out[i] = result
                if done is not None:
                    done(items[i], result)
                pool.give(conn, next(queue, None))
    finally:  # every result in, a failed search, a limit, Ctrl-C: no worker outlives the batch
        pool.stop()
    return [out[i] for i in range(len(items))]


def ordered(work: Callable[..., R], items: Sequence[T], *, jobs: int | None = None, args: tuple[Any, ...] = (),
            fresh: bool = True) -> Iterator[tuple[T, R]]:
    """Each item with `work(item, *args)`, in item order, each given as soon as it and those before it are done,
    `jobs` at once (default: every core): a worker that is done takes the next item, not waiting on a slower one.
    `fresh`: each item in a process forked for it from this one as it is, so that its result cannot depend on
    what a worker ran before. Left part way (closed, or an error), every worker is killed and reaped. With one
    job, or one item, everything runs here."""
    jobs = min(jobs or workers(), len(items))
    if jobs <= 1:
        for item in items:
            yield item, work(item, *args)
        return
    pool = _Pool(work, items, args, fresh)
    out: dict[int, R] = {}
    queue = iter(range(len(items)))
    try:
        for _ in range(jobs):
            pool.give(None, next(queue))
        for told in range(len(items)):
            while told not in out:
                for conn in wait(list(pool.busy)):
                    i, result = pool.take(conn)
                    out[i] = result
                    pool.give(conn, next(queue, None))
            yield items[told], out.pop(told)
    finally:
        pool.stop()


def in_order(work: Callable[..., R], items: Sequence[T], *, jobs: int | None = None, args: tuple[Any, ...] = (),
             fresh: bool = True, done: Callable[[R], Any] | None = None) -> list[R]:
    """Every result, as `ordered` gives them; `done(result)` is told of each in item order, as soon as it and
    those before it are done (so that what is printed of them does not depend on which worker ended first)."""
    results = []
    for _, result in ordered(work, items, jobs=jobs, args=args, fresh=fresh):
        results.append(result)
        if done is not None:
            done(result)
    return results


class _Pool:
    """Forked workers, each with a pipe; `busy` maps a pipe to its worker and the item it works on."""

    def __init__(self, work: Callable[..., Any], items: Sequence[Any], args: tuple[Any, ...], fresh: bool) -> None:
        self.work, self.items, self.args, self.fresh = work, items, args, fresh
        self.context = multiprocessing.get_context("fork")
        self.busy: dict[Connection, tuple[Any, int]] = {}

    def give(self, conn: Connection | None, i: int | None) -> None:
        """Hand item `i` to the worker on `conn` (a reused one), or to a new worker; None: no item left."""
        process = None if conn is None else self.busy.pop(conn)[0]
        if conn is not None and (self.fresh or i is None):
            self._end(conn, process)
            conn = None
        if i is None:
            return
        if conn is None:
            conn, theirs = self.context.Pipe()
            process = self.context.Process(target=_serve, args=(theirs, self.work, self.items, self.args),
                                           daemon=True, name="pausecheck-search")
            process.start()
            theirs.close()
        conn.send(i)
        self.busy[conn] = (process, i)

    def take(self, conn: Connection) -> tuple[int, Any]:
        """The result the worker on `conn` sent (its item's index), or the error its search raised."""
        process, i = self.busy[conn]
        try:
            kind, payload = conn.recv()
        except (EOFError, OSError):
            process.join(1)
            raise WorkerLost(f"a search process ended without its result (exit code {process.exitcode})") from None
        except Exception as error:  # noqa: BLE001 - an error class that cannot be rebuilt here from its pickle
            raise WorkerLost(f"a search's result could not be read back: {type(error).__name__}: {error}") from None
        if kind == "error":
            raise payload
        return i, payload

    def _end(self, conn: Connection, process: Any) -> None:
        try:
            conn.send(None)  # a reused worker: no more items
        except OSError:
            pass
        conn.close()
        process.join(5)
        if process.is_alive():
            process.kill()
            process.join()

    def stop(self) -> None:
        """Kill every worker still at work and reap it."""
        for conn, (process, _) in self.busy.items():
            try:
                process.kill()
            except (OSError, AttributeError):
                pass
            process.join()
            conn.close()
        self.busy.clear()


def worker_started() -> None:
    """First thing in a forked worker. Ctrl-C is the parent's to handle (it stops its workers); the command line's
    SIGTERM handler, inherited with the fork, is not this process's. And the worker ends with its parent, however
    the parent ends (a limit's hard stop by `os._exit`, SIGKILL): left alone, a worker waiting on its pipe would
    wait for ever, since the workers forked after it hold the pipe's other end open (Linux; elsewhere only the
    pipe's end tells). Linux counts the thread that forked as the parent: a pool lives in the thread that made
    it, as every pool here does."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        return
    parent = multiprocessing.parent_process()
    if parent is not None and os.getppid() != parent.pid:  # the parent ended before the request took
        os._exit(1)


def _serve(conn: Connection, work: Callable[..., Any], items: Sequence[Any], args: tuple[Any, ...]) -> None:
    """A worker: run each item it is sent, send back its result (or its error), until told to stop."""
    worker_started()
    while True:
        try:
            i = conn.recv()
        except (EOFError, OSError):
            return
        if i is None:
            return
        try:
            message: tuple[str, Any] = ("ok", work(items[i], *args))
        except BaseException as error:  # noqa: BLE001 - sent to the parent, which raises it there
            message = ("error", error)
        try:
            conn.send(message)
        except Exception as error:  # noqa: BLE001 - a result or an error that does not pickle
            conn.send(("error", RuntimeError(f"{type(error).__name__}: {error} (sending {message[0]})")))
