"""Checkpoints (`checks/search/checkpoint.py`, `checks/search/restore.py`): numbers only, never code; a resumed search
ends as one never stopped; a damaged, foreign or hand-made checkpoint of any shape is one line and exit 2."""

from __future__ import annotations

import json
import os
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pausecheck.checks.cli import main
from pausecheck.checks.mutants import mutant_named, mutate
from pausecheck.checks.search.checkpoint import FILE, MAGIC, Checkpoint, seal
from pausecheck.checks.search.explore import Limits, explore
from pausecheck.model import DEFAULT_BOUNDS, Bounds, Machine
from pausecheck.model.actions import StartWriteBack
from pausecheck.model.deviate import Effect, deviate, on

SMALL = ["--pauses", "1", "--accept-unexercised", "--no-liveness", "--no-companion"]  # 2,885 states


_STALL = deviate(on(StartWriteBack, Effect()))  # a write-back that does nothing: every run gets stuck


@pytest.mark.parametrize("machine", [
    Machine(DEFAULT_BOUNDS.replace(pauses=1)),
    mutate(Machine(DEFAULT_BOUNDS.replace(pauses=1)), mutant_named("no_put_back")),
    Machine(DEFAULT_BOUNDS, rules=_STALL),  # 13,043 states
    Machine(Bounds(sessions=2, turns=1, calls=1, per_call=1, artifacts=1, pauses=1, write_failures=1, observations=0,
                   interim_writes=0, node_failures=0, held_bound=1), symmetry=True),  # 13,352 classes
], ids=["default", "a mutant's violations", "deadlocks", "symmetry"])
def test_a_resumed_search_ends_as_one_never_stopped(machine: Machine, tmp_path: Path) -> None:
    saved = Checkpoint(tmp_path, 0.0001, ("test",))
    cut = explore(machine, Limits(max_states=2500), checkpoint=saved)
    assert not cut.complete and saved.path.read_bytes().startswith(MAGIC)
    whole, resumed = explore(machine), explore(machine, checkpoint=saved, resume=True)
    assert (resumed.states, resumed.transitions, resumed.depth, resumed.deadlocks) == (
        whole.states, whole.transitions, whole.depth, whole.deadlocks)
    for mine, theirs in ((resumed.violations, whole.violations), (resumed.witnesses, whole.witnesses)):
        assert {k: (d.states, d.actions, d.message) for k, d in mine.items()} == {
            k: (d.states, d.actions, d.message) for k, d in theirs.items()}
    assert (resumed.deadlock is None) == (whole.deadlock is None)
    if whole.deadlock is not None:
        assert resumed.deadlock is not None and resumed.deadlock.actions == whole.deadlock.actions


def test_a_checkpoint_saved_by_a_resumed_search_resumes_too(tmp_path: Path) -> None:
    """The discoveries and the deadlock a resume re-derives are what its own checkpoints then name."""
    machine = mutate(Machine(DEFAULT_BOUNDS.replace(pauses=1)), mutant_named("no_put_back"))  # 2,929 states
    saved = Checkpoint(tmp_path, 0.0, ("test",))
    explore(machine, Limits(max_states=1500), checkpoint=saved)
    first = saved.path.read_bytes()
    explore(machine, Limits(max_states=2600), checkpoint=saved, resume=True)
    assert saved.path.read_bytes() != first  # a later checkpoint, written by the resumed search
    whole, resumed = explore(machine), explore(machine, checkpoint=saved, resume=True)
    assert whole.violations and (resumed.states, resumed.transitions, resumed.depth) == (
        whole.states, whole.transitions, whole.depth)
    assert {k: (d.states, d.actions, d.message) for k, d in resumed.violations.items()} == {
        k: (d.states, d.actions, d.message) for k, d in whole.violations.items()}
    assert resumed.witnesses.keys() == whole.witnesses.keys()


