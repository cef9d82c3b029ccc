"""The time and memory a command may take (`--max-seconds`, `--max-memory`), from its very start.

A command's set-up (imports, building z3 terms, starting a runtime, a reference graph) counts inside
the limit: the clock starts when the command line is read. Work that can stop cleanly asks for the time
left (`remaining`, `limits`) and stops itself, reporting what it reached, as the breadth-first search
does. Everything else is stopped by a watchdog thread: shortly after the limit (`GRACE`), it interrupts z3
(whose solver calls do not return to Python on their own) and raises `LimitReached` in the main thread,
which the command catches to report what it established, or the command line does, printing the notes
the command left with `note`. Should the command not stop even then, the watchdog prints those notes and
ends the process with exit 3 (`HARD_STOP` seconds later), so a limit always ends the run.

A SIGTERM or Ctrl-C gets the same interruption of z3 (`signals_interrupt_z3`): Python runs a signal's
handler only between bytecodes, so the KeyboardInterrupt it raises would wait for a solver call to return
(an hour at the default bounds), while z3's own interrupt ends the call within moments.
"""

from __future__ import annotations

import ctypes
import os
import re
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from functools import partial
from typing import Any

from .limits import Limits, resident_bytes

__all__ = ["Budget", "LimitReached", "active", "note", "signals_interrupt_z3", "wrapped_stop", "GRACE", "HARD_STOP"]

GRACE = 1.0  # seconds after the limit before the watchdog interrupts what did not stop itself
HARD_STOP = 6.0  # seconds after that before the process is ended with exit 3
TICK = 0.2  # how often the watchdog looks


