"""Spread checkpoints forged as a holder of the key can (issue 59): a field of the driver's file or of a process's
file edited (a wrong type, a length, a number one off), a section cut, grown or with a byte changed, the files
sealed again and the driver's file naming them again. A resume refuses each in one line or ends as the search never
stopped. What `checks/search/spreadcheck.py` says it takes on trust is left alone here, and named in TRUSTED."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pausecheck.checks.search import levels
from pausecheck.checks.search.checkpoint import Checkpoint, CheckpointError
from pausecheck.checks.search.explore import Limits, explore
from pausecheck.checks.search.spread import spread
from pausecheck.model import Bounds, Machine

from .sampling import FULL
from .test_spread import figures

MACHINE = Machine(Bounds(calls=1, pauses=1, artifacts=1))
OTHER = Machine(Bounds(calls=2, pauses=1, artifacts=1))  # another search of the same model
DEPTH = 5
# Taken on trust (docs/reference.md): the counters a part reports and the driver's timing figures, a finding's
# message, the fingerprints themselves and the parent links of states no resume check walks.
TRUSTED = {"transitions", "deadlocks", "routed", "sent", "crossed", "critical", "crowded", "probe"}
ODD = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.just(2**70), st.text(max_size=3),
                st.just([]), st.just({}), st.just([[1]]), st.just({"hex": "zz"}))


def _saved(machine: Machine, folder: Path, **store: bool) -> Checkpoint:
    checkpoint = Checkpoint(folder, 0.0, ("forgery",))
    cut = spread(machine, 2, Limits(max_depth=DEPTH), checkpoint=checkpoint, **store)
    assert not cut.complete and cut.depth == DEPTH
    return checkpoint


@pytest.fixture(scope="module", params=[{}, {"fingerprints": True}], ids=["exact", "fingerprints"])
def saved(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict, Any]:
    """The files of a checkpoint (name -> bytes), the store, and the figures of the search never stopped."""
    folder = tmp_path_factory.mktemp("spread")
    _saved(MACHINE, folder, **request.param)
    files = {p.name: p.read_bytes() for p in folder.iterdir()}
    return files, request.param, figures(explore(MACHINE, **request.param))


def _restore(folder: Path, files: dict[str, bytes]) -> None:
    for old in folder.iterdir():
        old.unlink()
    for name, data in files.items():
        (folder / name).write_bytes(data)


def _parts(header: dict[str, Any], body: bytes) -> list[bytes]:
    sections, at = [], 0
    for length in header["sections"]:
        sections.append(body[at:at + length])
        at += length
    return sections


def _reseal(folder: Path, name: str, header: dict[str, Any], sections: list[bytes]) -> None:
    """Write a file sealed under the key; a process's file is named again, with its size and seal, by the driver's."""
    size, digest = levels._write_sealed(folder / name, header, sections)
    if name != levels.DRIVER:
        driver, _ = levels._read_sealed(folder / levels.DRIVER)
        for entry in driver["parts"]:
            if entry[0] == name:
                entry[1:] = [size, digest]
        levels._write_sealed(folder / levels.DRIVER, driver, [])


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, item in value.items():
            if key not in TRUSTED and key != "hex":
                out += _paths(item, prefix + (key,))
    elif isinstance(value, list):
        for i, item in enumerate(value[:10]):
            if not (len(value) == 10 and i == 8):  # a finding's message
                out += _paths(item, prefix + (i,))
    return out


def _forge(data: st.DataObject, folder: Path) -> str:
    """One edit of one file, sealed again: what was done, in words."""
    name = data.draw(st.sampled_from(sorted(p.name for p in folder.iterdir())))
    header, body = levels._read_sealed(folder / name)
    sections = [] if name == levels.DRIVER else _parts(header, body)
    if sections and data.draw(st.booleans()):
        k = data.draw(st.integers(0, 4))
        how = data.draw(st.sampled_from(["cut", "grow", "byte", "fill"]))
        section = bytearray(sections[k])
        if how == "cut":
            del section[data.draw(st.integers(0, max(0, len(section) - 1))):]
        elif how == "grow":
            section += bytes(data.draw(st.integers(1, 16)))
        elif how == "byte" and section and (k == 4 or (k == 3 and not header["fingerprints"])):  # zlib's sum guards
            section[data.draw(st.integers(0, len(section) - 1))] ^= 1 << data.draw(st.integers(0, 7))
        elif how == "fill" and k == 3 and header["fingerprints"]:
            section = bytearray(b"\x01\x00\x00\x00\x00\x00\x00\x00" * (len(section) // 8))
        sections[k] = bytes(section)
        if data.draw(st.booleans()):
            header["sections"] = [len(s) for s in sections]
        what = f"{name}: section {k} {how}"
    else:
        paths = _paths(header)
        path = data.draw(st.sampled_from(paths))
        parent = header
        for key in path[:-1]:
            parent = parent[key]
        old = parent[path[-1]]
        if isinstance(old, int) and not isinstance(old, bool) and data.draw(st.booleans()):
            parent[path[-1]] = old + data.draw(st.sampled_from([-1, 1, 2]))
        elif isinstance(parent, dict) and data.draw(st.booleans()):
            del parent[path[-1]]
        else:
            parent[path[-1]] = copy.deepcopy(data.draw(ODD))
        what = f"{name}: {'.'.join(map(str, path))} was {json.dumps(old)[:40]}"
    _reseal(folder, name, header, sections)
    return what


@settings(max_examples=150 if FULL else 60, deadline=None, derandomize=True, database=None,  # 150: 45 s of the suite
          suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_a_forged_spread_checkpoint_is_refused_or_changes_nothing(data: st.DataObject, saved: tuple[dict, dict, Any],
                                                                  tmp_path_factory: pytest.TempPathFactory) -> None:
    files, store, whole = saved
    folder = tmp_path_factory.mktemp("forged")
    _restore(folder, files)
    what = _forge(data, folder)
    try:
        resumed = spread(MACHINE, 2, checkpoint=Checkpoint(folder, 0.0, ("forgery",)), resume=True, **store)
    except CheckpointError as refused:
        assert "\n" not in str(refused), str(refused)
        return
    except Exception as error:  # noqa: BLE001 - said briefly: the states of a diff would fill pages
        pytest.fail(f"{type(error).__name__}: {str(error)[:200]} after {what}")
    if figures(resumed) != whole:
        pytest.fail(f"accepted with other results: {what}")


def test_a_full_fingerprint_table_is_refused(tmp_path: Path) -> None:
    _saved(MACHINE, tmp_path, fingerprints=True)
    name = sorted(p.name for p in tmp_path.iterdir() if levels.PART.fullmatch(p.name))[0]
    header, body = levels._read_sealed(tmp_path / name)
    sections = _parts(header, body)
    sections[3] = (b"\x01" + b"\x00" * 7) * (header["sections"][3] // 8)  # every slot in use
    _reseal(tmp_path, name, header, sections)
    with pytest.raises(CheckpointError, match="slots in use"):
        spread(MACHINE, 2, checkpoint=Checkpoint(tmp_path, 0.0, ("forgery",)), resume=True, fingerprints=True)


@pytest.mark.parametrize("store", [{}, {"fingerprints": True}], ids=["exact", "fingerprints"])
def test_a_checkpoint_of_another_search_transplanted_whole_is_refused(store: dict[str, bool], tmp_path: Path) -> None:
    """Another search's files, its key edited to this search's and sealed again: the links lead elsewhere."""
    _saved(OTHER, tmp_path, **store)
    with pytest.raises(CheckpointError, match="damaged checkpoint"):
        spread(MACHINE, 2, checkpoint=Checkpoint(tmp_path, 0.0, ("forgery",)), resume=True, **store)


def test_a_wrong_type_in_a_field_is_one_line_and_exit_2_at_the_command_line(tmp_path: Path,
                                                                           capsys: pytest.CaptureFixture[str]) -> None:
    from pausecheck.checks.cli import main

    flags = ["check", "--calls", "1", "--artifacts", "1", "--pauses", "1", "--no-companion", "--no-liveness",
             "--workers", "2"]
    assert main([*flags, "--checkpoint", str(tmp_path), "--checkpoint-every", "0.001", "--max-states", "60"]) == 3
    capsys.readouterr()
    header, body = levels._read_sealed(tmp_path / levels.DRIVER)
    header["loop"]["level"] = "four"
    levels._write_sealed(tmp_path / levels.DRIVER, header, [])
    assert main([*flags, "--resume", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "damaged checkpoint" in err and err.count("\n") == 1, err
