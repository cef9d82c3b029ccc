"""Terminal output: progress off a terminal is one plain line every few seconds; colour follows the
terminal, NO_COLOR and --no-color; a dumb terminal is written to as a pipe. Each test sets the
environment it is about, so the suite passes under TERM=dumb, NO_COLOR, no terminal and a terminal."""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path

import pytest
from pausecheck.checks import console as console_module
from pausecheck.checks.console import PIPE_WIDTH, Reporter, console
from rich.text import Text


class FakeTerminal(io.StringIO):
    """A stream that claims to be a terminal."""

    def isatty(self) -> bool:
        return True


@pytest.fixture
def capable(monkeypatch: pytest.MonkeyPatch) -> None:
    """A terminal that draws colours and redraws lines, whatever TERM the tests run under."""
    monkeypatch.setenv("TERM", "xterm-256color")
    for name in ("NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE"):
        monkeypatch.delenv(name, raising=False)


def test_off_a_terminal_progress_is_plain_lines(monkeypatch):
    monkeypatch.setattr(console_module, "QUIET_SECONDS", 0.0)
    stream = io.StringIO()
    with Reporter("check", stream=stream) as reporter:
        update = reporter.search("check")
        update(1000, 2000, 3)
        update(5000, 9000, 7)
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2 and "\x1b" not in stream.getvalue()
    assert lines[1].startswith("pausecheck check: check: 5,000 states,") and "depth 7" in lines[1]


def test_off_a_terminal_progress_is_throttled(monkeypatch):
    monkeypatch.setattr(console_module, "QUIET_SECONDS", 3600.0)
    stream = io.StringIO()
    with Reporter("mutants", stream=stream) as reporter:
        start, inside = reporter.tasks("mutants", 3)
        for i in range(1, 4):
            start(i, 3, f"m{i}")
            inside(100, 200, 3)
    assert stream.getvalue() == ""  # a short command prints no progress at all


def test_progress_inside_a_part_names_the_part(monkeypatch):
    monkeypatch.setattr(console_module, "QUIET_SECONDS", 0.0)
    stream = io.StringIO()
    with Reporter("mutants", stream=stream) as reporter:
        start, inside = reporter.tasks("mutants", 42)
        start(7, 42, "no_put_back")
        inside(12_345, 20_000, 9)
    assert stream.getvalue().splitlines()[-1].startswith("pausecheck mutants: mutants: 7/42 no_put_back: 12,345 states")


def test_on_a_terminal_progress_is_live_and_removed(capable):
    stream = FakeTerminal()
    with Reporter("check", stream=stream) as reporter:
        reporter.search("check")(10, 20, 1)
    assert reporter.live and "10 states" in stream.getvalue()  # drawn live, then erased (transient)


def _coloured(text: str) -> bool:
    """Does the text carry a foreground colour escape (30-37, 38;...)?"""
    return re.search(r"\x1b\[(?:[\d;]*;)?3\d", text) is not None


def _styled(stream: io.StringIO, **options: bool) -> str:
    out = console(stream, **options)
    out.print(Text("VIOLATED", style="bold red"))
    return stream.getvalue()


def test_colour_on_a_terminal_and_never_in_a_pipe(capable):
    assert _coloured(_styled(FakeTerminal()))
    assert _styled(io.StringIO()) == "VIOLATED\n"


def test_no_color_flag_and_environment(capable, monkeypatch):
    assert not _coloured(_styled(FakeTerminal(), color=False))
    monkeypatch.setenv("NO_COLOR", "1")
    assert not _coloured(_styled(FakeTerminal()))


def test_pipe_width_is_fixed():
    assert console(io.StringIO()).width == PIPE_WIDTH


def test_off_a_terminal_a_silent_step_still_gets_a_line(monkeypatch):
    """The heartbeat repeats the last news while a long step (a z3 query, a liveness pass) says nothing."""
    monkeypatch.setattr(console_module, "QUIET_SECONDS", 3600.0)
    stream = io.StringIO()
    with Reporter("consistency", stream=stream) as reporter:
        reporter.count("(b) clashes", 16, "readings")(3, "conformant+A-T6=take-first")
        assert reporter._heart is not None and reporter._heart.daemon  # a thread beats off a terminal
        assert stream.getvalue() == ""  # too soon
        monkeypatch.setattr(console_module, "QUIET_SECONDS", 0.0)
        reporter.beat()
        assert stream.getvalue() == ""  # the heartbeat waits a second at least, whatever QUIET_SECONDS is
        reporter._next_line = reporter._last_line = 0.0  # as if a long time had passed in silence
        reporter.beat()
    assert reporter._heart is not None and not reporter._heart.is_alive()  # stopped with the reporter
    line = stream.getvalue().splitlines()[0]
    assert line.startswith("pausecheck consistency: (b) clashes: 3/16 readings, last conformant+A-T6=take-first, "
                           "about ") and line.endswith(" s)") and "\r" not in stream.getvalue()


def test_the_estimate_of_time_left():
    from pausecheck.checks.console import left

    assert left(0, 10, 5.0) == "" and left(10, 10, 5.0) == "" and left(3, None, 5.0) == ""
    assert left(1, 4, 10.0) == ", about 30 s left" and left(1, 61, 10.0) == ", about 10 min left"


def test_prove_bmc_writes_no_carriage_return_into_a_pipe(capsys, monkeypatch):
    from pausecheck.checks.cli import main

    monkeypatch.setattr(console_module, "QUIET_SECONDS", 0.0)
    code = main(["prove", "--bmc", "3", "--calls", "1", "--pauses", "1", "--observations", "0"])
    out, err = capsys.readouterr()
    assert code in (0, 3) and "\r" not in err and "\r" not in out
    assert "pausecheck prove: bounded model checking to depth 3: " in err and "/3 steps deep" in err


def test_fuzz_and_conform_count_towards_their_totals(capsys, monkeypatch):
    from pausecheck.checks.cli import main

    monkeypatch.setattr(console_module, "QUIET_SECONDS", 0.0)
    small = ["--calls", "1", "--pauses", "1", "--observations", "0"]
    assert main(["fuzz", "--examples", "5", "--steps", "5", *small]) == 0
    captured = capsys.readouterr()
    err = captured.err
    assert "pausecheck fuzz: behaviours of up to 5 steps: 4/5 run, " in err and "\r" not in err
    ran = re.search(r"^ran (\d+) behaviours( \(5 asked by --examples: [^)]*\))?, ", captured.out, re.M)
    assert ran and (int(ran[1]) == 5 or ran[2]), captured.out  # more than asked is said so
    runtime = str(Path(__file__).resolve().parent.parent / "examples" / "sqlite_runtime" / "runtime.py")
    assert main(["conform", *small, "--accept-unexercised", "--", sys.executable, runtime]) == 0
    err = capsys.readouterr().err
    assert re.search(r"pausecheck conform: conform: 0/[\d,]+ edges judged", err), err


@pytest.mark.parametrize("term", ["dumb", "unknown"])
def test_a_dumb_terminal_gets_plain_lines_and_no_colour(term, capable, monkeypatch):
    monkeypatch.setenv("TERM", term)
    monkeypatch.setattr(console_module, "QUIET_SECONDS", 0.0)
    assert _styled(FakeTerminal()) == "VIOLATED\n"
    stream = FakeTerminal()
    with Reporter("check", stream=stream) as reporter:
        reporter.search("check")(10, 20, 1)
    assert not reporter.live and stream.getvalue().startswith("pausecheck check: check: 10 states")
