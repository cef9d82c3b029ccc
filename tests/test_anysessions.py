"""Any number of sessions (`checks/symbolic/footprint.py`, `anysessions.py`, `prove --compositional --sessions
any`): the theorem holds of the rules with every fault, each lemma and each carrying can fail, the mutant that
keys held lists by workflow fails with a two-session run that replays, and a per-session list does not."""

from __future__ import annotations

import json

import pytest
from pausecheck.checks.cli import main
from pausecheck.checks.mutants.catalogue import MUTANTS
from pausecheck.checks.symbolic import anysessions
from pausecheck.checks.symbolic.anysessions import _named, _restartable, prove_any_sessions
from pausecheck.checks.symbolic.carrying import carries, carries_step
from pausecheck.checks.symbolic.footprint import footprint
from pausecheck.model import Bounds, Machine
from pausecheck.model.actions import StartTurn, ToolInterrupts
from pausecheck.model.formulas import FORMULAS, P, S, kind
from pausecheck.model.lang import Rule, lift
from pausecheck.model.reading import CONFORMANT, SWITCHES, reading_named
from pausecheck.model.rules import RULES, SESSIONS, START_TURN
from pausecheck.model.state import PAUSED, RUNNING, Execution, State
from pausecheck.traces.replay import replay

SMALL = Bounds(calls=1, per_call=1, artifacts=1, pauses=1, write_failures=0, observations=0, held_bound=1)
FAULTS = SMALL.replace(crashes=1, expiries=1, races=1, new_turns=1)  # 19,164 one-session states
# every rule and branch the bounds can enable (the footprint alone: the one-session space passes a million states)
EVERY_FAULT = FAULTS.replace(node_failures=1, interim_writes=1, write_failures=1, endless_writes=1)


def _mutant(name: str) -> tuple[Rule, ...]:
    return next(m.rules for m in MUTANTS if m.name == name)


def test_the_rules_hold_for_any_number_of_sessions_with_the_faults() -> None:
    proof = prove_any_sessions(FAULTS, CONFORMANT, RULES)
    assert proof.proved and proof.complete, [f for f in proof.findings if not f.holds]
    assert {f.lemma for f in proof.findings} >= {"transparent", "own item", "budget", "fresh", "crash", "renamed"}
    assert {f.rule for f in proof.findings} >= {"StartTurn", "Crash", "Expire", "WriteMessage", "ToolInterrupts"}
    assert [c.name for c in proof.carried if not c.carried] == []
    assert len(proof.carried) == 27 and proof.counterexample is None and proof.states == 19_164


def test_every_rule_keeps_the_lemmas_with_every_fault() -> None:
    found = footprint(EVERY_FAULT, CONFORMANT, RULES)
    assert all(f.holds for f in found), [f for f in found if not f.holds]
    assert {f.rule for f in found} >= {"NodeFails", "WriteMessage", "LoseRace", "Crash"}


def test_one_held_list_per_workflow_fails_and_two_sessions_show_it() -> None:
    proof = prove_any_sessions(SMALL, CONFORMANT, _mutant("held_keyed_per_workflow"))
    failing = [f for f in proof.findings if not f.holds]
    assert not proof.proved
    assert any(f.rule == "ToolInterrupts" and f.lemma == "transparent" and f.what.startswith("S.executions.map")
               and "changes another session's Execution" in f.why for f in failing), failing
    document = proof.counterexample
    assert document is not None and document["#meta"]["bounds"]["sessions"] == 2
    two = Machine(Bounds.of(document["#meta"]["bounds"]), CONFORMANT, _mutant("held_keyed_per_workflow"))
    assert replay(document, two).reproduced
    assert {s["#meta"]["action"].get("session") for s in document["states"][1:] if "session" in s["#meta"]["action"]} \
        == {1, 2}


