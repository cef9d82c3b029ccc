"""One search spread over processes (`check --workers N`): states/s at 1 and 2 workers, and bytes routed.

    python benchmarks/spread.py                 # --calls 3: 1,194,347 states (a few minutes)
    python benchmarks/spread.py --quick         # the default bounds: 73,409 states
    python benchmarks/spread.py --workers 1 2 4 --json

The one-process search (`explore`) runs first, then the spread search (`spread`) at each number of workers,
each with every property, in this process and its forked workers. For each: the wall time and states/s; the
CPU seconds of the busiest worker and of the driver (`time.process_time` in each), whose sum is what the
wall time would be on idle cores, one per worker, since the levels wait for the slowest worker; the sum over
the levels of the slowest worker's CPU in each; how evenly the states are shared out (the new states of the
worker with the most in each level, summed over the levels, against an even share); and the bytes of the
batches the workers sent each other, per state. A shared machine adds wall time, not CPU time: compare
the CPU figures there. The figures must be the one-process search's (states, transitions, depth): a mismatch
is reported as such, not as a speed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from pausecheck.checks.search.explore import NO_LIMITS, explore
from pausecheck.checks.search.spread import Processes, spread
from pausecheck.model import DEFAULT_BOUNDS, Machine

__all__ = ["spread_figures"]


def spread_figures(bounds: Any = DEFAULT_BOUNDS, workers: tuple[int, ...] = (1, 2)) -> dict[str, Any]:
    """The one-process search and the spread search at each number of workers, at `bounds`."""
    machine = Machine(bounds)
    cpu, wall = time.process_time(), time.perf_counter()
    one = explore(machine)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    rows: dict[str, Any] = {"one process": {"states": one.states, "transitions": one.transitions, "depth": one.depth,
                                            "seconds": round(wall, 2), "cpu_seconds": round(cpu, 2),
                                            "states_per_second": round(one.states / wall)}}
    for n in workers:
        team = Processes(machine, n, False, NO_LIMITS)
        driver, wall = time.process_time(), time.perf_counter()
        result = spread(machine, n, transport=team)
        driver, wall = time.process_time() - driver, time.perf_counter() - wall
        busiest = max(team.usage["cpu"])
        same = (result.states, result.transitions, result.depth) == (one.states, one.transitions, one.depth)
        rows[f"{n} workers"] = {
            "same_figures": same, "states": result.states, "seconds": round(wall, 2),
            "states_per_second": round(result.states / wall) if same else None,
            "busiest_worker_cpu_seconds": round(busiest, 2), "driver_cpu_seconds": round(driver, 2),
            "idle_cores_seconds": round(busiest + driver, 2),
            "idle_cores_states_per_second": round(result.states / (busiest + driver)) if same else None,
            "slowest_per_level_cpu_seconds": round(team.usage["levels_cpu"], 2),
            "busiest_per_level_states_vs_even": round(team.usage["levels_states"] * n / max(1, result.states), 3),
            "routed_bytes_per_state": round(team.usage["routed"] / max(1, result.states), 1),
            "sent_per_transition": round(team.usage["sent"] / max(1, result.transitions), 3),
            "sent_new_there": round(team.usage["crossed"] / max(1, team.usage["sent"]), 3),
        }
    first = rows.get(f"{workers[0]} workers")
    for n in workers[1:]:
        row = rows[f"{n} workers"]
        row["speedup_wall_vs_one_process"] = round(rows["one process"]["seconds"] / row["seconds"], 2)
        idle = row["idle_cores_seconds"]
        row["speedup_idle_cores_vs_one_process"] = round(rows["one process"]["cpu_seconds"] / idle, 2)
        row["speedup_cpu_busiest_vs_one_process"] = round(rows["one process"]["cpu_seconds"]
                                                          / row["busiest_worker_cpu_seconds"], 2)
        if first is not None:
            row["speedup_idle_cores_vs_1_worker"] = round(first["idle_cores_seconds"] / row["idle_cores_seconds"], 2)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the default bounds (73,409 states)")
    parser.add_argument("--calls", type=int, default=3, help="calls per execution (default 3: 1,194,347 states)")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="worker counts (default 1 2)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    bounds = DEFAULT_BOUNDS if args.quick else DEFAULT_BOUNDS.replace(calls=args.calls)
    rows = spread_figures(bounds, tuple(args.workers))
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    for name, row in rows.items():
        print(f"{name:<12} " + ", ".join(f"{k} {v}" for k, v in row.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
