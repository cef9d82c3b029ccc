"""How much a partial-order reduction could save: the steps that commute with every other step, measured.

    python benchmarks/independence.py                      # every fault at once at the defaults, 100,000 states
    python benchmarks/independence.py --states 20000 --no-faults

A partial-order reduction expands, in a state, only an *ample* subset of its enabled steps. The subset must be
independent of every step left out (taken in either order, both stay enabled and lead to the same state: a
diamond), invisible to the properties, and must not close a cycle. This script measures the first condition,
which the others only narrow: over the first N states breadth first, for each state, which enabled steps form
a diamond with every other enabled step (the candidates for an ample set of one). Where none does, no
reduction can skip anything in that state; where one does, it could skip the other steps' successors at best.
So the share of states with a candidate, and the steps they could skip, bound what any such reduction saves at
one step; and a breadth-first search that expands only the first candidate wherever there is one (ignoring
visibility and cycles, so keeping fewer states than any sound reduction) bounds what it saves level by level,
the savings compounded. Counts, not times: the same on every machine.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from pausecheck.model import DEFAULT_BOUNDS, Machine

FAULTS = {"crashes": 1, "expiries": 1, "races": 1, "new_turns": 1}


def diamonds(machine: Machine, state: Any) -> tuple[list[tuple[Any, Any]], list[Any]]:
    """The enabled steps of `state` (stutters left out), and those of them that form a diamond with every other."""
    steps = [(a, post) for a, post in machine.successors(state) if post != state]
    after = {a: dict(machine.successors(post)) for a, post in steps}
    free = [a for a, _ in steps
            if all(b == a or (after[a].get(b) is not None and after[a].get(b) == after[b].get(a)) for b, _ in steps)]
    return steps, free


def levels(machine: Machine, depth: int, reduced: bool) -> list[int]:
    """The new states of each level breadth first, to `depth`; `reduced`: a state with a candidate expands only the
    first one (no visibility, no cycle proviso: more than any sound reduction may skip)."""
    seen, frontier, sizes = set(machine.init_states()), list(machine.init_states()), []
    for _ in range(depth + 1):
        sizes.append(len(frontier))
        following = []
        for state in frontier:
            steps, free = diamonds(machine, state) if reduced else (list(machine.successors(state)), [])
            for action, post in steps:
                if free and action != free[0]:  # (a state of one step: its own candidate)
                    continue
                if post not in seen:
                    seen.add(post)
                    following.append(post)
        frontier = following
    return sizes


def measure(machine: Machine, limit: int, depth: int) -> dict[str, Any]:
    started = time.process_time()
    seen, frontier, order = set(machine.init_states()), list(machine.init_states()), []
    while frontier and len(order) < limit:
        following = []
        for state in frontier:
            order.append(state)
            if len(order) >= limit:
                break
            for _, post in machine.successors(state):
                if post not in seen:
                    seen.add(post)
                    following.append(post)
        frontier = following
    enabled = branching = with_candidate = skippable = 0
    for state in order:
        steps, free = diamonds(machine, state)
        enabled += len(steps)
        branching += len(steps) >= 2
        if len(steps) >= 2 and free:
            with_candidate += 1
            skippable += len(steps) - 1
    full, reduced = levels(machine, depth, False), levels(machine, depth, True)
    return {"states": len(order), "steps": enabled, "branching states": branching,
            "states with a candidate": with_candidate, "steps a reduction could skip at most": skippable,
            "share of steps": round(skippable / max(1, enabled), 4),
            "levels": {"depth": depth, "full": full, "reduced at most": reduced,
                       "kept": round(sum(reduced) / sum(full), 4)},
            "cpu seconds": round(time.process_time() - started, 1)}


def main(argv: list[str] | None = None) -> int:
    ask = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ask.add_argument("--states", type=int, default=100_000, help="how many states, breadth first (default 100,000)")
    ask.add_argument("--no-faults", action="store_true", help="the defaults without the four faults")
    ask.add_argument("--depth", type=int, default=12, help="the levels compared with and without the reduction "
                     "(default 12)")
    args = ask.parse_args(argv)
    bounds = DEFAULT_BOUNDS if args.no_faults else DEFAULT_BOUNDS.replace(**FAULTS)
    figures = measure(Machine(bounds), args.states, args.depth)
    for key, value in {"bounds": bounds.as_dict(), **figures}.items():  # a line each, as JSON
        print(f"{key}: {json.dumps(value)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
