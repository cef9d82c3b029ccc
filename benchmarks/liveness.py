"""Benchmark liveness under fairness where writes may fail without limit (`--write-failures any`): the cost of
deciding fair loops exactly (the Emerson-Lei refinement) beside the search itself, at bounds with cycles.

    python benchmarks/liveness.py            # the small bounds of the tests and the defaults, endless writes

For each bound set: the search (every safety property), then liveness under the default fairness and under
weak fairness of the steps alone, each timed in this process one after the other, with the graph's states,
cycles (non-trivial strongly connected components) and verdicts. Times depend on the machine; no test asserts
them.
"""

from __future__ import annotations

import platform
import time

from pausecheck.checks.search.explore import explore
from pausecheck.checks.search.liveness import check_liveness
from pausecheck.model import DEFAULT_BOUNDS, Bounds, Machine

BOUND_SETS = {
    "small": Bounds(calls=2, per_call=1, artifacts=1, pauses=1, observations=0, held_bound=1, write_failures=1,
                    endless_writes=1),
    "defaults": DEFAULT_BOUNDS.replace(endless_writes=1),
}


def main() -> None:
    print(f"python {platform.python_version()} on {platform.machine()}")
    for name, bounds in BOUND_SETS.items():
        started = time.perf_counter()
        result = explore(Machine(bounds))
        search = time.perf_counter() - started
        print(f"{name} ({bounds.flags()}): search {result.states:,} states in {search:.1f} s")
        for fairness in (("steps", "write"), ("steps",)):
            started = time.perf_counter()
            live = check_liveness(Machine(bounds, fairness=fairness))
            took = time.perf_counter() - started
            broken = [v.name for v in live.verdicts if not v.holds]
            print(f"  liveness under {','.join(fairness)}: {took:.1f} s ({took / search:.2f}x the search), "
                  f"{live.facts.nontrivial_sccs} cycle(s), {live.facts.edges:,} state-changing edges; "
                  f"broken: {', '.join(broken) or 'none'}")


if __name__ == "__main__":
    main()
