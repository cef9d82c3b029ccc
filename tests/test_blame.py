"""Clause blame: a counterexample breaks the clauses of the part of the property's formula that failed; the
property's other clauses are only involved (`model/blame.py`, the parts in `model/formulas.py`). And the kill
matrix of a base that itself breaks a property (`checks/mutants/killmatrix.py`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pausecheck.checks.cli import main
from pausecheck.checks.drafts import load_draft
from pausecheck.checks.mutants import mutant_named
from pausecheck.checks.mutants.golden import GOLDEN_DIR
from pausecheck.checks.mutants.killmatrix import kill_matrix
from pausecheck.checks.report import check
from pausecheck.checks.verdict.verdicts import INVOLVED, VIOLATED
from pausecheck.model import Bounds
from pausecheck.model.blame import blamed
from pausecheck.model.formulas import FORMULAS
from pausecheck.model.properties import PROPERTIES
from pausecheck.traces.itf import decode_state, load_trace
from pausecheck.traces.replay import decode_actions

ROOT = Path(__file__).resolve().parent.parent
DRAFTS = ROOT / "examples" / "drafts"
# two calls, two artifacts, one pause and a failing write: every draft below breaks what it changes
BOUNDS = Bounds(calls=2, per_call=1, artifacts=2, pauses=1, write_failures=1, observations=0, held_bound=1)


def test_the_parts_of_a_formula_name_exactly_its_property_s_clauses():
    parted = 0
    for p in PROPERTIES:
        formula = FORMULAS.get(p.name)
        if formula is None or not formula.parts:
            continue
        parted += 1
        named = {c for part in formula.parts for c in part.clauses + tuple(c for _, cs in part.by_step for c in cs)}
        assert named == set(p.clauses), p.name
    assert parted >= 10


def _clause_table(draft: str) -> dict[str, str]:
    report = check(BOUNDS, rules=load_draft(DRAFTS / draft).rules, liveness=False, companion=False)
    return {c.id: c.status for c in report.clauses if c.status in (VIOLATED, INVOLVED)}


@pytest.mark.parametrize(("draft", "broken", "involved"), [
    # the message lists the new artifacts first: only the merge (T7.5, T7.6) fails, not the take (T7.4, T7.7)
    ("new_first.py", {"T7.5", "T7.6"}, {"T7.4", "T7.7"}),
    # the put-back keeps the held list as it was: nothing was dropped (T7.15), nothing discarded at a pause (T7.1)
    ("put_back_drops.py", {"T7.10", "T7.12"}, {"T7.1", "T7.11", "T7.15"}),
    # the take copies: not destructive (T7.7), so delivered twice (T7.8), shown while held (T7.3), held twice
    # over the bound (T7.13); the take itself, the merge and the drops did not fail
    ("take_copies.py", {"T7.3", "T7.7", "T7.8", "T7.13"}, {"T7.1", "T7.4", "T7.5", "T7.6", "T7.12", "T7.15"}),
])
def test_a_draft_s_clause_table_marks_only_the_clauses_that_failed(draft, broken, involved):
    table = _clause_table(draft)
    assert {c for c, s in table.items() if s == VIOLATED} == broken
    assert {c for c, s in table.items() if s == INVOLVED} == involved


# a golden trace's target property blames a clause the mutant names, but where the mutant's clause is not one
# of the property's (G6.9 for no_phantom_pause) or it breaks the part that another clause names
OTHER_CLAUSE = {"answer_leaves_question_pending": "G6.5", "put_back_merged_bounded": "T7.10"}


# the golden traces that break a property (a deadlock names none, so it blames no clause)
VIOLATIONS = [p for p in sorted(GOLDEN_DIR.glob("*.itf.json")) if load_trace(p)["#meta"]["verdict"] == "violation"]


@pytest.mark.parametrize("path", VIOLATIONS, ids=lambda p: p.name)
def test_a_mutant_s_counterexample_blames_the_clause_it_breaks(path):
    document = load_trace(path)
    meta = document["#meta"]
    states = [decode_state(s) for s in document["states"]]
    found = blamed(meta["property"], tuple(meta["clauses"]), Bounds(**meta["bounds"]), states,
                   decode_actions(document, str(path)))
    mutant = mutant_named(meta["mutant"])
    assert found and set(found) <= set(meta["clauses"])
    if mutant.name in OTHER_CLAUSE:
        assert found == (OTHER_CLAUSE[mutant.name],)
    else:
        assert set(found) & set(mutant.clauses), (mutant.name, found)


def test_a_property_without_parts_or_path_blames_every_clause():
    assert blamed("held_hidden", ("T7.3",), BOUNDS, (), ()) == ("T7.3",)
    assert blamed("no_such_property", ("T7.1", "T7.2"), BOUNDS, (), ()) == ("T7.1", "T7.2")


# ---------------------------------------------------------------------------------------------
# The kill matrix of a failing base


def test_a_base_that_breaks_a_property_fails_the_kill_matrix():
    draft = load_draft(DRAFTS / "new_first.py")
    # no_put_back is caught by what the draft keeps; repause_prepends_new only by merge_order, which it breaks
    chosen = [mutant_named("no_put_back"), mutant_named("take_keeps_held")]
    matrix = kill_matrix(chosen, BOUNDS, jobs=1, draft=draft)
    assert "merge_order" in matrix.base_broken and "write_back_delivers" in matrix.base_broken
    assert matrix.verdict().startswith(f"[fail] the draft {draft.path} breaks merge_order")
    assert matrix.base_failure().startswith(f"the draft {draft.path} already breaks merge_order")
    for row in matrix.mutants:  # no kill by what the base breaks
        assert not set(row.killed_by) & set(matrix.base_broken), row
    assert matrix.row("no_put_back").killed_by and "merge_order" in matrix.row("no_put_back").base_kills
    assert matrix.to_json()["base"]["searches"][0]["broken"]["merge_order"] >= 1


def test_the_rules_keep_every_property_so_the_base_passes():
    matrix = kill_matrix([mutant_named("no_put_back")], BOUNDS, jobs=1)
    assert matrix.base_broken == () and matrix.base_failure() is None
    assert matrix.row("no_put_back").base_kills == ()


def test_mutants_on_a_failing_draft_exit_1_saying_so_first(capsys):
    code = main(["mutants", "--draft", str(DRAFTS / "new_first.py"), "--only", "no_put_back", "--no-color",
                 "--jobs", "1"])
    out = capsys.readouterr().out
    assert code == 1, out
    assert out.startswith(f"BASE FAILS: the draft {DRAFTS / 'new_first.py'} already breaks merge_order"), out
    assert "[fail] the draft" in out.splitlines()[-1] and "[ok]" not in out
