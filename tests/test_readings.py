"""Readings as switches: names parse back, the rules branch on each switch, and the flip matrix shows
which verdicts each reading changes, with behaviours that replay under their reading."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pausecheck.checks.cli import main
from pausecheck.checks.flips import flip_matrix
from pausecheck.model import (
    CONFORMANT,
    SWITCHES,
    Answer,
    Bounds,
    CallTool,
    Machine,
    ReadingError,
    StartTurn,
    StartWriteBack,
    ToolInterrupts,
    ToolReturns,
    reading_named,
)
from pausecheck.model.state import find_execution

SMALL = Bounds(calls=2, per_call=1, artifacts=2, pauses=2, write_failures=0, observations=0, held_bound=2)


def test_every_switch_defaults_to_the_conformant_reading() -> None:
    for switch in SWITCHES:
        assert switch.default in switch.values and all(switch.values.values())
        assert CONFORMANT.value(switch.ambiguity) == switch.default
        assert CONFORMANT.choice(switch.ambiguity)  # the conformant reading documents the same ambiguity


@pytest.mark.parametrize("name, canonical", [
    ("conformant", "conformant"), ("A-G1=leave", "conformant+A-G1=leave"),
    ("conformant+A-T11=hold+A-G1=leave", "conformant+A-G1=leave+A-T11=hold"), ("A-G1=cancel", "conformant"),
])
def test_names_parse_to_one_canonical_reading(name: str, canonical: str) -> None:
    reading = reading_named(name)
    assert reading.name == canonical and reading_named(reading.name) == reading


@pytest.mark.parametrize("name, words", [
    ("lenient", "a switch is set as AMBIGUITY=VALUE"), ("A-G1=maybe", "the values are cancel, leave"),
    ("A-Z9=x", "not an ambiguity the model switches on"),
])
def test_a_bad_name_says_what_is_accepted(name: str, words: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ReadingError, match=words):
        reading_named(name)
    with pytest.raises(SystemExit) as stop:
        main(["check", "--reading", name])
    assert stop.value.code == 2 and words in capsys.readouterr().err


def _run(reading: str, actions: list) -> object:
    machine = Machine(SMALL, reading_named(reading))
    state = machine.init_states()[0]
    for action in actions:
        state = machine.step(state, action)
        assert state is not None, action
    return state


PAUSE = [StartTurn(1), CallTool("e1"), ToolReturns("e1", "c1", 1), CallTool("e1"), ToolInterrupts("e1", "c2")]


def test_a_g1_leave_keeps_the_declined_attempt_interrupted() -> None:
    decline = PAUSE + [Answer("e1", 1, False)]
    assert [a.status for a in find_execution(_run("conformant", decline), "e1").attempts] == ["completed", "cancelled"]
    assert [a.status for a in find_execution(_run("A-G1=leave", decline), "e1").attempts] == [
        "completed", "interrupted"]


def test_a_t15_new_first_holds_the_new_segment_first() -> None:
    repause = PAUSE + [Answer("e1", 1, True), ToolReturns("e1", "c2", 1), CallTool("e1"), ToolInterrupts("e1", "c3")]
    assert find_execution(_run("conformant", repause), "e1").held == (1, 2)
    assert find_execution(_run("A-T15=new-first", repause), "e1").held == (2, 1)


def test_a_t11_hold_takes_nothing_at_an_interim_write_back() -> None:
    bounds = SMALL.replace(interim_writes=1)
    interim = PAUSE + [Answer("e1", 1, True), ToolReturns("e1", "c2", 0), StartWriteBack("e1", False)]
    for reading, held in (("conformant", ()), ("A-T11=hold", (1,))):
        machine = Machine(bounds, reading_named(reading))
        state = machine.init_states()[0]
        for action in interim:
            state = machine.step(state, action)
        assert find_execution(state, "e1").held == held


@pytest.mark.slow  # four checks: about 7 s
def test_the_flip_matrix_at_small_bounds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base, rows = flip_matrix(SMALL)
    assert base.result.complete
    flips = {row.reading: {f.property: (f.was, f.now) for f in row.flips} for row in rows}
    assert flips["conformant+A-G1=leave"]["no_phantom_pause"] == ("holds", "VIOLATED")
    assert flips["conformant+A-T15=new-first"]["merge_order"] == ("holds", "VIOLATED")
    assert "conformant+A-T11=hold" in flips  # interim messages are beyond these bounds: nothing to flip
    flags = [f"--{k.replace('_', '-')}={v}" for k, v in SMALL.as_dict().items()]
    assert main(["readings", *flags, "--out", str(tmp_path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    traces = [f["trace"] for row in report["rows"] for f in row["flips"] if f["trace"]]
    assert traces and all(Path(t).is_file() for t in traces)
    for trace in traces:  # each behaviour breaks its property under its own reading
        assert main(["replay", "--quiet", trace]) == 1
        assert "[replayed]" in capsys.readouterr().out
