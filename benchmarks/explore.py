"""Benchmark the explorer: states, transitions, depth, time, throughput and memory per state.

    python benchmarks/explore.py            # the default bounds (about 15 s)
    python benchmarks/explore.py --large    # and a larger bound set (about three minutes)

Each bound set is explored twice. The first run is timed and nothing else. The second run measures
memory with `tracemalloc`: its peak is the most the search's Python objects occupied at once
(every stored state, the index dict, parents, the frontier and the result), allocated after
tracing started, so neither the interpreter nor the first run counts. We divide it by the number
of distinct states. `resource.getrusage().ru_maxrss` was the alternative: it costs nothing, but it
is the process's high-water mark since start-up and cannot be reset, so every measurement would
need a fresh process (the timed run would already have set the mark), and it counts the
interpreter, imported modules and allocator slack as well. tracemalloc makes the search three to
four times slower, hence a separate run whose time is not reported.

Times depend on the machine; the tests assert none of them.
"""

from __future__ import annotations

import argparse
import gc
import platform
import time
import tracemalloc

from pausecheck.checks.explore import explore
from pausecheck.model import DEFAULT_BOUNDS, Bounds, Machine

# About 9 times the default state space (1,084,177 states), 28 s where this was written. Raising
# the held-list bound would not do: it moves artifacts between held and dropped without changing
# the number of states.
LARGE = DEFAULT_BOUNDS.replace(artifacts=5, per_call=3, write_failures=2, observations=2)
COLUMNS = ("bounds", "states", "transitions", "depth", "seconds", "states/s", "peak B/state")


def changed(bounds: Bounds) -> str:
    """The bounds that differ from the defaults, as CLI flags."""
    flags = [f"--{k.replace('_', '-')} {v}" for k, v in bounds.as_dict().items() if getattr(DEFAULT_BOUNDS, k) != v]
    return " ".join(flags) or "(defaults)"


def measure(name: str, bounds: Bounds) -> tuple[str, ...]:
    """One table row: a timed run, then a traced run for memory."""
    machine = Machine(bounds)
    gc.collect()
    started = time.perf_counter()
    result = explore(machine)
    seconds = time.perf_counter() - started
    if not result.complete or result.violations:
        raise SystemExit(f"{name}: the search was incomplete or found a violation; not a benchmark")
    del result  # free the first run's states before the traced run
    gc.collect()
    tracemalloc.start()
    traced = explore(machine)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return (
        name,
        f"{traced.states:,}",
        f"{traced.transitions:,}",
        str(traced.depth),
        f"{seconds:.2f}",
        f"{traced.states / seconds:,.0f}",
        f"{peak / traced.states:,.0f}",
    )


def table(rows: list[tuple[str, ...]]) -> str:
    """Aligned columns: names left, numbers right."""
    widths = [max(len(row[i]) for row in [COLUMNS, *rows]) for i in range(len(COLUMNS))]

    def line(row: tuple[str, ...]) -> str:
        cells = [row[0].ljust(widths[0])] + [cell.rjust(w) for cell, w in zip(row[1:], widths[1:], strict=True)]
        return "  ".join(cells)

    return "\n".join([line(COLUMNS), "  ".join("-" * w for w in widths), *map(line, rows)])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--large", action="store_true", help=f"also explore {changed(LARGE)}")
    args = parser.parse_args(argv)
    sets = [("default", DEFAULT_BOUNDS)] + ([("large", LARGE)] if args.large else [])
    rows = [measure(name, bounds) for name, bounds in sets]
    print(f"pausecheck explorer, Python {platform.python_version()} on {platform.machine()}")
    print(table(rows))
    for name, bounds in sets:
        print(f"{name}: {changed(bounds)}")


if __name__ == "__main__":
    main()
