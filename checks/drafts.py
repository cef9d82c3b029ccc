"""Drafts: a spec author's rule table, read from a Python file, run by every engine as the rules are.

A draft is a file that defines `RULES`, a rule table (a tuple of `Rule`), usually the rules with a few
named edits (`model/deviate.py`, as the mutants are built), or written out in full. It is loaded once
per text (its SHA-256): loading the same text again gives the same table object, since the engines
cache what they derive from a table by its identity. A draft that cannot be used (it cannot be read,
is not Python, raises while it runs, defines no `RULES`, or defines one that is not a rule table or
that the rule language refuses) is a `DraftError`: one line naming the file, and the line where there
is one. A trace written under a draft carries it (`meta()`: path and SHA-256), so that replaying it
re-runs the same draft and refuses a changed one.

The package is never edited: a draft runs in a module of its own, importing the rules as any user would.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import sys
import traceback
import types
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pausecheck.model import CONFORMANT, DEFAULT_BOUNDS, Bounds, Reading
from pausecheck.model.lang import Rule
from pausecheck.model.pygen import successor_function
from pausecheck.model.rules import RULES
from pausecheck.model.tablecheck import TableError, check_rules
from pausecheck.traces.input_file import printable

__all__ = ["Draft", "DraftError", "load_draft", "draft_of", "base_of", "check_table", "draft_meta", "under",
           "rule_changes"]


class DraftError(ValueError):
    """A draft that cannot be used: one line naming the file (and line)."""


@dataclass(frozen=True)
class Draft:
    """A loaded draft: the file as named, the SHA-256 of its text, and its rule table."""

    path: str
    sha256: str
    rules: tuple[Rule, ...] = field(compare=False, repr=False)

    def meta(self) -> dict[str, str]:
        """What a trace records of it: `{path, sha256}`."""
        return {"path": self.path, "sha256": self.sha256}

    def __reduce__(self) -> tuple[Any, ...]:
        """A worker process loads the same file again (a table holds functions, which do not pickle) and
        refuses it if its text changed since."""
        return load_draft, (self.path, self.sha256)


_LOADED: dict[tuple[str, str], Draft] = {}  # (resolved path, sha256) -> the draft loaded from that text
_BY_TABLE: dict[int, Draft] = {}  # id(table) -> the draft it is, or derives from (a mutant of it)


def load_draft(path: str | Path, sha256: str | None = None) -> Draft:
    """The draft in this file (the same object for the same text); with `sha256`, refused unless the text
    still has that digest. DraftError, in one line, for anything that keeps it from being used."""
    name = str(path)
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise DraftError(f"{name}: cannot read the draft: {error.strerror or error}") from None
    digest = hashlib.sha256(data).hexdigest()
    if sha256 is not None and digest != sha256:
        raise DraftError(f"{name}: the draft has changed since the trace was written (sha256 {sha256[:12]}... "
                         f"then, {digest[:12]}... now)")
    key = (str(Path(path).resolve()), digest)
    if key not in _LOADED:
        rules = _run(name, data)
        check_table(rules, name)
        draft = _LOADED[key] = Draft(name, digest, rules)
        _BY_TABLE[id(rules)] = draft
    return _LOADED[key]


def _run(name: str, data: bytes) -> tuple[Rule, ...]:
    """Execute the draft in a module of its own and return its `RULES` as a tuple."""
    try:
        with warnings.catch_warnings():  # "perhaps you missed a comma?": the draft's run says what breaks, in a line
            warnings.simplefilter("ignore", SyntaxWarning)
            code = compile(data, name, "exec", dont_inherit=True)
    except SyntaxError as error:
        raise DraftError(f"{name}:{error.lineno or 1}: not Python: {error.msg}") from None
    except ValueError as error:  # a null byte
        raise DraftError(f"{name}: not Python: {error}") from None
    module = types.ModuleType("pausecheck_draft")
    module.__file__ = name
    printed = io.StringIO()  # what the draft prints (pausecheck's own --help, say) is not the command's output
    try:
        with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
            exec(code, module.__dict__)  # the user's own file, run as they asked
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # noqa: BLE001 - anything a draft raises, SystemExit included, is one line
        raise DraftError(f"{name}{_line(error, name)}: {type(error).__name__}: {_first_line(error)}") from None
    if printed.getvalue():
        lines = len(printed.getvalue().splitlines()) or 1
        sys.stderr.write(printable(f"pausecheck: note: the draft {name} printed {lines} line(s) while it loaded "
                                   "(not shown: a draft's output is not the command's)") + "\n")
    if "RULES" not in module.__dict__:
        raise DraftError(f"{name}: defines no RULES (the draft's rule table, e.g. RULES = deviate(on(...)))")
    rules = module.__dict__["RULES"]
    if not isinstance(rules, (tuple, list)) or not rules:
        raise DraftError(f"{name}: RULES is not a rule table: a non-empty tuple of Rule, got {type(rules).__name__}")
    for k, rule in enumerate(rules):
        if not isinstance(rule, Rule):
            raise DraftError(f"{name}: RULES[{k}] is not a Rule: {type(rule).__name__}")
    return tuple(rules)


def _line(error: BaseException, name: str) -> str:
    """`:LINE` of the draft's own frame nearest the error, if the traceback passes through the draft."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == name]
    return f":{frames[-1].lineno}" if frames else ""


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else "(no message)"


