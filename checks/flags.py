"""The flags every command line of the project shares (`pausecheck`'s, and `python -m pausecheck.checks.build`'s):
one per bound, and the reading, checked as argparse reads them. Imports only the model."""

from __future__ import annotations

import argparse
import difflib

from pausecheck.model import BOUND_HELP, Bounds, ReadingError, reading_named
from pausecheck.model.config import BOUND_MAXIMUM

__all__ = ["bound_flags", "reading", "limit_flags"]


def bound_flags(parser: argparse.ArgumentParser, defaults: Bounds) -> None:
    """One flag per bound (`BOUND_HELP`), with its meaning, its default and its range."""
    group = parser.add_argument_group("bounds (every field of the search configuration)")
    for name, (minimum, meaning) in BOUND_HELP.items():
        default = getattr(defaults, name)
        group.add_argument(f"--{name.replace('_', '-')}", dest=name, type=int, metavar="N", default=default,
                           help=f"{meaning} (default {default}, from {minimum} to {BOUND_MAXIMUM:,})")


def reading(text: str) -> str:
    """A reading's canonical name, checked."""
    try:
        return reading_named(text).name
    except ReadingError as error:
        close = difflib.get_close_matches(text.split("+")[0], ["conformant"], n=1, cutoff=0.6)
        hint = f" (did you mean {close[0]}?)" if close and close[0] != text.split("+")[0] else ""
        raise argparse.ArgumentTypeError(f"{error}{hint}") from None


def limit_flags(args: argparse.Namespace) -> list[str]:
    """The limit flags a command ran under, as typed, for its "reproduce with" line to rerun the same cut."""
    words = [f"--max-states {args.max_states}"] if getattr(args, "max_states", None) is not None else []
    if getattr(args, "max_seconds", None) is not None:
        words.append(f"--max-seconds {args.max_seconds:g}")
    return words
