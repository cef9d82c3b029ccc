"""A runtime that dies, hangs, sends half a line, a line too long or a line that never ends, in the middle of a
conform run: reported at the step where it happened, each shrink candidate on a fresh process, the trace up
to that step written and replayable (`checks/oracle/adapters.py`, `checks/oracle/conform.py`)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FAULTY = [sys.executable, str(ROOT / "tests" / "faulty_runtime.py")]
SMALL = ["--calls", "1", "--pauses", "1", "--observations", "0", "--timeout", "1"]


def _pausecheck(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pausecheck", *argv], capture_output=True, text=True, timeout=90,
                          cwd=cwd)


@pytest.mark.parametrize("how, words", [
    ("die", "the runtime exited with code 7 before answering apply step 3 (tool-fails)"),
    ("hang", "no answer to apply step 3 (tool-fails) within 1 s"),
    ("partial", "no answer to apply step 3 (tool-fails) within 1 s (a part of a line came)"),
    ("huge", "the response to apply step 3 (tool-fails) is longer than 16 MiB"),
    ("dribble", "no answer to apply step 3 (tool-fails) within 1 s (a part of a line came)"),
])
def test_a_fault_is_reported_at_its_step_with_a_trace_that_replays(how: str, words: str, tmp_path: Path) -> None:
    started = time.perf_counter()
    done = _pausecheck("conform", *SMALL, "--out", "d.itf.json", "--", *FAULTY, how, "tool-fails", cwd=tmp_path)
    assert time.perf_counter() - started < 30
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"[diverged] step 3 (fault): {words}" in done.stdout, done.stdout
    replayed = _pausecheck("replay", "d.itf.json", "--quiet", cwd=tmp_path)
    assert replayed.returncode == 1 and "all 3 steps match the model" in replayed.stdout, replayed.stdout


def test_conform_help_documents_every_exit_code() -> None:
    done = _pausecheck("conform", "--help", cwd=ROOT)
    exit_line = done.stdout[done.stdout.index("exit:"):]
    assert all(f"{code} " in exit_line for code in (0, 1, 2, 3)) and "--max-seconds" in exit_line


def test_fuzz_in_lockstep_with_a_runtime_that_dies_shrinks_on_fresh_processes(tmp_path: Path) -> None:
    done = _pausecheck("fuzz", "--examples", "20", "--timeout", "1", "--", *FAULTY, "die", "tool-fails", cwd=tmp_path)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr[-800:]
    assert "the runtime exited with code 7 before answering apply step" in done.stdout
    replayed = _pausecheck("replay", "fuzz.itf.json", "--quiet", cwd=tmp_path)
    assert replayed.returncode == 1 and "steps match the model" in replayed.stdout
