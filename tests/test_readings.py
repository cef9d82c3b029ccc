"""Readings as switches: names parse back, the rules branch on each switch, and the flip matrix shows
which verdicts each reading changes, with behaviours that replay under their reading."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pausecheck.checks.cli import main
from pausecheck.checks.mutants.flips import flip_matrix
from pausecheck.model import (
    CONFORMANT,
    SWITCHES,
    Answer,
    Bounds,
    CallTool,
    Crash,
    Machine,
    PutBack,
    ReadingError,
    ReportFailure,
    StartTurn,
    StartWriteBack,
    ToolInterrupts,
    ToolReturns,
    WriteMessage,
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


RESUME = PAUSE + [Answer("e1", 1, True), ToolReturns("e1", "c2", 1)]
WRITE_BACK = [StartWriteBack("e1", True), WriteMessage("e1", False), PutBack("e1"), ReportFailure("e1"),
              StartWriteBack("e1", True), WriteMessage("e1", True)]


def _check_always(machine: Machine, state: object) -> list[str]:
    return [p.name for p in machine.properties if p.kind == "always" and p.check(state, machine.context())]


@pytest.mark.parametrize("cut", range(len(WRITE_BACK) + 1))
def test_a_crash_at_every_point_of_a_conformant_write_back_loses_nothing(cut: int) -> None:
    """Held a1, the resumed segment collected a2; the write-back fails once, then succeeds. A crash
    after any of its steps but the last keeps a1 held and delivers nothing (a2, never held, dies with
    its segment; the last step, a delivery, ends the segment: no crash falls after it), and the
    restarted run delivers a1 exactly once."""
    bounds = SMALL.replace(write_failures=1, crashes=1)
    machine = Machine(bounds, CONFORMANT)
    state = machine.init_states()[0]
    for action in RESUME + WRITE_BACK[:cut]:
        state = machine.step(state, action)
        assert state is not None, action
    crashed = machine.step(state, Crash())
    if crashed is None:  # no segment in flight (the write-back ended it): no crash falls here
        assert cut == len(WRITE_BACK)
        return
    assert _check_always(machine, crashed) == []
    e1 = find_execution(crashed, "e1")
    assert e1.held == (1,) and e1.messages == (), "a crash mid write-back must put a1 back, held, undelivered"
    for action in [StartWriteBack("e1", True), WriteMessage("e1", True)]:
        crashed = machine.step(crashed, action)
        assert crashed is not None and _check_always(machine, crashed) == []
    assert sum(m.count(1) for m in find_execution(crashed, "e1").messages) == 1


@pytest.mark.parametrize("reading, lost", [("A-T6=take-first", True), ("A-T6=atomic", False)])
def test_a_crash_after_a_non_atomic_take_loses_the_taken(reading: str, lost: bool) -> None:
    machine = Machine(SMALL.replace(crashes=1), reading_named(reading))
    state = machine.init_states()[0]
    for action in RESUME + [StartWriteBack("e1", True), Crash()]:
        state = machine.step(state, action)
    assert ("no_loss" in _check_always(machine, state)) == lost


def test_readings_list_names_all_33_ambiguities(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["readings", "--list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)["ambiguities"]
    assert len(listed) == 33 and sum(a["modelled"] for a in listed) == len(SWITCHES) >= 14
    assert all(a["fix"] if a["modelled"] else a["reason"] for a in listed)
    assert main(["readings", "--list"]) == 0
    assert "33 ambiguities" in capsys.readouterr().out


# At SMALL, each single reading's shortest counterexample (property, steps), or None where it breaks nothing:
# SMALL has no failing write-back (A-T4, A-T14, A-T9 put-back/merge need one), no overflow at a re-pause
# (A-T9 first-hold) and no interim message (A-T11). docs/readings.md gives the default bounds' figures.
SHORTEST = {
    "A-G1=leave": ("resume_supersedes", 4), "A-T15=new-first": ("merge_order", 12), "A-T11=hold": None,
    "A-T1=turn": ("write_back_delivers", 7), "A-T4=release": None, "A-T4=merge": None, "A-T5=append": None,
    "A-T5=assign": None, "A-T6=take-first": ("no_loss", 8), "A-T6=write-first": ("no_loss", 5),
    "A-T7=racy": ("messages_only_from_write_back", 7),
    "A-T7=racy-read-then-clear": ("messages_only_from_write_back", 8),
    "A-T8=deliver": ("messages_only_from_write_back", 6), "A-T8=discard": ("no_loss", 6),
    "A-T8=strand": ("eventual_delivery", 6), "A-T9=first-hold": None, "A-T9=put-back": None, "A-T9=merge": None,
    "A-T12=with-artifacts": ("no_loss", 6), "A-T14=ambiguous": None, "A-G3=new-first": ("no_phantom_pause", 8),
    "A-G4=failed-unmarked": ("tool_failures_handled", 3), "A-G4=completed-with-error": ("failure_recorded_failed", 3),
    "A-G9=close-one": ("resume_supersedes", 5), "A-G11=leave": ("no_phantom_pause", 4),
    "A-X5=carry-on": ("work_skipped_after_unhandled_failure", 3),
}


@pytest.mark.slow  # about 35 small checks, in parallel: a minute or two
def test_the_flip_matrix_at_small_bounds(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    matrix = flip_matrix(SMALL)
    _the_report_has_every_ambiguity_and_trace(matrix, tmp_path, monkeypatch)
    capsys.readouterr()
    assert all(d.complete and not d.broken for d in matrix.defaults), "the conformant reading breaks nothing"
    flips = {row.reading: {f.property: (f.was, f.now) for f in row.flips} for row in matrix.rows}
    for row in matrix.rows:
        if len(row.switches) == 1:
            broken = {f.property: f.steps for f in row.flips if f.steps is not None}
            found = min(broken.items(), key=lambda item: (item[1], item[0])) if broken else None
            assert found == SHORTEST[row.reading.removeprefix("conformant+")], row.reading
    assert flips["conformant+A-G1=leave"]["no_phantom_pause"] == ("holds", "VIOLATED")
    assert flips["conformant+A-T15=new-first"]["merge_order"] == ("holds", "VIOLATED")
    assert flips["conformant+A-T6=take-first"]["no_loss"] == ("holds", "VIOLATED")
    assert flips["conformant+A-T8=strand"]["finished_holds_nothing"] == ("holds", "VIOLATED")
    assert flips["conformant+A-G3=new-first"]["no_phantom_pause"] == ("holds", "VIOLATED")
    flags = [f"--{k.replace('_', '-')}={v}" for k, v in SMALL.as_dict().items()]
    from pausecheck.checks.cli import readings  # the command renders and writes the matrix computed above
    monkeypatch.setattr(readings, "flip_matrix", lambda *args, **kwargs: matrix)
    assert main(["readings", *flags, "--out", str(tmp_path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    traces = [f["trace"] for row in report["flips"] for f in row["flips"] if f["trace"]]
    assert traces and all(Path(t).is_file() for t in traces)
    assert {r["reading_name"] for r in report["results"]} >= {"conformant", "conformant+A-T6=take-first"}
    for trace in traces:  # each behaviour breaks its property under its own reading
        assert main(["replay", "--quiet", trace]) == 1
        assert "[replayed]" in capsys.readouterr().out


def _the_report_has_every_ambiguity_and_trace(matrix: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`pausecheck report --readings` (md and html): a section per ambiguity with its clauses, every
    modelled reading in a line, a diagram for each reading that breaks something, and the fix."""
    import re

    from pausecheck.checks.cli import commands
    from pausecheck.model.ambiguities import AMBIGUITIES

    monkeypatch.setattr(commands, "flip_matrix", lambda *args, **kwargs: matrix)
    flags = [f"--{k.replace('_', '-')}={v}" for k, v in SMALL.as_dict().items()]
    breaking = [r for r in matrix.rows if len(r.switches) == 1 and any(f.steps for f in r.flips)]
    assert breaking
    for fmt in ("md", "html"):
        out = tmp_path / f"report.{fmt}"
        main(["report", *flags, "--accept-unexercised", "--readings", "--format", fmt, "--out", str(out)])
        text = out.read_text(encoding="utf-8")
        for a in AMBIGUITIES:
            heading = f"### {a.id}: " if fmt == "md" else f'id="{a.id}"'
            assert heading in text, f"{a.id} missing from the {fmt} report"
            assert all(c in text for c in a.clauses)
            assert (a.fix if a.modelled else a.reason) in text.replace("&#x27;", "'")
        if fmt == "md":
            assert len(re.findall(r"Shortest behaviour telling", text)) == len(breaking)
            assert text.count("```mermaid") >= len(breaking)
        else:
            found = set(re.findall(r'data-reading="([^"]+)"', text))
            assert found == {r.reading for r in breaking}
            assert text.count("<svg") >= len(breaking)


