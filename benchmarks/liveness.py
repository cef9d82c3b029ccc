"""Benchmark liveness under fairness where writes may fail without limit (`--write-failures any`): the cost of
deciding fair loops exactly (the Emerson-Lei refinement) beside the search itself, at bounds with cycles.

    python benchmarks/liveness.py            # the small bounds of the tests and the defaults, endless writes
    python benchmarks/liveness.py --no-spin  # without Spin's side

For each bound set: the search (every safety property), then liveness under the default fairness and under
weak fairness of the steps alone, each timed in this process one after the other, with the graph's states,
cycles (non-trivial strongly connected components) and verdicts; then the same two questions to Spin
(`checks/spin/fair.py`: generate, spin -a, gcc and pan -a for each LTL property, wall clock), with the
states pan stored and the ratio to the search's liveness. Times depend on the machine; no test asserts them.
"""

from __future__ import annotations

import platform
import shutil
import sys
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
    spin = "--no-spin" not in sys.argv and shutil.which("spin") is not None and shutil.which("gcc") is not None
    print(f"python {platform.python_version()} on {platform.machine()}" + ("" if spin else "; Spin's side skipped "
          "(--no-spin, or spin and gcc missing: apt-get install -y spin gcc)"))
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
            if spin:
                from pausecheck.checks.spin.fair import optimise_for, spin_liveness
                started = time.perf_counter()
                verdicts, processes = spin_liveness(bounds, Machine(bounds).reading, fairness,
                                                    optimise=optimise_for(result.states))
                spun = time.perf_counter() - started
                each = ", ".join(f"{v.name} {v.status} ({v.states:,} states, {v.seconds:.1f} s)" for v in verdicts)
                print(f"    Spin, {processes} processes, pan -a{' -f' if 'steps' in fairness else ''}: {spun:.1f} s in "
                      f"all ({spun / took:.1f}x the search's liveness): {each}")


if __name__ == "__main__":
    main()
