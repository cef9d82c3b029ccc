"""The flip matrix: for each ambiguity the model switches on and each of its other values, which
property verdicts change from the conformant reading, with the shortest behaviour that shows it.

A flip is a property whose status under the switched reading differs from its status under the
conformant reading at the same bounds: an invariant that now breaks (its counterexample, replayable
at that reading, is a behaviour the two readings disagree on), or a witness that can no longer be
found (the situation the reading rules out). A switch with no flip is one the properties cannot tell
apart at these bounds.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pausecheck.model import DEFAULT_BOUNDS, SWITCHES, Bounds, reading_named

from .report import Report, check

__all__ = ["Flip", "Row", "flip_matrix"]


@dataclass(frozen=True, slots=True)
class Flip:
    """One property whose verdict a reading changes."""

    property: str
    clauses: tuple[str, ...]
    was: str
    now: str
    steps: int | None  # the shortest counterexample's length, when the property now breaks
    message: str | None


@dataclass(frozen=True, slots=True)
class Row:
    """One switch set to one value: the reading, its meaning, and what flips."""

    ambiguity: str
    value: str
    meaning: str
    reading: str
    flips: tuple[Flip, ...]
    report: Report


def flip_matrix(bounds: Bounds = DEFAULT_BOUNDS,
                progress: Callable[[str], Any] | None = None) -> tuple[Report, list[Row]]:
    """The conformant check and one row per (switch, value other than the default)."""
    base = check(bounds, "conformant", progress=progress)
    before = {p.name: p for p in base.properties}
    rows = []
    for switch in SWITCHES:
        for value, meaning in switch.values.items():
            if value == switch.default:
                continue
            name = reading_named(f"{switch.ambiguity}={value}").name
            report = check(bounds, name, progress=progress)
            flips = tuple(
                Flip(p.name, p.clauses, before[p.name].status, p.status,
                     len(p.discovery.actions) if p.status == "VIOLATED" and p.discovery else None, p.message)
                for p in report.properties if p.status != before[p.name].status)
            rows.append(Row(switch.ambiguity, value, meaning, name, flips, report))
    return base, rows
