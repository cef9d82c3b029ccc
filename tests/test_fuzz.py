"""Stateful testing with Hypothesis: long random behaviours beyond the exhaustive bounds, on the model
alone and with a runtime in lockstep; failures are shrunk, deterministic, and written as traces."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from pausecheck.checks.cli import main
from pausecheck.checks.mutants import mutant_named, mutate
from pausecheck.checks.mutants.evidence import document_for
from pausecheck.checks.oracle import InProcess
from pausecheck.checks.oracle.fuzz import fuzz
from pausecheck.checks.search.explore import Discovery
from pausecheck.model import Machine
from pausecheck.model.config import FUZZ_BOUNDS
from pausecheck.traces.replay import replay

from tests.test_oracle import EXAMPLE, RUNTIME

MODEL = Machine(FUZZ_BOUNDS)


def test_the_model_keeps_its_properties_far_beyond_the_exhaustive_bounds() -> None:
    result = fuzz(MODEL, examples=40, steps=60)
    assert result.failure is None and result.examples >= 40 and result.steps > 40 * 20


@pytest.mark.parametrize("name", ["no_put_back", pytest.param("resume_reemits_artifacts", marks=pytest.mark.slow),
                                  pytest.param("take_keeps_held", marks=pytest.mark.slow)])
def test_a_mutant_breaks_its_target_and_the_shrunk_trace_replays(name: str) -> None:
    mutant = mutant_named(name)
    machine = mutate(MODEL, mutant)
    result = fuzz(machine, examples=300, steps=60)
    failure = result.failure
    assert failure is not None and failure.property is not None, name
    assert failure.step <= failure.found_at and len(failure.steps) == failure.step
    states = (machine.init_states()[0],) + tuple(post for _, _, post in failure.steps)
    discovery = Discovery(states, tuple(a for _, a, _ in failure.steps), failure.message)
    prop = next(p for p in machine.properties if p.name == failure.property)
    document = document_for(machine, discovery, name=prop.name, kind=prop.kind, clauses=prop.clauses,
                            verdict="violation", description=prop.doc, command="pausecheck fuzz", mutant=name)
    outcome = replay(json.loads(json.dumps(document)), machine)
    assert outcome.diverged_at is None and outcome.reproduced, outcome


@pytest.mark.slow  # two runs to the same failure: a few seconds
def test_runs_are_deterministic() -> None:
    machine = mutate(MODEL, mutant_named("no_put_back"))
    first, second = fuzz(machine, examples=200, steps=60), fuzz(machine, examples=200, steps=60)
    assert (first.examples, first.steps) == (second.examples, second.steps)
    assert first.failure is not None and second.failure is not None
    assert [a for _, a, _ in first.failure.steps] == [a for _, a, _ in second.failure.steps]


def test_the_reference_runtime_in_lockstep(tmp_path: Path) -> None:
    runtime = EXAMPLE.Runtime(str(tmp_path / "r.sqlite"))
    assert fuzz(MODEL, InProcess(runtime.handle), examples=20, steps=60).failure is None


@pytest.mark.parametrize(("bug", "broken"), [("drop-oldest", "drops_newest_with_warning"),
                                             ("tool-failure-unhandled", "no_phantom_failure")])
def test_a_buggy_runtime_fails_and_is_shrunk(bug: str, broken: str, tmp_path: Path) -> None:
    runtime = EXAMPLE.Runtime(str(tmp_path / "r.sqlite"), bug)
    failure = fuzz(MODEL, InProcess(runtime.handle), examples=200, steps=60).failure
    assert failure is not None and failure.kind == "observation" and failure.property == broken, failure
    assert failure.step < failure.found_at and failure.step <= 12


def test_the_command_writes_a_trace_that_replays(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trace = tmp_path / "f.itf.json"
    runtime = ["--", sys.executable, str(RUNTIME), "--bug", "tool-failure-unhandled"]
    assert main(["fuzz", "--examples", "100", "--out", str(trace), "--json", *runtime]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["failure"]["kind"] == "observation" and "E9.5" in report["failure"]["clauses"]
    assert main(["replay", "--quiet", str(trace)]) == 1
    assert "departed from it at step" in capsys.readouterr().out
    assert main(["fuzz", "--examples", "20", "--", sys.executable, str(RUNTIME)]) == 0
    assert "[ok]" in capsys.readouterr().out
    assert main(["fuzz", "--examples", "0"]) == 2


def test_shrink_against_the_runtime_cuts_a_fuzz_failure(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trace, shrunk = tmp_path / "f.itf.json", tmp_path / "s.itf.json"
    buggy = ["--", sys.executable, str(RUNTIME), "--bug", "interrupt-as-failure"]
    assert main(["fuzz", "--out", str(trace), *buggy]) == 1
    long = json.loads(trace.read_text(encoding="utf-8"))["#meta"]["steps"]
    capsys.readouterr()
    assert main(["shrink", str(trace), "--runtime", "--out", str(shrunk), *buggy]) == 0
    assert f"[shrunk] {long} steps -> 3 steps" in capsys.readouterr().out
    assert main(["replay", "--quiet", str(shrunk)]) == 1
    capsys.readouterr()
    assert main(["shrink", str(trace), "--runtime", "--", sys.executable, str(RUNTIME)]) == 1
    assert "[no divergence]" in capsys.readouterr().out
    assert main(["shrink", str(trace), "--", sys.executable, str(RUNTIME)]) == 2
