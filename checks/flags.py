"""The flags every command line of the project shares (`pausecheck`'s, and `python -m pausecheck.checks.build`'s):
one per bound, and the reading, checked as argparse reads them. Imports only the model."""

from __future__ import annotations

import argparse
import difflib

from pausecheck.model import BOUND_HELP, Bounds, ReadingError, reading_named
from pausecheck.model.config import BOUND_MAXIMUM, BoundError
from pausecheck.model.liveness import FAIR

__all__ = ["bound_flags", "bounds_of", "any_sessions", "reading", "limit_flags", "fairness_flag"]

ANY = "any"  # --write-failures any: a write may fail without limit; --sessions any: a proof for every number


def _count_or_any(text: str) -> int | str:
    """A bound's value: a whole number, or (for --write-failures and --sessions) `any`."""
    if text == ANY:
        return ANY
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid value {text!r}: a whole number, or any") from None


def bound_flags(parser: argparse.ArgumentParser, defaults: Bounds) -> None:
    """One flag per bound (`BOUND_HELP`), with its meaning, its default and its range."""
    group = parser.add_argument_group("bounds (every field of the search configuration)")
    for name, (minimum, meaning) in BOUND_HELP.items():
        default = getattr(defaults, name)
        endless = name in ("write_failures", "sessions")
        group.add_argument(f"--{name.replace('_', '-')}", dest=name, type=_count_or_any if endless else int,
                           metavar="N|any" if endless else "N", default=default,
                           help=f"{meaning} (default {default}, from {minimum} to {BOUND_MAXIMUM:,})")


def bounds_of(args: argparse.Namespace) -> Bounds:
    """The bounds the flags set; `--write-failures any` is endless writes whose counts stop at one. Raises
    BoundError (one line) for a value out of range, and for `--sessions any` (only `prove --compositional` reads
    it, and takes it off the flags first: `any_sessions`)."""
    if getattr(args, "sessions", None) == ANY:
        raise BoundError("sessions", ANY, 1, "any is read only by prove --compositional (a proof for every number "
                         "of sessions); every other command runs a number of sessions: give one")
    return Bounds.of({name: getattr(args, name) for name in BOUND_HELP})


def any_sessions(args: argparse.Namespace) -> bool:
    """`--sessions any` given to `prove --compositional`: taken off the flags (one session's bounds stay), True."""
    if getattr(args, "sessions", None) == ANY and getattr(args, "compositional", False):
        args.sessions = 1
        return True
    return False


def reading(text: str) -> str:
    """A reading's canonical name, checked."""
    try:
        return reading_named(text).name
    except ReadingError as error:
        close = difflib.get_close_matches(text.split("+")[0], ["conformant"], n=1, cutoff=0.6)
        hint = f" (did you mean {close[0]}?)" if close and close[0] != text.split("+")[0] else ""
        raise argparse.ArgumentTypeError(f"{error}{hint}") from None


def fairness_flag(names: tuple[str, ...]) -> str:
    """`--fairness ...` as typed for assumptions other than the default ones, else nothing."""
    return "" if tuple(names) == FAIR else f"--fairness {','.join(names) or 'none'}"


def limit_flags(args: argparse.Namespace) -> list[str]:
    """The limit flags a command ran under, as typed, for its "reproduce with" line to rerun the same cut."""
    words = [f"--max-states {args.max_states}"] if getattr(args, "max_states", None) is not None else []
    if getattr(args, "max_seconds", None) is not None:
        words.append(f"--max-seconds {args.max_seconds:g}")
    return words