class LimitReached(KeyboardInterrupt):
    """A limit of the command was reached (a KeyboardInterrupt, so that every place that reports what it
    reached when interrupted does so here too); `reason` is "max-seconds" or "max-memory"."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def wrapped_stop(error: BaseException) -> str | None:
    """The stop an error stands for, where an interrupt (Ctrl-C, SIGTERM, a limit's LimitReached) landed inside
    a ctypes call, z3's while its terms are built: ctypes re-raises it as an ArgumentError that only names it.
    "interrupted", or the limit's reason; None for any other error."""
    if not isinstance(error, ctypes.ArgumentError):
        return None
    found = re.search(r": (KeyboardInterrupt|LimitReached): ?(\S*)", str(error))
    return None if found is None else "interrupted" if found[1] == "KeyboardInterrupt" else found[2]


class Budget:
    """The limits of one command: a deadline on the monotonic clock and a resident-memory ceiling."""

    def __init__(self, max_seconds: float | None, max_memory: int | None, started: float | None = None,
                 hard_stop: bool = True) -> None:
        self.started = time.perf_counter() if started is None else started
        self.hard_stop = hard_stop  # end the process if the command outlives its limit by HARD_STOP (the CLI only)
        self.max_seconds, self.max_memory = max_seconds, max_memory
        self.deadline = None if max_seconds is None else self.started + max_seconds
        self.notes: dict[str, str] = {}
        self.reason: str | None = None
        self.raised = False  # LimitReached has been raised in the main thread, or the command stopped itself
        self.fired: float | None = None  # when the limit was reached (the hard stop counts from it)
        self._done = threading.Event()
        self._thread: threading.Thread | None = None
        self._main = threading.main_thread().ident
        self._previous: object = None
        self._hook: Any = sys.unraisablehook

    def remaining(self) -> float | None:
        """Seconds left before the time limit (at least a millisecond), or None without one."""
        return None if self.deadline is None else max(0.001, self.deadline - time.perf_counter())

    def limits(self, limits: Limits | None = None) -> Limits:
        """`limits` (or none) with the time left and the memory ceiling of this budget."""
        base = limits if limits is not None else Limits()
        return replace(base, max_seconds=self.remaining(), max_memory=self.max_memory)

    def over(self) -> str | None:
        """Which limit is reached now, if any."""
        if self.deadline is not None and time.perf_counter() >= self.deadline:
            return "max-seconds"
        if self.max_memory is not None and resident_bytes() + _children_bytes() >= self.max_memory:
            return "max-memory"
        return None

    def reached(self, reason: str) -> None:
        """The command saw the limit itself and stopped, and is reporting what it reached (as the search does):
        the watchdog leaves it to, and only ends the process should it still run HARD_STOP seconds later."""
        if self.fired is None:
            self.reason, self.fired = reason, time.perf_counter()
        self.raised = True

    def elapsed(self) -> float:
        """Seconds since the command started."""
        return time.perf_counter() - self.started

    def summary(self) -> str:
        """One line: which limit stopped the command, when, and what it had established by then."""
        said = "; ".join(self.notes.values()) or "nothing established yet"
        return f"stopped by --{self.reason or 'max-seconds'} after {self.elapsed():.1f} s: {said}"

    def __enter__(self) -> Budget:
        global _ACTIVE
        _ACTIVE = self
        if self.deadline is None and self.max_memory is None:
            return self
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGALRM, self._raise)
            self._hook, sys.unraisablehook = sys.unraisablehook, self._swallowed
            self._thread = threading.Thread(target=self._watch, name="pausecheck-budget", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        global _ACTIVE
        self._done.set()
        if self._thread is not None:
            self._thread.join()
            signal.signal(signal.SIGALRM, self._previous)  # type: ignore[arg-type]
            sys.unraisablehook = self._hook
            if self.reason is not None:
                _uninterrupt_z3()
        _ACTIVE = None

    def _swallowed(self, unraisable: Any) -> None:
        """A LimitReached raised where Python drops exceptions (a finalizer, a gc callback): send it again."""
        if isinstance(unraisable.exc_value, LimitReached):
            self.raised = False
            return
        self._hook(unraisable)

    def _raise(self, signum: int, frame: Any) -> None:
        if self.reason is None or self._done.is_set() or self.raised:
            return
        while frame is not None:  # an exception raised inside a finalizer is printed and dropped: try again soon
            if frame.f_code.co_name == "__del__":
                return
            frame = frame.f_back
        self.raised = True
        raise LimitReached(self.reason)

    def _watch(self) -> None:
        while not self._done.wait(TICK):
            now = time.perf_counter()
            if self.fired is None:
                reason = self.over()
                if reason is not None and (reason == "max-memory" or now >= self.deadline + GRACE):  # type: ignore[operator]
                    self.reason, self.fired = reason, now
            if self.fired is not None and not self.raised:
                # The signal first, so that it is pending when an interrupted z3 call returns; a blocking read is
                # woken by it too. Sent again until it lands outside a finalizer.
                signal.pthread_kill(self._main, signal.SIGALRM)  # type: ignore[arg-type]
                _interrupt_z3()
            if self.fired is not None and self.hard_stop and now >= self.fired + HARD_STOP:
                _last_words(self)
                _end_children()
                os._exit(3)


def _children() -> list[int]:
    """The processes this process started (a worker pool's searches, a runtime under test). Linux /proc (each
    process's parent read from its stat line); none elsewhere."""
    me, found = os.getpid(), []
    try:
        pids = [name for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return []
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()  # after the command's name, which may hold spaces
            if int(fields[1]) == me:
                found.append(int(pid))
        except (OSError, ValueError, IndexError):
            continue
    return found


def _children_bytes() -> int:
    """The resident memory of this process's children: they are the command's too."""
    page, total = os.sysconf("SC_PAGE_SIZE"), 0
    for pid in _children():
        try:
            with open(f"/proc/{pid}/statm", "rb") as statm:
                total += int(statm.read().split()[1]) * page
        except (OSError, ValueError, IndexError):
            continue
    return total


def _end_children() -> None:
    """Kill what this process started, before a hard stop: nothing of the command outlives it."""
    for pid in _children():
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def _interrupt_z3() -> None:
    """Cancel the solver call under way, if z3 is in use (z3 is imported by the symbolic commands only)."""
    z3 = sys.modules.get("z3")
    if z3 is not None:
        try:
            z3.main_ctx().interrupt()
        except Exception:  # noqa: BLE001 - a best effort: the hard stop follows anyway
            pass


@contextmanager
def signals_interrupt_z3(signals: tuple[int, ...] = (signal.SIGTERM, signal.SIGINT)) -> Iterator[None]:
    """While inside, each of `signals` also interrupts the z3 call under way, at once.

    The signal's own handler (a KeyboardInterrupt) is left as it is: it runs once z3 returns, so the command
    stops as it does at Ctrl-C between two calls, reporting what it reached. What this adds is the return:
    Python's C-level handler writes the signal's number to the wakeup fd as the signal arrives, whatever
    the main thread is doing, and a thread reading it there interrupts z3, as the watchdog does at a limit.
    Outside the main thread (an embedding program) nothing is changed."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    read, write = os.pipe()
    os.set_blocking(write, False)  # set_wakeup_fd needs it: a signal handler never blocks
    try:
        previous = signal.set_wakeup_fd(write, warn_on_full_buffer=False)
    except ValueError:  # no wakeup fd here: the signals keep their plain effect
        os.close(read)
        os.close(write)
        yield
        return
    interrupted = threading.Event()
    hook, sys.unraisablehook = sys.unraisablehook, partial(_unbuilt_terms_unsaid, sys.unraisablehook)
    thread = threading.Thread(target=_relay, args=(read, set(signals), interrupted), name="pausecheck-signals",
                              daemon=True)
    thread.start()
    try:
        yield
    finally:
        sys.unraisablehook = hook
        signal.set_wakeup_fd(previous)
        os.write(write, b"\0")  # no signal is numbered 0: the thread's cue to end
        thread.join()
        os.close(read)
        os.close(write)
        if interrupted.is_set():
            _uninterrupt_z3()


def _unbuilt_terms_unsaid(hook: Callable[[Any], None], unraisable: Any) -> None:
    """Pass on to `hook` what a finalizer raised, but for a z3 term an interrupt left half built (it landed in
    the term's `__init__` before its context was set, so its `__del__` fails): that term holds nothing to free."""
    if isinstance(unraisable.exc_value, AttributeError) and getattr(unraisable.exc_value, "name", None) == "ctx" \
            and getattr(unraisable.object, "__module__", "").startswith("z3"):
        return
    hook(unraisable)


def _relay(read: int, signals: set[int], interrupted: threading.Event) -> None:
    """Interrupt z3 for each of `signals` written to `read`, until a 0 (or the end) is read."""
    while True:
        try:
            got = os.read(read, 64)
        except InterruptedError:
            continue
        if any(number in signals for number in got):
            interrupted.set()
            _interrupt_z3()
        if not got or 0 in got:
            return


def _uninterrupt_z3() -> None:
    """Clear z3's interruption: it stays set until a solver's next check, and would cut short any later
    z3 call of this process (a simplification left half done), as in a test or a program embedding us."""
    z3 = sys.modules.get("z3")
    if z3 is not None:
        try:
            z3.Solver().check()
        except Exception:  # noqa: BLE001 - nothing more can be done
            pass


def _last_words(budget: Budget) -> None:
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        pass
    try:
        os.write(2, f"pausecheck: {budget.summary()}\n".encode("utf-8", "replace"))
    except OSError:
        pass


def raise_stop(stopped: str | None) -> None:
    """Raise again what stopped a search that was given no limits of its own: the command's limit (LimitReached)
    or Ctrl-C (KeyboardInterrupt). `explore` keeps what it found when stopped, as a search should; a caller that
    went on with that would swallow the command's stop (the watchdog stands down once it has raised) and run
    on, with a part taken for the whole, until the hard stop."""
    if stopped in ("max-seconds", "max-memory"):
        raise LimitReached(stopped)
    if stopped == "interrupted":
        raise KeyboardInterrupt


_ACTIVE: Budget | None = None


def active() -> Budget | None:
    """The budget of the command running, if any."""
    return _ACTIVE


def note(key: str, text: str) -> None:
    """Record what the command has established so far under `key` (replacing the last note of that key),
    to be printed if a limit stops it."""
    if _ACTIVE is not None:
        _ACTIVE.notes[key] = text
