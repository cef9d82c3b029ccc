"""Isolation (T7.2, T7.4): with two executions, nothing of one is held for, shown on or dropped by
the other; and the bounds really exercise it: both produce artifacts and both hold some across a
pause (witnesses of our own below, beside the registry's witness of the isolation situation).

The bounds are the smallest found with two sessions that still witness two producing executions
and a held artifact in each session. Holding needs artifacts collected before an interrupt in the
same segment: either two fresh calls in one segment (calls=2, pauses=1: 469,291 states) or one
resumed call and one fresh call (calls=1, pauses=2: 82,521 states). Every other bound is at its
minimum but artifacts=2 (one for each execution to hold) and held_bound=1 (0 would hold nothing).
"""

from __future__ import annotations

import pytest
from pausecheck.checks.search.explore import Result, explore
from pausecheck.model import (
    PROPERTIES,
    SOMETIMES,
    Bounds,
    Machine,
    Property,
    ToolInterrupts,
    missing_bound,
    property_named,
)
from pausecheck.model.state import Warning, find_execution

TWO_SESSIONS = Bounds(sessions=2, calls=1, per_call=1, artifacts=2, pauses=2, write_failures=0, observations=0,
                      held_bound=1)
TWO_TURNS = Bounds(sessions=1, turns=2, calls=1, per_call=1, artifacts=2, pauses=2, write_failures=0,
                   observations=0, held_bound=1)
PINNED = {TWO_SESSIONS: (140743, 678386, 26), TWO_TURNS: (17265, 41875, 26)}
SITUATION = property_named("isolation").situation  # the registry's witness that isolation is exercised


def held_in(field: str, value: object) -> Property:
    """A witness: a pause holds artifacts in the execution whose `field` (session, id) is `value`."""
    def check(pre, action, post, ctx=None):  # ctx: edge checks are gaining a context argument
        execution = find_execution(post, action.execution)
        return getattr(execution, field) == value and bool(execution.held)

    return Property(f"held_across_pause_in_{field}_{value}", SOMETIMES, (), check,
                    f"a pause holds artifacts in the execution with {field} {value}", on=(ToolInterrupts,))


def _two_producers(pre, action, post, ctx=None):
    return len({a.execution for a in post.artifacts}) >= 2


TWO_PRODUCERS = Property("two_producers", SOMETIMES, (), _two_producers, "two executions produce artifacts")
EXTRA = {
    TWO_SESSIONS: (TWO_PRODUCERS, held_in("session", 1), held_in("session", 2)),
    TWO_TURNS: (TWO_PRODUCERS, held_in("id", "e1"), held_in("id", "e2")),
}


@pytest.fixture(scope="module", params=[pytest.param(TWO_SESSIONS, id="two-sessions", marks=pytest.mark.slow),
                                        pytest.param(TWO_TURNS, id="two-turns")])  # two sessions: ~15 s
def explored(request: pytest.FixtureRequest) -> tuple[Machine, Result]:
    machine = Machine(request.param, properties=PROPERTIES + EXTRA[request.param])
    return machine, explore(machine)


def test_applies(explored: tuple[Machine, Result]) -> None:
    machine, _ = explored
    assert missing_bound(property_named("isolation"), machine.bounds) is None
    assert missing_bound(property_named(SITUATION), machine.bounds) is None


def test_counts_pinned(explored: tuple[Machine, Result]) -> None:
    machine, result = explored
    assert result.complete
    assert (result.states, result.transitions, result.depth) == PINNED[machine.bounds]


def test_isolation_holds(explored: tuple[Machine, Result]) -> None:
    _, result = explored
    assert result.violations == {}, {k: v.message for k, v in result.violations.items()}
    assert result.deadlocks == 0


def test_isolation_is_exercised(explored: tuple[Machine, Result]) -> None:
    """Two executions produce artifacts, and each of them holds some across a pause."""
    machine, result = explored
    wanted = {SITUATION, "held_across_pause"} | {p.name for p in EXTRA[machine.bounds]}
    assert wanted <= result.witnesses.keys()
    final = result.witnesses["two_producers"].states[-1]
    producers = {a.execution for a in final.artifacts}
    assert len(producers) == 2
    sessions = {find_execution(final, e).session for e in producers}
    assert len(sessions) == machine.bounds.sessions, "two sessions, or one session's two turns"


def test_every_sometimes_witness_found(explored: tuple[Machine, Result]) -> None:
    """Beyond isolation, these bounds leave out only what needs more calls, observations or failures."""
    machine, result = explored
    missing = {p.name for p in PROPERTIES if p.kind == SOMETIMES} - result.witnesses.keys()
    assert missing == {"two_calls_in_segment", "interrupt_observed_twice", "write_back_fails_with_held",
                       "delivers_after_a_put_back", "repause_with_held", "warned_drop", "interim_write_delivers_held",
                       "two_write_backs", "routed_node_failure", "fails_after_unrouted_failure"}


def test_witnesses_replay(explored: tuple[Machine, Result]) -> None:
    machine, result = explored
    for name in (SITUATION,) + tuple(p.name for p in EXTRA[machine.bounds]):
        found = result.witnesses[name]
        for pre, action, post in zip(found.states, found.actions, found.states[1:], strict=False):
            assert machine.step(pre, action) == post, name


def test_isolation_check_catches_a_leak(explored: tuple[Machine, Result]) -> None:
    """The property is not vacuous: hand one execution's artifact to the other and it complains."""
    machine, result = explored
    state = result.witnesses["two_producers"].states[-1]
    check, ctx = property_named("isolation").check, machine.context()
    assert check(state, ctx) is None
    for ref, origin in enumerate(state.artifacts, 1):
        other = next(e for e in state.executions if e.id != origin.execution)
        held = state._replace(executions=tuple(
            e._replace(held=e.held + (ref,)) if e.id == other.id else e for e in state.executions))
        assert check(held, ctx) == f"a{ref}, produced by {origin.execution}, is held by {other.id}"
        shown = state._replace(executions=tuple(
            e._replace(messages=e.messages + ((ref,),)) if e.id == other.id else e for e in state.executions))
        assert check(shown, ctx) == f"a{ref}, produced by {origin.execution}, is on message " \
                                    f"{len(other.messages) + 1} of {other.id}"
        dropped = state._replace(warnings=state.warnings + (Warning(other.id, ref),))
        assert check(dropped, ctx) == f"a{ref}, produced by {origin.execution}, is dropped by {other.id}"
