"""The command line `pausecheck`: a thin layer; every command is one library call plus rendering."""

from __future__ import annotations

import argparse
import errno
import multiprocessing
import os
import signal
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pausecheck.model.machine import StepError
from pausecheck.model.tablecheck import TableError
from pausecheck.traces.input_file import printable

from ..drafts import DraftError
from ..mutants import NoLongerApplies
from ..search.budget import Budget, LimitReached, signals_interrupt_z3, wrapped_stop
from .commands import HANDLERS, UsageError, writable_outputs
from .parser import parser

__all__ = ["main", "run"]


RUNS_A_RUNTIME = ("conform", "vectors", "fuzz", "shrink")  # the commands that take `-- CMD ARGS`


def _keeps_fingerprints(args: argparse.Namespace) -> bool:
    """Does this command save or resume a search keeping fingerprints (Python's hashes of the states)?"""
    return bool(getattr(args, "fingerprint", False) and (getattr(args, "checkpoint", None)
                                                         or getattr(args, "resume", None)))


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `pausecheck` console script; returns the exit code.

    Everything after the first `--` is the command line of a runtime under test (conform, vectors
    check), kept out of argparse so that no flag of ours is mistaken for one of its arguments."""
    return _command(argv)


def run() -> None:
    """The `pausecheck` command line (the console script and `python -m pausecheck`): the command, then the end
    of the process with its exit code (`_leave`)."""
    _leave(main())


def _leave(code: int) -> None:
    """End the process now, with `code`: no worker it started (a search's, a pool's) is left running, and no
    thread a draft started, no exit handler a draft registered, keeps it alive past its command."""
    for child in multiprocessing.active_children():
        child.kill()
        child.join(1)
    ray = sys.modules.get("ray")
    if ray is not None and ray.is_initialized():  # a local Ray's own processes end with it
        ray.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


def _command(argv: Sequence[str] | None) -> int:
    started = time.perf_counter()  # a limit counts the set-up too
    words = list(sys.argv[1:] if argv is None else argv)
    runtime = words[words.index("--") + 1:] if "--" in words else []
    words = words[:words.index("--")] if "--" in words else words
    try:
        args = parser().parse_args(words)
    except OSError as error:  # --help or --version to a full disk
        return _cannot_write(error)
    if args.command in RUNS_A_RUNTIME:
        args.runtime = runtime
    elif "--" in (sys.argv[1:] if argv is None else argv):
        sys.stderr.write(f"pausecheck: {args.command} takes no command after -- "
                         f"(see pausecheck {args.command} --help)\n")
        return 2
    try:
        signal.signal(signal.SIGTERM, _interrupt)  # a polite stop, like Ctrl-C: the search reports what it reached
    except ValueError:  # not the main thread (an embedding program): leave its signals alone
        pass
    if sys.stdout is None:  # started with standard output closed: nowhere to report to
        _say("pausecheck: standard output is closed; nothing can be reported")
        return 2
    if argv is None and _keeps_fingerprints(args) and os.environ.get("PYTHONHASHSEED", "random") == "random":
        # A checkpoint of fingerprints resumes only where states hash alike: the same seed in every run.
        sys.stdout.flush()
        os.execve(sys.executable, [sys.executable, "-m", "pausecheck", *sys.argv[1:]],
                  {**os.environ, "PYTHONHASHSEED": "0"})
    # The process is ended if a command outlives its limit only when this is the command line itself, not a
    # program (or a test) calling main() with its own arguments.
    budget = Budget(getattr(args, "max_seconds", None), getattr(args, "max_memory", None), started,
                    hard_stop=argv is None)
    try:
        with signals_interrupt_z3(), budget:  # a SIGTERM (or Ctrl-C) ends a z3 call under way too
            writable_outputs(args)
            code = HANDLERS[args.command](args)
        sys.stdout.flush()
        return code
    except LimitReached:  # a command that could not report what it reached itself: its notes
        _say(f"pausecheck: {budget.summary()}")
        return 3
    except (UsageError, DraftError) as error:
        _say(f"pausecheck: {error}")
        return 2
    except TableError as error:  # an edit of the rules (or a mutant's table) the language refuses
        _say(f"pausecheck: {getattr(args, 'draft', None) or 'the rules'}: {error}")
        return 2
    except StepError as error:  # a draft (or an edit of the rules) that reaches a state it cannot step from
        draft = getattr(args, "draft", None)
        _say(f"pausecheck: {error.table or draft or 'the rules'}: {error}")
        return 2
    except NoLongerApplies as error:  # a mutant asked for by name whose edits do not fit the rules (or draft)
        _say(f"pausecheck: {error}")
        return 3
    except KeyboardInterrupt:  # outside a search (which reports what it reached itself): what the command noted
        return _interrupted(budget)
    except OSError as error:  # a reader gone (broken pipe), a full disk, a closed terminal, a path not writable
        return _cannot_write(error)
    except Exception as error:
        if budget.reason is None and wrapped_stop(error) == "interrupted":  # Ctrl-C or SIGTERM inside a z3 call
            return _interrupted(budget)
        if budget.reason is None and getattr(args, "draft", None) is not None:
            # A draft's table reached a state the model's checks cannot read (an artifact with no record, a
            # segment of no execution): the draft's doing, said in one line.
            where = traceback.extract_tb(error.__traceback__)[-1]
            _say(f"pausecheck: {args.draft}: the draft reaches a state the model cannot judge: "
                 f"{type(error).__name__}: {error} (in {where.name}, {Path(where.filename).name}:{where.lineno})")
            return 2
        if budget.reason is None:
            return _internal_error(error)
        # The limit interrupted z3 ("canceled") or a runtime before LimitReached itself landed: the same stop.
        _say(f"pausecheck: {budget.summary()}")
        return 3


def _interrupted(budget: Budget) -> int:
    """Ctrl-C or SIGTERM outside a search: what the command noted, exit 3."""
    said = "; ".join(budget.notes.values())
    _say(f"pausecheck: interrupted after {budget.elapsed():.1f} s: {said or 'nothing established yet'}")
    return 3


INTERNAL = 4  # a defect of pausecheck, not a finding: never 1, which says a property is violated


def _internal_error(error: Exception) -> int:
    """An uncaught exception: one line, the traceback written to a file to report, exit 4."""
    text = "".join(traceback.format_exception(error))
    try:
        with tempfile.NamedTemporaryFile("w", prefix="pausecheck-internal-error-", suffix=".txt", delete=False,
                                         encoding="utf-8") as out:
            out.write(text)
        where = f"the traceback is in {out.name}"
    except OSError:  # nowhere to write it: the last frame at least
        where = f"at {traceback.extract_tb(error.__traceback__)[-1].name}"
    _say(f"pausecheck: internal error: {type(error).__name__}: {error}; {where}, please report it")
    return INTERNAL


FULL = (errno.EPIPE, errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO, errno.EBADF)  # output lost: exit 1


def _cannot_write(error: OSError) -> int:
    """Exit 1, quietly for a reader gone, when the output could not be written (a full disk, a reader that
    stopped reading, a closed terminal), whichever command and whichever file; exit 2 with one line for any
    other problem with a named file (a folder, no permission): a usage error."""
    if error.errno not in FULL:
        if error.filename is None:
            raise error
        _say(f"pausecheck: {error.filename}: {error.strerror or error}")
        return 2
    if error.filename is None:
        _silence_stdout()
    if error.errno != errno.EPIPE:  # a reader that stopped reading needs no message
        _say(f"pausecheck: cannot write {error.filename or 'the output'}: {error.strerror}")
    return 1


def _interrupt(signum: int, frame: Any) -> None:
    """SIGTERM as Ctrl-C: a KeyboardInterrupt, raised in the main thread. Inside a finalizer (z3 frees its
    terms in `__del__`) Python would print it and drop it, and a proof would run on for minutes: the signal is
    sent again a moment later instead (it interrupts z3's call under way too), until it lands elsewhere."""
    here = frame
    while here is not None:
        if here.f_code.co_name == "__del__":
            threading.Timer(0.05, signal.pthread_kill, (threading.main_thread().ident, signum)).start()
            return
        here = here.f_back
    raise KeyboardInterrupt


def _say(line: str) -> None:
    """One line on stderr, if stderr can take it."""
    try:
        if sys.stderr is not None:
            sys.stderr.write(printable(line) + "\n")  # input echoed in it never splits the line
            sys.stderr.flush()
    except OSError:
        pass


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that flushing it again at exit raises nothing."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass
