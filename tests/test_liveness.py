"""Liveness: the three properties hold on small bounds, the graph agrees with the explorer, and each
property is broken by a deliberately broken machine (a deviant rule table, or a hand-made graph with a cycle)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any, NamedTuple

import pytest
from pausecheck.checks.mutants.evidence import lasso_document
from pausecheck.checks.search.liveness import Lasso, LivenessGraphTooLarge, LivenessResult, check_liveness
from pausecheck.model import BOUND_HELP, LIVENESS, Bounds, Machine
from pausecheck.model.actions import Answer, WriteMessage
from pausecheck.model.deviate import Also, deviate, on
from pausecheck.model.lang import Set, When
from pausecheck.model.rules import S, approve, e, finished
from pausecheck.model.state import DECLINED, Execution, Question, State
from pausecheck.traces.replay import replay

from pausecheck import explore

# Small bounds; any bound not named here (the model grows new ones) sits at its minimum, to keep this fast.
MINIMA = {name: minimum for name, (minimum, _) in BOUND_HELP.items()}
SMALL = Machine(Bounds(**MINIMA | dict(calls=2, per_call=1, artifacts=2, pauses=1, write_failures=1, held_bound=1)))
NAMES = ("no_stuck_execution", "eventual_delivery", "declined_run_completes")


def _is_decline(action: Any) -> bool:
    return type(action).__name__ == "Answer" and getattr(action, "approve", None) is False


# A declined answer leaves the run without a segment: nothing ever drives it again.
DECLINE_DOES_NOT_RESUME = deviate(on(Answer, Also(When(~approve.ref, (
    Set(S.segments, S.segments.filter(lambda y: y.execution != e.id)),)))))
# When an execution finishes, artifact a1 is put back into its held list, where it stays.
FINISH_REHOLDS = deviate(on(WriteMessage, Also(When(finished(e.status) & (S.artifacts.size > 0) & ~e.held.contains(1), (
    Set(e.held, e.held.append(1)),)))))


@pytest.fixture(scope="module")
def small() -> LivenessResult:
    return check_liveness(SMALL)


@pytest.fixture(scope="module")
def stuck() -> tuple[Machine, LivenessResult]:
    machine = dataclasses.replace(SMALL, rules=DECLINE_DOES_NOT_RESUME)
    return machine, check_liveness(machine)


@pytest.fixture(scope="module")
def rehold() -> tuple[Machine, LivenessResult]:
    machine = dataclasses.replace(SMALL, rules=FINISH_REHOLDS)
    return machine, check_liveness(machine)


def test_all_hold_on_small_bounds(small: LivenessResult) -> None:
    assert [v.name for v in small.verdicts] == list(NAMES)
    assert all(v.holds and v.lasso is None and v.message is None for v in small.verdicts)
    assert all(v.clauses and v.doc for v in small.verdicts)


def test_facts_agree_with_the_explorer(small: LivenessResult) -> None:
    result = explore(SMALL)
    facts = small.facts
    assert (facts.states, facts.transitions) == (result.states, result.transitions)
    assert facts.edges + facts.self_loops <= facts.transitions
    assert facts.nontrivial_sccs == 0  # the model is acyclic apart from self-loops
    assert 0 < facts.final_states <= facts.end_states < facts.states
    assert facts.seconds > 0


def test_max_states_guard() -> None:
    with pytest.raises(LivenessGraphTooLarge, match="more than 10 states"):
        check_liveness(SMALL, max_states=10)


def _assert_lasso(lasso: Lasso | None) -> Lasso:
    """A lasso is a real path whose loop closes; returns it for more checks."""
    assert lasso is not None
    assert 0 <= lasso.loop_start < len(lasso.states)
    assert len(lasso.actions) in (len(lasso.states) - 1, len(lasso.states))
    return lasso


def test_a_decline_that_does_not_resume_is_stuck(stuck: tuple[Machine, LivenessResult]) -> None:
    machine, result = stuck
    assert not result.verdict("no_stuck_execution").holds
    assert not result.verdict("declined_run_completes").holds
    for name in ("no_stuck_execution", "declined_run_completes"):
        lasso = _assert_lasso(result.verdict(name).lasso)
        last = lasso.states[-1]
        assert lasso.loop_start == len(lasso.states) - 1  # a stutter: the run just stops
        assert not machine.is_final(last)
        assert all(post == last for _, post in machine.successors(last))
        assert any(_is_decline(a) for a in lasso.actions)
    message = result.verdict("declined_run_completes").message
    assert message is not None and "declined and unfinished" in message


def test_an_artifact_held_after_finishing_is_never_delivered(rehold: tuple[Machine, LivenessResult]) -> None:
    machine, result = rehold
    verdict = result.verdict("eventual_delivery")
    assert not verdict.holds
    lasso = _assert_lasso(verdict.lasso)
    assert lasso.loop_start == len(lasso.states) - 1
    assert any(1 in e.held for e in lasso.states[-1].executions)
    assert verdict.message is not None and "a1" in verdict.message
    assert result.verdict("no_stuck_execution").holds and result.verdict("declined_run_completes").holds


def _execution(status: str, held: tuple[int, ...] = (), declined: bool = False) -> Execution:
    """e1 of session 1 with this status and held list, its one question declined if asked."""
    questions = (Question("c1", DECLINED, 0, 1),) if declined else ()
    return Execution("e1", 1, status, 1, (), questions, held, (), 0, 0)


class Go(NamedTuple):
    to: str


class CycleMachine:
    """s0 -> s1 -> s2 -> s1 (a cycle holding a1 with e1 declined and running), s2 -> s3 (final)."""

    bounds = Bounds(**MINIMA | dict(artifacts=1))  # a1 may be held
    liveness = LIVENESS

    def __init__(self) -> None:
        self.states = {
            "s0": State((_execution("running"),)),
            "s1": State((_execution("running", (1,), True),)),
            "s2": State((_execution("paused", (1,), True),)),
            "s3": State((_execution("completed", (), True),)),
        }
        self.names = {state: name for name, state in self.states.items()}
        self.edges = {"s0": ("s1",), "s1": ("s2", "s1"), "s2": ("s1", "s3"), "s3": ("s3",)}

    def init_states(self) -> tuple[State, ...]:
        return (self.states["s0"],)

    def successors(self, state: State) -> Iterator[tuple[Go, State]]:
        for target in self.edges[self.names[state]]:
            yield Go(target), self.states[target]

    def is_final(self, state: State) -> bool:
        return self.names[state] == "s3"


def test_a_cycle_that_holds_an_artifact_is_reported() -> None:
    machine = CycleMachine()
    result = check_liveness(machine)
    facts = result.facts
    assert (facts.states, facts.transitions, facts.edges, facts.self_loops) == (4, 6, 4, 2)
    assert (facts.nontrivial_sccs, facts.end_states, facts.final_states) == (1, 1, 1)
    assert result.verdict("no_stuck_execution").holds  # s3 is reachable from everywhere
    for name in ("eventual_delivery", "declined_run_completes"):
        lasso = _assert_lasso(result.verdict(name).lasso)
        assert [machine.names[s] for s in lasso.states] == ["s0", "s1", "s2"]
        assert lasso.actions == (Go("s1"), Go("s2"), Go("s1"))  # the last closes the loop
        assert lasso.loop_start == 1
    # Fair under weak fairness of every step: no action is enabled in both states (Go("s3") only in s2).
    assert "a fair loop through 2 states from step 1" in (result.verdict("eventual_delivery").message or "")


def test_lasso_document_has_the_loop_and_replays(stuck: tuple[Machine, LivenessResult]) -> None:
    machine, result = stuck
    verdict = result.verdict("no_stuck_execution")
    document = lasso_document(machine, verdict)
    lasso = verdict.lasso
    assert lasso is not None
    assert document["loop"] == document["#meta"]["loop"] == lasso.loop_start
    assert document["#meta"]["kind"] == "eventually" and document["#meta"]["verdict"] == "violation"
    assert document["#meta"]["clauses"] == list(verdict.clauses)
    assert len(document["states"]) == len(lasso.states)
    replayed = replay(document, machine)
    assert replayed.diverged_at is None, replayed.divergence
    assert replayed.states == lasso.states
    assert replayed.reproduced, replayed.message  # the stutter closes and e1 stays unfinished
    assert "e1" in (replayed.message or "")
    # the same lasso does not show the property on the conformant machine, where e1 resumes
    assert not replay(document, SMALL).reproduced


def test_each_property_is_witnessed_by_a_path_through_its_trigger_to_a_final_state(small: LivenessResult) -> None:
    for prop in SMALL.liveness:
        verdict = small.verdict(prop.name)
        witness = verdict.witness
        assert witness is not None and verdict.witnessed and verdict.needs is None
        assert SMALL.is_final(witness.states[-1]) and witness.loop_start == len(witness.states) - 1
        assert any(prop.pending(s, SMALL.bounds) for s in witness.states)
        assert all(SMALL.step(a, action) == b
                   for a, action, b in zip(witness.states, witness.actions, witness.states[1:], strict=False))
        assert SMALL.judge_eventually(prop.name, witness.states, None) == (True, None)
        assert SMALL.judge_eventually(prop.name, witness.states[:1], None) == (False, None)  # no trigger, not final


def test_bounds_that_exclude_a_trigger_name_the_bound(small: LivenessResult) -> None:
    machine = Machine(dataclasses.replace(SMALL.bounds, per_call=0))  # no artifact is ever made
    verdict = check_liveness(machine).verdict("eventual_delivery")
    assert verdict.holds and not verdict.witnessed and verdict.needs == "--per-call 1"


def test_lasso_document_refuses_a_verdict_that_holds(small: LivenessResult) -> None:
    with pytest.raises(ValueError, match="holds"):
        lasso_document(SMALL, small.verdicts[0])
