"""`--draft FILE` on every command that builds a model: the flag, and the table and machine it names."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from pausecheck.model import Bounds, Machine, reading_named
from pausecheck.model.lang import Rule

from ..drafts import Draft, base_of, check_table, load_draft

__all__ = ["draft_flag", "draft_given", "rules_of", "machine_of"]

DRAFT_HELP = ("run on the rule table a Python file defines as RULES instead of the rules (a spec author's draft: "
              "usually the rules with a few named edits, e.g. RULES = deviate(on(StartWriteBack, Drop(e.held))); "
              "docs/drafts.md); traces written under it name it and replay on it")


def draft_flag(parser: argparse.ArgumentParser, help: str = DRAFT_HELP) -> None:
    """The `--draft FILE` flag."""
    parser.add_argument("--draft", type=Path, metavar="FILE", help=help)


def draft_given(args: argparse.Namespace) -> Draft | None:
    """The draft `--draft` names, loaded once (a DraftError, one line and exit 2, if it cannot be used)."""
    path = getattr(args, "draft", None)
    if path is None:
        return None
    if getattr(args, "_draft", None) is None:
        args._draft = load_draft(path)
    return args._draft


def rules_of(args: argparse.Namespace, bounds: Bounds | None = None, reading: Any = None) -> tuple[Rule, ...]:
    """The table the command runs: the draft's, checked at these bounds and reading, or the rules."""
    draft = draft_given(args)
    if draft is not None and bounds is not None:
        check_table(draft.rules, draft.path, bounds, reading or reading_named(args.reading))
    return base_of(draft)


def machine_of(args: argparse.Namespace, bounds: Bounds, **options: Any) -> Machine:
    """The machine of the command's bounds, reading and table (the draft's, or the rules)."""
    reading = reading_named(args.reading)
    return Machine(bounds, reading, rules_of(args, bounds, reading), **options)
