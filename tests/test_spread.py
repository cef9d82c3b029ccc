"""One search spread over processes (`check --workers N`): the same states, transitions, depth, deadlocks,
verdicts and traces (byte for byte, in the same order) as one process, on every bound set of the Promela test
table at 1, 2 and 3 workers; the canonical bytes a state travels as; limits and the command line."""

from __future__ import annotations

import gc
import json
import sys
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from pausecheck.checks.cli import main
from pausecheck.checks.mutants import mutant_named, mutate
from pausecheck.checks.search.codec import CodecError, codec_for
from pausecheck.checks.search.explore import Limits, Result, explore
from pausecheck.checks.search.partition import Partition, share, step_key
from pausecheck.checks.search.spread import spread
from pausecheck.model import Bounds, Machine, reading_named

from .strategies import reachable
from .test_promela import CASES

SLOW = {"defaults", "two sessions"}  # 73,409 and 26,703 states: several seconds of CPU at three workers
TWO = Machine(Bounds(sessions=2, calls=1, artifacts=1, pauses=1, write_failures=1, observations=0, held_bound=1),
              symmetry=True)


def figures(result: Result) -> tuple[Any, ...]:
    """Everything a check prints of a search, and the order of its discoveries."""
    return (result.complete, result.stopped, result.states, result.transitions, result.depth, result.deadlocks,
            result.deadlock, dict(result.violations), list(result.violations), dict(result.witnesses),
            list(result.witnesses), result.fingerprints, result.compact)


@pytest.mark.parametrize("workers", [1, 2, 3])
@pytest.mark.parametrize("case", [pytest.param(c, marks=pytest.mark.slow) if c in SLOW else c for c in CASES])
def test_a_spread_search_is_the_one_process_search(case: str, workers: int) -> None:
    bounds, reading = CASES[case]
    machine = Machine(bounds, reading_named(reading))
    assert figures(spread(machine, workers)) == figures(explore(machine)), case


def test_violations_witnesses_and_deadlocks_come_in_one_process_order() -> None:
    bounds, reading = CASES["write-first, new-first, with artifacts"]  # 7 violations, 212 deadlocks
    machine = Machine(bounds, reading_named(reading))
    one, many = explore(machine), spread(machine, 3)
    assert len(one.violations) == 7 and one.deadlocks == 212
    assert list(many.violations) == list(one.violations) and many.deadlock == one.deadlock


def test_a_mutant_breaks_the_same_properties_with_the_same_traces() -> None:
    machine = mutate(Machine(CASES["crashes"][0]), mutant_named("no_put_back"))
    one = explore(machine)
    assert one.violations
    assert figures(spread(machine, 2)) == figures(one)


@pytest.mark.parametrize("options", [{"fingerprints": True}, {"compact": True}], ids=["fingerprints", "compact"])
def test_stores_and_symmetry_give_the_one_process_figures(options: dict[str, bool]) -> None:
    assert figures(spread(TWO, 2, **options)) == figures(explore(TWO, **options))


@pytest.mark.parametrize("limit", [1, 2, 500, 1_000, 1_012])
def test_max_states_keeps_the_states_one_process_keeps(limit: int) -> None:
    bounds, reading = CASES["racy read-then-clear"]  # 1,012 states
    machine = Machine(bounds, reading_named(reading))
    limits = Limits(max_states=limit)
    assert figures(spread(machine, 2, limits)) == figures(explore(machine, limits))


@pytest.mark.parametrize("depth", [0, 1, 7])
def test_max_depth_stops_where_one_process_stops(depth: int) -> None:
    machine = Machine(CASES["expiries"][0])
    limits = Limits(max_depth=depth)
    assert figures(spread(machine, 3, limits)) == figures(explore(machine, limits))


def test_a_stop_ends_the_search_incomplete() -> None:
    result = spread(Machine(CASES["new turns"][0]), 2, Limits(max_seconds=0.0))
    assert not result.complete and result.stopped == "max-seconds"


class WithoutSpreadKey:
    """A machine whose states are shared out by the CRC-32 of their bytes, as for any model without a key."""

    def __init__(self, machine: Machine) -> None:
        self.machine = machine

    def __getattr__(self, name: str) -> Any:
        if name == "spread_key":
            raise AttributeError(name)
        return getattr(self.machine, name)


def test_a_model_without_a_spread_key_is_shared_out_by_its_bytes() -> None:
    machine = Machine(CASES["crashes"][0])
    assert figures(spread(WithoutSpreadKey(machine), 3)) == figures(explore(machine))


def test_the_spread_key_is_integers_and_shares_the_states_out() -> None:
    states = reachable(TWO)
    for state in states:
        Partition.check_key(TWO.spread_key()(state))  # a TypeError where it is not
    part = Partition(TWO, 0, 2)
    gc.enable()  # a partition turns the collector off, for its process
    owners = [part.owner(s) for s in states]
    assert 0.3 < sum(owners) / len(owners) < 0.7  # neither worker holds most of the states


