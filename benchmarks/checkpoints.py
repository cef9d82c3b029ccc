"""What a checkpoint of a search spread over processes costs (`check --workers N --checkpoint DIR`, `levels.py`).

    python benchmarks/checkpoints.py                  # --calls 3 (1,194,347 states), 2 workers, fingerprints
    python benchmarks/checkpoints.py --quick          # the default bounds: 73,409 states
    python benchmarks/checkpoints.py --exact --workers 1 --json

One run without a checkpoint, then one that saves after every level (the most a `--checkpoint-every` can ask),
paired in this process: the wall time of each, the seconds and bytes of the saves (the driver's file and every
process's, the last and the largest), the bytes a state, and the seconds a resume from the last save takes to
load before it goes on. Every level saved is the worst case; a real search saves once a minute by default.
The three must end with the same states, transitions and depth: a mismatch is reported as such.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from pausecheck.checks.search.checkpoint import Checkpoint
from pausecheck.checks.search.explore import NO_LIMITS
from pausecheck.checks.search.spread import Processes, spread
from pausecheck.model import DEFAULT_BOUNDS, Machine


class _Timed(Processes):
    """Worker processes whose saves and loads are timed."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.timed: dict[str, list[float]] = {"save": [], "load": []}

    def call(self, command: str, args: Any, deadline: float | None = None) -> Any:
        started = time.perf_counter()
        out = super().call(command, args, deadline)
        if command in self.timed:
            self.timed[command].append(time.perf_counter() - started)
        return out


def checkpoint_figures(bounds: Any, workers: int, fingerprints: bool) -> dict[str, Any]:
    machine = Machine(bounds)
    runs: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="pausecheck-bench-") as folder:
        checkpoint = Checkpoint(Path(folder), 0.0, ("benchmark",))
        for name, kept, resume, limits in (("without", None, False, NO_LIMITS), ("every level", checkpoint, False,
                                                                                 NO_LIMITS)):
            team = _Timed(machine, workers, fingerprints, limits, False)
            wall = time.perf_counter()
            result = spread(machine, workers, limits, fingerprints=fingerprints, transport=team, checkpoint=kept,
                            resume=resume)
            runs[name] = {"seconds": round(time.perf_counter() - wall, 2), "states": result.states,
                          "transitions": result.transitions, "depth": result.depth, "saves": len(team.timed["save"]),
                          "save_seconds": round(sum(team.timed["save"]), 2),
                          "last_save_seconds": round(team.timed["save"][-1], 3) if team.timed["save"] else None}
        sizes = {p.name: p.stat().st_size for p in Path(folder).iterdir()}
        team = _Timed(machine, workers, fingerprints, NO_LIMITS, False)
        wall = time.perf_counter()
        resumed = spread(machine, workers, fingerprints=fingerprints, transport=team, checkpoint=checkpoint,
                         resume=True)
        runs["resumed from the last save"] = {"seconds": round(time.perf_counter() - wall, 2),
                                              "states": resumed.states, "transitions": resumed.transitions,
                                              "depth": resumed.depth, "load_seconds": round(team.timed["load"][0], 3)}
    figures = {(r["states"], r["transitions"], r["depth"]) for r in runs.values()}
    states = runs["without"]["states"]
    return {"workers": workers, "store": "fingerprints" if fingerprints else "exact", "same_figures": len(figures) == 1,
            "runs": runs, "checkpoint_bytes": sum(sizes.values()), "files": len(sizes),
            "bytes_per_state": round(sum(sizes.values()) / max(1, states), 1),
            "saving_every_level_vs_without": round(runs["every level"]["seconds"] / runs["without"]["seconds"], 3)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the default bounds, not --calls 3")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--exact", action="store_true", help="keep the states exactly, not as fingerprints")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    bounds = DEFAULT_BOUNDS if args.quick else DEFAULT_BOUNDS.replace(calls=3)
    out = checkpoint_figures(bounds, args.workers, not args.exact)
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        print(f"{out['store']}, {out['workers']} workers: same figures: {out['same_figures']}")
        for name, run in out["runs"].items():
            print(f"  {name}: " + ", ".join(f"{k} {v}" for k, v in run.items()))
        print(f"  checkpoint: {out['checkpoint_bytes']:,} bytes in {out['files']} files, {out['bytes_per_state']} "
              f"bytes a state; saving every level takes {out['saving_every_level_vs_without']}x the time")
    return 0 if out["same_figures"] else 1


if __name__ == "__main__":
    sys.exit(main())
