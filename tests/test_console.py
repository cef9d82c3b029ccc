"""Terminal output: progress off a terminal is one plain line every few seconds; colour follows the
terminal, NO_COLOR and --no-color; a dumb terminal is written to as a pipe. Each test sets the
environment it is about, so the suite passes under TERM=dumb, NO_COLOR, no terminal and a terminal."""

from __future__ import annotations

import io
import re

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


@pytest.mark.parametrize("term", ["dumb", "unknown"])
def test_a_dumb_terminal_gets_plain_lines_and_no_colour(term, capable, monkeypatch):
    monkeypatch.setenv("TERM", term)
    monkeypatch.setattr(console_module, "QUIET_SECONDS", 0.0)
    assert _styled(FakeTerminal()) == "VIOLATED\n"
    stream = FakeTerminal()
    with Reporter("check", stream=stream) as reporter:
        reporter.search("check")(10, 20, 1)
    assert not reporter.live and stream.getvalue().startswith("pausecheck check: check: 10 states")
