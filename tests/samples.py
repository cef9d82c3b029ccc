"""Sample outputs in README.md and docs/: each ```text block that follows a ```sh block is what the
last `pausecheck` command of that block prints, and is compared with what the command prints now.

A line `...` in a sample stands for any number of lines left out (none included); every other line must
be printed as it stands, in order, with nothing between it and the line before unless a `...` says
so. A sample without `...` at an end matches that end of the output exactly.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Sample", "samples", "text_blocks", "mismatch", "ELIDED"]

FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
ELIDED = "..."


@dataclass(frozen=True)
class Sample:
    """One sample output: the command that prints it, the lines shown, where it is written."""

    argv: tuple[str, ...]
    lines: tuple[str, ...]
    where: str
    exit: int = 0  # the exit code the prose between the command and the sample states ("exit 1"), else 0


def _last_command(body: str) -> tuple[str, ...] | None:
    """The arguments of the last `pausecheck` command line of a sh block (a trailing comment dropped)."""
    found = None
    for line in body.splitlines():
        for part in line.split("&&"):
            try:
                words = shlex.split(part.strip().removeprefix("$ "), comments=True)
            except ValueError:  # not a command line (a continued one, a heredoc): no sample follows it
                continue
            if len(words) >= 2 and words[0] == "pausecheck":
                found = tuple(words[1:])
    return found


def text_blocks(path: Path) -> int:
    """How many ```text blocks a file has (each must be a sample found by `samples`)."""
    return sum(1 for lang, _ in FENCE.findall(path.read_text(encoding="utf-8")) if lang == "text")


def samples(path: Path, root: Path) -> list[Sample]:
    """The samples of one Markdown file: each ```text block after a ```sh block with a command."""
    text = path.read_text(encoding="utf-8")
    found, command, after = [], None, 0
    for match in FENCE.finditer(text):
        lang, body = match.group(1), match.group(2)
        if lang in ("sh", "bash", "shell"):
            command, after = _last_command(body), match.end()
        elif lang == "text" and command is not None:
            line = text[:match.start()].count("\n") + 1
            stated = re.findall(r"\bexit (\d)\b", text[after:match.start()])
            found.append(Sample(command, tuple(body.rstrip("\n").split("\n")), f"{path.relative_to(root)}:{line}",
                                int(stated[-1]) if stated else 0))
    return found


def mismatch(sample: tuple[str, ...], output: str) -> str | None:
    """Why `output` is not what the sample shows (None when it is): the first sample line not found."""
    lines = [line.rstrip() for line in output.rstrip("\n").split("\n")]
    return _match(list(sample), 0, lines, 0, free=False)


def _match(sample: list[str], i: int, lines: list[str], j: int, *, free: bool) -> str | None:
    """Match sample[i:] against lines[j:]; `free`: lines may be skipped before sample[i]."""
    while i < len(sample) and sample[i] == ELIDED:
        i, free = i + 1, True
    if i == len(sample):
        return None if free or j == len(lines) else f"the output goes on after the sample ends: {lines[j]!r}"
    starts = range(j, len(lines)) if free else range(j, min(j + 1, len(lines)))
    deeper = None  # why the rest failed after this line matched: the more telling reason
    for k in starts:
        if lines[k] == sample[i].rstrip():
            why = _match(sample, i + 1, lines, k + 1, free=False)
            if why is None:
                return None
            deeper = deeper or why
    if deeper is not None:
        return deeper
    expected = sample[i].rstrip()
    got = lines[j] if j < len(lines) and not free else "(not found in the rest of the output)"
    return f"sample line {i + 1} {expected!r}: the tool printed {got!r}"