def test_a_new_turn_instead_of_an_answer_breaks_nothing_under_the_conformant_reading() -> None:
    """INT-13: a caller starts a new turn while its turn is paused; the paused execution stays paused and
    answerable. At small bounds (the default bounds with this fault exceed what a test affords) the
    conformant reading breaks no property, and a new turn does happen."""
    from pausecheck.checks.report import check

    bounds = Bounds(calls=1, per_call=1, artifacts=1, pauses=1, write_failures=1, observations=0, held_bound=1,
                    new_turns=1, expiries=1)
    report = check(bounds, "conformant", companion=False, accept_unexercised=True)
    assert report.result.complete
    assert [p.name for p in report.properties if p.status == "VIOLATED"] == []
    machine = Machine(bounds, CONFORMANT)
    state = machine.init_states()[0]
    for action in [StartTurn(1), CallTool("e1"), ToolInterrupts("e1", "c1"), StartTurn(1)]:
        state = machine.step(state, action)
        assert state is not None, action
    assert state.new_turns == (1,) and find_execution(state, "e1").status == "paused"
    assert machine.step(state, Answer("e1", 1, True)) is not None, "the paused turn stays answerable"


def test_a_diagram_without_the_fault_its_reading_speaks_of_says_so() -> None:
    """A-T6=write-first speaks of a crash; its shortest behaviour at small bounds has none: the page says so,
    and says nothing where the trace has the crash."""
    from types import SimpleNamespace

    from pausecheck.checks.report.readings import fault_note, meaning

    row = SimpleNamespace(switches=(("A-T6", "write-first"),))
    steps = [{"#meta": {"action": {"kind": kind}}} for kind in ("start-turn", "call-tool", "write-message")]
    assert "has no crash" in fault_note(row, {"states": [{}] + steps})
    crashed = {"states": [{}] + steps + [{"#meta": {"action": {"kind": "crash"}}}]}
    assert fault_note(row, crashed) == ""
    assert fault_note(SimpleNamespace(switches=(("A-G1", "leave"),)), {"states": [{}] + steps}) == ""
    switch = next(s for s in SWITCHES if s.ambiguity == "A-G1")
    assert "(the conformant reading)" not in meaning(switch, switch.default)
