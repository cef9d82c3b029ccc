"""`pausecheck diff` against one `pausecheck check`, at the same bounds, in one run: wall and CPU seconds of each
and their ratio (issue 39's target: a diff in at most twice the time of one check).

    python benchmarks/diff.py                      # the default bounds, the example drafts
    python benchmarks/diff.py --calls 2 --pauses 1 # other bounds (any bound flag of check)
    python benchmarks/diff.py --rounds 3           # each command three times, the fastest kept

Each diff also reports the parts its JSON times: z3's comparison of the two relations (`--z3-seconds`) and the
ladder of larger bounds (`--ladder-seconds`), each within its default budget.

Each command is a fresh child process; its CPU time is the child's own (and its workers'), so a loaded
machine slows the wall clock more than the CPU figure. A diff checks both tables (two processes at once:
on two free cores its wall time is about one check's), then walks them together.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

DRAFTS = Path(__file__).resolve().parent.parent / "examples" / "drafts"


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(argv: list[str], rounds: int) -> tuple[float, float, int, str]:
    """The fastest of `rounds` runs of `pausecheck ARGV`: (wall seconds, CPU seconds, exit code, its output)."""
    best: tuple[float, float, int, str] | None = None
    for _ in range(rounds):
        before, started = _cpu(), time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "pausecheck", *argv], capture_output=True, text=True, cwd="/tmp")
        found = (time.perf_counter() - started, _cpu() - before, done.returncode, done.stdout)
        best = found if best is None or found[0] < best[0] else best
    assert best is not None
    return best


def parts(output: str) -> str:
    """What the diff's JSON says z3 and the ladder took."""
    try:
        found = json.loads(output)
    except ValueError:
        return "(no JSON)"
    relation, ladder = found.get("relation"), found.get("ladder")
    z3_part = "z3 skipped" if relation is None else f"z3 {relation['seconds']:.1f} s ({relation['verdict']})"
    ladder_part = "no ladder" if ladder is None else f"ladder {ladder.get('seconds', 0):.1f} s"
    return f"{z3_part}, {ladder_part}"


def main() -> int:
    ask = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ask.add_argument("--rounds", type=int, default=1)
    known, bounds = ask.parse_known_args()
    wall, cpu, _, _ = timed(["check", *bounds], known.rounds)
    print(f"check {' '.join(bounds) or '(default bounds)'}: {wall:.1f} s wall, {cpu:.1f} s CPU")
    for draft in ("take_copies.py", "put_back_appends.py"):
        argv = ["diff", "--draft", str(DRAFTS / draft), "--out", "/tmp/pausecheck-bench-diff", "--json", *bounds]
        d_wall, d_cpu, code, out = timed(argv, known.rounds)
        print(f"diff --draft {draft}: {d_wall:.1f} s wall ({d_wall / wall:.2f}x the check), {d_cpu:.1f} s CPU "
              f"({d_cpu / cpu:.2f}x), exit {code}; of it {parts(out)}")
        b_wall, b_cpu, _, _ = timed([*argv, "--z3-seconds", "0", "--ladder-seconds", "0"], known.rounds)
        print(f"  without z3 and the ladder: {b_wall:.1f} s wall ({b_wall / wall:.2f}x the check), {b_cpu:.1f} s CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
