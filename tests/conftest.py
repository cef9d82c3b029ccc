"""Fixtures shared across test modules."""

from __future__ import annotations

import multiprocessing
import os
import shutil
import tempfile
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import pytest
from pausecheck.checks.mutants import MUTANTS
from pausecheck.checks.mutants.flips import flip_matrix
from pausecheck.checks.mutants.killmatrix import KillMatrix, kill_matrix
from pausecheck.checks.report import check
from pausecheck.checks.search.sealing import KEY_VARIABLE
from pausecheck.checks.symbolic import compositional, consistency
from pausecheck.model.reading import reading_named

_CHECKS: dict[str, Any] = {}


def _temporary_files_in_memory() -> None:
    """Temporary files (tmp_path, and those of the commands and runtimes the tests start) in memory where the
    machine has room for them: the runtimes under the oracle commit every step by writing a file and renaming
    it over their store, which on a journaled disk takes most of their time (the PHP kit at `--calls 1`: 5.6 s
    in /tmp on ext4, 3.0 s in /dev/shm)."""
    folder = "/dev/shm/pausecheck-tests"
    try:
        if shutil.disk_usage("/dev/shm").free < 4 << 30:
            return
        os.makedirs(folder, exist_ok=True)
    except OSError:  # no /dev/shm (not Linux), or not ours to write: the system's temporary folder
        return
    if not os.access(folder, os.W_OK | os.X_OK):  # another user's, on a shared machine
        return
    os.environ["TMPDIR"] = folder
    tempfile.tempdir = None  # asked again of TMPDIR


def pytest_configure(config: pytest.Config) -> None:
    """Checkpoints sealed under a key of the test run's own (inherited by the commands it starts), never the
    user's (`checks/search/sealing.py`)."""
    _temporary_files_in_memory()
    os.environ[KEY_VARIABLE] = os.path.join(tempfile.mkdtemp(prefix="pausecheck-key-"), "checkpoint.key")


def _shared_check(bounds: Any, reading: str = "conformant", **options: Any) -> Any:
    progress = options.pop("progress", None)
    # a rule table (the rules, or a draft's) by its identity: the engines cache by it too
    key = repr((bounds, reading, sorted((k, id(v) if k == "rules" else v) for k, v in options.items())))
    if key not in _CHECKS:
        _CHECKS[key] = check(bounds, reading, progress=progress, **options)
    return _CHECKS[key]


@pytest.fixture(scope="session")
def shared_check() -> Any:
    """`check`, run once per test session and distinct set of arguments (the progress callback aside):
    patched into the CLI (`commands.check`) by the tests that run it at the default bounds."""
    return _shared_check


def in_fresh_process(function: Callable[..., Any], *args: Any) -> Any:
    """`function(*args)` in a new interpreter. z3's choices depend on what its process did before (term ids,
    and the addresses its hash tables see): `prove --induction` run twice in one process drops its candidates
    in other rounds the second time. The command line runs each proof in a process of its own; the tests of
    the long proofs do the same, so that they take the path (and the time) a user's run takes."""
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(function, *args).result()


def composed(bounds: Any, reading: str = "conformant", mutant: str | None = None, workers: int = 1) -> Any:
    """`prove_compositional` under the reading named, with the rule table of the mutant named (the table if
    none): by names, so that it can be sent to a fresh process."""
    rules = compositional.RULES if mutant is None else next(m.rules for m in MUTANTS if m.name == mutant)
    return _prove_compositional(bounds, reading_named(reading), rules, workers=workers)


_COMPOSITIONS: dict[str, Any] = {}
_prove_compositional = compositional.prove_compositional


