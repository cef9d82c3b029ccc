"""Checkpoints of a search spread over processes (`checks/search/levels.py`): saved between two levels, a resumed
search ends as one never stopped, figure for figure and trace for trace; a file edited, swapped or of another
search is refused in one line; and a fingerprint search resumes in another process (`pausecheck` fixes the seed
of Python's hashes for it)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from pausecheck.checks.cli import main
from pausecheck.checks.mutants import mutant_named, mutate
from pausecheck.checks.search import levels
from pausecheck.checks.search.checkpoint import Checkpoint, CheckpointError
from pausecheck.checks.search.explore import Limits, explore
from pausecheck.checks.search.spread import spread
from pausecheck.model import Bounds, Machine

from .test_promela import CASES
from .test_spread import figures

STORES = [{}, {"fingerprints": True}]


def _saved(machine: Machine, folder: Path, workers: int, depth: int, **store: bool) -> Checkpoint:
    """A checkpoint of the search cut at `depth` (saved after every level)."""
    checkpoint = Checkpoint(folder, 0.0, ("test",))
    cut = spread(machine, workers, Limits(max_depth=depth), checkpoint=checkpoint, **store)
    assert not cut.complete and cut.depth == depth
    return checkpoint


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("store", STORES, ids=["exact", "fingerprints"])
def test_a_resumed_search_ends_as_one_never_stopped(workers: int, store: dict[str, bool], tmp_path: Path) -> None:
    """With a mutant that breaks properties, and discoveries before the cut and after it: the same figures,
    discoveries, their order and their traces as one process's search."""
    machine = mutate(Machine(CASES["crashes"][0]), mutant_named("no_put_back"))
    one = explore(machine, **store)
    firsts = sorted(len(found.actions) for found in [*one.violations.values(), *one.witnesses.values()])
    depth = (firsts[0] + firsts[-1]) // 2
    assert one.violations and firsts[0] < depth <= firsts[-1]  # something found before the checkpoint, some after
    checkpoint = _saved(machine, tmp_path, workers, depth, **store)
    resumed = spread(machine, workers, checkpoint=checkpoint, resume=True, **store)
    assert figures(resumed) == figures(one)


def _files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if levels.PART.fullmatch(p.name))


def test_only_the_last_checkpoint_is_kept(tmp_path: Path) -> None:
    _saved(Machine(Bounds(calls=1, pauses=1, artifacts=1)), tmp_path, 2, 5)
    assert [p.name for p in _files(tmp_path)] == ["spread-5.0", "spread-5.1"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["spread-5.0", "spread-5.1", levels.DRIVER]


@pytest.mark.parametrize("damage", ["a byte of a part", "a part cut", "parts swapped", "the driver's file edited"])
def test_a_damaged_checkpoint_is_refused_in_one_line(damage: str, tmp_path: Path) -> None:
    machine = Machine(Bounds(calls=1, pauses=1, artifacts=1))
    checkpoint = _saved(machine, tmp_path, 2, 4)
    first, second = _files(tmp_path)
    if damage == "a byte of a part":
        data = bytearray(first.read_bytes())
        data[-1] ^= 1
        first.write_bytes(bytes(data))
    elif damage == "a part cut":
        first.write_bytes(first.read_bytes()[:-8])
    elif damage == "parts swapped":
        a, b = first.read_bytes(), second.read_bytes()
        first.write_bytes(b)
        second.write_bytes(a)
    else:
        driver = tmp_path / levels.DRIVER
        driver.write_bytes(driver.read_bytes().replace(b'"level": 4', b'"level": 3'))
    with pytest.raises(CheckpointError) as refused:
        spread(machine, 2, checkpoint=checkpoint, resume=True)
    assert "damaged checkpoint" in str(refused.value) and "\n" not in str(refused.value)


def test_a_checkpoint_is_resumed_only_by_its_own_search(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    machine = Machine(Bounds(calls=1, pauses=1, artifacts=1))
    _saved(machine, tmp_path, 2, 4, fingerprints=True)
    with pytest.raises(CheckpointError, match="another search"):
        spread(machine, 2, checkpoint=Checkpoint(tmp_path, 0.0, ("other",)), resume=True, fingerprints=True)
    with pytest.raises(CheckpointError, match="resume it with --workers 2"):
        spread(machine, 3, checkpoint=Checkpoint(tmp_path, 0.0, ("test",)), resume=True, fingerprints=True)
    monkeypatch.setattr(levels, "probe", lambda: 12345)  # a process whose hashes of states differ
    with pytest.raises(CheckpointError, match="PYTHONHASHSEED"):
        spread(machine, 2, checkpoint=Checkpoint(tmp_path, 0.0, ("test",)), resume=True, fingerprints=True)


SMALL = ["--calls", "1", "--artifacts", "2", "--pauses", "1", "--no-companion", "--no-liveness", "--json"]


def _pausecheck(*argv: str) -> dict:
    """`pausecheck check` in a process of its own, with Python's hashes unseeded as a user's are."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONHASHSEED"}
    done = subprocess.run([sys.executable, "-m", "pausecheck", "check", *SMALL, *argv], env=env, capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode in (0, 3), done.stderr
    report = json.loads(done.stdout)
    del report["seconds"], report["states_per_second"]
    return report


def test_a_fingerprint_search_resumes_in_another_process(tmp_path: Path) -> None:
    """Each command a process of its own: the fingerprints saved by one are those the next computes."""
    whole = _pausecheck("--workers", "2", "--fingerprint")
    cut = _pausecheck("--workers", "2", "--fingerprint", "--checkpoint", str(tmp_path), "--checkpoint-every", "0.001",
                      "--max-states", "150")
    assert cut["complete"] is False and cut["states"] < whole["states"]
    assert _pausecheck("--workers", "2", "--fingerprint", "--resume", str(tmp_path)) == whole


def test_resuming_with_the_other_kind_of_search_is_refused_in_one_line(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    flags = ["check", *SMALL[:-1]]
    assert main([*flags, "--workers", "2", "--checkpoint", str(tmp_path), "--checkpoint-every", "0.001",
                 "--max-states", "100"]) == 3
    capsys.readouterr()
    assert main([*flags, "--resume", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "a checkpoint of a search spread over processes" in err and err.count("\n") == 1


def test_a_fingerprint_search_in_one_process_is_checkpointed_too(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """`--fingerprint` without `--workers` saves through one worker process: the same report as a search never
    stopped (and the same as the one-process search keeping fingerprints)."""
    flags = ["check", *SMALL, "--fingerprint"]
    assert main(flags) == 3
    whole = json.loads(capsys.readouterr().out)
    assert main([*flags, "--checkpoint", str(tmp_path), "--checkpoint-every", "0.001", "--max-states", "150"]) == 3
    capsys.readouterr()
    assert [p.name for p in _files(tmp_path)][-1].endswith(".0") and len(_files(tmp_path)) == 1
    assert main([*flags, "--resume", str(tmp_path)]) == 3
    resumed = json.loads(capsys.readouterr().out)
    for report in (whole, resumed):
        del report["seconds"], report["states_per_second"]
    assert resumed == whole
