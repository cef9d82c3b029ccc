"""Benchmark `prove --compositional --sessions any`: the proof for every number of sessions, part by part, beside
the two-session proof at the same small bounds (the ratio is taken in one run: these machines are noisy).

    python benchmarks/anysessions.py             # the defaults, small bounds, and small bounds with four faults
    python benchmarks/anysessions.py --no-two    # without the two-session proof (a minute at the small bounds)

For each bound set: the footprint lemmas (z3, every rule), the one-session facts (every reachable state), the
carrying of every property, and the whole proof, each timed as CPU seconds of this process, one after the
other, with what they found. Times depend on the machine; no test asserts them.
"""

from __future__ import annotations

import platform
import sys
import time
from typing import Any

from pausecheck.checks.symbolic.anysessions import _facts, prove_any_sessions
from pausecheck.checks.symbolic.carrying import carries, carries_step
from pausecheck.checks.symbolic.compositional import prove_compositional
from pausecheck.checks.symbolic.footprint import footprint
from pausecheck.model import DEFAULT_BOUNDS, Bounds, Machine
from pausecheck.model.formulas import FORMULAS
from pausecheck.model.properties import PROPERTIES
from pausecheck.model.reading import CONFORMANT
from pausecheck.model.rules import RULES

# The README's `prove --compositional` example, and the same with a crash, an expiry, a race and a new turn.
SMALL = Bounds(calls=1, per_call=1, artifacts=1, pauses=1, write_failures=0, observations=0, held_bound=1)
FAULTS = SMALL.replace(crashes=1, expiries=1, races=1, new_turns=1)
BOUND_SETS = {"defaults": DEFAULT_BOUNDS, "small": SMALL, "small, four faults": FAULTS}


def _timed(work, *args):  # type: ignore[no-untyped-def]
    started = time.process_time()
    out = work(*args)
    return out, time.process_time() - started


def _carried(bounds: Bounds) -> list[Any]:
    return [carries_step(bounds, CONFORMANT, RULES, f.expr, p.on) if f.step else carries(bounds, CONFORMANT, f.expr)
            for p in PROPERTIES if p.kind in ("always", "transition") and (f := FORMULAS.get(p.name)) is not None]


def main() -> None:
    print(f"python {platform.python_version()} on {platform.machine()}; CPU seconds of this process")
    for name, bounds in BOUND_SETS.items():
        found, lemmas = _timed(footprint, bounds, CONFORMANT, RULES)
        (facts, states, _), facts_s = _timed(_facts, Machine(bounds), 2_000_000, str)
        carried, carry_s = _timed(_carried, bounds)
        proof, whole = _timed(prove_any_sessions, bounds, CONFORMANT, RULES)
        print(f"{name} ({bounds.flags() or 'no flag'}): proved {proof.proved}; "
              f"lemmas {lemmas:.1f} s ({len(found)} uses, {sum(not f.holds for f in found)} failing), "
              f"facts {facts_s:.1f} s ({states:,} one-session states, {sum(f.holds for f in facts)} of 2 hold), "
              f"carrying {carry_s:.1f} s ({sum(c.holds for c in carried)} of {len(carried)}), whole {whole:.1f} s")
        if bounds is SMALL and "--no-two" not in sys.argv:
            two, two_s = _timed(prove_compositional, bounds.replace(sessions=2), CONFORMANT, RULES)
            print(f"  two sessions (prove --compositional, same bounds): proved {two.proved}, {two_s:.1f} s; "
                  f"any number / two = {whole / two_s:.2f}")


if __name__ == "__main__":
    main()
