"""Two sessions on Spin: the ladder of bound sets, each checked by `pausecheck check --engine spin`.

    python benchmarks/ladder.py                   # every rung, 15 minutes each at most
    python benchmarks/ladder.py --seconds 120     # a shorter limit per search
    python benchmarks/ladder.py --json            # one JSON object

Each rung is a two-session bound set, from small ones up to the default bounds with a second session,
one bound raised at a time. Each is searched by Spin with every safety property as an assertion
(`checks/spin/engine.py`), twice: with partial-order reduction and with -DNOREDUCE, each under the time
limit (`--seconds`, 900 by default: the issue's fifteen minutes, generating and compiling included) and
a memory limit (`--memory-mb`, pan's -DMEMLIM). A row gives the states stored, pan's search seconds, its
memory, the whole run's seconds and whether the search completed. The climb stops after the first rung
that does not complete within the limits: the rung above it is the largest that does. Nothing here is
asserted by the tests: the figures are this machine's, taken in one run.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import changed  # noqa: E402  (this folder is on the path: the script's own)
from pausecheck.checks.spin.engine import spin_check  # noqa: E402
from pausecheck.checks.spin.pan import missing_tools  # noqa: E402
from pausecheck.checks.spin.properties import SPIN_PROPERTIES  # noqa: E402
from pausecheck.model import reading_named  # noqa: E402
from pausecheck.model.config import DEFAULT_BOUNDS, Bounds  # noqa: E402

# From small to the default bounds with a second session, one bound raised at a time.
RUNGS: tuple[dict[str, int], ...] = (
    {"calls": 1, "artifacts": 1, "pauses": 1, "observations": 0, "held_bound": 1},
    {"calls": 1, "artifacts": 1, "pauses": 1},
    {"calls": 1, "pauses": 1},
    {"pauses": 1},
    {},
)
HASH_BITS = 26


def search(bounds: Bounds, reduce: bool, seconds: float, memory_mb: int) -> dict[str, object]:
    """One Spin search of the bounds with every property; what it reached."""
    started = time.monotonic()
    report = spin_check(bounds, reading_named("conformant"), SPIN_PROPERTIES, reduce=reduce, max_seconds=seconds,
                        memory_mb=memory_mb, hash_bits=HASH_BITS, optimise="-O1")  # long searches: -O1 pays
    run = report.run
    return {"reduce": reduce, "states": run.states, "transitions": run.transitions, "pan_seconds": run.seconds,
            "memory_mb": run.memory_mb, "compile_seconds": round(report.compile_seconds, 1),
            "seconds": round(time.monotonic() - started, 1), "complete": run.complete, "exit": report.exit_code,
            "violated": sorted(v.name for v in report.verdicts if v.status == "VIOLATED")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=900.0, help="time limit of each search (default 900)")
    parser.add_argument("--memory-mb", type=int, default=16_000, help="pan's memory limit (default 16000)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    missing = missing_tools()
    if missing:
        print(f"ladder.py: {missing}", file=sys.stderr)
        return 2
    rows = []
    for rung in RUNGS:
        bounds = DEFAULT_BOUNDS.replace(sessions=2, **rung)
        row: dict[str, object] = {"bounds": changed(bounds)}
        for reduce in (True, False):
            found = search(bounds, reduce, args.seconds, args.memory_mb)
            row["por" if reduce else "no_por"] = found
            print(f"{row['bounds']} ({'with' if reduce else 'without'} partial-order reduction): "
                  f"{found['states']:,} states, pan {found['pan_seconds']} s, {found['memory_mb']} MB, "
                  f"{found['seconds']} s in all, {'complete' if found['complete'] else 'INCOMPLETE'}, "
                  f"exit {found['exit']}", file=sys.stderr, flush=True)
        rows.append(row)
        if not (row["por"]["complete"] and row["no_por"]["complete"]):  # type: ignore[index]
            break
    largest = next((r["bounds"] for r in reversed(rows) if r["por"]["complete"]), None)  # type: ignore[index]
    if args.json:
        print(json.dumps({"seconds": args.seconds, "memory_mb": args.memory_mb, "rungs": rows,
                          "largest_complete": largest}, indent=2))
    else:
        print("| bounds | states (POR) | states (no POR) | pan s (POR / no POR) | MB (POR / no POR) | complete |")
        print("|---|---|---|---|---|---|")
        for r in rows:
            p, n = r["por"], r["no_por"]
            print(f"| {r['bounds']} | {p['states']:,} | {n['states']:,} | {p['pan_seconds']} / {n['pan_seconds']} "
                  f"| {p['memory_mb']} / {n['memory_mb']} | {p['complete']} / {n['complete']} |")
        print(f"largest two-session bound set complete within {args.seconds:g} s: {largest}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