def test_no_file_is_unpickled() -> None:
    """Only `packed.py` pickles, and only states it packed itself in memory."""
    import pausecheck

    root = Path(pausecheck.checks.__file__).parent.parent
    users = sorted(str(p.relative_to(root)) for folder in ("model", "traces", "checks", "pausecheck")
                   for p in (root / folder).rglob("*.py") if "import pickle" in p.read_text("utf-8"))
    packed = "checks/search/packed.py"
    assert users == [packed] and "pickle.load(" not in (root / packed).read_text("utf-8")


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """A real checkpoint of a small search cut short, as bytes."""
    folder = tmp_path_factory.mktemp("saved")
    assert main(["check", *SMALL, "--checkpoint", str(folder), "--checkpoint-every", "0.0001"]) == 0
    return (folder / FILE).read_bytes()


def _parts(data: bytes) -> tuple[dict[str, Any], bytes]:
    body = data[len(MAGIC):].partition(b"\n")[2]
    line, _, numbers = body.partition(b"\n")
    return json.loads(line), numbers


def _signed(header: Any, numbers: bytes) -> bytes:
    """A hand-made checkpoint with a right seal (made with the key): only its contents can be wrong."""
    body = (header if isinstance(header, bytes) else json.dumps(header).encode()) + b"\n" + numbers
    return seal(body)


def _edited(change: Callable[[dict[str, Any]], None]) -> Callable[[bytes], bytes]:
    def edit(data: bytes) -> bytes:
        header, numbers = _parts(data)
        change(header)
        return _signed(header, numbers)
    return edit


def _numbers(at: int, value: int) -> Callable[[bytes], bytes]:
    """Set one number (parents first, then choices) and re-sign."""
    def edit(data: bytes) -> bytes:
        header, numbers = _parts(data)
        blob = bytearray(numbers)
        blob[8 * at:8 * at + 8] = value.to_bytes(8, "little", signed=True)
        return _signed(header, bytes(blob))
    return edit


def _twice(data: bytes, j: int) -> bytes:
    """State j made the same step from the same parent as state j - 1."""
    header, numbers = _parts(data)
    n, blob = header["states"], bytearray(numbers)
    for at in (j, n + j):
        blob[8 * at:8 * at + 8] = blob[8 * at - 8:8 * at]
    return _signed(header, bytes(blob))


def _count(data: bytes) -> int:
    return _parts(data)[0]["states"]


