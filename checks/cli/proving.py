"""What the proof commands (`prove` and `prove --compositional`) share: a proof run under a progress line with
the deadline of --max-seconds (the bound flags as a user types them are `Bounds.flags`), and the printer of
their reports. Imports no command
module, so that `prove.py` may hand `--compositional` to `compositional.py` and both build on this one."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from ..console import Reporter, console
from ..search.budget import active
from ..search.parallel import workers

__all__ = ["with_progress", "sayer", "proof_workers"]


def proof_workers(args: argparse.Namespace) -> int:
    """The processes a proof asks z3's queries on: --workers, else every core and at least two (at any number of
    two or more, the rounds and counterexamples are the same: a proof reads the same on every machine)."""
    return args.workers if args.workers is not None else max(2, workers())


def sayer(args: argparse.Namespace) -> Callable[[str], None]:
    """A printer of a proof's report, line by line: colour unless --no-color, no markup read, long lines whole."""
    out = console(color=not args.no_color)
    return lambda text: out.print(text, markup=False, highlight=False, soft_wrap=True)


def with_progress(args: argparse.Namespace, label: str, run: Any) -> Any:
    """`run(progress, deadline)` with a progress line for `label` while it runs (what a limit's stop reports as
    reached) and the deadline of --max-seconds."""
    budget = active()
    with Reporter("prove", color=not args.no_color) as reporter:
        return run(reporter.status(label), None if budget is None else budget.deadline)
