"""--max-seconds and --max-memory (`checks/search/budget.py`): every command that can run long takes them, counts
its set-up inside the limit, and stops with exit 3 and what it established, within the limit plus the
watchdog's grace; no command accepts a limit it ignores."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from pausecheck.checks.cli.parser import parser
from pausecheck.checks.search.budget import GRACE, HARD_STOP

ROOT = Path(__file__).resolve().parent.parent
RUNTIME = [sys.executable, str(ROOT / "examples" / "sqlite_runtime" / "runtime.py")]
HANGS = [sys.executable, "-c", "import time; time.sleep(60)"]
LIMIT = 1.0

# Each long command at bounds it cannot finish within LIMIT seconds here.
LONG = {
    "check": ["check", "--pauses", "3"],
    "check --compact": ["check", "--pauses", "3", "--compact"],
    "report": ["report", "--pauses", "3", "--out", "{tmp}/r.html"],
    "mutants": ["mutants"],
    "readings": ["readings", "--out", "{tmp}/readings"],
    "conform": ["conform", "--", *RUNTIME],
    # stopped while it counts the reference graph's edges (20 s of search here): once swallowed by that search,
    # so that conform ran on until the hard stop
    "conform, in its set-up": ["conform", "--pauses", "3", "--", *RUNTIME],
    "vectors check": ["vectors", "check", str(ROOT / "examples" / "vectors"), "--", *HANGS],
    "vectors export": ["vectors", "export", "{tmp}/v", "--pauses", "3"],
    "fuzz": ["fuzz", "--examples", "100000"],
    "graph": ["graph", "--max-states", "10000000", "--out", "{tmp}/g.dot"],
    "prove --induction": ["prove", "--induction", "--sessions", "2", "--calls", "3", "--artifacts", "4"],
    "prove --bmc": ["prove", "--bmc", "40"],
    "consistency": ["consistency"],
    "check --engines": ["check", "--engines", "bfs,bmc"],
    # a draft that changes nothing a client sees: the walk must go over every pair (a quick difference is exit 1)
    "diff": ["diff", "--draft", str(ROOT / "examples" / "drafts" / "put_back_appends.py"), "--pauses", "3",
             "--out", "{tmp}/d"],
}


# the others under `slow` (CI): each a few seconds
EDIT_LOOP = {"check", "prove --bmc", "conform", "conform, in its set-up"}

# The command line, timed by the child itself from the command's start (where a limit counts from) to its end, the
# figure on the last line of stderr. Timed from outside, the interpreter's start and the imports before the command,
# which no limit counts, made the check fail on a loaded machine; a hard stop (os._exit) leaves no figure at all.
TIMED = ("import sys, time\n"
         "from pausecheck.checks.cli import main\n"
         "started = time.perf_counter()\n"
         "try:\n"
         "    code = main()\n"
         "finally:\n"
         "    sys.stderr.write(f'\\ncommand took {time.perf_counter() - started:.3f} s\\n')\n"
         "sys.exit(code)\n")


@pytest.mark.parametrize("name", [n if n in EDIT_LOOP else pytest.param(n, marks=pytest.mark.slow) for n in LONG])
def test_a_long_command_stops_at_its_limit_with_exit_3(name: str, tmp_path: Path) -> None:
    argv = [a.format(tmp=tmp_path) for a in LONG[name]]
    cut = argv.index("--") if "--" in argv else len(argv)
    argv[cut:cut] = ["--max-seconds", str(LIMIT)]
    done = subprocess.run([sys.executable, "-c", TIMED, *argv], capture_output=True, text=True, timeout=60,
                          cwd=tmp_path)
    assert done.returncode == 3, (done.returncode, done.stdout[-500:], done.stderr[-500:])
    took = re.fullmatch(r"command took ([\d.]+) s", done.stderr.rstrip("\n").rsplit("\n", 1)[-1])
    assert took is not None, done.stderr[-500:]  # no figure: the command did not end by itself
    # stopped at the limit plus the watchdog's grace, then its report (z3's import and set-up are inside the limit)
    assert float(took[1]) < LIMIT + GRACE + 3.0, took[1]
    assert "Traceback" not in done.stderr
    said = done.stdout + done.stderr
    assert "max-seconds" in said and "depth -1" not in said and "up to -1" not in said, said[-800:]


# Bounds at which `prove --induction` runs for minutes, Houdini's first round some 30 s here, once about 25 s
# of sampling, mining, building the step and screening are done (idle; twice that beside the suite).
SLOW_PROOF = ["prove", "--induction", "--sessions", "2", "--calls", "3", "--artifacts", "4", "--screen", "2000"]


@pytest.mark.slow
def test_sigterm_in_a_z3_query_ends_the_proof_within_seconds_with_exit_3() -> None:
    """A SIGTERM in the middle of a Houdini query interrupts z3, as the watchdog does at a limit: exit 3 within
    10 s, saying how far the proof got. Python alone runs the signal's handler only once the query returns."""
    child = subprocess.Popen([sys.executable, "-m", "pausecheck", *SLOW_PROOF], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        assert child.stderr is not None
        for line in child.stderr:  # the progress lines, at most 5 s apart: z3's queries start after this one
            if "before z3" in line:
                break
        else:
            pytest.fail(f"the proof ended before Houdini started: exit {child.wait()}")
        time.sleep(3)  # well inside Houdini's first queries (a move's takes seconds to minutes here)
        sent = time.monotonic()
        child.send_signal(signal.SIGTERM)
        try:
            out, err = child.communicate(timeout=20)  # 0.1 s idle; beside the suite's other worker, more
        except subprocess.TimeoutExpired:
            pytest.fail("the proof was still running 20 s after SIGTERM")
        took = time.monotonic() - sent
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()
    print(f"ended {took:.1f} s after SIGTERM")
    assert child.returncode == 3 and "Traceback" not in err, (child.returncode, out[-500:], err[-500:])
    assert re.search(r"  reached: stopped in Houdini: sampled [\d,]+ reachable states; mined \d+ candidate "
                     r"invariants; Houdini ran \d+ round\(s\), dropped \d+( \([^)]*\))?, \d+ left", out), out
    assert re.search(r"\[incomplete\] stopped by an interrupt \(SIGTERM or Ctrl-C\) after [\d.]+ s, in Houdini: "
                     r"nothing is proved", out), out


def test_every_command_that_takes_a_limit_honours_it() -> None:
    """The commands with --max-seconds are exactly those tested above (and none takes --max-states it ignores)."""
    commands = parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    limited = {name for name, sub in commands.items()
               if any("--max-seconds" in a.option_strings for a in sub._actions)}
    assert limited == {argv[0] for argv in LONG.values()}
    with_states = {name for name, sub in commands.items()
                   if any("--max-states" in a.option_strings for a in sub._actions)}
    assert with_states == {"check", "report", "graph", "diff"}


def test_a_memory_limit_stops_a_command_that_has_no_search_of_its_own() -> None:
    done = subprocess.run([sys.executable, "-m", "pausecheck", "prove", "--bmc", "40", "--max-memory", "20M"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 3 and "max-memory" in done.stdout + done.stderr, done.stderr[-500:]


def test_the_watchdog_ends_what_does_not_stop_in_time() -> None:
    assert GRACE + HARD_STOP + 5 < 15  # --max-seconds 5 ends within 15 s whatever the command does


def test_the_memory_of_worker_processes_counts_too() -> None:
    from pausecheck.checks.search.budget import _children_bytes

    before = _children_bytes()
    child = subprocess.Popen([sys.executable, "-c", "x = bytearray(100 << 20); print(flush=True); input()"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline() == "\n"
        assert _children_bytes() - before >= 100 << 20
    finally:
        child.kill()
        child.wait()


def test_a_search_that_stops_itself_at_the_limit_is_left_to_report() -> None:
    """A search that sees --max-memory reached stops itself; the report that follows (slow on a loaded
    machine) is not cut by the watchdog, although the memory stays over the limit while it runs."""
    from pausecheck.checks.search.budget import TICK, Budget
    from pausecheck.checks.search.explore import explore, resident_bytes
    from pausecheck.model import Bounds, Machine

    with Budget(None, resident_bytes() + 20 * 2**20, hard_stop=False) as budget:
        result = explore(Machine(Bounds(sessions=2)), budget.limits())
        report = b"x" * 2 * budget.max_memory  # the report, memory over the limit while the watchdog looks
        time.sleep(5 * TICK)
        del report
    assert not result.complete and result.stopped == "max-memory"
    assert budget.reason == "max-memory" and budget.raised


def test_a_sigterm_inside_a_finalizer_is_sent_again_not_dropped() -> None:
    """Raised inside `__del__` (z3 frees its terms there), the KeyboardInterrupt would be printed and dropped and a
    proof would run on for minutes (measured: a SIGTERM one second into Houdini was lost, the proof ran 60 s on):
    the handler sends the signal again instead, and raises it wherever else it lands."""
    from pausecheck.checks.cli import _interrupt

    again, raised = threading.Event(), []
    previous = signal.signal(signal.SIGTERM, lambda *_: again.set())
    try:
        class Finalized:
            def __del__(self) -> None:
                try:
                    _interrupt(signal.SIGTERM, sys._getframe())
                except KeyboardInterrupt:
                    raised.append(True)

        Finalized()  # freed at once: its __del__ runs here
        assert raised == [] and again.wait(5)
        with pytest.raises(KeyboardInterrupt):
            _interrupt(signal.SIGTERM, sys._getframe())
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_a_z3_term_an_interrupt_left_half_built_is_freed_without_a_traceback() -> None:
    """An interrupt that lands in a z3 term's `__init__` before its context is set leaves a term whose `__del__`
    fails (CI saw the traceback after an exit 3 on SIGTERM): while signals interrupt z3 that failure is not
    printed, and any other finalizer's error still is."""
    import z3
    from pausecheck.checks.search.budget import signals_interrupt_z3

    seen: list[str] = []
    previous, sys.unraisablehook = sys.unraisablehook, lambda unraisable: seen.append(str(unraisable.exc_value))
    try:
        with signals_interrupt_z3():
            half = z3.BoolRef.__new__(z3.BoolRef)
            half.ast = None
            del half  # its __del__ reads self.ctx, never set

            class Failing:
                def __del__(self) -> None:
                    raise AttributeError("another finalizer's error")

            Failing()
        assert seen == ["another finalizer's error"]
    finally:
        sys.unraisablehook = previous


def test_a_hard_stop_kills_what_the_command_started() -> None:
    """Before a hard stop ends the process (`os._exit`, no exit handler), what it started is killed: a runtime
    under test, a worker."""
    from pausecheck.checks.search.budget import _children, _end_children

    started = subprocess.Popen(HANGS)
    assert started.pid in _children()
    _end_children()
    assert started.wait(timeout=10) == -signal.SIGKILL
