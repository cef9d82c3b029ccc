"""Terminal output: the consoles a command writes to, and progress of long work.

On a terminal, rich draws a live progress line (states, states/s, depth, elapsed) on stderr and
colours verdicts on stdout; tables fit the width. When stderr is not a terminal (CI, logs, pipes),
progress is one plain line every QUIET_SECONDS on stderr and nothing else (never a carriage return):
a heartbeat thread repeats the last news while one long step (a z3 query, a liveness pass) gives none,
so a log shows the command is alive, with the totals known and, where parts are counted, an estimate. Colour is off when
`NO_COLOR` is set (rich reads it), with `--no-color`, and whenever the stream is not a terminal. A
terminal that says it can do neither (`TERM=dumb` or `unknown`, as some CI systems and editors set) is
written to as a pipe is: plain lines, no colour, no live line it could not erase.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable
from typing import TextIO

from rich.console import Console
from rich.progress import BarColumn, Progress, SpinnerColumn, TaskID, TextColumn, TimeElapsedColumn

from .search.budget import note

__all__ = ["console", "Reporter", "PIPE_WIDTH", "QUIET_SECONDS", "left"]

PIPE_WIDTH = 160  # the width of tables written to a file or a pipe, so logs do not depend on $COLUMNS
QUIET_SECONDS = 5.0  # off a terminal: at most one progress line this often
HEARTBEAT_TICK = 0.25  # seconds between the heartbeat's looks at whether a line is due


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
        self._news: tuple[str, str] | None = None  # the last (label, detail) shown, repeated by the heartbeat
        self._last_line = self._started  # when the last line was written (or the reporter began)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._heart: threading.Thread | None = None
        if self.live:
            self._bar = Progress(
                SpinnerColumn(), TextColumn("[bold]{task.description}"), BarColumn(bar_width=24),
                TextColumn("{task.fields[detail]}"), TimeElapsedColumn(),
                console=console(self.stream, color=color), transient=True,
            )

    def __enter__(self) -> Reporter:
        if self._bar is not None:
            self._bar.start()
        else:
            self._heart = threading.Thread(target=self._heartbeat, name=f"pausecheck {self.command} progress",
                                           daemon=True)
            self._heart.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        if self._heart is not None:
            self._heart.join()
        if self._bar is not None:
            self._bar.stop()

    def _heartbeat(self) -> None:
        while not self._stop.wait(HEARTBEAT_TICK):  # a line is due at most a tick after QUIET_SECONDS
            self.beat()

    def beat(self) -> None:
        """Off a terminal: the last news again if no line was written for QUIET_SECONDS, and at least a
        second (the heartbeat calls this while a long step is silent; news itself is never repeated
        sooner, whatever QUIET_SECONDS is)."""
        if self._news is not None and time.monotonic() - self._last_line >= max(QUIET_SECONDS, 1.0):
            self._line(*self._news)

    def _line(self, label: str, detail: str) -> None:
        """One plain progress line, unless one was written less than QUIET_SECONDS ago."""
        with self._lock:
            now = time.monotonic()
            if now < self._next_line:
                return
            self._next_line, self._last_line = now + QUIET_SECONDS, now
            try:
                self.stream.write(f"pausecheck {self.command}: {label}: {detail} ({now - self._started:.0f} s)\n")
                self.stream.flush()
            except (OSError, ValueError):  # stderr gone: progress is not worth failing for
                self._stop.set()

    def _begin(self, label: str, total: float | None, detail: str = "started") -> None:
        self._started = time.monotonic()
        self._next_line = self._started + QUIET_SECONDS
        self._news = (label, detail)
        if self._bar is not None:
            if self._task is not None:
                self._bar.remove_task(self._task)
            self._task = self._bar.add_task(label, total=total, detail="")

    def _show(self, label: str, detail: str, completed: float | None = None) -> None:
        note(f"{self.command}: {label}", f"{label}: {detail}")  # what a limit's stop reports as reached
        if self._bar is not None and self._task is not None:
            self._bar.update(self._task, detail=detail, completed=completed)
            return
        self._news = (label, detail)
        self._line(label, detail)

    def count(self, label: str, total: int | None, unit: str = "done", *, estimate: bool = True) -> Callable[..., None]:
        """A callback for work in `total` parts (None: not known), called as each ends with how many are
        done and, optionally, what ended and a note: "3/16 done, last A-T6, about 40 s left". Without
        `estimate` (parts of growing cost, such as the depths of bounded model checking) no time is guessed."""
        self._begin(label, total, f"0/{total} {unit}" if total else "started")
        started = self._started

        def done(finished: int, last: str = "", note: str = "") -> None:
            words = f"{finished}/{total} {unit}" if total else f"{finished} {unit}"
            words += (f", last {last}" if last else "") + (f", {note}" if note else "")
            words += left(finished, total, time.monotonic() - started) if estimate else ""
            self._show(label, words, completed=finished)

        return done

    def batch(self, label: str, total: int) -> Callable[[int, int, str], None]:
        """A callback for `total` named parts running at once, called as each ends (finished, total, name)."""
        self._begin(label, total, f"0/{total} done")
        started = self._started
        return lambda finished, total, name: self._show(
            label, f"{finished}/{total} done, last {name}" + left(finished, total, time.monotonic() - started),
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


def left(done: int, total: int | None, seconds: float) -> str:
    """An estimate of the time left from the parts done so far (", about 40 s left"), or "" when none
    can be made yet (nothing done, no total)."""
    if not total or done <= 0 or done >= total:
        return ""
    remaining = seconds / done * (total - done)
    return f", about {remaining:.0f} s left" if remaining < 120 else f", about {remaining / 60:.0f} min left"