def _shared_composition(bounds: Any, reading: Any = compositional.CONFORMANT, rules: Any = compositional.RULES,
                        progress: Any = None, deadline: Any = None, workers: int = 1) -> Any:
    if deadline is not None:
        return _prove_compositional(bounds, reading, rules, progress, deadline, workers)
    mutant = None if rules is compositional.RULES else next(m.name for m in MUTANTS if m.rules is rules)
    workers = min(workers, 2)  # the same proof at any number of workers of two or more (`asking.py`)
    key = repr((compositional.many_sessions(bounds), reading.name, mutant, workers))  # one session asked: two
    if key not in _COMPOSITIONS:
        _COMPOSITIONS[key] = in_fresh_process(composed, bounds, reading.name, mutant, workers)
    return _COMPOSITIONS[key]


@pytest.fixture(scope="session")
def shared_composition() -> Any:
    """`prove_compositional` (z3, a minute or more), run once per test session and distinct arguments, each in
    a fresh process (`in_fresh_process`): patched into the module the CLI imports it from by the tests that run
    `prove --compositional`."""
    return _shared_composition


_CLASHES: dict[str, Any] = {}
_clashes = consistency.clashes


def clashed(bounds: Any, depth: int, readings: Any = None) -> Any:
    """`consistency.clashes`, as sent to a fresh process (`in_fresh_process`)."""
    return _clashes(bounds, depth, readings)


def _shared_clashes(bounds: Any, depth: int, readings: Any = None, done: Any = None, rules: Any = None) -> Any:
    # shared only for the rules themselves: the documented example passes no draft
    assert rules is None or rules is compositional.RULES, "a draft's clashes are not shared"
    key = repr((bounds, depth, readings))
    if key not in _CLASHES:
        _CLASHES[key] = in_fresh_process(clashed, bounds, depth, readings)
    for clash in _CLASHES[key]:
        if done is not None:
            done(clash)
    return list(_CLASHES[key])


@pytest.fixture(scope="session")
def shared_clashes() -> Any:
    """`consistency.clashes` (z3, minutes), run once per test session and distinct arguments, in a fresh process; `done`
    is told of each clash as the real one would: patched in by the documented `consistency` example."""
    return _shared_clashes


@pytest.fixture(scope="session")
def matrix() -> KillMatrix:
    """Every mutant explored once (about two minutes): the kill matrix and each target's evidence."""
    return kill_matrix(MUTANTS)


_FLIPS: dict[str, Any] = {}


def _shared_flips(bounds: Any, *, pairs: bool = True, done: Any = None, **options: Any) -> Any:
    options = {name: value for name, value in options.items() if value is not None}  # jobs=None: the default
    key = repr((bounds, pairs, sorted(options.items())))
    if key not in _FLIPS:
        _FLIPS[key] = flip_matrix(bounds, pairs=pairs, done=done, **options)
    return _FLIPS[key]


@pytest.fixture(scope="session")
def shared_flips() -> Any:
    """`flip_matrix`, run once per test session and distinct arguments (the progress callback aside):
    patched in by the documented examples, two of which (`readings`, `report --readings`) ask for the
    same one at small bounds."""
    return _shared_flips


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test that needs the whole kill matrix (every mutant explored, minutes) is `slow`; under
    pytest-xdist (`-n`), they run on one worker, which computes it once (the documented examples with
    `--mutants` ask for it at run time)."""
    for item in items:
        documented = item.name.startswith("test_the_example_runs_as_documented[")
        if "matrix" in getattr(item, "fixturenames", ()) or (documented and "mutants" in item.name):
            item.add_marker(pytest.mark.slow)
            item.add_marker(pytest.mark.xdist_group("matrix"))
        elif item.name.startswith("test_each_clash_is") or (documented and "consistency --only clashes" in item.name):
            item.add_marker(pytest.mark.xdist_group("clashes"))
        elif (documented and "prove --compositional" in item.name) or item.name.startswith(
                ("test_two_sessions_behave", "test_the_premises_asked_on_workers")):
            item.add_marker(pytest.mark.xdist_group("composition"))  # one proof for all (shared_composition)
        elif documented and "readings" in item.name and "--calls 1 --artifacts 1 --pauses 1 --no-pairs" in item.name:
            item.add_marker(pytest.mark.xdist_group("readings"))  # one flip matrix for both (shared_flips)
