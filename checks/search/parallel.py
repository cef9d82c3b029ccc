"""Independent searches on every local core: one process per search, results in the order given.

Mutants, readings and engine comparisons are batches of searches that share nothing; each runs in
a worker process (by default a fresh one per search, so that one search's memory is returned before
the next starts). `run_all` is the one place that fans such a batch out.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any, TypeVar

__all__ = ["workers", "run_all"]

T = TypeVar("T")
R = TypeVar("R")


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

    `work` and the items must pickle (a module-level function; names rather than closures). Items
    start in the order of `key` if given (the longest first, so that none is left alone at the end);
    `done(item, result)` is called in the parent as each one finishes. With one job, or one item,
    everything runs here, in order. `fresh`: each item in a new process (its memory returned at once);
    otherwise the workers are reused, and what a worker caches serves its later items.
    """
    jobs = min(jobs or workers(), len(items))  # a pool larger than the batch would only fork idle processes
    if jobs <= 1 or len(items) <= 1:
        results = []
        for item in items:
            results.append(work(item, *args))
            if done is not None:
                done(item, results[-1])
        return results
    order = sorted(range(len(items)), key=lambda i: key(items[i])) if key is not None else range(len(items))
    out: dict[int, R] = {}
    with ProcessPoolExecutor(max_workers=jobs, max_tasks_per_child=1 if fresh else None) as pool:
        futures = {pool.submit(work, items[i], *args): i for i in order}
        try:
            for future in as_completed(futures):
                i = futures[future]
                out[i] = future.result()
                if done is not None:
                    done(items[i], out[i])
        except BaseException:  # Ctrl-C, a limit or a failed search: do not wait for the rest
            _stop_workers(pool)
            raise
    return [out[i] for i in range(len(items))]


def _stop_workers(pool: ProcessPoolExecutor) -> None:
    """End the searches still running: leaving the `with` would otherwise wait for each to finish."""
    # No public way reaches them; SIGKILL, since a forked worker inherits the command line's SIGTERM handler,
    # which would only end its current search, not the worker. The pool then finds itself broken and fails
    # every future not done; none is cancelled first, since Python 3.11's pool then raises InvalidStateError
    # in its own thread when it fails a cancelled one (a traceback on stderr).
    processes = list((getattr(pool, "_processes", None) or {}).values())
    for process in processes:
        try:
            process.kill()
        except (OSError, AttributeError):
            pass
    for process in processes:  # gone before the pool is shut: its manager thread then finds it broken and ends,
        process.join()         # where shutting first left that thread reading the pool's cleared process table
    pool.shutdown(wait=True)
