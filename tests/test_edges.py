"""Edges a newcomer meets (issue 44): no input written over, an internal error that is not a finding, flags
misspelt or abbreviated, an output that cannot be written found before any work."""

from __future__ import annotations

import hashlib
import sys
import tempfile
from pathlib import Path

import pytest
from pausecheck.checks.cli import INTERNAL, commands, main

ROOT = Path(__file__).resolve().parent.parent
RUNTIME = [sys.executable, str(ROOT / "examples" / "sqlite_runtime" / "runtime.py"), "--bug", "interrupt-as-failure"]
SMALL = ["--calls", "1", "--pauses", "1", "--observations", "0"]


def test_conform_never_writes_over_the_sequence_it_drives(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["conform", *SMALL, "--", *RUNTIME]) == 1
    given = tmp_path / "divergence.itf.json"
    before = hashlib.sha256(given.read_bytes()).hexdigest()
    capsys.readouterr()
    assert main(["conform", "--sequence", str(given), "--", *RUNTIME]) == 1
    assert hashlib.sha256(given.read_bytes()).hexdigest() == before
    assert (tmp_path / "divergence.2.itf.json").exists()  # never the tag twice (divergence.divergence)
    assert "is a file this run reads" in capsys.readouterr().err


def test_an_internal_error_is_one_line_and_its_own_exit_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    def broken(args: object) -> int:
        raise RuntimeError("a defect")

    monkeypatch.setitem(commands.HANDLERS, "check", broken)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # where the traceback goes
    assert main(["check"]) == INTERNAL == 4
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "internal error: RuntimeError: a defect" in err and "please report it" in err
    written = next(tmp_path.glob("pausecheck-internal-error-*.txt")).read_text()
    assert "Traceback" in written and "a defect" in written


GOLDEN = ROOT / "traces" / "golden"
DRAFT = ROOT / "examples" / "drafts" / "take_copies.py"
TINY = ["--calls", "1", "--pauses", "1", "--observations", "0", "--write-failures", "0"]


# Every command that reads a file and writes one, told to write over what it reads: (words, the input,
# whether it always writes). {in} is the copy of the input the command is given.
OVER = {
    "shrink": (["shrink", "{in}", "--out", "{in}"], GOLDEN / "drop_oldest.itf.json", True),
    "graph": (["graph", "--around", "{in}", "--radius", "0", "--out", "{in}"], GOLDEN / "drop_oldest.itf.json",
              True),
    "export": (["export", "--format", "promela", *TINY, "--draft", "{in}", "--out", "{in}"], DRAFT, True),
    "report": (["report", *TINY, "--no-liveness", "--draft", "{in}", "--out", "{in}"], DRAFT, True),
    "validate": (["validate", "{in}", "--out", "{in}"], ROOT / "examples" / "logs" / "reference.jsonl", False),
    "fuzz": (["fuzz", "--examples", "2", "--steps", "5", "--draft", "{in}", "--out", "{in}"], DRAFT, False),
    "conform": (["conform", "--sequence", "{in}", "--out", "{in}", "--", *RUNTIME], GOLDEN / "drop_oldest.itf.json",
                False),
}


@pytest.mark.parametrize("command", sorted(OVER))
def test_no_command_writes_over_a_file_it_reads(command: str, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    words, given, writes = OVER[command]
    copy = tmp_path / given.name
    copy.write_bytes(given.read_bytes())
    main([w.replace("{in}", str(copy)) for w in words])
    assert copy.read_bytes() == given.read_bytes()
    err = capsys.readouterr().err
    assert f"{copy} is a file this run reads: written to" in err
    if writes:
        assert len(list(tmp_path.iterdir())) == 2  # the input, and the output beside it


@pytest.mark.parametrize(("words", "said"), [
    (["check", "--pauzes", "1"], "did you mean: --pauzes -> --pauses?"),
    (["check", "--pause", "1"], "did you mean: --pause -> --pauses?"),  # an abbreviation is refused
    (["check", "--reading", "conformnt"], "did you mean conformant?"),
    (["check", "--reading", "conformant+A-T6=take-frst"], "did you mean take-first?"),
    (["check", "--reading", "A-T66=take-first"], "did you mean A-T6?"),
])
def test_a_misspelt_flag_is_refused_with_a_suggestion_and_the_command_s_help(
        words: list[str], said: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(words)
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.count("\n") == 1 and said in err and "(see pausecheck check --help)" in err


@pytest.mark.parametrize("words", [["check", "--out", "{file}/sub"], ["report", "--out", "{file}/r.html"],
                                   ["mutants", "--golden", "{file}/g"], ["diff", "--draft", "x.py", "--out", "{file}"]])
def test_an_output_that_cannot_be_written_is_refused_before_any_work(
        words: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    for name in ("check", "kill_matrix"):  # the work: never reached
        monkeypatch.setattr(commands, name, lambda *a, **k: pytest.fail("the work started"))
    assert main([w.format(file=a_file) for w in words]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot write" in err


@pytest.mark.parametrize("words", [["mutants", "--only", "drop_oldst"], ["explore", "--mutant", "drop_oldst"]])
def test_a_misspelt_mutant_is_refused_with_the_closest_name(words: list[str],
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert main(words) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown mutant 'drop_oldst'; did you mean drop_oldest?" in err


def test_a_log_given_as_a_trace_is_pointed_at_validate(capsys: pytest.CaptureFixture[str]) -> None:
    log = ROOT / "examples" / "logs" / "reference.jsonl"
    assert main(["replay", str(log)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"check a log with `pausecheck validate {log}`" in err