def check_table(rules: tuple[Rule, ...], name: str, bounds: Bounds = DEFAULT_BOUNDS,
                reading: Reading = CONFORMANT) -> None:
    """The rule language's own checks of a table at these bounds and reading: the checker reads every
    statement (`model/tablecheck.py`), and every rule specialises and compiles to the explicit successor function
    (the form every other engine is derived alike from).
    DraftError, naming the file, where it does not."""
    try:
        check_rules(rules)
    except TableError as error:  # one line naming the rule, the statement and where it was written
        raise DraftError(f"{name}: {error}" if not str(error).startswith(name) else str(error)) from None
    try:
        successor_function(bounds, reading, rules)
    except Exception as error:  # a type error in an expression, an effect the language cannot say, ...
        raise DraftError(f"{name}: the rule table does not compile under {reading.name}: "
                         f"{type(error).__name__}: {_first_line(error)}") from None


def draft_of(rules: tuple[Rule, ...]) -> Draft | None:
    """The draft this table is, or was derived from (a mutant of a draft), if any."""
    return _BY_TABLE.get(id(rules))


def derived(table: tuple[Rule, ...], base: tuple[Rule, ...]) -> tuple[Rule, ...]:
    """Record that `table` (a mutant's) was built from `base`, so that its traces name the base's draft."""
    found = _BY_TABLE.get(id(base))
    if found is not None:
        _BY_TABLE[id(table)] = found
    return table


def base_of(draft: Draft | None) -> tuple[Rule, ...]:
    """The table a command runs: the draft's, or the rules."""
    return RULES if draft is None else draft.rules


def under(rules: tuple[Rule, ...]) -> str:
    """What an output's header says of the table it ran: "" for the rules, else `, under the draft PATH (sha256
    ...)` (a mutant of a draft too), so that no output made on a draft reads as one made on the rules."""
    found = draft_of(rules)
    return "" if found is None else f", under the draft {found.path} (sha256 {found.sha256[:12]})"


def rule_changes(made: dict[str, Any]) -> str:
    """The rules a draft changes, adds and drops, in a line."""
    changed, added, dropped = made["changed_rules"], made["added_rules"], made["dropped_rules"]
    if not (changed or added or dropped):
        return "rules changed: none (the tables say the same)"
    parts = [f"rules changed: {', '.join(changed) or 'none'}"]
    parts += [f"added: {', '.join(added)}"] if added else []
    parts += [f"dropped: {', '.join(dropped)}"] if dropped else []
    return "; ".join(parts)


def draft_meta(rules: tuple[Rule, ...]) -> dict[str, str] | None:
    """`#meta.draft` of a trace made on this table: the draft's path and SHA-256, or None for the rules."""
    found = draft_of(rules)
    return None if found is None else found.meta()
