"""ITF traces: canonical bytes, round trip through a file, replay, and divergence reports."""

from __future__ import annotations

import copy
import json

import pytest
from pausecheck.checks.mutants.evidence import document_for, machine_for
from pausecheck.checks.search.explore import explore
from pausecheck.model import Bounds, Machine, property_named
from pausecheck.traces.itf import VARS, TraceError, dumps, load_trace, write_trace
from pausecheck.traces.render import render
from pausecheck.traces.replay import first_difference, replay

SMALL = Bounds(calls=2, per_call=1, artifacts=2, pauses=1, write_failures=1, observations=1, held_bound=1)


def _witness_documents(machine: Machine) -> list[dict]:
    result = explore(machine)
    docs = []
    for name, found in sorted(result.witnesses.items()):
        prop = property_named(name)
        docs.append(document_for(machine, found, name=name, kind=prop.kind, clauses=prop.clauses,
                                 verdict="witness", description=prop.doc, command="pausecheck check"))
    return docs


@pytest.fixture(scope="module")
def witnesses() -> list[dict]:
    return _witness_documents(Machine(SMALL))


def test_documents_are_byte_identical_across_runs(witnesses):
    again = _witness_documents(Machine(SMALL))
    assert [dumps(d) for d in witnesses] == [dumps(d) for d in again]
    assert len(witnesses) >= 10


def test_document_shape_is_itf(witnesses):
    doc = witnesses[0]
    assert doc["#meta"]["format"] == "ITF"
    assert doc["vars"] == VARS
    for i, state in enumerate(doc["states"]):
        assert state["#meta"]["index"] == i
        assert set(state) == set(VARS) | {"#meta"}
        assert ("action" in state["#meta"]) == (i > 0)
    text = dumps(doc)
    assert text.endswith("}\n") and json.loads(text) == doc


def test_round_trip_through_a_file_replays(tmp_path, witnesses):
    for doc in witnesses:
        path = tmp_path / "t.itf.json"
        write_trace(path, doc)
        loaded = load_trace(path)
        assert loaded == doc
        outcome = replay(loaded, machine_for(loaded["#meta"], str(path)))
        assert outcome.diverged_at is None and outcome.reproduced, doc["#meta"]["property"]


def test_tampered_state_names_step_and_field(witnesses):
    doc = copy.deepcopy(next(d for d in witnesses if len(d["states"]) > 3))
    doc["states"][2]["write_failures"] = 7
    outcome = replay(doc, machine_for(doc["#meta"], "t"))
    assert outcome.diverged_at == 2
    assert "field write_failures is 7 in the trace but 0 in the model" in outcome.divergence


def test_action_not_enabled_is_named(witnesses):
    doc = copy.deepcopy(witnesses[0])
    doc["states"][1]["#meta"]["action"] = {"kind": "poll", "execution": "e9"}
    outcome = replay(doc, machine_for(doc["#meta"], "t"))
    assert outcome.diverged_at == 1 and "not enabled" in outcome.divergence


def test_first_difference_paths():
    assert first_difference({"a": [1, {"b": 2}]}, {"a": [1, {"b": 3}]}) == (".a[1].b", 2, 3)
    assert first_difference([1, 2], [1]) == (" (length)", 2, 1)
    assert first_difference({"x": 1}, {"x": 1}) is None


@pytest.mark.parametrize("text, path, problem", [
    ("{", "line 1 column 2", "not JSON"),
    ("[]", "$", "JSON object"),
    ('{"#meta": {"model": "other/9"}}', '$["#meta"].model', "this pausecheck reads"),
])
def test_malformed_files_are_named(tmp_path, text, path, problem):
    f = tmp_path / "bad.itf.json"
    f.write_text(text)
    with pytest.raises(TraceError) as caught:
        load_trace(f)
    assert caught.value.path == path and problem in str(caught.value) and str(f) in str(caught.value)


def test_missing_file(tmp_path):
    with pytest.raises(TraceError, match="no such file"):
        load_trace(tmp_path / "none.json")


def test_render_names_steps_changes_and_verdict(witnesses):
    doc = next(d for d in witnesses if d["#meta"]["property"] == "write_back_fails_with_held")
    text = render(doc, "pausecheck replay x")
    assert text.splitlines()[0].startswith("[witness] write_back_fails_with_held (T7.10)")
    assert "writing the assistant message FAILS" in text and "\n    write_failures: 0 -> 1" in text
    assert "e1.segment.write_back: final, taken -> final, write failed" in text
    assert text.rstrip().endswith("reproduce with: pausecheck replay x")


def test_explanation_names_the_steps_behind_the_values():
    from pausecheck.checks.mutants.golden import GOLDEN_DIR
    from pausecheck.traces.explain import explain

    doc = load_trace(GOLDEN_DIR / "failed_write_lands.itf.json")
    meta = doc["#meta"]
    assert meta["explanation"] == explain(meta["message"], doc["states"])
    assert meta["explanation"] == ("a1 (produced at step 3) is delivered on message 1 of e1 (written at step 5) "
                                   "and again on message 2 of e1 (written at step 9)")
    assert render(doc).splitlines()[0].endswith(meta["explanation"])


def _run_python(code: str) -> str:
    """What a pasted snippet prints."""
    import contextlib
    import io

    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, "<pasted>", "exec"), {"__name__": "pasted"})
    return printed.getvalue()


def test_every_golden_counterexample_rebuilds_from_its_python() -> None:
    """The Python printed beside a counterexample, pasted, breaks the same property with the same message."""
    from pausecheck.checks.mutants.golden import GOLDEN_DIR
    from pausecheck.traces.python import reproduction

    paths = sorted(GOLDEN_DIR.glob("*.itf.json"))
    assert len(paths) > 40
    for path in paths:
        document = load_trace(path)
        code = reproduction(document)
        assert code.startswith("# the same behaviour in Python") and max(map(len, code.splitlines())) <= 120
        printed = _run_python(code).strip()
        if document["#meta"]["property"] == "deadlock":  # judged afresh: broken, in the judge's own words
            assert printed.startswith("reaches deadlock: "), path.name
        elif document["#meta"]["kind"] == "eventually":  # a lasso, judged afresh: the loop and what persists
            assert printed.startswith(f"breaks {document['#meta']['property']}: "), (path.name, printed)
        else:
            assert printed == f"breaks {document['#meta']['property']}: {document['#meta']['message']}", path.name


def test_check_prints_python_that_rebuilds_its_counterexample(capsys: pytest.CaptureFixture[str]) -> None:
    from pausecheck.checks.cli import main

    code = main(["check", "--reading", "conformant+A-G1=leave", "--calls", "1", "--pauses", "1", "--observations",
                 "0", "--no-liveness"])
    out = capsys.readouterr().out
    assert code == 1 and "# the same behaviour in Python: paste into python3\n" in out
    snippet = out[out.index("# the same behaviour in Python"):]
    snippet = snippet[:snippet.index("shown, how = machine.judge(")]
    snippet += snippet and "\n".join(out[out.index("shown, how = machine.judge("):].splitlines()[:2]) + "\n"
    assert "reading_named('conformant+A-G1=leave')" in snippet
    printed = _run_python(snippet)
    assert printed.startswith("breaks no_phantom_pause: "), printed
