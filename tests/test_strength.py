"""Every clause's strength is backed by the code: a `full` clause has a mutant its property kills, an
excused one is formalised by nothing, every weaker label says why (checks/mutants/strength.py)."""

from __future__ import annotations

import dataclasses
import re
from html import escape

import pytest
from pausecheck.checks.mutants import MUTANTS
from pausecheck.checks.mutants.strength import killing_mutants, strength_problems
from pausecheck.model import CLAUSES, PROPERTIES
from pausecheck.model.clauses import BY_CONSTRUCTION, EXCUSED, FULL, PARTIAL, STRENGTHS, clause


def test_the_catalogue_is_consistent() -> None:
    assert strength_problems() == []


def test_every_clause_has_a_known_strength_and_weaker_ones_a_note() -> None:
    for c in CLAUSES:
        assert c.strength in STRENGTHS, c
        assert (c.note == "") == (c.strength == FULL), f"{c.id}: a note belongs to every clause but a full one"
        assert "\n" not in c.note, f"{c.id}: the note is one line"


def test_excused_reads_the_note_of_an_excused_clause_only() -> None:
    for c in CLAUSES:
        assert c.excused == (c.note if c.strength == EXCUSED else None)
    assert clause("E9.6").excused and clause("T7.1").excused is None


def test_the_target_rules_are_judged_clause_by_clause() -> None:
    target = [c for c in CLAUSES if c.rule in ("RT-TOOL-7", "RT-GATE-6")]
    assert len(target) == 24
    # none of the two rules' own clauses is out of scope, and each can fail under some mutant
    assert all(c.strength in (FULL, PARTIAL) for c in target)
    for c in target:
        if c.strength == FULL:
            assert killing_mutants(c.id), c.id


def _without(names: set[str]) -> tuple:
    return tuple(m for m in MUTANTS if m.name not in names)


def test_a_full_clause_without_a_killing_mutant_is_caught() -> None:
    # T7.13 is shown only by unbounded_held: take it away and T7.13's claim is unbacked
    assert killing_mutants("T7.13") == ["unbounded_held"]
    problems = strength_problems(_without({"unbounded_held"}))
    assert problems == [problems[0]] and problems[0].startswith("T7.13: full, but no mutant")


def test_an_equivalent_or_mistargeted_mutant_does_not_count() -> None:
    unbounded = next(m for m in MUTANTS if m.name == "unbounded_held")
    equivalent = dataclasses.replace(unbounded, target=None, shortest=None, equivalent=True, reason="planted")
    mistargeted = dataclasses.replace(unbounded, target="no_loss")  # no_loss does not cite T7.13
    for planted in (equivalent, mistargeted):
        catalogue = _without({"unbounded_held"}) + (planted,)
        assert [p.split(":")[0] for p in strength_problems(catalogue)] == ["T7.13"]


@pytest.mark.parametrize(("planted", "expected"), [
    (dict(strength="strong"), "unknown strength"),
    (dict(strength=PARTIAL, note=" "), "without a note"),
    (dict(strength=EXCUSED, note="planted"), "excused, but cited by"),
])
def test_planted_labels_are_caught(planted: dict, expected: str) -> None:
    clauses = tuple(c._replace(**planted) if c.id == "T7.13" else c for c in CLAUSES)
    problems = strength_problems(clauses=clauses)
    assert len(problems) == 1 and problems[0].startswith("T7.13: ") and expected in problems[0], problems


def test_a_by_construction_clause_a_property_can_break_is_caught() -> None:
    clauses = tuple(c._replace(strength=BY_CONSTRUCTION, note="planted") if c.id == "T7.13" else c for c in CLAUSES)
    problems = strength_problems(clauses=clauses)
    assert [p.split(", but ")[0] for p in problems] == ["T7.13: by-construction"] * 2, problems
    assert "cited by held_bounded" in problems[0] and "the mutant(s) unbounded_held" in problems[1]


def test_a_formalised_label_needs_a_property() -> None:
    properties = tuple(p for p in PROPERTIES if p.name != "held_bounded")  # the only property citing T7.13
    problems = strength_problems(properties=properties)
    assert any(p.startswith("T7.13: full, but no always or transition property") for p in problems), problems


def test_a_mutant_naming_an_unknown_clause_is_caught() -> None:
    planted = dataclasses.replace(MUTANTS[0], name="planted", clauses=("T7.99",))
    assert strength_problems(MUTANTS + (planted,)) == ["mutant planted names clauses the catalogue lacks: T7.99"]


# ---------------------------------------------------------------------------------------------
# every rendering of a check report shows each clause's strength, and the note of a weaker one

SMALL = dict(calls=1, per_call=1, artifacts=1, pauses=1, write_failures=0, observations=0)


@pytest.fixture(scope="module")
def report():
    import pausecheck

    return pausecheck.check(pausecheck.Bounds(**SMALL), companion=False, accept_unexercised=True)


def test_clause_verdicts_carry_the_strength(report) -> None:
    assert [(v.id, v.strength, v.note) for v in report.clauses] == [(c.id, c.strength, c.note) for c in CLAUSES]
    by_id = {v.id: v for v in report.clauses}
    for c in CLAUSES:
        if c.strength == BY_CONSTRUCTION:
            assert by_id[c.id].status == "by construction" and by_id[c.id].excused == c.note
    assert by_id["E9.6"].status == "excused" and by_id["E9.6"].excused == clause("E9.6").note
    assert by_id["T7.1"].excused is None and report.exit_code == 0


def test_the_text_table_has_a_strength_column_and_the_notes(report) -> None:
    from pausecheck.checks.console import console
    from pausecheck.checks.report.text import clause_table

    out = console(color=False)
    with out.capture() as captured:
        out.print(clause_table(report))
    text = captured.get()
    assert text.splitlines()[0].split() == ["clause", "text", "verdict", "strength", "checked", "by"]
    lines = text.splitlines()
    start, end = lines[0].index("text"), lines[0].index("verdict")
    cells: dict[str, list[str]] = {}  # each clause's text cell, over the lines of its row
    for line in lines[1:]:
        if line[:1].isalpha():
            row = cells.setdefault(line.split()[0], [])
        row.append(line[start:end])
    for c in CLAUSES:
        label = {PARTIAL: "partial", BY_CONSTRUCTION: "by construction", EXCUSED: "not modelled"}.get(c.strength)
        if label:
            assert f"{label}: {' '.join(c.note.split())}" in " ".join(" ".join(cells[c.id]).split()), c.id
    rows = {line.split()[0]: line for line in text.splitlines() if line[:1].isalpha()}
    for c in CLAUSES:
        assert re.match(rf"{re.escape(c.id)} .*  {re.escape(c.strength)}  ", rows[c.id]), rows[c.id]


def test_json_html_and_markdown_carry_the_strength(report) -> None:
    from pausecheck.checks.report.html import html_report
    from pausecheck.checks.report.markdown import markdown_report
    from pausecheck.checks.report.text import check_json

    clauses = check_json(report, {})["clauses"]
    assert [(c["id"], c["strength"], c["note"]) for c in clauses] == [(c.id, c.strength, c.note) for c in CLAUSES]
    page, md = html_report(report, []), markdown_report(report, [])
    assert "<th>strength</th>" in page and "| clause | rule | text | verdict | strength |" in md
    t71 = clause("T7.1")
    assert t71.strength == PARTIAL
    assert f'<span class="status warn">partial</span><br><span class="small">{escape(t71.note)}</span>' in page
    assert f"| partial<br>{t71.note} |" in md
