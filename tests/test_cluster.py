"""The Ray extra on a local Ray instance: a batch of mutants gives the local rows, and one search spread
over Ray actors is the one-process search, figure for figure and trace for trace, on every bound set of
the Promela test table."""

from __future__ import annotations

import re

import pytest

ray = pytest.importorskip("ray", reason="the optional Ray extra is not installed (pip install 'pausecheck[ray]')")

from pausecheck.checks.cli import main  # noqa: E402
from pausecheck.checks.mutants import mutant_named  # noqa: E402
from pausecheck.checks.mutants.killmatrix import kill_matrix  # noqa: E402
from pausecheck.checks.search.cluster import connect, ray_spread  # noqa: E402
from pausecheck.checks.search.explore import explore  # noqa: E402
from pausecheck.model import Bounds, Machine, reading_named  # noqa: E402

from .test_promela import CASES  # noqa: E402
from .test_spread import SLOW, figures  # noqa: E402

SMALL = Bounds(calls=2, per_call=1, artifacts=2, pauses=1, write_failures=1, observations=0, held_bound=1)


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    connect(cpus=2)
    yield
    ray.shutdown()


@pytest.mark.parametrize("case", [pytest.param(c, marks=pytest.mark.slow) if c in SLOW else c for c in CASES])
def test_a_search_on_ray_is_the_one_process_search(case: str) -> None:
    bounds, reading = CASES[case]
    machine = Machine(bounds, reading_named(reading))
    assert figures(ray_spread(machine, 2)) == figures(explore(machine)), case


def test_check_on_ray_prints_what_one_process_prints(capsys: pytest.CaptureFixture[str]) -> None:
    small = ("check", "--calls", "1", "--artifacts", "2", "--pauses", "1", "--observations", "0", "--held-bound", "1",
             "--no-liveness", "--reading", "conformant+A-T4=release")
    assert main(list(small)) == 1
    here = capsys.readouterr().out
    assert main([*small, "--ray", "--workers", "3"]) == 1
    there = capsys.readouterr().out
    assert there.endswith(" --workers 3 --ray --out out/\n")  # the reproduce line reruns it on Ray
    assert _no_speed(there).replace(" --workers 3 --ray", "") == _no_speed(here)


def _no_speed(text: str) -> str:
    return re.sub(r"in [0-9.]+ s \([0-9,]+ states/s\)", "", text)


def test_a_batch_of_mutants_on_ray_gives_the_local_rows() -> None:
    chosen = [mutant_named(n) for n in ("no_put_back", "decline_not_offered", "take_keeps_held")]
    on_ray = kill_matrix(chosen, SMALL, on_ray=True)
    here = kill_matrix(chosen, SMALL, jobs=1)
    assert [(r.name, r.killed_by, r.shortest, r.states) for r in on_ray.mutants] == \
        [(r.name, r.killed_by, r.shortest, r.states) for r in here.mutants]
