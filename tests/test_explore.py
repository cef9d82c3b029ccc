"""The explorer: pinned state counts, determinism, shortest witnesses that replay, honest limits."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from pausecheck.checks.cli.parser import DEFAULT_MEMORY
from pausecheck.checks.search.explore import Limits, Result, explore
from pausecheck.model import (
    ALWAYS,
    DEFAULT_BOUNDS,
    PROPERTIES,
    SOMETIMES,
    Bounds,
    Machine,
    Property,
    StartWriteBack,
    missing_bound,
    property_named,
)
from pausecheck.model.deviate import Effect, deviate, on

from .strategies import edge_check, reachable, tiny_bounds

# The witness that two executions meet (named by the isolation property): out of reach of one.
TWO_EXECUTIONS = property_named("isolation").situation
# Pinned: any change to the rules' semantics shows up here first. Re-measure, and say why, when
# a change is meant.
SMALL = [
    # (bounds, states, transitions, depth)
    (Bounds(calls=1, per_call=1, artifacts=1, pauses=1, write_failures=0, observations=0, held_bound=1), 62, 138, 9),
    (Bounds(calls=2, per_call=1, artifacts=2, pauses=2, write_failures=1, observations=0, held_bound=1),
     17184, 45667, 23),  # the write-back in four steps; a failed one only retries (A-T4)
]
# The witnesses each small set cannot reach: the first never holds (one call per segment, one
# pause); the second reaches everything one execution can without repeated observations, interim
# messages or node failures.
_ELSEWHERE = {TWO_EXECUTIONS, "interim_write_delivers_held", "two_write_backs", "routed_node_failure",
              "fails_after_unrouted_failure"}  # two executions, interim messages, node failures: companions
SMALL_MISSING = [
    {"delivered_after_pause", "held_across_pause", "interrupt_observed_twice", "merged_held_and_new",
     "poll_while_holding", "repause_with_held", "two_calls_in_segment", "two_pauses", "warned_drop",
     "write_back_fails_with_held", "delivers_after_a_put_back"} | _ELSEWHERE,
    {"interrupt_observed_twice"} | _ELSEWHERE,
]
DEFAULT_COUNTS = (73409, 197925, 25)
# Shortest witness length (actions) of every `sometimes` property at the default bounds.
WITNESS_LENGTHS = {
    "tool_failure": 3, "approve": 4, "calls_after_a_failure": 4, "decline": 4, "interrupt_observed_twice": 4,
    "two_calls_in_segment": 4,
    "completes_after_failure": 5, "held_across_pause": 5, "stale_answer": 5, "completes_after_decline": 6,
    "completes_after_pause": 6, "poll_while_holding": 6, "two_pauses": 6, "delivered_after_pause": 8,
    "repause_with_held": 8, "write_back_fails_with_held": 8, "merged_held_and_new": 9, "warned_drop": 11,
    "delivers_after_a_put_back": 12,
}
WITNESSES = [p for p in PROPERTIES if p.kind == SOMETIMES]


@pytest.fixture(scope="module")
def default(shared_check) -> Result:
    """The main search at the default bounds: the one `pausecheck check` runs, shared across the tests."""
    limits = Limits(max_states=None, max_seconds=None, max_memory=DEFAULT_MEMORY)  # as the CLI passes them
    return shared_check(DEFAULT_BOUNDS, "conformant", limits=limits, companion=True, accept_unexercised=False,
                        liveness=True, checkpoint=None, resume=False).result


def counts(result: Result) -> tuple[int, int, int]:
    return result.states, result.transitions, result.depth


def shortest(machine: Machine, name: str, horizon: int) -> int | None:
    """The length of the shortest path whose last step satisfies witness `name`, by a plain BFS.

    Independent of the explorer: every path of length <= horizon is examined, level by level.
    """
    prop = property_named(name)
    level, seen = list(machine.init_states()), set(machine.init_states())
    for length in range(1, horizon + 1):
        following = []
        for pre in level:
            for action, post in machine.successors(pre):
                if edge_check(machine, prop, pre, action, post):
                    return length
                if post not in seen:
                    seen.add(post)
                    following.append(post)
        level = following
    return None


@pytest.mark.parametrize("bounds, states, transitions, depth, missing",
                         [row + (gone,) for row, gone in zip(SMALL, SMALL_MISSING, strict=True)])
def test_small_bounds_pinned(bounds: Bounds, states: int, transitions: int, depth: int, missing: set) -> None:
    result = explore(Machine(bounds))
    assert result.complete
    assert counts(result) == (states, transitions, depth)
    assert result.violations == {} and result.deadlocks == 0
    assert {p.name for p in WITNESSES} - result.witnesses.keys() == missing


def test_default_bounds_pinned(default: Result) -> None:
    assert default.complete
    assert counts(default) == DEFAULT_COUNTS


def test_no_violation_or_deadlock_at_defaults(default: Result) -> None:
    assert default.violations == {}, {name: d.message for name, d in default.violations.items()}
    assert default.deadlocks == 0 and default.deadlock is None


@pytest.mark.slow  # a second exploration at the default bounds
def test_default_exploration_is_deterministic(default: Result) -> None:
    """Same counts, same witnesses and the same discovery paths, action for action, state for state."""
    again = explore(Machine())
    assert counts(again) == counts(default)
    assert again.witnesses.keys() == default.witnesses.keys()
    for name, found in default.witnesses.items():
        assert again.witnesses[name].actions == found.actions, name
        assert again.witnesses[name].states == found.states, name


def test_every_witness_at_defaults_but_those_of_the_companions(default: Result) -> None:
    """The defaults run one execution with no interim message and no node failure; the companion
    searches reach the rest."""
    missing = {p.name for p in WITNESSES} - default.witnesses.keys()
    assert missing == _ELSEWHERE
    assert missing_bound(property_named(TWO_EXECUTIONS), Machine().bounds) == "--sessions 2 (or --turns 2)"
    assert missing_bound(property_named("isolation"), Machine().bounds) == "--sessions 2 (or --turns 2)"


def test_witness_lengths_pinned(default: Result) -> None:
    assert {name: len(d.actions) for name, d in default.witnesses.items()} == WITNESS_LENGTHS


@pytest.mark.parametrize("name", sorted(WITNESS_LENGTHS))
def test_witness_replays(default: Result, name: str) -> None:
    """Each recorded state follows from the one before by `Machine.step`, and the last step shows it."""
    machine, found = Machine(), default.witnesses[name]
    assert found.message is None
    assert len(found.states) == len(found.actions) + 1
    assert found.states[0] in machine.init_states()
    for pre, action, post in zip(found.states, found.actions, found.states[1:], strict=False):
        assert machine.step(pre, action) == post, f"{name}: {action} does not lead to the recorded state"
    assert edge_check(machine, property_named(name), found.states[-2], found.actions[-1], found.states[-1])


@pytest.mark.parametrize("name", sorted(WITNESS_LENGTHS))
def test_witness_is_shortest(name: str) -> None:
    """BFS finds no witness within one step less, and an independent BFS agrees on the length."""
    length = WITNESS_LENGTHS[name]
    assert name not in explore(Machine(), Limits(max_depth=length - 1)).witnesses
    assert len(explore(Machine(), Limits(max_depth=length)).witnesses[name].actions) == length
    assert shortest(Machine(), name, length) == length


def test_interrupt_observed_twice_shortest() -> None:
    """The spelled-out case: start, call, interrupt, observe again; nothing shorter exists."""
    assert shortest(Machine(), "interrupt_observed_twice", 3) is None
    found = explore(Machine(), Limits(max_depth=4)).witnesses["interrupt_observed_twice"]
    kinds = [a.KIND for a in found.actions]
    assert kinds == ["start-turn", "call-tool", "tool-interrupts", "observe-again"]


def test_state_limit_makes_search_incomplete() -> None:
    result = explore(Machine(), Limits(max_states=100))
    assert not result.complete
    assert result.states == 100


def test_depth_limit_makes_search_incomplete() -> None:
    result = explore(Machine(), Limits(max_depth=5))
    assert not result.complete
    assert result.depth == 5
    assert max(len(d.actions) for d in result.witnesses.values()) <= 5


def test_violation_is_reported_with_shortest_path() -> None:
    """A deliberately false invariant ("nothing is ever held") must be caught, at its earliest."""
    def never_held(state, ctx):
        return "held" if any(e.held for e in state.executions) else None

    machine = Machine(SMALL[1][0], properties=PROPERTIES + (Property("never_held", ALWAYS, (), never_held, "test"),))
    result = explore(machine)
    assert set(result.violations) == {"never_held"}
    found = result.violations["never_held"]
    assert found.message == "held" and any(e.held for e in found.states[-1].executions)
    assert len(found.actions) == shortest(machine, "held_across_pause", 10) == 5


def test_deadlock_is_reported() -> None:
    """A machine whose write-backs do nothing gets stuck with its execution unfinished."""
    stall = deviate(on(StartWriteBack, Effect()))
    result = explore(Machine(SMALL[0][0], rules=stall))
    assert result.deadlocks > 0
    assert result.deadlock is not None and not Machine(SMALL[0][0]).is_final(result.deadlock.states[-1])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tiny_bounds())
def test_tiny_bounds_hold_everything(bounds: Bounds) -> None:
    """Beyond the defaults: no violation and no deadlock under any tiny bounds, and where the search
    completes its state count agrees with an independent breadth-first search."""
    machine = Machine(bounds)
    result = explore(machine, Limits(max_states=5000))
    assert result.violations == {}, {k: v.message for k, v in result.violations.items()}
    assert result.deadlocks == 0
    if result.complete:
        assert result.states == len(reachable(machine))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tiny_bounds())
def test_a_witness_is_found_exactly_when_the_bounds_allow_it(bounds: Bounds) -> None:
    """`requires` is exact: a missing witness means the bounds exclude its situation (say which) or,
    if the bounds allow it, that the model is vacuous: never both, never neither."""
    result = explore(Machine(bounds))
    assert result.complete
    for witness in WITNESSES:
        needs = missing_bound(witness, bounds)
        assert (needs is None) == (witness.name in result.witnesses), (witness.name, needs)


@pytest.mark.parametrize(("bounds", "missing"), [(b, m) for (b, *_), m in zip(SMALL, SMALL_MISSING, strict=True)])
def test_small_bounds_say_what_they_lack(bounds: Bounds, missing: set) -> None:
    assert {w.name for w in WITNESSES if missing_bound(w, bounds)} == missing


def test_fingerprints_only_give_the_same_search_and_traces_that_replay() -> None:
    """Keeping 64-bit hashes of visited states (and no expanded state) finds the same states, verdicts
    and shortest traces, rebuilt by replay; the collision chance is stated."""
    from pausecheck.checks.mutants import mutant_named, mutate

    bounds = SMALL[1][0]
    for machine in (Machine(bounds), mutate(Machine(bounds), mutant_named("no_put_back"))):
        full, thin = explore(machine), explore(machine, fingerprints=True)
        assert (thin.states, thin.transitions, thin.depth) == (full.states, full.transitions, full.depth)
        for mine, theirs in ((thin.violations, full.violations), (thin.witnesses, full.witnesses)):
            assert {k: (d.states, d.actions) for k, d in mine.items()} == \
                {k: (d.states, d.actions) for k, d in theirs.items()}
        assert 0 < thin.collision_probability < 1e-9 and full.collision_probability == 0
    assert explore(mutate(Machine(bounds), mutant_named("no_put_back")), fingerprints=True).violations


def test_the_fingerprint_set_grows_and_tells_new_from_seen() -> None:
    from pausecheck.checks.search.explore import Fingerprints

    seen = Fingerprints()
    values = [hash((k, "x")) for k in range(5000)] + [0, -1, 2**63 - 1, -(2**63)]
    assert all(seen.add(v) for v in values) and not any(seen.add(v) for v in values)
    assert all(v in seen for v in values) and hash((5001, "x")) not in seen and seen.count == len(values)


@pytest.mark.parametrize("raised", [{"calls": 1, "pauses": 1, "artifacts": 1}, {"calls": 2, "pauses": 1},
                                    {"calls": 1, "artifacts": 2}])
def test_a_hint_is_a_set_of_raises_that_reaches_the_witness(raised: dict[str, int]) -> None:
    """The flags a missing witness names are searched: raised as they say, the witness is reached (and none is a
    bound already at that value: at two calls and one pause the hint was "--calls 2")."""
    bounds = Bounds(per_call=1, held_bound=1, write_failures=0, observations=0).replace(**raised)
    witness = next(w for w in WITNESSES if w.name == "warned_drop")
    hint = missing_bound(witness, bounds)
    assert hint is not None
    words = hint.split()
    flags = {words[k].removeprefix("--").replace("-", "_"): int(words[k + 1]) for k in range(0, len(words), 2)}
    assert all(getattr(bounds, name) != value for name, value in flags.items()), hint
    reached = bounds.replace(**flags)
    assert missing_bound(witness, reached) is None
    assert "warned_drop" in explore(Machine(reached)).witnesses, hint
