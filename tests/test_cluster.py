"""The Ray extra on a local Ray instance: a batch of mutants and one partitioned search agree with
the local search on states and verdicts."""

from __future__ import annotations

import pytest

ray = pytest.importorskip("ray", reason="the optional Ray extra is not installed (pip install 'pausecheck[ray]')")

from pausecheck.checks.cluster import connect, partitioned_search  # noqa: E402
from pausecheck.checks.explore import explore  # noqa: E402
from pausecheck.checks.killmatrix import kill_matrix  # noqa: E402
from pausecheck.checks.mutants import mutant_named  # noqa: E402
from pausecheck.model import Bounds, Machine, reading_named  # noqa: E402

SMALL = Bounds(calls=2, per_call=1, artifacts=2, pauses=1, write_failures=1, observations=0, held_bound=1)


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    connect(cpus=2)
    yield
    ray.shutdown()


def depths(found) -> dict[str, int]:
    return {name: len(d.actions) for name, d in found.items()}


@pytest.mark.parametrize("parts", [1, 3])
def test_a_partitioned_search_finds_the_local_states_and_verdicts(parts: int) -> None:
    local = explore(Machine(SMALL))
    spread = partitioned_search(SMALL, parts=parts)
    assert (spread.states, spread.transitions, spread.depth, spread.deadlocks) == \
        (local.states, local.transitions, local.depth, local.deadlocks)
    assert spread.witnessed == depths(local.witnesses) and spread.violated == depths(local.violations) == {}


def test_a_partitioned_search_reports_what_a_reading_breaks() -> None:
    local = explore(Machine(SMALL, reading=reading_named("conformant+A-T4=release")))
    spread = partitioned_search(SMALL, "conformant+A-T4=release", parts=2)
    assert local.violations and spread.violated == depths(local.violations)
    assert spread.states == local.states


def test_a_batch_of_mutants_on_ray_gives_the_local_rows() -> None:
    chosen = [mutant_named(n) for n in ("no_put_back", "decline_not_offered", "take_keeps_held")]
    on_ray = kill_matrix(chosen, SMALL, on_ray=True)
    here = kill_matrix(chosen, SMALL, jobs=1)
    assert [(r.name, r.killed_by, r.shortest, r.states) for r in on_ray.mutants] == \
        [(r.name, r.killed_by, r.shortest, r.states) for r in here.mutants]