def test_an_item_z3_leaves_free_is_named_without_its_values() -> None:
    """Where a lemma fails on another session's item whose fields z3 left free, the finding names the item; a code
    no word has is not decoded (it raised IndexError, and failed the proof, when z3 chose such a model)."""
    import z3
    from pausecheck.checks.symbolic.footprint import Walk
    from pausecheck.checks.symbolic.relation import Caps, fresh_value

    walk = Walk(Caps.of(SMALL), SMALL, None, [])
    item = fresh_value(walk.caps, Execution, "other")
    status = item[Execution._fields.index("status")]
    assert walk.holds([status == 26], z3.BoolVal(False), item, Execution) == (
        False, "another session's Execution, one with a field no state holds")
    _, why = walk.holds([status == 0], z3.BoolVal(False), item, Execution)
    assert why.startswith("another session's Execution Execution(id=''")


def test_a_held_list_per_session_is_a_matter_of_one_session() -> None:
    """Pooling within a session (INT-13's new turn) is for the one-session search to judge: the lemmas hold."""
    assert all(f.holds for f in footprint(EVERY_FAULT, CONFORMANT, _mutant("held_keyed_per_session")))


def test_a_guard_that_other_sessions_can_open_is_refused() -> None:
    """A turn that may start once any session has an execution: more of the others' items enable it (no budget)."""
    eager = Rule(StartTurn, SESSIONS, guard=(S.executions.size > 0,), fields=START_TURN.fields,
                 effect=START_TURN.effect, clauses=(), doc="a turn starts once any execution exists")
    table = tuple(eager if r is START_TURN else r for r in RULES)
    failing = [f for f in footprint(SMALL, CONFORMANT, table) if not f.holds]
    assert [(f.rule, f.lemma) for f in failing] == [("StartTurn", "budget")]


def test_a_property_that_counts_across_sessions_does_not_carry() -> None:
    assert not carries(SMALL, CONFORMANT, S.executions.count(lambda x: x.status == PAUSED) <= 1).holds
    assert not carries(SMALL, CONFORMANT, S.executions.all_of(
        lambda x: S.executions.all_of(lambda y: y.session == x.session))).holds
    assert carries(SMALL, CONFORMANT, S.executions.all_of(lambda x: x.held.size <= 1)).holds
    # at a pause, the step's own execution is the only paused one: true of one session, not of two
    only_paused = ~kind(ToolInterrupts) | (P.executions.count(lambda x: x.status == PAUSED) == lift(1))
    assert not carries_step(SMALL, CONFORMANT, RULES, only_paused, (ToolInterrupts,)).holds
    assert carries_step(SMALL, CONFORMANT, RULES, FORMULAS["one_question_per_pause"].expr, ()).holds


def test_the_one_session_facts_can_fail() -> None:
    running = Execution("e1", 1, RUNNING, 0, (), (), (2,), (), 0, 0)
    assert "ref 2" in _named(State(executions=(running,)))
    assert "no segment" in _restartable(State(executions=(running,)))
    assert _named(State()) == _restartable(State()) == ""


def test_sessions_any_is_read_only_by_the_compositional_proof(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--sessions", "any"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "prove --compositional" in err


def test_the_json_says_what_was_proved(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["prove", "--compositional", "--sessions", "any", "--json", *SMALL.flags().split()])
    out = json.loads(capsys.readouterr().out)
    assert code == out["exit"] == 0 and out["proved"] and out["sessions"] == "any"
    assert out["complete"] and out["one_session_states"] > 10
    assert all(row["holds"] for row in out["lemmas"]) and all(row["carried"] for row in out["carried"])


@pytest.mark.slow
@pytest.mark.parametrize("reading", [f"conformant+{s.ambiguity}={v}" for s in SWITCHES for v in s.values
                                     if v != s.default])
def test_every_reading_keeps_the_lemmas(reading: str) -> None:
    found = footprint(EVERY_FAULT, reading_named(reading), RULES)
    assert all(f.holds for f in found), [f for f in found if not f.holds]


def test_facts_checked_on_fewer_states_than_the_bounds_reach_settle_nothing(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(anysessions, "MAX_STATES", 10)
    assert main(["prove", "--compositional", "--sessions", "any", "--no-color", *SMALL.flags().split()]) == 3
    out = capsys.readouterr().out
    assert "[incomplete] stopped at 10 one-session states" in out and "[ok]" not in out
