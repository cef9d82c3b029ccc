"""The one input reader (`traces/input_file.py`): every file pausecheck opens is read within a size cap,
a nesting cap and UTF-8, and every problem is one line naming the file and the JSON path or line, with
the input it echoes made printable."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from pausecheck.checks.cli import main
from pausecheck.checks.oracle.vectors import export_vectors
from pausecheck.model import Bounds, Machine
from pausecheck.traces.input_file import InputError, parse_json, printable, read_json_lines

ROOT = Path(__file__).resolve().parent.parent
RUNTIME = ROOT / "examples" / "sqlite_runtime" / "runtime.py"
GOLDEN = ROOT / "traces" / "golden" / "no_put_back.itf.json"


def test_printable_escapes_every_control_character_and_keeps_the_rest() -> None:
    assert printable("a\nb\tc\rd\x1b[31m\x7f\x85\u2028\ud800é✓") == "a\\nb\\tc\\rd\\x1b[31m\\x7f\\x85\\u2028\\ud800é✓"
    assert printable("plain text") == "plain text"


def test_a_deep_line_is_one_error_naming_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "deep.jsonl"
    path.write_text("{}\n" + "[" * 100_000 + "]" * 100_000 + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"deep.jsonl:2: \$: nested more than 64 levels deep"):
        read_json_lines(path)


def test_a_bad_line_names_its_number(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b'{}\n{"a": \n')
    with pytest.raises(InputError, match=r"bad.jsonl:2: not JSON"):
        read_json_lines(path)
    path.write_bytes(b'{}\n"\xff"\n')
    with pytest.raises(InputError, match=r"bad.jsonl: not UTF-8 \(byte 4\)"):
        read_json_lines(path)
    with pytest.raises(InputError, match=r"x: line 1 column 1: not JSON"):
        parse_json("nope", "x")


@pytest.fixture
def vectors(tmp_path: Path) -> Path:
    folder = tmp_path / "v"
    export_vectors(Machine(Bounds(calls=1, per_call=0, artifacts=0, pauses=0, write_failures=0, observations=0)),
                   folder)
    return folder


def _vectors_check(folder: Path, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["vectors", "check", str(folder), "--", sys.executable, str(RUNTIME)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    return err


def test_a_vectors_line_of_100000_nested_arrays_is_one_line(vectors: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (vectors / "vectors.jsonl").write_text("[" * 100_000 + "]" * 100_000 + "\n", encoding="utf-8")
    assert "vectors.jsonl:1: $: nested more than 64 levels deep" in _vectors_check(vectors, capsys)


@pytest.mark.parametrize("file, words", [
    ("/dev/zero", "$.file: must name a file in the folder"),
    ("../../etc/passwd", "$.file: must name a file in the folder"),
    (["x"], "$.file: must name a file in the folder"),
])
def test_a_manifest_naming_a_file_outside_its_folder_is_one_line(file: object, words: str, vectors: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    manifest = json.loads((vectors / "manifest.json").read_text(encoding="utf-8"))
    (vectors / "manifest.json").write_text(json.dumps({**manifest, "file": file}), encoding="utf-8")
    assert words in _vectors_check(vectors, capsys)


def test_a_vectors_file_that_never_ends_is_refused_at_the_cap(vectors: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    (vectors / "vectors.jsonl").unlink()
    (vectors / "vectors.jsonl").symlink_to("/dev/zero")
    assert "larger than 64 MiB" in _vectors_check(vectors, capsys)


def test_a_manifest_of_another_shape_is_one_line(vectors: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (vectors / "manifest.json").write_text("[1, 2]", encoding="utf-8")
    assert "manifest.json: $: must be a JSON object" in _vectors_check(vectors, capsys)


@pytest.mark.parametrize("argv", [
    ["check", "--reading=conformant+A-T5=append\n"],
    ["check", "--reading=conformant+A-T5=\x1b[31mappend"],
    ["check", "--calls=1\n2"],
    ["replay", "/nowhere/a\nb.itf.json"],
    ["validate", "/nowhere/a\x1bb.jsonl"],
])
def test_control_characters_in_echoed_input_are_escaped(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    try:
        code = main(argv)
    except SystemExit as stop:  # argparse's usage errors
        code = stop.code
    assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.isprintable() is False and "\x1b" not in err and err.endswith("\n"), err
    assert "\\n" in err or "\\x1b" in err


def test_text_of_a_trace_reaches_the_terminal_escaped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    document = json.loads(GOLDEN.read_text(encoding="utf-8"))
    document["#meta"]["explanation"] = "two\nlines and \x1b[2J a clear screen"
    document["states"][1]["#meta"]["text"] = "a\rstep"
    path = tmp_path / "t.itf.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    main(["replay", str(path)])
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\r" not in out and "two\\nlines" in out and "a\\rstep" in out