DAMAGED: dict[str, tuple[Callable[[bytes], bytes], str]] = {
    "empty": (lambda d: b"", "first line differs"),
    "an old pickle": (lambda d: pickle.dumps({"key": None, "snapshot": {}}), "first line differs"),
    "a wrong seal": (lambda d: d[:-1] + bytes([d[-1] ^ 1]), "its seal does not match"),
    "cut short": (lambda d: d[: len(d) // 2], "holds"),  # refused by its size, before its numbers are read
    "a header not JSON": (lambda d: _signed(b"{nope", _parts(d)[1]), "header is not JSON"),
    "a header nested deeply": (lambda d: _signed(b"[" * 100_000, _parts(d)[1]), "header is not JSON"),
    "a header a list": (lambda d: _signed([1, 2], _parts(d)[1]), "not a JSON object"),
    "numbers cut short": (lambda d: _signed(_parts(d)[0], _parts(d)[1][:-8]), "holds"),
    "a count as text": (_edited(lambda h: h.update(states="12")), "names '12' states"),
    "no loop": (_edited(lambda h: h.pop("loop")), "loop's counters"),
    "a counter as text": (_edited(lambda h: h["loop"].update(i="0")), "counter 'i'"),
    "a negative counter": (_edited(lambda h: h["loop"].update(depth=-1)), "counter 'depth'"),
    "a counter true": (_edited(lambda h: h["loop"].update(transitions=True)), "counter 'transitions'"),
    "a position past the states": (_edited(lambda h: h["loop"].update(i=10**9, level_end=10**9)), "past the states"),
    "an unknown property": (_edited(lambda h: h["witnesses"].update(nothing=[0, None, None])), "'nothing'"),
    "a witness as a violation": (_edited(lambda h: h["violations"].update(h["witnesses"])), "not a property of this"),
    "a discovery of another shape": (_edited(lambda h: h["witnesses"].update(
        {next(iter(h["witnesses"])): {"a": 1}})), "not [state, successor"),
    "a discovery past the states": (_edited(lambda h: h["witnesses"].update(
        {next(iter(h["witnesses"])): [10**6, None, None]})), "not [state, successor"),
    "a discovery's successor missing": (_edited(lambda h: h["witnesses"].update(
        {next(iter(h["witnesses"])): [0, 99, None]})), "ends at successor 99 of state 0"),
    "a deadlock without a count": (_edited(lambda h: h.update(deadlock=[0, "stuck"])), "first deadlock"),
    "an initial state's parent": (_numbers(0, 5), "initial states"),
    "a parent after its child": (lambda d: _numbers(5, 10**6)(d), "not a state stored before it"),
    "a successor the parent lacks": (lambda d: _numbers(_count(d) + 5, 999)(d), "has no successor 999"),
    "a state found twice": (lambda d: _twice(d, 5), "stored already"),
}


@pytest.mark.parametrize("name", list(DAMAGED))
def test_a_damaged_checkpoint_is_one_line_and_exit_2(name: str, written: bytes, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    damage, expected = DAMAGED[name]
    (tmp_path / FILE).write_bytes(damage(written))
    assert main(["check", *SMALL, "--resume", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "damaged checkpoint" in err and expected in err, err


def test_the_undamaged_checkpoint_resumes(written: bytes, tmp_path: Path) -> None:
    (tmp_path / FILE).write_bytes(written)
    assert main(["check", *SMALL, "--resume", str(tmp_path)]) == 0


def test_a_checkpoint_of_another_search_is_refused_by_its_key(written: bytes, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    header, numbers = _parts(written)
    header["key"][3] = "conformant\x1b[31m+A-T5=append\n"
    (tmp_path / FILE).write_bytes(_signed(header, numbers))
    assert main(["check", *SMALL, "--resume", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "a checkpoint of another search" in err and "\x1b" not in err


@pytest.mark.parametrize("shape", ["a folder", "a device", "a missing file"])
def test_a_checkpoint_that_is_not_a_file_is_refused(shape: str, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    if shape == "a folder":
        (tmp_path / FILE).mkdir()
    elif shape == "a device":
        os.symlink("/dev/zero", tmp_path / FILE)
    assert main(["check", *SMALL, "--resume", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and ("no checkpoint" in err if shape == "a missing file" else "damaged" in err), err


def test_the_key_is_made_once_for_its_user_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pausecheck.checks import sealing

    monkeypatch.setenv(sealing.KEY_VARIABLE, str(tmp_path / "state" / "checkpoint.key"))
    first = sealing.sealer().copy()
    first.update(b"body")
    key = tmp_path / "state" / "checkpoint.key"
    assert len(key.read_bytes()) == 32 and key.stat().st_mode & 0o777 == 0o600
    again = sealing.sealer()
    again.update(b"body")
    assert first.hexdigest() == again.hexdigest()
    assert sorted(p.name for p in key.parent.iterdir()) == ["checkpoint.key"]  # no temporary left behind


def test_a_key_that_cannot_be_made_is_one_line_before_any_work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    from pausecheck.checks import sealing
    from pausecheck.checks.cli import commands

    blocked = tmp_path / "a-file"
    blocked.write_text("")
    monkeypatch.setenv(sealing.KEY_VARIABLE, str(blocked / "checkpoint.key"))
    monkeypatch.setattr(commands, "_checked", lambda *a, **k: pytest.fail("the search started"))
    assert main(["check", *SMALL, "--checkpoint", str(tmp_path / "saved")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"the checkpoint key {blocked / 'checkpoint.key'}: Not a directory" in err
    assert sealing.KEY_VARIABLE in err
