"""TEMPORARY: the old patch mutants and the new deviant rule tables reach the same states and steps.

For every mutant at its bounds: the set of reachable states and of steps (pre, action, post) of the
patched machine and of the machine running the mutant's deviant table, and the verdicts of a full
search (violations with their shortest lengths, deadlock, witnesses). Run: python tests/compare_deviations.py
"""

from __future__ import annotations

import sys
import time

from pausecheck.checks import deviations as d
from pausecheck.checks.explore import explore
from pausecheck.checks.mutants import MUTANTS, bounds_of, mutate
from pausecheck.model import Machine, shown


def graph(machine: Machine) -> tuple[set, set]:
    states, steps, order = {machine.init_states()[0]}, set(), list(machine.init_states())
    for state in order:
        for action, post in machine.successors(state):
            steps.add((state, action, post))
            if post not in states:
                states.add(post)
                order.append(post)
    return states, steps


def verdicts(machine: Machine) -> tuple:
    r = explore(machine)
    return (r.complete, r.states, r.transitions, tuple(sorted((k, len(v.actions)) for k, v in r.violations.items())),
            None if r.deadlock is None else len(r.deadlock.actions), tuple(sorted(r.witnesses)))


def main(names: list[str]) -> int:
    bad = 0
    print("| mutant | states old | states new | steps old | steps new | same graph | verdict (target: length) |")
    print("|---|---|---|---|---|---|---|")
    for m in MUTANTS:
        if names and m.name not in names:
            continue
        t = time.time()
        bounds = bounds_of(m)
        old = mutate(Machine(bounds), m)
        new = Machine(bounds, rules=getattr(d, m.name.upper(), Machine().rules), show=m.show or shown)
        (s1, t1), (s2, t2) = graph(old), graph(new)
        v1, v2 = verdicts(old), verdicts(new)
        same = s1 == s2 and t1 == t2 and v1 == v2
        bad += not same
        killed = dict(v1[3])
        verdict = "equivalent" if m.equivalent else f"{m.target}: {killed.get(m.target, v1[4] if m.target == 'deadlock' else '-')}"
        print(f"| {m.name} | {len(s1)} | {len(s2)} | {len(t1)} | {len(t2)} | {'yes' if same else 'NO'} | {verdict} |"
              + ("" if v1 == v2 else f" old {v1} new {v2}"), flush=True)
        print(f"  ({time.time() - t:.1f}s)", file=sys.stderr, flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
