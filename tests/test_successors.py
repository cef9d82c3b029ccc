"""The one-pass successors (model/successors.py) equal the rule table's, on every state that matters.

Each bound set's reachable states are found with the rule table alone, then both paths are asked
for the successors of every one of them: same actions, same order, same successor states. Every
mutant's reachable states (states the rules never reach: a patched successor, an added action) are
compared too, since mutants run on the fast path with their deviation applied after it.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pausecheck.checks.mutants import MUTANTS, bounds_of, mutate
from pausecheck.model import CONFORMANT, DEFAULT_BOUNDS, Bounds, Machine, State
from pausecheck.model.state import Execution, Segment, edit_execution, edit_segment
from pausecheck.model.successors import conformant_successors, generic_successors

from .strategies import RICH, reachable, reachable_states

SMALL = Bounds(calls=1, per_call=1, artifacts=2, pauses=2, write_failures=1, observations=1, held_bound=1)
BOUND_SETS = {  # a few thousand states each; two sessions about 27,000
    "small": SMALL,
    "two calls": SMALL.replace(calls=2, pauses=1, observations=0),
    "two sessions": SMALL.replace(sessions=2, pauses=1, observations=0, artifacts=1),
    "two turns": SMALL.replace(turns=2, pauses=1, observations=0),
    "interim messages and node failures": SMALL.replace(interim_writes=1, node_failures=1, observations=0, pauses=1),
    "a crash": SMALL.replace(crashes=1, observations=0, pauses=1, artifacts=1),
    "an expiry, a race, a new turn": SMALL.replace(expiries=1, races=1, new_turns=1, observations=0, pauses=1,
                                                   artifacts=1, write_failures=0),
    "drops": SMALL.replace(per_call=2, artifacts=3, observations=0),
}
# Mutants at small bounds: their deviations reach states the rules never do.
MUTANT_BOUNDS = SMALL.replace(calls=2, pauses=1, observations=0)


def by_the_rule_table(machine: Machine) -> list[State]:
    """Every state reachable under the rule table (the mutant's deviations applied after it)."""
    def successors(state: State) -> list:
        pairs = generic_successors(machine.bounds, machine.reading, state)
        if machine.block is not None:
            pairs = [(a, p) for a, p in pairs if not machine.block(machine.bounds, state, a)]
        if machine.patch is not None:
            pairs = [(a, machine.patch(machine.bounds, state, a, p)) for a, p in pairs]
        return pairs + (list(machine.extra(machine.bounds, state)) if machine.extra is not None else [])

    order, seen = [State()], {State()}
    for state in order:
        for _, post in successors(state):
            if post not in seen:
                seen.add(post)
                order.append(post)
    return order


def assert_equal_everywhere(bounds: Bounds, states: list[State]) -> None:
    for state in states:
        fast = conformant_successors(bounds, CONFORMANT, state)
        slow = generic_successors(bounds, CONFORMANT, state)
        assert fast == slow, f"the one-pass successors differ from the rule table's at {state}"


@pytest.mark.parametrize("name", list(BOUND_SETS))
def test_one_pass_equals_the_rule_table_on_every_reachable_state(name: str) -> None:
    bounds = BOUND_SETS[name]
    states = by_the_rule_table(Machine(bounds))
    assert len(states) > 100
    assert_equal_everywhere(bounds, states)


@pytest.mark.slow
def test_one_pass_equals_the_rule_table_at_the_default_bounds() -> None:
    states = by_the_rule_table(Machine(DEFAULT_BOUNDS))
    assert len(states) == 73409
    assert_equal_everywhere(DEFAULT_BOUNDS, states)


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.name)
def test_one_pass_equals_the_rule_table_on_every_state_a_mutant_reaches(mutant) -> None:
    own = bounds_of(mutant)  # the small set with what the mutant needs beyond the defaults
    bounds = (BOUND_SETS["two sessions"] if own.sessions > 1 else BOUND_SETS["two turns"] if own.turns > 1
              else BOUND_SETS["interim messages and node failures"] if own.interim_writes or own.node_failures
              else MUTANT_BOUNDS)
    states = by_the_rule_table(mutate(Machine(bounds), mutant))
    assert_equal_everywhere(bounds, states)


def test_a_difference_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison can fail: with the one-pass path's end-of-segment ladder broken (a final write
    always completes the run), some reachable state's successors differ from the rule table's."""
    from pausecheck.model import successors as one_pass
    from pausecheck.model.state import COMPLETED

    failing = BOUND_SETS["interim messages and node failures"]  # an unrouted node failure fails the run
    states = by_the_rule_table(Machine(failing))
    monkeypatch.setattr(one_pass, "verdict", lambda execution: COMPLETED)
    with pytest.raises(AssertionError, match="differ from the rule table"):
        assert_equal_everywhere(failing, states)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_editing_a_record_is_replacing_its_fields(data: st.DataObject) -> None:
    """`edit_execution` and `edit_segment` (the fast path's constructors) give what `_replace` gives, for
    any subset of the fields they may change, on records the search reaches."""
    state = data.draw(reachable_states())
    for execution in state.executions:
        fields = data.draw(st.sets(st.sampled_from(execution._fields[2:])))  # not its id or session
        changes = {name: data.draw(_values(Execution, name)) for name in fields}
        assert edit_execution(execution, **changes) == execution._replace(**changes)
    for segment in state.segments:
        fields = data.draw(st.sets(st.sampled_from(segment._fields[1:])))  # not its execution
        changes = {name: data.draw(_values(Segment, name)) for name in fields}
        assert edit_segment(segment, **changes) == segment._replace(**changes)


_SAMPLES = {kind: [r for s in reachable(RICH)[::97] for r in (s.executions if kind is Execution else s.segments)]
            for kind in (Execution, Segment)}
_OTHER = {str: "c9", int: 7, bool: True, tuple: (9,)}  # a value the samples may lack (say, a closing call)


def _values(kind: type, name: str) -> st.SearchStrategy:
    """The distinct values this field takes in reachable records, and one more of its type."""
    seen = list(dict.fromkeys(getattr(record, name) for record in _SAMPLES[kind]))
    more = not seen[0] if type(seen[0]) is bool else _OTHER[type(seen[0])]
    return st.sampled_from(seen + [more] if more not in seen else seen)
