"""The command line `pausecheck`: a thin layer; every command is one library call plus rendering."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from .commands import HANDLERS, UsageError
from .parser import parser

__all__ = ["main"]


RUNS_A_RUNTIME = ("conform", "vectors", "fuzz", "shrink")  # the commands that take `-- CMD ARGS`


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `pausecheck` console script; returns the exit code.

    Everything after the first `--` is the command line of a runtime under test (conform, vectors
    check), kept out of argparse so that no flag of ours is mistaken for one of its arguments."""
    words = list(sys.argv[1:] if argv is None else argv)
    runtime = words[words.index("--") + 1:] if "--" in words else []
    words = words[:words.index("--")] if "--" in words else words
    args = parser().parse_args(words)
    if args.command in RUNS_A_RUNTIME:
        args.runtime = runtime
    elif "--" in (sys.argv[1:] if argv is None else argv):
        sys.stderr.write(f"pausecheck: {args.command} takes no command after -- "
                         f"(see pausecheck {args.command} --help)\n")
        return 2
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
