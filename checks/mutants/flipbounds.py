"""Where a reading shows: the smallest bounds at which a single change of reading flips a verdict.

`pausecheck readings` at small bounds finds that many readings change nothing there, and a spec author
then wants to know whether they never matter or only need larger bounds, or another reading beside them.
`smallest_flip` answers with the ladder `diff` climbs (`checks/compare/ladder.py`, one mechanism for both):
from the tiniest bounds (one session, one call, one artifact, one pause, no failing write, no second
observation, a held bound of one; with the faults the reading needs), it walks the conformant reading and the
changed one together at each rung (a bound raised by one, a fault with the reading it needs, another value of
an ambiguity the same rules read, and their combinations), and where the change takes effect it checks both:
the first rung at which some verdict differs, with no raise that can go. A rung that sets another reading
beside the change (A-T7's racy take with a race, say) says so: alone the change flips nothing at the rungs
tried. `SHOWN_AT` records what that search found for every single change, so that the readings report names it
without searching: `benchmarks/flip_bounds.py` recomputes the table, and `tests/test_flipbounds.py` checks
every entry (slow).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pausecheck.model import DEFAULT_BOUNDS, Bounds, Machine, Reading, reading_named

__all__ = ["TINY", "SECONDS", "SHOWN_AT", "Flip", "flags", "from_flags", "flipped", "smallest_flip", "shown_at",
           "read_shown", "shown"]

TINY = Bounds(calls=1, per_call=1, artifacts=1, pauses=1, write_failures=0, observations=0, held_bound=1)
SECONDS = 300.0  # the ladder's budget for each reading when the table is recomputed


@dataclass(frozen=True)
class Flip:
    """Where a reading shows: the bounds, what flips there, the readings set beside it (none: alone), and how
    many rungs the ladder tried with no other reading first."""

    bounds: Bounds
    flips: tuple[str, ...]
    beside: tuple[tuple[str, str], ...]
    alone: int


# reading (the single change, as `readings` names it) -> the bound flags at which a verdict first flips, found by
# the ladder from TINY (with the reading's faults; `--reading ...` where another reading must be set beside it),
# or None where the ladder finds none; recomputed by benchmarks/flip_bounds.py
SHOWN_AT: dict[str, str | None] = {
    "A-G1=leave": "--calls 1 --artifacts 1 --pauses 1 --write-failures 0 --observations 0 --held-bound 1",
    "A-T15=new-first": "--artifacts 2 --write-failures 0 --observations 0 --held-bound 1",
    "A-T11=hold": "--calls 1 --artifacts 1 --write-failures 0 --observations 0 --interim-writes 1 --held-bound 1",
    "A-T1=turn": "--artifacts 1 --pauses 1 --write-failures 0 --observations 0 --held-bound 1",
    "A-T4=release": "--calls 1 --artifacts 1 --pauses 1 --observations 0 --held-bound 1",
    "A-T4=merge": "--calls 1 --artifacts 1 --pauses 1 --observations 0 --held-bound 1",
    "A-T5=append": "--artifacts 2 --observations 0 --held-bound 1 --races 1 --reading conformant+A-T7=racy",
    "A-T5=assign": "--calls 1 --artifacts 1 --observations 0 --held-bound 1 --races 1 --reading conformant+A-T7=racy",
    "A-T6=take-first": "--artifacts 1 --pauses 1 --write-failures 0 --observations 0 --held-bound 1 --crashes 1",
    "A-T6=write-first":
        "--calls 1 --artifacts 1 --pauses 1 --write-failures 0 --observations 0 --held-bound 1 --crashes 1",
    "A-T7=racy": "--calls 1 --artifacts 1 --pauses 1 --write-failures 0 --observations 0 --held-bound 1 --races 1",
    "A-T7=racy-read-then-clear":
        "--calls 1 --artifacts 1 --pauses 1 --write-failures 0 --observations 0 --held-bound 1 --races 1",
    "A-T8=deliver": "--artifacts 1 --pauses 1 --write-failures 0 --observations 0 --held-bound 1 --expiries 1",
    "A-T8=discard": "--artifacts 1 --pauses 1 --write-failures 0 --observations 0 --held-bound 1 --expiries 1",
    "A-T8=strand": "--artifacts 1 --pauses 1 --write-failures 0 --observations 0 --held-bound 1 --expiries 1",
    "A-T9=first-hold": "--artifacts 2 --write-failures 0 --observations 0 --held-bound 1",
    "A-T9=put-back":
        "--calls 1 --artifacts 1 --observations 0 --held-bound 1 --crashes 1 --races 1 --reading "
        "conformant+A-T7=racy-read-then-clear",
    "A-T9=merge": "--calls 1 --artifacts 2 --pauses 1 --write-failures 0 --observations 0 --held-bound 1",
    "A-T12=with-artifacts": "--artifacts 1 --pauses 1 --write-failures 0 --observations 0 --held-bound 1",
    "A-T14=ambiguous": "--calls 1 --artifacts 1 --pauses 1 --observations 0 --held-bound 1",
    "A-G3=new-first":
        "--calls 1 --artifacts 1 --pauses 1 --write-failures 0 --observations 0 --held-bound 1 --crashes 1",
    "A-G4=failed-unmarked": "--calls 1 --artifacts 1 --pauses 1 --write-failures 0 --observations 0 --held-bound 1",
    "A-G4=completed-with-error":
        "--calls 1 --artifacts 1 --pauses 1 --write-failures 0 --observations 0 --held-bound 1",
    "A-G9=close-one": "--calls 1 --artifacts 1 --pauses 1 --write-failures 0 --observations 0 --held-bound 1 --races 1",
    "A-G11=leave": "--calls 1 --artifacts 1 --pauses 1 --write-failures 0 --observations 0 --held-bound 1 --expiries 1",
    "A-X5=carry-on":
        "--calls 1 --artifacts 1 --pauses 1 --write-failures 0 --observations 0 --node-failures 1 --held-bound 1",
}


def flags(bounds: Bounds) -> str:
    """The flags that set these bounds from the defaults (every bound that differs)."""
    return bounds.flags() or "(the default bounds)"


def from_flags(text: str) -> Bounds:
    """The bounds these flags set from the defaults (`flags` read back)."""
    words = text.split()
    pairs = zip(words[::2], words[1::2], strict=True)
    changes = {flag[2:].replace("-", "_"): value if value == "any" else int(value) for flag, value in pairs}
    return Bounds.of({**DEFAULT_BOUNDS.as_dict(), **changes})


def flipped(switches: tuple[tuple[str, str], ...], bounds: Bounds,
            baselines: dict[tuple[Bounds, str], dict[str, str]] | None = None,
            beside: tuple[tuple[str, str], ...] = (), table: tuple[Any, ...] | None = None) -> tuple[str, ...]:
    """The properties whose verdict the reading (or a mutant's rule `table`) changes at these bounds, from the
    conformant reading's of the rules (or that of the readings `beside` it, set in both)."""
    from ..verdict import check

    baselines = {} if baselines is None else baselines
    reading = "+".join(["conformant"] + [f"{a}={v}" for a, v in beside])
    if (bounds, reading) not in baselines:
        baselines[bounds, reading] = _statuses(check(bounds, reading))
    changed = "+".join([reading] + [f"{a}={v}" for a, v in switches])
    now = _statuses(check(bounds, changed) if table is None else check(bounds, changed, rules=table))
    was = baselines[bounds, reading]
    return tuple(name for name, status in now.items() if status != was.get(name))


def _statuses(report: Any) -> dict[str, str]:
    return {p.name: p.status for p in report.properties}


def smallest_flip(switches: tuple[tuple[str, str], ...] = (), *, table: tuple[Any, ...] | None = None,
                  seconds: float = SECONDS, start: Bounds | None = None,
                  baselines: dict[tuple[Bounds, str], dict[str, str]] | None = None) -> Flip | None:
    """The first rung the ladder finds, from `start` (TINY with the faults the reading needs), at which the
    reading (`switches`), or a mutant's rule `table` against the rules, flips a verdict: its bounds, what flips,
    the other readings set beside it and the rungs tried alone; None if none within `seconds`. `baselines`:
    the rules' verdicts per bounds and reading, filled as they are computed."""
    from pausecheck.model.lang import reads_of
    from pausecheck.model.rules import RULES

    from ..compare.ladder import climb, near_raises, raises_for
    from ..compare.walk import changed_rules
    from .flips import _with_faults

    baselines = {} if baselines is None else baselines
    other = RULES if table is None else table
    start = _with_faults(start or TINY, switches)
    base = reading_named("conformant")
    own = {a for a, _ in switches}
    edited = changed_rules(RULES, other)
    changed = [r for r in other if r.action.__name__ in edited or reads_of(r) & own]
    kinds = [r.action.__name__ for r in changed]
    touched = sorted(frozenset().union(*(reads_of(r) for r in changed)) - own)

    def switched(reading: Reading) -> Reading:
        return reading_named("+".join([reading.name] + [f"{a}={v}" for a, v in switches]))

    def tables(b: Bounds, r: Reading) -> Any:
        return Machine(b, r, RULES), Machine(b, switched(r), other), None

    def verdicts(b: Bounds, r: Reading, _: float) -> list[str]:
        return list(flipped(switches, b, baselines, r.switches, table))

    found = verdicts(start, base, seconds)
    if found:
        return Flip(start, tuple(found), (), 0)
    singles = [s for s in raises_for(start, base, touched, kinds, other) if not {a for a, _ in s.switches} & own]
    climbed = climb(start, base, tables, singles, seconds, verdicts=verdicts, by_verdicts=True,
                    near=near_raises(singles, other, kinds))
    if climbed.apart is None:
        return None
    rung = climbed.apart
    return Flip(rung.bounds, rung.verdicts, rung.switches, climbed.alone)


def shown_at(reading: str) -> str:
    """For a reading that flips nothing at some bounds: where it shows, in words."""
    if reading not in SHOWN_AT:
        return "no bound set is known to show it (not searched)"
    found = SHOWN_AT[reading]
    if found is None:
        return f"none known: the ladder finds no bound set that shows a flip within {SECONDS:g} s from the smallest"
    bounds, beside = read_shown(found)
    if beside:
        names = ", ".join(f"{a}={v}" for a, v in beside)
        return (f"alone it flips nothing at the bound sets the ladder tried; beside {names}, the smallest bounds "
                f"found to show a flip: {flags(bounds)} --reading conformant+{names}+{reading} (the other bounds "
                f"at their defaults)")
    return f"the smallest bounds known to show a flip: {found} (the other bounds at their defaults)"


def read_shown(text: str) -> tuple[Bounds, tuple[tuple[str, str], ...]]:
    """An entry of SHOWN_AT read back: its bounds, and the readings set beside the change (`--reading ...`)."""
    flags_part, _, reading = text.partition(" --reading ")
    beside = reading_named(reading).switches if reading else ()
    return from_flags(flags_part), beside


def shown(found: Flip) -> str:
    """A Flip as an entry of SHOWN_AT."""
    beside = "+".join(f"{a}={v}" for a, v in found.beside)
    return flags(found.bounds) + (f" --reading conformant+{beside}" if beside else "")
