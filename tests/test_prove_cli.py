"""`pausecheck prove` on the command line: bounded model checking and its traces, every reading and fault,
and a drift said in one line. (Induction: tests/test_induction.py; the engines' agreement:
tests/test_agreement.py; the relation against the explicit successors: tests/test_successors.py.)"""

from __future__ import annotations

import json

import pytest
from pausecheck.checks.cli import main


def test_prove_cli(capsys, tmp_path):
    assert main(["prove", "--bmc", "6", "--calls", "1", "--out", str(tmp_path), "--json"]) == 3  # witnesses deeper
    out = json.loads(capsys.readouterr().out)
    approve = next(p for p in out["properties"] if p["name"] == "approve")
    assert approve["depth"] == 4 and approve["trace"]
    assert main(["replay", approve["trace"], "--quiet"]) == 0
    assert main(["prove", "--bmc", "3", "--calls", "1", "--reading", "A-T12=with-artifacts"]) == 3  # every reading
    capsys.readouterr()
    assert main(["prove", "--bmc", "3", "--calls", "1", "--crashes", "1", "--json"]) == 3  # and every fault
    assert json.loads(capsys.readouterr().out)["depth"] == 3
    capsys.readouterr()
    assert main(["prove", "--bmc", "4", "--calls", "1", "--reading", "A-G1=leave", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert next(p for p in out["properties"] if p["name"] == "resume_supersedes")["depth"] == 4
    assert main(["prove"]) == 2


def test_a_drift_between_the_engines_is_one_verdict_line(monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """`prove --bmc` names the step where z3 and the explicit model part, in one line, never a traceback."""
    from pausecheck.checks.symbolic import unrolled as module

    def drifting(*args: object, **kwargs: object) -> None:
        raise module.Drift("step 3 (poll e1) from <pre> to <post> is no step of the explicit model")

    monkeypatch.setattr(module, "bmc", drifting)
    assert main(["prove", "--bmc", "3", "--calls", "1", "--pauses", "0"]) == 1
    out = capsys.readouterr().out
    last = out.strip().splitlines()[-1]
    assert last == "[drift] step 3 (poll e1) from <pre> to <post> is no step of the explicit model"


def test_a_counterexample_to_induction_is_told_in_the_traces_words(capsys: pytest.CaptureFixture[str]) -> None:
    """Not a `State(...)` dump: the fields of the state it starts from, the step by its text, what the step changes."""
    from pathlib import Path

    draft = Path(__file__).resolve().parent.parent / "examples" / "drafts" / "put_back_drops.py"
    assert main(["prove", "--induction", "--calls", "1", "--pauses", "1", "--artifacts", "1", "--observations", "0",
                 "--held-bound", "1", "--draft", str(draft)]) == 1
    out = capsys.readouterr().out
    assert "NOT PROVED  no_loss" in out and "State(" not in out and "Execution(" not in out, out
    assert "from a state where " in out and "e1.segment.taken: [a1]" in out
    assert "by e1: the failed write-back puts back what it took" in out and "it changes " in out
