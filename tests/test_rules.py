"""The rules are pure and deterministic, agree with the machine, and build canonical states.

Every property is checked at each state of a random walk under random small bounds, and at a state
drawn uniformly from the state space of `RICH` (random walks seldom get deep: see strategies).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from pausecheck.model import (
    Action,
    Answer,
    Bounds,
    CallTool,
    ClearHeld,
    CloseSuperseded,
    Crash,
    Expire,
    LoseRace,
    Machine,
    NodeFails,
    ObserveAgain,
    Poll,
    PutBack,
    ReportFailure,
    ResumeAgain,
    StartTurn,
    StartWriteBack,
    State,
    ToolFails,
    ToolInterrupts,
    ToolReturns,
    WriteMessage,
    enabled,
    step,
)
from pausecheck.model.actions import sort_key

from .strategies import RICH, actions, machine_walks, reachable_states, transitions

WALKS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ATOMS = (int, str, bool, type(None))
Walk = tuple[Machine, list[tuple[Action, State]]]


def states_of(mw: Walk, rich: State) -> Iterator[tuple[Machine, State]]:
    """Every state the walk visits (the initial one first), then a state drawn from RICH's space."""
    machine, walk = mw
    for state in list(machine.init_states()) + [post for _, post in walk]:
        yield machine, state
    yield RICH, rich


def steps_of(mw: Walk, rich: State) -> Iterator[tuple[Machine, State, Action, State]]:
    """Every step of the walk, then every step out of the state drawn from RICH's space."""
    machine, walk = mw
    for pre, action, post in transitions(machine, walk):
        yield machine, pre, action, post
    for action, post in RICH.successors(rich):
        yield RICH, rich, action, post


def candidates(bounds: Bounds, state: State) -> Iterator[Action]:
    """Every action over the ids that exist, one past them, and slightly out-of-range counts.

    A superset of what can be enabled in `state`, so it contains actions that are not enabled.
    """
    executions = [f"e{n}{racing}" for n in range(1, len(state.executions) + 2) for racing in ("", "'")]
    calls = [f"c{n}" for n in range(1, max((e.calls for e in state.executions), default=0) + 2)]
    yield Crash()
    for session in range(0, bounds.sessions + 2):
        yield StartTurn(session)
    for e in executions:
        yield from (CallTool(e), ObserveAgain(e), Poll(e))
        questions = range(0, 1 + max((len(x.questions) for x in state.executions), default=0) + 1)
        yield from (Answer(e, q, approve) for q in questions for approve in (False, True))
        yield from (StartWriteBack(e, final) for final in (False, True))
        yield from (WriteMessage(e, ok) for ok in (False, True))
        yield from (NodeFails(e, routed) for routed in (False, True))
        yield from (PutBack(e), ReportFailure(e), ClearHeld(e), CloseSuperseded(e), Expire(e), LoseRace(e))
        yield from (ResumeAgain(e, q) for q in questions)
        for c in calls:
            yield from (ToolFails(e, c), ToolInterrupts(e, c))
            yield from (ToolReturns(e, c, n) for n in range(-1, bounds.per_call + 2))


def assert_canonical(value: object, where: str = "state") -> None:
    """Only tuples (NamedTuples included), frozensets and atoms, all the way down."""
    assert not isinstance(value, (list, dict, set, bytearray)), f"{where} is a {type(value).__name__}"
    if isinstance(value, (tuple, frozenset)):
        names = getattr(value, "_fields", None) or range(len(value))
        for name, item in zip(names, value, strict=True):
            assert_canonical(item, f"{where}.{name}" if isinstance(name, str) else f"{where}[{name}]")
    else:
        assert isinstance(value, ATOMS), f"{where} is a {type(value).__name__}"


@WALKS
@given(machine_walks(), reachable_states())
def test_step_does_not_change_its_inputs(mw: Walk, rich: State) -> None:
    for machine, pre, action, _ in steps_of(mw, rich):
        b, r = machine.bounds, machine.reading
        before = copy.deepcopy((b, r, pre, action))
        step(b, r, pre, action)
        enabled(b, r, pre)
        assert (b, r, pre, action) == before


@WALKS
@given(machine_walks(), reachable_states())
def test_step_is_deterministic(mw: Walk, rich: State) -> None:
    for machine, pre, action, post in steps_of(mw, rich):
        first = step(machine.bounds, machine.reading, pre, action)
        assert first == post
        assert step(machine.bounds, machine.reading, pre, action) == first
        assert list(machine.successors(pre)) == list(machine.successors(pre))


@WALKS
@given(machine_walks(), reachable_states())
def test_step_agrees_with_successors(mw: Walk, rich: State) -> None:
    """`successors` lists exactly the enabled actions, each with the state `step` computes."""
    for machine, state in states_of(mw, rich):
        b, r = machine.bounds, machine.reading
        pairs = list(machine.successors(state))
        assert [a for a, _ in pairs] == enabled(b, r, state)
        for action, post in pairs:
            assert step(b, r, state, action) == post
            assert machine.step(state, action) == post


@WALKS
@given(machine_walks(), reachable_states())
def test_step_refuses_actions_not_enabled(mw: Walk, rich: State) -> None:
    """Every action over the ids in play that is not enabled is refused with None."""
    for machine, state in states_of(mw, rich):
        b, r = machine.bounds, machine.reading
        allowed, universe = set(enabled(b, r, state)), set(candidates(b, state))
        assert allowed <= universe, "the candidates must cover every enabled action"
        for action in universe - allowed:
            assert step(b, r, state, action) is None, f"{action} is not enabled yet step took it"
            assert machine.step(state, action) is None


@WALKS
@given(machine_walks(), reachable_states(), actions())
def test_step_refuses_arbitrary_actions(mw: Walk, rich: State, action: Action) -> None:
    for machine, state in states_of(mw, rich):
        post = step(machine.bounds, machine.reading, state, action)
        assert (post is None) == (action not in enabled(machine.bounds, machine.reading, state))


@WALKS
@given(machine_walks(), reachable_states())
def test_enabled_sorted_without_duplicates(mw: Walk, rich: State) -> None:
    for machine, state in states_of(mw, rich):
        acts = enabled(machine.bounds, machine.reading, state)
        assert acts == sorted(acts, key=sort_key)
        assert len(set(acts)) == len(acts)


@WALKS
@given(machine_walks(), reachable_states())
def test_states_are_canonical_and_hashable(mw: Walk, rich: State) -> None:
    for _, state in states_of(mw, rich):
        assert isinstance(state, State)
        assert_canonical(state)
        assert hash(state) == hash(copy.deepcopy(state))


@WALKS
@given(machine_walks(), reachable_states())
def test_only_poll_and_a_late_answer_leave_the_state_unchanged(mw: Walk, rich: State) -> None:
    """Every other action records something; a silent no-op rule would hide from the explorer. A
    late answer (to a question already settled) is a no-op by the rules (INT-19)."""
    for machine, state in states_of(mw, rich):
        for action, post in machine.successors(state):
            late = isinstance(action, Answer) and any(
                q.id == action.question and q.status != "pending"
                for e in state.executions if e.id == action.execution for q in e.questions)
            assert (post == state) == (isinstance(action, Poll) or late), str(action)


def test_canonical_check_rejects_mutable_parts() -> None:
    """The recursive check itself must catch a list hidden deep in a state."""
    (initial,) = Machine().init_states()
    bad = initial._replace(warnings=((["e1"], 1),))
    with pytest.raises(AssertionError, match=r"state\.warnings\[0\]\[0\] is a list"):
        assert_canonical(bad)
