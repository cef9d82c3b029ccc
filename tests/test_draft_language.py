"""A draft's statements do what they say in every command, or the draft is refused (issue 53).

The lost update: a write-back that marks its execution failed through the list of executions, before the
rule's own edits of `e` are written back. In order, as written, the mark stays: `check` names what it
breaks, and `diff` shows a behaviour only the draft allows. A draft that numbers its calls from c2 is
compared by `diff` with a real answer (the call only one side has is `(absent)` on the other); a draft
that fails while it steps names its own cause under any `--jobs`, with nothing after the line.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from pausecheck.checks.cli import main

TINY = ["--calls", "1", "--pauses", "1", "--artifacts", "1", "--observations", "0", "--held-bound", "1"]

LOST_UPDATE = """\
from pausecheck.model.actions import WriteMessage
from pausecheck.model.deviate import Also, deviate, on
from pausecheck.model.lang import Set, ite
from pausecheck.model.rules import S, e

RULES = deviate(on(WriteMessage, Also(Set(S.executions, S.executions.map(
    lambda x: ite(x.id == e.id, x.but(status="failed"), x))))))
"""

RENAMED_CALLS = """\
from pausecheck.model.actions import CallTool
from pausecheck.model.deviate import Replace, deviate, on
from pausecheck.model.lang import call_id, new
from pausecheck.model.rules import e
from pausecheck.model.state import RUNNING, Attempt

RULES = deviate(on(CallTool, Replace(e.attempts, e.attempts.append(new(Attempt, call_id(e.calls + 2), RUNNING)))))
"""

FAILS_WHILE_STEPPING = """\
from pausecheck.model.actions import CallTool
from pausecheck.model.deviate import Also, deviate, on
from pausecheck.model.lang import Set
from pausecheck.model.rules import e

RULES = deviate(on(CallTool, Also(Set(e.calls, e.held.at(3)))))
"""


def _draft(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_the_lost_update_is_checked_as_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    draft = _draft(tmp_path, "lost_update.py", LOST_UPDATE)
    assert main(["check", "--draft", draft, *TINY, "--no-liveness", "--out", str(tmp_path / "out")]) == 1
    assert "handled_run_completes VIOLATED" in capsys.readouterr().out
    assert main(["diff", "--draft", draft, *TINY, "--jobs", "1", "--json", "--out", str(tmp_path / "diff")]) == 1
    found = json.loads(capsys.readouterr().out)
    assert found["only_in_draft"] is not None and not found["same_behaviours"]


def test_diff_compares_a_draft_that_renames_calls(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    draft = _draft(tmp_path, "renamed.py", RENAMED_CALLS)
    assert main(["diff", "--draft", draft, *TINY, "--jobs", "1", "--out", str(tmp_path / "diff")]) == 1
    out = capsys.readouterr().out
    assert 'turns.e1.attempts.c1 = ["running"], and (absent) under the draft' in out, out


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_draft_failing_while_it_steps_is_its_own_cause(jobs: str, tmp_path: Path) -> None:
    draft = _draft(tmp_path, "fails.py", FAILS_WHILE_STEPPING)
    for argv in (["--draft", draft], ["--draft", str(Path(__file__).parent.parent / "examples/drafts/take_copies.py"),
                                      "--against", draft]):
        done = subprocess.run([sys.executable, "-m", "pausecheck", "diff", *argv, *TINY, "--jobs", jobs,
                               "--out", str(tmp_path / "diff")], capture_output=True, text=True, timeout=300)
        assert done.returncode == 2, done.stderr
        assert done.stderr == f"pausecheck: {draft}: cannot step from a state it reaches: IndexError: tuple index " \
                              "out of range\n", done.stderr


# ---------------------------------------------------------------------------------------------
# A step of the draft's own (examples/drafts/cancel_discards_held.py)

CANCEL = Path(__file__).resolve().parent.parent / "examples" / "drafts" / "cancel_discards_held.py"
HOLDING = ["--calls", "2", "--pauses", "1", "--artifacts", "1", "--observations", "0", "--held-bound", "1"]


def test_a_declared_action_changes_a_verdict(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The cancel step discards what the run holds: no_loss holds under the rules and breaks under the draft,
    whose counterexample names the step by its own text; `diff` says the rule was added."""
    assert main(["check", *HOLDING, "--no-liveness", "--out", str(tmp_path / "rules")]) != 1
    assert "no_loss VIOLATED" not in capsys.readouterr().out
    assert main(["check", "--draft", str(CANCEL), *HOLDING, "--no-liveness", "--out", str(tmp_path / "draft")]) == 1
    out = capsys.readouterr().out
    assert "no_loss VIOLATED" in out
    assert "e1: the caller cancels the paused run   (a step the draft declares)" in out
    trace = tmp_path / "draft" / "violation-no_loss.itf.json"
    assert main(["replay", "--quiet", str(trace)]) == 1  # the trace replays on its draft, the action read back
    capsys.readouterr()
    assert main(["diff", "--draft", str(CANCEL), *HOLDING, "--jobs", "1", "--json", "--out", str(tmp_path / "d")]) == 1
    found = json.loads(capsys.readouterr().out)
    assert found["added_rules"] == ["CancelPaused"] and found["changed_rules"] == []
    assert {"name": "no_loss", "rules": "holds", "draft": "VIOLATED", "changed": True, "unsettled": False} \
        in found["verdicts"]


