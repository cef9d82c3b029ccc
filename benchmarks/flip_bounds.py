"""Recompute `checks/mutants/flipbounds.py`'s SHOWN_AT: for every single change of reading, the smallest bounds the
ladder finds (from the tiniest, with the faults it needs; with another reading beside it where it needs one) at
which a verdict flips.

    python benchmarks/flip_bounds.py            # prints the table to paste into checks/mutants/flipbounds.py
    python benchmarks/flip_bounds.py A-T5       # only the readings of these ambiguities
    python benchmarks/flip_bounds.py --mutants  # each equivalent mutant's `parts_at` (checks/mutants/catalogue.py)

Each rung walks the conformant reading and the changed one together; where the change takes effect, both are
checked (small bounds each; the conformant side's verdicts shared between readings). A reading that flips
nothing climbs for SECONDS.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pausecheck.checks.mutants.catalogue import catalogue  # noqa: E402
from pausecheck.checks.mutants.flipbounds import SECONDS, shown, smallest_flip  # noqa: E402
from pausecheck.checks.mutants.flips import singles  # noqa: E402
from pausecheck.model import DEFAULT_BOUNDS  # noqa: E402


def mutants() -> None:
    """Where the ladder tells each equivalent mutant apart from the rules."""
    for mutant in catalogue():
        if mutant.equivalent:
            began = time.monotonic()
            found = smallest_flip(table=mutant.rules)
            what = "nothing" if found is None else ", ".join(found.flips)
            alone = "" if found is None or not found.beside else f"; alone: nothing in {found.alone} rungs"
            entry = None if found is None else shown(found)
            print(f"{mutant.name}: parts_at={entry!r}  # flips: {what}{alone}; {time.monotonic() - began:.0f} s")


def main(only: list[str]) -> None:
    if only == ["--mutants"]:
        return mutants()
    started = time.monotonic()
    print("SHOWN_AT: dict[str, str | None] = {")
    baselines: dict = {}  # verdicts per bounds and reading, shared by every reading
    for variant in singles(DEFAULT_BOUNDS):
        (ambiguity, value), = variant.switches
        if only and ambiguity not in only:
            continue
        began = time.monotonic()
        found = smallest_flip(variant.switches, baselines=baselines)
        entry = None if found is None else shown(found)
        what = "nothing" if found is None else ", ".join(found.flips)
        alone = "" if found is None or not found.beside else f"; alone: nothing in {found.alone} rungs"
        print(f'    "{ambiguity}={value}": {entry!r},  # flips: {what}{alone}; {time.monotonic() - began:.0f} s',
              flush=True)
    print("}")
    print(f"# the ladder for at most {SECONDS:g} s each; {time.monotonic() - started:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
