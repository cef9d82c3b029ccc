"""The files a run reads, so that nothing it writes lands on one of them.

`note(args)` records, before any work, every existing file a command was given to read (a trace, a log,
a draft, a sequence); `not_over(path)` is the path to write instead of `path` when `path` is one of them:
beside it, with the command's name before the suffix, said on stderr. Every write of the command line
goes through it, so no command ever loses its input.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

__all__ = ["WRITES", "note", "not_over"]

# The flags that name where a command writes (or keeps its checkpoints): never inputs.
WRITES = ("out", "golden", "standing", "checkpoint", "resume")

_read: set[Path] = set()
_command = ["pausecheck"]


def note(args: argparse.Namespace) -> None:
    """Remember the files `args` names to read (paths that are existing files, outside the output flags)."""
    _read.clear()
    _command[0] = getattr(args, "command", None) or "pausecheck"
    for flag, value in vars(args).items():
        if flag not in WRITES and isinstance(value, Path) and value.is_file():
            _read.add(value.resolve())


def not_over(path: Path, tag: str | None = None) -> Path:
    """`path`, or, where it is a file this run reads, a new name beside it (`X.TAG.itf.json` for
    `X.itf.json`; TAG is the command's name unless given), said on stderr."""
    try:
        if not path.exists() or path.resolve() not in _read:
            return path
    except OSError:  # a path that cannot even be resolved is no input of ours; the write will say why
        return path
    suffix = next((s for s in (".itf.json", ".json", ".jsonl") if path.name.endswith(s)), path.suffix)
    stem = path.name.removesuffix(suffix) if suffix else path.name
    tag = tag or _command[0]
    base = stem if stem == tag or stem.endswith(f".{tag}") else f"{stem}.{tag}"  # never the tag twice
    new, n = path.with_name(f"{base}{suffix}"), 2
    while new.exists() and new.resolve() in _read or new == path:
        new, n = path.with_name(f"{base}.{n}{suffix}"), n + 1
    print(f"pausecheck: {path} is a file this run reads: written to {new} instead", file=sys.stderr)
    return new