def test_a_declared_action_runs_in_z3_the_report_and_the_explorer(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    from pausecheck.checks.browse.views import view
    from pausecheck.checks.drafts import load_draft
    from pausecheck.model import CONFORMANT, Bounds, Machine

    assert main(["prove", "--bmc", "6", "--draft", str(CANCEL), *HOLDING]) == 1
    assert "no_loss" in capsys.readouterr().out.splitlines()[-1]
    page = tmp_path / "r.html"
    assert main(["report", "--draft", str(CANCEL), *HOLDING, "--no-liveness", "--out", str(page)]) == 1
    assert "the caller cancels the paused run" in page.read_text()
    capsys.readouterr()
    machine = Machine(Bounds(calls=2, pauses=1, artifacts=1, observations=0, held_bound=1), CONFORMANT,
                      load_draft(CANCEL).rules)
    steps = [{"kind": "start-turn", "session": 1}, {"kind": "call-tool", "execution": "e1"},
             {"kind": "tool-interrupts", "execution": "e1", "call": "c1"}]
    shown = view(machine, steps)
    offered = [a for a in shown["enabled"] if a["action"]["kind"] == "cancel-paused"]
    assert offered and offered[0]["text"] == "e1: the caller cancels the paused run"
    assert view(machine, steps + [offered[0]["action"]])["steps"][-1]["text"] == offered[0]["text"]


@pytest.mark.skipif(shutil.which("spin") is None or shutil.which("gcc") is None,
                    reason="spin or gcc is not on the PATH: install the Debian packages spin and gcc")
def test_a_declared_action_runs_in_spin(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--engine", "spin", "--draft", str(CANCEL), *HOLDING, "--no-liveness"]) == 1
    assert "no_loss (T7.1" in capsys.readouterr().out


def test_the_oracle_names_the_steps_a_runtime_does_not_declare(capsys: pytest.CaptureFixture[str]) -> None:
    runtime = str(CANCEL.parent.parent / "sqlite_runtime" / "runtime.py")
    assert main(["conform", "--draft", str(CANCEL), *HOLDING, "--", sys.executable, runtime]) == 3
    out = capsys.readouterr().out
    assert "under the draft" in out.splitlines()[0]
    assert "edges skipped: the runtime does not declare the model's steps cancel-paused" in out


# ---------------------------------------------------------------------------------------------
# Named by behaviour (issue 54, item 4)

UNHANDLED = """\
from pausecheck.model.actions import ToolFails
from pausecheck.model.deviate import Also, deviate, on
from pausecheck.model.lang import Set
from pausecheck.model.rules import e

RULES = deviate(on(ToolFails, Also(Set(e.unhandled, e.unhandled + 1))))
"""


def test_a_draft_is_named_by_what_it_behaves_as(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Counting a tool failure unhandled in other words than the mutant (an `Also`, where the mutant reads
    A-G4 one way): not the same table, the same state graph as the mutant and as the reading."""
    draft = _draft(tmp_path, "unhandled.py", UNHANDLED)
    small = ["--calls", "2", "--per-call", "1", "--artifacts", "1", "--pauses", "1", "--observations", "0",
             "--held-bound", "1"]
    assert main(["diff", "--draft", draft, *small, "--jobs", "1", "--json", "--out", str(tmp_path / "d")]) == 1
    found = json.loads(capsys.readouterr().out)
    assert found["mutants"]["is_mutant"] == []
    assert found["behaves_as"] == [
        {"name": "tool_failure_unhandled", "kind": "mutant", "decided_by": "the same state graph"},
        {"name": "A-G4=failed-unmarked", "kind": "reading", "decided_by": "the same state graph"}]


def test_a_cut_diff_counts_no_unsettled_verdict_and_keeps_its_limits(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 54, item 5: "no violation found (incomplete)" on one side is no verdict, so no change; the
    reproduce line keeps the limit the diff ran under."""
    copies = str(CANCEL.parent / "take_copies.py")
    small = ["--calls", "2", "--per-call", "1", "--artifacts", "1", "--pauses", "1", "--observations", "0",
             "--held-bound", "1"]
    assert main(["diff", "--draft", copies, *small, "--max-states", "100", "--jobs", "1",
                 "--out", str(tmp_path / "d")]) == 3
    out = capsys.readouterr().out
    assert "verdicts: 0 of" in out and "not established on one side (a search was cut)" in out
    assert out.rstrip().endswith("--max-states 100")


# ---------------------------------------------------------------------------------------------
# Past the bounds given (issue 54, items 1 and 2): where the change takes effect, where the tables part

STRANDS = """\
from pausecheck.model.actions import Expire
from pausecheck.model.deviate import Drop, deviate, on
from pausecheck.model.rules import e

RULES = deviate(on(Expire, Drop(e.held)))
"""


def test_a_change_that_never_fires_is_said_with_the_bounds_that_fire_it(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """An expired run that strands its held list: nothing expires at these bounds, so the change never takes
    effect; the ladder raises the expiry bound first (it enables the changed rule) and there the verdicts part."""
    draft = _draft(tmp_path, "strands.py", STRANDS)
    small = ["--calls", "2", "--per-call", "1", "--artifacts", "1", "--pauses", "1", "--observations", "0",
             "--held-bound", "1"]
    assert main(["diff", "--draft", draft, *small, "--jobs", "1", "--out", str(tmp_path / "d")]) == 1
    out = capsys.readouterr().out
    assert "the draft's change never took effect at these bounds" in out
    assert "it takes effect with --expiries 1" in out
    assert "the smallest bounds found that tell them apart: --expiries 1 (verdicts differ: no_loss" in out
    assert "[differs] the same at these bounds, told apart with --expiries 1" in out
    assert main(["diff", "--draft", draft, *small, "--jobs", "1", "--out", str(tmp_path / "d"),
                 "--ladder-seconds", "0", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["ladder"] is None


COUNTS_NO_CALLS = """\
from pausecheck.model.actions import CallTool
from pausecheck.model.deviate import Drop, deviate, on
from pausecheck.model.rules import g

RULES = deviate(on(CallTool, Drop(g.calls)))
"""


def test_a_draft_that_grows_without_end_still_shows_a_behaviour_under_a_limit(tmp_path: Path) -> None:
    """Issue 54, item 5: a segment that no longer counts its calls calls without end. Under --max-seconds the
    walk goes first and the checks stop before the limit: the shortest behaviour only the draft allows is
    written, exit 1, with the limit in the reproduce line (was: stopped by --max-seconds, nothing said)."""
    draft = _draft(tmp_path, "counts_no_calls.py", COUNTS_NO_CALLS)
    done = subprocess.run([sys.executable, "-m", "pausecheck", "diff", "--draft", draft, *TINY, "--max-seconds", "12",
                           "--jobs", "1", "--out", str(tmp_path / "d")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "only in the draft, " in done.stdout and "the behaviours differ at these bounds" in done.stdout
    assert "holds -> -" not in done.stdout  # a property the cut search could not judge is no change
    assert done.stdout.rstrip().endswith("--max-seconds 12")
    assert "Traceback" not in done.stderr
