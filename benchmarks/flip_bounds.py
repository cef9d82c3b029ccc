"""Recompute `checks/mutants/flipbounds.py`'s SHOWN_AT: for every single change of reading, the smallest bounds (in
the fewest raises of one bound from the tiniest, with the faults it needs) at which a verdict flips.

    python benchmarks/flip_bounds.py            # prints the table to paste into checks/mutants/flipbounds.py
    python benchmarks/flip_bounds.py A-T15      # only the readings of these ambiguities

Each candidate bound set is one check of the reading and one of the conformant reading (shared between
readings), small bounds each; a reading that flips nothing searches every bound set within MAX_RAISES.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pausecheck.checks.mutants.flipbounds import MAX_RAISES, flags, smallest_flip  # noqa: E402
from pausecheck.checks.mutants.flips import singles  # noqa: E402
from pausecheck.model import DEFAULT_BOUNDS  # noqa: E402


def main(only: list[str]) -> None:
    started = time.monotonic()
    print("SHOWN_AT: dict[str, str | None] = {")
    baselines: dict = {}  # the conformant reading's verdicts per bounds, shared by every reading
    for variant in singles(DEFAULT_BOUNDS):
        (ambiguity, value), = variant.switches
        if only and ambiguity not in only:
            continue
        tried: list = []
        found = smallest_flip(variant.switches, progress=tried.append, baselines=baselines)
        shown = None if found is None else flags(found[0])
        what = "nothing" if found is None else ", ".join(found[1])
        print(f'    "{ambiguity}={value}": {shown!r},  # {len(tried)} bound sets; flips: {what}', flush=True)
    print("}")
    print(f"# within {MAX_RAISES} raises; {time.monotonic() - started:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
