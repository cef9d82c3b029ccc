"""Terminal output: the consoles a command writes to, and progress of long work.

On a terminal, rich draws a live progress line (states, states/s, depth, elapsed) on stderr and
colours verdicts on stdout; tables fit the width. When stderr is not a terminal (CI, logs, pipes),
progress is one plain line every few seconds on stderr and nothing else. Colour is off when
`NO_COLOR` is set (rich reads it), with `--no-color`, and whenever the stream is not a terminal. A
terminal that says it can do neither (`TERM=dumb` or `unknown`, as some CI systems and editors set) is
written to as a pipe is: plain lines, no colour, no live line it could not erase.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from typing import TextIO

from rich.console import Console
from rich.progress import BarColumn, Progress, SpinnerColumn, TaskID, TextColumn, TimeElapsedColumn

from .budget import note

__all__ = ["console", "Reporter", "PIPE_WIDTH", "QUIET_SECONDS"]

PIPE_WIDTH = 160  # the width of tables written to a file or a pipe, so logs do not depend on $COLUMNS
QUIET_SECONDS = 5.0  # off a terminal: at most one progress line this often


class _Trimmed:
    """A text stream that drops the spaces rich pads table rows with, so logs carry no trailing blanks."""

    def __init__(self, stream: TextIO) -> None:
        self.stream, self.pending = stream, ""

    def write(self, text: str) -> int:
        *lines, self.pending = (self.pending + text).split("\n")
        for line in lines:
            self.stream.write(line.rstrip(" ") + "\n")
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return False


def capable_terminal(stream: TextIO) -> bool:
    """Is the stream a terminal that can draw colours and redraw a line (not TERM=dumb)?"""
    try:
        tty = stream.isatty()
    except (OSError, ValueError):  # a closed stream
        return False
    return tty and os.environ.get("TERM", "").lower() not in ("dumb", "unknown")


def console(file: TextIO | None = None, *, color: bool = True) -> Console:
    """A console on `file` (stdout by default): colours and live width on a capable terminal, plain text
    of PIPE_WIDTH columns elsewhere. Lines of text are never wrapped (soft wrap); tables fit the width."""
    stream = file if file is not None else sys.stdout
    tty = capable_terminal(stream)
    # no_color=None lets rich honour NO_COLOR; True forces plain text
    return Console(file=stream if tty else _Trimmed(stream), no_color=True if not color else None,
                   width=None if tty else PIPE_WIDTH, highlight=False, force_terminal=tty, soft_wrap=True)


class Reporter:
    """Progress of one command's long steps: each `search` or `tasks` call starts a new line of it.

    Use as a context manager; the live display (on a terminal) is removed when it closes.
    """

    def __init__(self, command: str, *, stream: TextIO | None = None, color: bool = True) -> None:
        self.command = command
        self.stream = stream if stream is not None else sys.stderr
        self.live = capable_terminal(self.stream)
        self._bar: Progress | None = None
        self._task: TaskID | None = None
        self._started = time.monotonic()
        self._next_line = self._started + QUIET_SECONDS
        if self.live:
            self._bar = Progress(
                SpinnerColumn(), TextColumn("[bold]{task.description}"), BarColumn(bar_width=24),
                TextColumn("{task.fields[detail]}"), TimeElapsedColumn(),
                console=console(self.stream, color=color), transient=True,
            )

    def __enter__(self) -> Reporter:
        if self._bar is not None:
            self._bar.start()
        return self

    def __exit__(self, *_: object) -> None:
        if self._bar is not None:
            self._bar.stop()

    def _begin(self, label: str, total: float | None) -> None:
        self._started = time.monotonic()
        self._next_line = self._started + QUIET_SECONDS
        if self._bar is not None:
            if self._task is not None:
                self._bar.remove_task(self._task)
            self._task = self._bar.add_task(label, total=total, detail="")

    def _show(self, label: str, detail: str, completed: float | None = None) -> None:
        note(f"{self.command}: {label}", f"{label}: {detail}")  # what a limit's stop reports as reached
        if self._bar is not None and self._task is not None:
            self._bar.update(self._task, detail=detail, completed=completed)
            return
        now = time.monotonic()
        if now >= self._next_line:
            self._next_line = now + QUIET_SECONDS
            self.stream.write(f"pausecheck {self.command}: {label}: {detail} ({now - self._started:.0f} s)\n")
            self.stream.flush()

    def batch(self, label: str, total: int) -> Callable[[int, int, str], None]:
        """A callback for `total` named parts running at once, called as each ends (finished, total, name)."""
        self._begin(label, total)
        return lambda finished, total, name: self._show(label, f"{finished}/{total} done, last {name}",
                                                        completed=finished)

    def status(self, label: str) -> Callable[[str], None]:
        """A callback that shows a free-form detail (counts so far) for one long step."""
        self._begin(label, None)
        return lambda detail: self._show(label, detail)

    def search(self, label: str) -> Callable[[int, int, int], None]:
        """A callback for `explore(progress=...)`: states, transitions, depth."""
        self._begin(label, None)
        started = self._started

        def update(states: int, transitions: int, depth: int) -> None:
            rate = states / max(time.monotonic() - started, 1e-9)
            self._show(label, f"{states:,} states, {rate:,.0f} states/s, depth {depth}")

        return update

    def tasks(self, label: str, total: int) -> tuple[Callable[[int, int, str], None], Callable[[int, int, int], None]]:
        """Callbacks for work in `total` named parts: one called as each part starts (done, total, name),
        one for the search inside the current part (states, transitions, depth)."""
        self._begin(label, total)
        part = [""]

        def start(done: int, total: int, name: str) -> None:
            part[0] = f"{done}/{total} {name}"
            self._show(label, part[0], completed=done - 1)

        def inside(states: int, transitions: int, depth: int) -> None:
            self._show(label, f"{part[0]}: {states:,} states, depth {depth}")

        return start, inside
