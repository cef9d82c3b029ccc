"""A CPU-time regression check, CI-sized: a few commands that exercise each engine, each timed as the CPU seconds of
a fresh process (its workers included), compared with the last run recorded on the same kind of machine.

    python benchmarks/regress.py             # compare with this machine's baseline; exit 1 where one grew > 50%
    python benchmarks/regress.py --record    # and record this run as the machine's new baseline
    python benchmarks/regress.py --rounds 3  # the least CPU time of three runs of each (default 2)
    python benchmarks/regress.py --only check,diff   # some of the commands

The baseline is `benchmarks/baseline.json`, one entry per kind of machine: its processor model, its cores, its
memory and the Python version (`speedpage.machine` says the same in words). A machine with no entry has nothing to
compare with: the run says so and exits 0 (record one with `--record`). CPU time, not wall: a busy machine
stretches the wall clock of a command far more than its CPU time; the least of `--rounds` runs counts. A command
whose exit code differs from the one recorded is a regression too (a verdict changed, or it failed).

It is a benchmark, not a test: the suite checks only that the comparison can fail (`tests/test_regress.py`), never
a time. Run it idle, before and after a change that may cost time; the whole run takes about three minutes here
(the compositional proof half of it).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from speedpage import machine, memory_gb, processor, run_id, run_timed  # noqa: E402

BASELINE = Path(__file__).resolve().parent / "baseline.json"
GROWTH = 1.5  # a command whose CPU time grows past this factor of its baseline's is a regression
SMALL = "--calls 1 --artifacts 1 --pauses 1 --observations 0 --held-bound 1"
DRAFT_BOUNDS = "--calls 2 --per-call 1 --artifacts 1 --pauses 1 --observations 0 --held-bound 1"
# name -> the command: each engine once, at small bounds
COMMANDS: dict[str, str] = {
    "check": "pausecheck check",
    "check-endless": f"pausecheck check {SMALL} --write-failures any --accept-unexercised",
    "prove-induction": f"pausecheck prove --induction {SMALL}",
    "prove-compositional": f"pausecheck prove --compositional {SMALL}",
    "prove-bmc": f"pausecheck prove --bmc 8 {SMALL}",
    "diff": f"pausecheck diff --draft examples/drafts/take_copies.py {DRAFT_BOUNDS} --ladder-seconds 0",
    "ladder": f"pausecheck diff --draft examples/drafts/put_back_appends.py {DRAFT_BOUNDS} --z3-seconds 0",
    "readings": f"pausecheck readings {SMALL}",
    "mutants": "pausecheck mutants --only drop_oldest --only retry_always_fails",
}


def machine_key() -> str:
    """The kind of machine, as the baseline keys it: processor model, cores, memory (GB), Python version."""
    return f"{processor()}; {os.cpu_count()} cores; {memory_gb() or 0} GB; Python {platform.python_version()}"


def compare(now: dict[str, dict[str, Any]], base: dict[str, dict[str, Any]],
            growth: float = GROWTH) -> tuple[list[str], list[str]]:
    """The lines of the comparison and the regressions among them: a command whose CPU time grew past `growth`
    times its baseline's, or whose exit code changed."""
    lines, regressions = [], []
    for name, run in now.items():
        was = base.get(name)
        if was is None:
            lines.append(f"{name:22} {run['cpu']:8.1f} s CPU   (no baseline for it)")
            continue
        ratio = run["cpu"] / max(was["cpu"], 0.01)
        line = f"{name:22} {run['cpu']:8.1f} s CPU   baseline {was['cpu']:8.1f} s   {ratio:5.2f}x"
        if run["exit"] != was["exit"]:
            line += f"   EXIT {run['exit']}, was {was['exit']}"
            regressions.append(line)
        elif ratio > growth:
            line += f"   REGRESSION (more than {growth:g}x)"
            regressions.append(line)
        lines.append(line)
    return lines, regressions


def measure(names: list[str], rounds: int) -> dict[str, dict[str, Any]]:
    """Each command's least CPU seconds over `rounds` runs, its wall seconds then and its exit code."""
    out: dict[str, dict[str, Any]] = {}
    for name in names:
        best = None
        for _ in range(rounds):
            wall, cpu, code, _stopped = run_timed(COMMANDS[name], 600.0)
            if best is None or cpu < best["cpu"]:
                best = {"cpu": round(cpu, 2), "wall": round(wall, 2), "exit": code}
        assert best is not None
        out[name] = best
        print(f"  {name}: {best['cpu']:.1f} s CPU, {best['wall']:.1f} s wall, exit {best['exit']}", flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--record", action="store_true", help="record this run as this machine's baseline")
    parser.add_argument("--rounds", type=int, default=2, help="runs of each command; the least CPU time counts")
    parser.add_argument("--only", default="", help="comma-separated names of commands (default: all)")
    args = parser.parse_args(argv)
    names = [n for n in args.only.split(",") if n] or list(COMMANDS)
    unknown = [n for n in names if n not in COMMANDS]
    if unknown:
        parser.error(f"--only: no command named {', '.join(unknown)} (known: {', '.join(COMMANDS)})")
    key = machine_key()
    print(f"regress: {machine()}; {args.rounds} round(s) each", flush=True)
    now = measure(names, args.rounds)
    saved = json.loads(BASELINE.read_text(encoding="utf-8")) if BASELINE.exists() else {}
    base = saved.get(key)
    code = 0
    if base is None:
        print(f"no baseline for this kind of machine ({key}): nothing to compare with")
    else:
        lines, regressions = compare(now, base["commands"])
        print(f"against the baseline of {base['run']}:")
        print("\n".join(lines))
        if regressions:
            print(f"[regression] {len(regressions)} command(s) grew by more than {GROWTH:g}x or changed their exit "
                  "code")
            code = 1
        else:
            print(f"[ok] no command grew by more than {GROWTH:g}x its baseline's CPU time")
    if args.record:
        commands = {**(base or {}).get("commands", {}), **now}
        saved[key] = {"run": run_id(), "commands": commands}
        BASELINE.write_text(json.dumps(saved, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        print(f"recorded as this machine's baseline in {BASELINE.name}")
    return code


if __name__ == "__main__":
    sys.exit(main())
