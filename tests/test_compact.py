"""The compact store (`check --compact`): states come back exactly as they went in, classes and types
included, and a search keeping them packed finds what a search keeping objects finds."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pausecheck.checks import compact
from pausecheck.checks.cli import main
from pausecheck.checks.mutants import mutant_named, mutate
from pausecheck.checks.search.checkpoint import Checkpoint
from pausecheck.checks.search.compact import Arena, Blobs, CompactStates
from pausecheck.checks.search.explore import Limits, explore
from pausecheck.model import DEFAULT_BOUNDS, Bounds, Machine, reading_named

from .strategies import RICH, reachable

FAULTS = Machine(Bounds(calls=1, per_call=1, artifacts=1, pauses=1, write_failures=1, observations=0,
                        interim_writes=0, node_failures=1, held_bound=1, crashes=1, expiries=1, races=1),
                 reading_named("A-T7=racy-read-then-clear"))
TWO = Machine(Bounds(sessions=2, turns=1, calls=1, per_call=1, artifacts=1, pauses=1, write_failures=1,
                     observations=0, interim_writes=0, node_failures=0, held_bound=1), symmetry=True)


ONE_PAUSE = Machine(DEFAULT_BOUNDS.replace(pauses=1))  # 2,885 states


@pytest.mark.parametrize("machine", [pytest.param(RICH, marks=pytest.mark.slow), ONE_PAUSE, FAULTS, TWO],
                         ids=["rich", "one pause", "faults", "two sessions"])
def test_every_reachable_state_comes_back_with_its_classes_and_types(machine: Machine,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(compact, "CACHE", 64)  # caches dropped again and again on the way
    states = reachable(machine)
    store = CompactStates()
    assert all(store.add(s, s) for s in states)
    assert not any(store.add(s, s) for s in states[::7]) and len(store) == len(states)
    assert all(repr(store[i]) == repr(s) for i, s in enumerate(states))  # repr: classes, True against 1
    assert all(s in store for s in states[::11])


class Record(NamedTuple):
    flags: tuple[bool, ...]
    refs: tuple[int, ...]
    inner: tuple[Record, ...] = ()


def test_values_equal_in_python_but_of_other_types_keep_their_types() -> None:
    """True == 1, so (True,) == (1,): each field has a cache of its own (as a field holds one type of
    value), so that neither comes back as the other."""
    store = CompactStates()
    shapes = [Record((True,), (1,)), Record((True, False), (1, 0)), Record((False,), (0,), (Record((True,), (1,)),)),
              Record((), (1, 1), (Record((True, True), ()),))]
    for shape in shapes:
        assert store.add(shape, shape)
    assert [repr(store[i]) for i in range(len(shapes))] == [repr(s) for s in shapes]


def test_a_key_that_differs_from_its_state_keeps_both() -> None:
    """Under symmetry the key is the class's representative and the state the first one found."""
    store = CompactStates()
    assert store.add((1, 2), (1, 2)) and store.add((2, 3), (3, 2)) and not store.add((2, 3), (2, 3))
    assert (store[0], store[1]) == ((1, 2), (3, 2)) and (2, 3) in store and (3, 2) not in store


@given(st.lists(st.binary(max_size=12), max_size=3000))
def test_an_arena_numbers_strings_in_the_order_first_seen(strings: list[bytes]) -> None:
    arena, numbers = Arena(), {}
    for s in strings:
        assert arena.intern(s) == numbers.setdefault(s, len(numbers))
    assert [arena[k] for k in range(len(arena))] == list(numbers)
    assert all(arena.find(s) == k for s, k in numbers.items()) and arena.find(b"\xff" * 13) == -1


def test_blobs_widen_their_offsets_past_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Blobs, "WIDE", 100)
    blobs = Blobs()
    for k in range(40):
        blobs.append(bytes([k]) * 7)
    assert blobs.ends.typecode == "q" and [blobs[k] for k in range(40)] == [bytes([k]) * 7 for k in range(40)]


def _same_search(machine: Machine) -> None:
    full, packed = explore(machine), explore(machine, compact=True)
    assert packed.compact and not full.compact
    assert (packed.states, packed.transitions, packed.depth, packed.deadlocks, packed.complete) == \
        (full.states, full.transitions, full.depth, full.deadlocks, full.complete)
    for mine, theirs in ((packed.violations, full.violations), (packed.witnesses, full.witnesses)):
        assert {k: (repr(d.states), d.actions, d.message) for k, d in mine.items()} == \
            {k: (repr(d.states), d.actions, d.message) for k, d in theirs.items()}


@pytest.mark.parametrize("machine", [
    pytest.param(Machine(DEFAULT_BOUNDS.replace(artifacts=2)), marks=pytest.mark.slow), ONE_PAUSE, FAULTS, TWO,
    mutate(ONE_PAUSE, mutant_named("no_put_back")), mutate(ONE_PAUSE, mutant_named("interrupt_recorded_failed")),
], ids=["default, 2 artifacts", "one pause", "faults", "two sessions", "no_put_back", "interrupt_recorded_failed"])
def test_a_compact_search_finds_the_same_states_verdicts_and_traces(machine: Machine) -> None:
    _same_search(machine)


def test_a_compact_search_with_fingerprints_is_refused() -> None:
    with pytest.raises(ValueError, match="not both"):
        explore(RICH, compact=True, fingerprints=True)


def test_a_compact_search_resumes_from_its_checkpoint(tmp_path: Path) -> None:
    machine = FAULTS
    saved = Checkpoint(tmp_path, 0.001, ("compact",))
    cut = explore(machine, Limits(max_states=6000), checkpoint=saved, compact=True)
    assert not cut.complete and saved.path.exists()
    whole, resumed = explore(machine, compact=True), explore(machine, checkpoint=saved, resume=True, compact=True)
    assert (resumed.states, resumed.transitions, resumed.depth) == (whole.states, whole.transitions, whole.depth)
    assert {k: d.actions for k, d in resumed.witnesses.items()} == {k: d.actions for k, d in whole.witnesses.items()}


def test_a_checkpoint_names_how_its_states_were_kept(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tiny = ["--pauses", "1", "--accept-unexercised", "--no-liveness", "--no-companion"]  # 2,885 states
    assert main(["check", *tiny, "--compact", "--checkpoint", str(tmp_path), "--checkpoint-every", "0.001"]) == 0
    capsys.readouterr()
    assert main(["check", *tiny, "--resume", str(tmp_path)]) == 2
    assert "--compact); this one is" in capsys.readouterr().err


def test_one_tuple_type_too_many_is_refused_by_name() -> None:
    store = CompactStates()
    kinds = [NamedTuple(f"Kind{k}", [("n", int)]) for k in range(compact.TYPES)]  # and the plain tuple: one too many
    with pytest.raises(ValueError, match="at most 64 tuple types apart; Kind63 is one more"):
        store.add(tuple(kind(k) for k, kind in enumerate(kinds)), tuple(kind(k) for k, kind in enumerate(kinds)))
