"""`pausecheck prove --induction` at the default bounds over the fault flags and the readings: the table of
what is proved, with the CPU time of each run.

    python benchmarks/proofs.py                    # every row below (an hour or more on 2 cores)
    python benchmarks/proofs.py --only faults      # the default, each fault flag, every fault at once, --turns 2
    python benchmarks/proofs.py --only all-faults --max-seconds 1800   # every fault at once (`--all` too)
    python benchmarks/proofs.py --only every-fault --workers 2         # every fault at once, on 2 processes
    python benchmarks/proofs.py --only readings    # every single-switch reading at the default bounds
    python benchmarks/proofs.py --only readings --with-faults   # each with the fault its switch needs
    python benchmarks/proofs.py --json

Each run is a fresh `python -m pausecheck prove --induction --json` (so one run's memory is not the
next one's); its CPU time is the child's own (`resource.getrusage(RUSAGE_CHILDREN)`), so a loaded
machine slows the wall clock, not the figure; both are printed. A run stopped at `--max-seconds` prints
what it had reached: the candidates mined, Houdini's rounds, what they dropped and what is left.
A cell reads `proved`, `NOT` (not inductive: a counterexample
to induction, `r` when it replays on the explicit model, `!` when it does not, a drift), or `-` (not
asked: the run was incomplete). Exit 1 if a run's counterexample does not replay, 0 otherwise.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

from pausecheck.checks.mutants.flips import singles
from pausecheck.model.config import Bounds

EVERY_FAULT = ("--crashes", "1", "--expiries", "1", "--races", "1", "--new-turns", "1")
FAULTS: tuple[tuple[str, ...], ...] = ((), ("--crashes", "1"), ("--expiries", "1"), ("--races", "1"),
                                       ("--new-turns", "1"), EVERY_FAULT, ("--turns", "2"))


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(flags: tuple[str, ...], limit: tuple[str, ...] = ()) -> dict:
    """One `prove --induction --json` in a child: its JSON, its exit code and its CPU and wall seconds."""
    before, started = _cpu(), time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pausecheck", "prove", "--induction", "--json", *flags, *limit],
                          capture_output=True, text=True, check=False)
    cpu, wall = _cpu() - before, time.perf_counter() - started
    try:
        out = json.loads(done.stdout)
    except json.JSONDecodeError:
        out = {"properties": [], "error": (done.stderr.strip().splitlines() or ["no output"])[-1]}
    return {"flags": " ".join(flags) or "(defaults)", "exit": done.returncode, "cpu_seconds": round(cpu, 1),
            "wall_seconds": round(wall, 1), "properties": out.get("properties", []), "error": out.get("error"),
            "strengthening": out.get("strengthening"), "stopped": out.get("stopped")}


def cell(p: dict) -> str:
    if p["proved"]:
        return "proved"
    cti = p.get("counterexample")
    return "NOT" + ("" if cti is None else " r" if cti["replays"] else " !")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=("faults", "all-faults", "every-fault", "readings"))
    parser.add_argument("--with-faults", action="store_true",
                        help="run each reading whose switch needs a fault with that fault on (--crashes 1, ...)")
    parser.add_argument("--max-seconds", type=float, help="stop each run there (it reports what it reached)")
    parser.add_argument("--workers", type=int, default=1, help="each run's z3 queries on N processes")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    limit = (("--max-seconds", str(args.max_seconds)) if args.max_seconds else ()) + (
        ("--workers", str(args.workers)) if args.workers > 1 else ())
    rows: list[tuple[str, ...]] = []
    if args.only == "all-faults":
        rows += [EVERY_FAULT, (*EVERY_FAULT, "--all")]
    elif args.only == "every-fault":
        rows.append(EVERY_FAULT)
    elif args.only != "readings":
        rows += FAULTS
    if args.only is None or args.only == "readings":
        default = Bounds().as_dict()
        for variant in singles(Bounds()):
            faults = [(f"--{k.replace('_', '-')}", str(v)) for k, v in variant.bounds.as_dict().items()
                      if v != default[k]] if args.with_faults else []
            rows.append(("--reading", variant.reading.removeprefix("conformant+"), *(x for f in faults for x in f)))
    results = []
    for flags in rows:
        result = run(flags, limit)
        results.append(result)
        if not args.json:
            cells = ", ".join(f"{p['name']} {cell(p)}" for p in result["properties"]) or result["error"]
            print(f"{result['flags']:<48} exit {result['exit']}  {result['cpu_seconds']:>7.1f} s CPU "
                  f"{result['wall_seconds']:>7.1f} s wall  {cells}", flush=True)
            if result["strengthening"]:
                print(f"{'':<48} {result['strengthening']}", flush=True)
    if args.json:
        print(json.dumps({"rows": results}, indent=1))
    drift = any(p.get("counterexample") and not p["counterexample"]["replays"]
                for r in results for p in r["properties"])
    return 1 if drift else 0


if __name__ == "__main__":
    sys.exit(main())
