"""Macro steps: a runtime that performs the model's write-back as one transaction is driven at that grain,
passes strict conformance there, and each of its bugs is caught with a trace of the model's own steps."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest
from pausecheck.checks.cli import main
from pausecheck.checks.oracle import InProcess, conform, covering_sequences, divergence_document
from pausecheck.checks.oracle.macros import Coarse, Composed, fine, unchecked
from pausecheck.checks.oracle.protocol import apply_request
from pausecheck.model import Bounds, Machine, PutBack, ReportFailure, StartWriteBack, WriteMessage
from pausecheck.traces.replay import replay

from pausecheck import explore

ROOT = Path(__file__).resolve().parent.parent
ATOMIC = ROOT / "examples" / "atomic_runtime" / "runtime.py"
SMALL = Bounds(calls=1, per_call=1, artifacts=2, pauses=1, write_failures=1, observations=1, held_bound=1)
BUGGY = Bounds(calls=2, per_call=2, artifacts=2, pauses=1, write_failures=1, observations=1, held_bound=1)
PARTS = (StartWriteBack, WriteMessage, PutBack, ReportFailure)


def _module():
    spec = importlib.util.spec_from_file_location("atomic_runtime", ATOMIC)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


EXAMPLE = _module()


def in_process(tmp_path: Path, bug: str | None = None) -> InProcess:
    return InProcess(EXAMPLE.Runtime(str(tmp_path / f"{bug or 'atomic'}.json"), bug).handle, name=f"atomic {bug}")


def test_the_coarse_graph_composes_every_write_back_and_nothing_else() -> None:
    machine = Machine(SMALL)
    view = Coarse(machine, ["write-back"])
    taken = set()
    for sequence in covering_sequences(view):
        for pre, action, post in sequence.steps:
            if isinstance(action, Composed):
                parts = tuple(fine([(pre, action, post)]))
                assert isinstance(parts[0][1], StartWriteBack) and all(isinstance(a, PARTS) for _, a, _ in parts)
                assert all(machine.step(p, a) == q for p, a, q in parts) and parts[-1][2] == post
                assert not any(isinstance(a, PARTS) for a, _ in machine.successors(post)
                               if getattr(a, "execution", None) == parts[0][1].execution
                               and not isinstance(a, StartWriteBack))
                taken.add(tuple(type(a) for _, a, _ in parts))
            else:
                assert not isinstance(action, PARTS)
    assert taken == {(StartWriteBack, WriteMessage), (StartWriteBack, WriteMessage, PutBack, ReportFailure)}
    coarse_edges = sum(len(s.steps) - s.fresh for s in covering_sequences(view))
    assert coarse_edges < explore(machine).transitions  # the states inside a write-back are not driven


def test_the_atomic_runtime_conforms_at_its_grain(tmp_path: Path) -> None:
    result = conform(in_process(tmp_path), Machine(SMALL))
    assert result.ok and result.macros == ("write-back",) and result.coverage == 1.0, result.divergence
    clauses = dict(result.clause_edges)
    assert clauses["T7.10"] and clauses["T7.11"]
    assert set(result.witnessed) == set(explore(Machine(SMALL)).witnesses)  # the parts reach what the model's steps do
    assert [c for c, _ in unchecked(result.macros)] == ["T7.7", "T7.11"]


def test_the_atomic_runtime_as_a_subprocess_says_its_grain(capsys: pytest.CaptureFixture[str]) -> None:
    flags = [f"--{k.replace('_', '-')}={v}" for k, v in SMALL.as_dict().items()]
    assert main(["conform", *flags, "--accept-unexercised", "--", sys.executable, str(ATOMIC)]) == 0
    out = capsys.readouterr().out
    assert "driven at the runtime's grain: it performs write-back as one step (hello: macros), so this run cannot " \
           "check T7.7, taking is destructive" in out and "[ok]" in out


# bug -> (the runtime's step of a shortest divergence at BUGGY, the clause named first)
BUGS = {
    "commit-failed-take": (7, "T7.10"),
    "failure-unreported": (2, "T7.10"),
    "keep-held": (7, "T7.7"),
    "new-before-held": (8, "T7.5"),
    "refused-write-lands": (2, "T7.10"),  # a failed write-back writes nothing: named before merge_order's T7.5
}


def test_every_bug_has_a_row() -> None:
    assert set(BUGS) == set(EXAMPLE.BUGS)


@pytest.mark.parametrize("bug", [pytest.param(b, marks=[pytest.mark.slow] if b == "commit-failed-take" else [])
                                 for b in sorted(BUGS)])  # the slow one: ~10 s of shrinking
def test_each_bug_of_the_atomic_runtime_is_caught_with_a_trace_of_model_steps(bug: str, tmp_path: Path) -> None:
    machine = Machine(BUGGY)
    result = conform(in_process(tmp_path, bug), machine)
    d = result.divergence
    assert d is not None and not result.ok
    step, clause = BUGS[bug]
    assert (d.step, d.kind, d.clauses[0]) == (step, "observation", clause), d.message
    document = json.loads(json.dumps(divergence_document(machine, result, "pausecheck conform -- ...")))
    runtime = document["#meta"]["runtime"]
    assert runtime["step"] == runtime["grain"][-1] == len(document["states"]) - 1 >= d.step
    outcome = replay(document, machine)
    assert outcome.diverged_at is None and outcome.reproduced


def test_the_docs_macro_request_is_the_tool_s() -> None:
    machine = Machine(Bounds(calls=1, per_call=1, artifacts=1, pauses=1, write_failures=1, observations=0,
                             held_bound=1))
    view, state = Coarse(machine, ["write-back"]), machine.init_states()[0]
    for _ in range(3):  # a turn, a call, its return: then the write-back that fails
        action, state = next((a, p) for a, p in view.successors(state) if not isinstance(a, Composed))
    failed = next(a for a, _ in view.successors(state) if isinstance(a, Composed) and len(a.steps) == 4)
    line = json.dumps(apply_request(4, state, failed), separators=(",", ":"))
    assert line in (ROOT / "docs" / "oracle-adapter.md").read_text(encoding="utf-8")  # the protocol's page


def test_a_fine_trace_folds_to_the_grain_and_vectors_are_refused(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    flags = [f"--{k.replace('_', '-')}={v}" for k, v in BUGGY.as_dict().items()]
    trace = tmp_path / "d.itf.json"
    runtime = ["--", sys.executable, str(ATOMIC)]
    assert main(["conform", *flags, "--out", str(trace), *runtime, "--bug", "keep-held"]) == 1
    assert "step 7 is the runtime's; the model's path to it takes 8 steps" in capsys.readouterr().out
    assert main(["conform", "--sequence", str(trace), *runtime]) == 0
    assert main(["vectors", "check", str(ROOT / "examples" / "vectors"), *runtime]) == 2
    assert "vectors record each of the model's steps" in capsys.readouterr().err
