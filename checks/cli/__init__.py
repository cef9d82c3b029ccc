"""The command line `pausecheck`: a thin layer; every command is one library call plus rendering."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from .commands import HANDLERS, UsageError
from .parser import parser

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `pausecheck` console script; returns the exit code."""
    args = parser().parse_args(argv)
    try:
        return HANDLERS[args.command](args)
    except UsageError as error:
        sys.stderr.write(f"pausecheck: {error}\n")
        return 2
    except KeyboardInterrupt:
        sys.stderr.write("pausecheck: interrupted\n")
        return 130
    except BrokenPipeError:
        return 1
