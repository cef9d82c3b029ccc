"""Benchmark `shrink`: seconds to cut long traces that break a property, greedy-then-exact versus exact.

    python benchmarks/shrink.py

The traces are random walks of 200, 400 and 800 steps through the model at the fuzzing bounds
(three sessions of two turns) under the mutant no_put_back, avoiding the violation until the last
step, which breaks failed_write_back_restores. Seeded: the same traces every run. Times depend on the
machine; the tests assert none of them.
"""

from __future__ import annotations

import random
import time
from typing import Any

from pausecheck.checks.mutants import mutant_named, mutate
from pausecheck.checks.shrink import shrink
from pausecheck.model import Machine
from pausecheck.model.config import FUZZ_BOUNDS

TARGET = "failed_write_back_restores"


def walk(machine: Machine, steps: int, rng: random.Random) -> list[Any]:
    """A random walk of `steps` steps whose last step, and only it, breaks TARGET."""
    while True:
        state, actions = machine.init_states()[0], []
        for _ in range(steps * 3):
            options = list(machine.successors(state))
            safe = [(a, p) for a, p in options if not machine.judge(TARGET, state, a, p)[0]]
            bad = [(a, p) for a, p in options if machine.judge(TARGET, state, a, p)[0]]
            if len(actions) >= steps - 1 and bad:
                return actions + [bad[0][0]]
            if not safe:
                break
            action, state = rng.choice(safe)
            actions.append(action)


def main() -> None:
    machine = mutate(Machine(FUZZ_BOUNDS), mutant_named("no_put_back"))
    rng = random.Random(7)
    for steps in (200, 400, 800):
        actions = walk(machine, steps, rng)
        started = time.perf_counter()
        found = shrink(machine, actions, TARGET)
        assert found is not None
        print(f"{steps:>4} steps -> {len(found.actions):>3} steps in {time.perf_counter() - started:6.2f} s (greedy, "
              "then exact)")
    actions = walk(machine, 200, rng)
    started = time.perf_counter()
    found = shrink(machine, actions, TARGET, exact=True)
    assert found is not None
    print(f" 200 steps -> {len(found.actions):>3} steps in {time.perf_counter() - started:6.2f} s (--exact)")


if __name__ == "__main__":
    main()
