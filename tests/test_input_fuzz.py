"""A fuzz suite for every input pausecheck reads: golden traces and runtime logs, mutated by Hypothesis
(keys deleted, types swapped, deep nesting, huge numbers, bad encodings, steps reordered or
duplicated), run through replay, shrink and validate in process. No exception may escape, and the
exit code must be a documented one. A few hundred examples in the edit loop; thousands in CI."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pausecheck.checks.cli import main

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = sorted((ROOT / "traces" / "golden").glob("*.itf.json"))[:8]
LOG = ROOT / "examples" / "logs" / "reference.jsonl"
CODES = {0, 1, 2, 3}  # ok, violated, usage or input error, not established

ODD_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-(10**30), 10**30), st.floats(allow_nan=True), st.text(max_size=8),
    st.just("\ud800"), st.just([[[[[]]]]]), st.just({"": {}}), st.just(10**5000 if False else "9" * 5000),
    st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path into a JSON value (keys and indices), the root included."""
    out = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            out += _paths(item, prefix + (key,))
    elif isinstance(value, list):
        for i, item in enumerate(value[:6]):
            out += _paths(item, prefix + (i,))
    return out


def _at(document: Any, path: tuple[Any, ...]) -> tuple[Any, Any]:
    parent = document
    for key in path[:-1]:
        parent = parent[key]
    return parent, path[-1]


@st.composite
def mutated(draw: st.DrawFn, document: Any) -> bytes:
    """The document with one to three mutations, then serialised (perhaps badly)."""
    document = json.loads(json.dumps(document))
    for _ in range(draw(st.integers(1, 3))):
        paths = [p for p in _paths(document) if p]
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent, key = _at(document, path)
        how = draw(st.sampled_from(["delete", "replace", "nest", "duplicate", "reorder"]))
        if how == "delete":
            del parent[key]
        elif how == "replace":
            parent[key] = copy.deepcopy(draw(ODD_VALUES))  # st.just values are shared: a later edit could loop them
        elif how == "nest":
            parent[key] = [parent[key]] if draw(st.booleans()) else {"x": parent[key]}
        elif isinstance(parent, list) and how == "duplicate":
            parent.insert(key, json.loads(json.dumps(parent[key])))
        elif isinstance(parent, list):
            parent.reverse()
    text = json.dumps(document, ensure_ascii=draw(st.booleans()))
    damage = draw(st.sampled_from(["none", "none", "truncate", "bytes", "deep"]))
    data = text.encode("utf-8", "surrogatepass")
    if damage == "truncate":
        return data[: draw(st.integers(0, len(data)))]
    if damage == "bytes":
        at = draw(st.integers(0, len(data)))
        return data[:at] + draw(st.binary(min_size=1, max_size=4)) + data[at:]
    if damage == "deep":
        return b"[" * 5000 + data + b"]" * 5000
    return data


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> int:
    code = main(argv)
    capsys.readouterr()
    return code


FAST = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True,
                database=None)
MANY = settings(max_examples=1500, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True,
                database=None)


def _trace_case(data: st.DataObject, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    golden = data.draw(st.sampled_from(GOLDEN))
    raw = data.draw(mutated(json.loads(golden.read_text(encoding="utf-8"))))
    path = tmp_path / "mutated.itf.json"
    path.write_bytes(raw)
    assert _run(["replay", "--quiet", str(path)], capsys) in CODES
    assert _run(["shrink", str(path), "--out", str(tmp_path / "out.itf.json")], capsys) in CODES


def _log_case(data: st.DataObject, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = [json.loads(line) for line in LOG.read_text(encoding="utf-8").splitlines()]
    raw = data.draw(mutated(lines))
    try:  # back to JSON lines when the mutation left a list of objects; else the damaged text as it is
        entries = json.loads(raw)
        text = "".join(json.dumps(e) + "\n" for e in entries).encode() if isinstance(entries, list) else raw
    except (ValueError, RecursionError):
        text = raw
    path = tmp_path / "mutated.jsonl"
    path.write_bytes(text)
    assert _run(["validate", str(path), "--out", str(tmp_path / "d.itf.json")], capsys) in CODES


@FAST
@given(data=st.data())
def test_mutated_traces_never_escape(data: st.DataObject, tmp_path_factory: pytest.TempPathFactory,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    _trace_case(data, tmp_path_factory.mktemp("t"), capsys)


@FAST
@given(data=st.data())
def test_mutated_logs_never_escape(data: st.DataObject, tmp_path_factory: pytest.TempPathFactory,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    _log_case(data, tmp_path_factory.mktemp("l"), capsys)


@pytest.mark.slow
@MANY
@given(data=st.data())
def test_many_mutated_traces_never_escape(data: st.DataObject, tmp_path_factory: pytest.TempPathFactory,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    _trace_case(data, tmp_path_factory.mktemp("t"), capsys)


@pytest.mark.slow
@MANY
@given(data=st.data())
def test_many_mutated_logs_never_escape(data: st.DataObject, tmp_path_factory: pytest.TempPathFactory,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    _log_case(data, tmp_path_factory.mktemp("l"), capsys)