def test_a_new_group_goes_where_it_was_found_unless_that_crowds_the_level() -> None:
    # Worker 0 keeps 2 new states of known groups, worker 1 keeps 30: with the 14 of the groups found in this
    # level, an even share is 23. Group (1,), found by worker 0, stays there; group (2,), found by worker 1,
    # would take it 17 states past an even share, which costs more than sending its 10 states to worker 0.
    censuses = [([2, 0], {(1,): 4}), ([0, 30], {(2,): 10})]
    assert share(censuses) == {(1,): 0, (2,): 0}
    assert share([([2, 0], {(1,): 4}), ([0, 20], {(2,): 10})]) == {(1,): 0, (2,): 1}  # 12 past: kept
    assert share([(found, dict(reversed(groups.items()))) for found, groups in censuses]) == share(censuses)


def test_a_spread_key_that_is_not_integers_is_refused() -> None:
    class Named(WithoutSpreadKey):
        def spread_key(self) -> Any:
            return lambda state: (len(state.executions), "e1")

    try:
        with pytest.raises(TypeError, match="integers only"):
            Partition(Named(TWO), 0, 2)
    finally:
        gc.enable()


def test_every_state_travels_as_bytes_that_bring_it_back() -> None:
    states = reachable(TWO)
    codec = codec_for(states[0])
    blobs = [codec.encode(s) for s in states]
    assert len(set(blobs)) == len(states)
    back = [codec.decode(b) for b in blobs]
    assert back == list(states)
    assert all(type(x) is type(y) for a, b in zip(back, states, strict=True) for x, y in zip(a, b, strict=True))


def test_equal_states_give_equal_bytes_whatever_their_objects() -> None:
    state = reachable(TWO)[-1]
    copy = codec_for(state).decode(codec_for(state).encode(state))
    rebuilt = state._replace(executions=tuple(e._replace(id="".join(list(e.id))) for e in state.executions))
    codec = codec_for(state)
    assert codec.encode(rebuilt) == codec.encode(copy) == codec.encode(state)


def strings(value: Any) -> list[str]:
    """Every string in a state, at any depth."""
    if isinstance(value, str):
        return [value]
    return [s for item in value for s in strings(item)] if isinstance(value, tuple) else []


def test_a_state_read_back_shares_its_strings_with_the_states_made_here() -> None:
    state = reachable(TWO)[-1]
    codec = codec_for(state)
    back = codec.decode(codec.encode(state))
    texts = strings(back)
    assert back == state and len(texts) > 5
    assert all(text is sys.intern(text) for text in texts)  # read fresh, a string would be a copy


class Loose(NamedTuple):
    items: list  # a list is not a canonical value


def test_a_state_that_has_no_canonical_bytes_is_refused_when_the_codec_is_built() -> None:
    with pytest.raises(CodecError, match="cannot be written as canonical bytes"):
        codec_for(Loose([]))


def test_path_keys_keep_the_order_of_successor_numbers() -> None:
    numbers = [0, 1, 7, 254, 255, 256, 1_000, 70_000]
    assert sorted(numbers, key=step_key) == numbers
    assert sorted(step_key(a) + step_key(b) for a in numbers for b in numbers) == \
        [step_key(a) + step_key(b) for a in numbers for b in numbers]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


SMALL = ("--calls", "1", "--artifacts", "2", "--pauses", "1", "--observations", "0", "--held-bound", "1",
         "--no-liveness")


def test_check_with_workers_prints_what_one_process_prints(capsys: pytest.CaptureFixture[str],
                                                           tmp_path: Path) -> None:
    code, out, _ = run(capsys, "check", *SMALL, "--reading", "conformant+A-T4=release", "--json",
                       "--out", str(tmp_path / "one"))
    code2, out2, _ = run(capsys, "check", *SMALL, "--reading", "conformant+A-T4=release", "--json", "--workers", "2",
                         "--out", str(tmp_path / "two"))
    one, two = json.loads(out), json.loads(out2)
    for report in (one, two):
        del report["seconds"], report["states_per_second"]
        for prop in report["properties"]:
            prop.pop("trace", None)  # where it was written: one and two
    assert code == code2 == 1
    assert one == two
    for trace in sorted((tmp_path / "one").iterdir()):
        assert trace.read_text() == (tmp_path / "two" / trace.name).read_text()


@pytest.mark.parametrize("flags", [("--ray",), ("--workers", "2", "--compact")], ids=["ray", "compact"])
def test_a_spread_search_that_cannot_be_checkpointed_is_refused_in_one_line(
        flags: tuple[str, ...], capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run(capsys, "check", *SMALL, *flags, "--checkpoint", str(tmp_path / "cp"))
    assert code == 2 and out == ""
    assert err.strip().count("\n") == 0 and "cannot be checkpointed" in err


def test_the_reproduce_line_of_a_spread_search_keeps_its_workers(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "check", *SMALL, "--reading", "conformant+A-T4=release", "--workers", "2")
    assert code == 1
    line = [x for x in out.splitlines() if x.startswith("reproduce with: ")][-1]  # the search's, after the traces'
    assert line.endswith(" --no-liveness --workers 2 --out out/"), line
