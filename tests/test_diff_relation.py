"""z3 compares two tables' relations for behaviours of any length (issue 54, item 3; `checks/symbolic/tables.py`):
the copying take parts from the rules on a behaviour z3 finds and `replay` confirms; a reordering of independent
statements is the same relation; a guard conjunct no reachable state falsifies is the same for every length,
proved on the states the rules' kept invariants allow."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pausecheck.checks.cli import main
from pausecheck.checks.drafts import load_draft
from pausecheck.checks.symbolic.tables import compare_tables
from pausecheck.model import Bounds, reading_named
from pausecheck.model.rules import RULES

ROOT = Path(__file__).resolve().parent.parent
BOUNDS = ["--calls", "2", "--per-call", "1", "--artifacts", "1", "--pauses", "1", "--observations", "0",
          "--held-bound", "1"]
SMALL = Bounds(calls=2, per_call=1, artifacts=1, pauses=1, observations=0, held_bound=1)

REORDERED = """\
from pausecheck.model.actions import CallTool
from pausecheck.model.deviate import Effect, deviate, on
from pausecheck.model.lang import Set
from pausecheck.model.rules import RUNNING, Attempt, call_id, e, g, new

RULES = deviate(on(CallTool, Effect(  # the counters set in another order: independent statements
    Set(e.attempts, e.attempts.append(new(Attempt, call_id(e.calls + 1), RUNNING))),
    Set(g.calls, g.calls + 1),
    Set(e.calls, e.calls + 1),
)))
"""

UNREACHABLE = """\
from pausecheck.model.actions import CallTool
from pausecheck.model.deviate import Only, deviate, on
from pausecheck.model.rules import e

RULES = deviate(on(CallTool, Only(e.calls < 6)))  # no run reaches six calls here; a well-formed state may
"""

DROPS = """\
from pausecheck.model.actions import PutBack
from pausecheck.model.deviate import Drop, deviate, on
from pausecheck.model.rules import e

RULES = deviate(on(PutBack, Drop(e.held)))
"""


def _draft(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_the_copying_take_parts_on_a_behaviour_z3_finds_and_replay_confirms(tmp_path: Path,
                                                                            capsys: pytest.CaptureFixture[str]) -> None:
    draft = str(ROOT / "examples" / "drafts" / "take_copies.py")
    assert main(["diff", "--draft", draft, *BOUNDS, "--ladder-seconds", "0", "--json", "--jobs", "1",
                 "--out", str(tmp_path)]) == 1
    relation = json.loads(capsys.readouterr().out)["relation"]
    assert relation["verdict"] == "differs" and relation["steps"] == 7, relation
    assert relation["actions"][-1] == "e1: the segment finishes; its write-back takes the held list"
    assert "replayed on both" in relation["how"] and relation["trace"].endswith("relation.itf.json")
    assert main(["replay", relation["trace"]]) == 0
    assert "all 7 steps match the model" in capsys.readouterr().out


def test_a_visible_difference_is_said_as_one(tmp_path: Path) -> None:
    found = compare_tables(SMALL.replace(write_failures=1), reading_named("conformant"), RULES,
                           load_draft(_draft(tmp_path, "drops.py", DROPS)).rules, names=("the rules", "the draft"))
    assert found.verdict == "differs" and type(found.actions[-1]).__name__ == "PutBack", found
    assert "a client sees something else" in found.how or "other states" in found.how


def test_a_reordering_of_independent_statements_is_the_same_for_every_length(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    draft = _draft(tmp_path, "reordered.py", REORDERED)
    assert main(["diff", "--draft", draft, *BOUNDS, "--ladder-seconds", "0", "--jobs", "1",
                 "--out", str(tmp_path / "d")]) == 0
    out = capsys.readouterr().out
    assert "z3, the two relations for behaviours of any length: same: the same for every length at these bounds: " \
           "proved" in out
    assert out.splitlines()[-2].endswith("and z3 proves the same behaviours for every length")


def test_a_change_no_reachable_state_sees_is_proved_on_the_kept_invariants(tmp_path: Path) -> None:
    """Without invariants z3 finds a state where the tables part (ten calls made); the rules' kept invariants
    rule it out, and the proof goes through: the same for every length."""
    rules = load_draft(_draft(tmp_path, "unreachable.py", UNREACHABLE)).rules
    reading = reading_named("conformant")
    bare = compare_tables(SMALL, reading, RULES, rules, invariants=False, depth=4)
    assert bare.verdict == "not proved" and "it may be unreachable" in bare.how, bare
    found = compare_tables(SMALL, reading, RULES, rules, depth=4)
    assert found.verdict == "same" and "invariants `prove --induction` keeps" in found.how, found
