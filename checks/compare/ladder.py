"""Past a lucky bound: the smallest bounds, faults and reading at which a draft's edit takes effect, or tells
the two tables apart, found by climbing from the bounds given.

`diff` answers at the bounds it is given. Where nothing told the tables apart there, `climb` tries bound sets
one raise above the bounds given, then two, ...: a bound raised by one, a fault allowed once (with the reading
it needs, a race its non-atomic reading), another value of an ambiguity a changed rule reads. Each rung walks
the two tables together (`walk.walk_together`, no property checked: cheap) and records whether a step of a
changed rule ran with another outcome there (the edit *took effect*) and whether a behaviour only one allows
was found (they are *told apart*). It stops at the first rung that tells them apart, or when its budget
(`seconds`) is spent, and says the largest rung it finished: an answer "none up to ..." is bounded by what it
tried, and says so.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from pausecheck.model import Bounds, Machine, Reading, reading_named
from pausecheck.model.lang import Rule
from pausecheck.model.reading import SWITCH_OF

from .walk import split, walk_together

__all__ = ["Raise", "Rung", "Climb", "climb", "raises_for"]

# Bounds raised by one, cheapest first; a second session or turn multiplies the states (last).
_BOUNDS = ("observations", "write_failures", "held_bound", "per_call", "calls", "artifacts", "pauses",
           "interim_writes", "node_failures", "sessions", "turns")
_FAULTS = ("crashes", "expiries", "races", "new_turns")
# The bound that enables a rule at all, where one does (a rule the draft changes runs only once it is raised).
_ENABLES = {"Expire": "expiries", "Crash": "crashes", "LoseRace": "races", "ResumeAgain": "races",
            "NodeFails": "node_failures", "ObserveAgain": "observations"}
_NEEDS = {"races": ("A-T7", ("racy", "racy-read-then-clear"))}  # a fault enabled only under another reading


@dataclass(frozen=True)
class Raise:
    """One step up the ladder: bounds raised (name -> new value) and reading switches set."""

    bounds: tuple[tuple[str, int], ...] = ()
    switches: tuple[tuple[str, str], ...] = ()

    @property
    def flags(self) -> str:
        """The bound flags it sets (its switches are said as the reading of the rung)."""
        return " ".join(f"--{k.replace('_', '-')} {v}" for k, v in self.bounds)


@dataclass(frozen=True)
class Rung:
    """A bound set tried: its flags (from the bounds given), whether the edit took effect, whether a behaviour
    told the two apart, how many pairs of states were walked."""

    flags: str
    bounds: Bounds
    reading: str
    fired: bool
    apart: bool
    pairs: int
    complete: bool
    raises: int = 1  # how many raises above the bounds given
    verdicts: tuple[str, ...] = ()  # where no behaviour told them apart: the verdicts that did


@dataclass(frozen=True)
class Climb:
    """What the ladder found: the first rung where the edit takes effect, the first that tells the tables
    apart, every rung tried (in order), whether it stopped on its budget, its seconds."""

    fired: Rung | None
    apart: Rung | None
    tried: tuple[Rung, ...]
    stopped: bool
    seconds: float

    def as_json(self) -> dict[str, Any]:
        def rung(r: Rung | None) -> dict[str, Any] | None:
            return None if r is None else {"flags": r.flags, "reading": r.reading, "pairs": r.pairs}
        return {"fires_at": rung(self.fired), "apart_at": rung(self.apart), "tried": len(self.tried),
                "largest": self.tried[-1].flags if self.tried else None, "stopped": self.stopped,
                "seconds": round(self.seconds, 2)}


def raises_for(bounds: Bounds, reading: Reading, touched: list[str], changed: list[str] = ()) -> list[Raise]:
    """Every single raise from `bounds` under `reading`: first those that enable a rule the draft changes (a
    fault's bound, say), then the rest, cheapest first."""
    out = [Raise(((name, getattr(bounds, name) + 1),)) for name in _BOUNDS]
    for fault in _FAULTS:
        if getattr(bounds, fault):
            continue
        need = _NEEDS.get(fault)
        if need is None or reading.value(need[0]) in need[1]:
            out.append(Raise(((fault, 1),)))
        else:
            out += [Raise(((fault, 1),), ((need[0], value),)) for value in need[1]]
    for ambiguity in touched:
        out += [Raise((), ((ambiguity, value),)) for value in SWITCH_OF[ambiguity].values
                if value != reading.value(ambiguity)]
    enabling = {_ENABLES[kind] for kind in changed if kind in _ENABLES}
    return sorted(out, key=lambda r: not any(name in enabling for name, _ in r.bounds))  # stable: cheapest first


def _combined(bounds: Bounds, reading: Reading, chosen: tuple[Raise, ...]) -> tuple[Bounds, Reading, str] | None:
    """The bounds and reading of several raises at once (None where two set one switch otherwise)."""
    switches = dict(reading.switches)
    raised: dict[str, int] = {}
    for r in chosen:
        for a, v in r.switches:
            if switches.get(a, v) != v and a not in dict(reading.switches):
                return None
            switches[a] = v
        raised.update(r.bounds)
    name = "+".join(["conformant"] + [f"{a}={v}" for a, v in switches.items()])
    flags = " ".join(r.flags for r in chosen if r.bounds)
    if name != reading.name:
        flags = f"{flags} --reading {name}".strip()
    return bounds.replace(**raised), reading_named(name), flags


def _twice(chosen: tuple[Raise, ...]) -> bool:
    """Do two raises raise one bound (a combination the ladder meets at another size)?"""
    names = [name for r in chosen for name, _ in r.bounds]
    return len(set(names)) < len(names)


def climb(bounds: Bounds, reading: Reading, first: tuple[Rule, ...], second: tuple[Rule, ...], touched: list[str],
          seconds: float, changed: list[str], max_pairs: int = 200_000, max_raises: int = 3,
          verdicts: Callable[[Bounds, Reading, float], list[str]] | None = None) -> Climb:
    """Raise the bounds one step at a time (then two, three) until the tables are told apart, or `seconds`.
    Where the edit takes effect and no client sees it, `verdicts(bounds, reading, seconds left)` (the
    properties whose established verdicts differ there) may still tell them apart."""

    started = time.perf_counter()
    singles = raises_for(bounds, reading, touched, changed)
    tried: list[Rung] = []
    fired: Rung | None = None
    for size in range(1, max_raises + 1):
        for chosen in combinations(singles, size):
            if time.perf_counter() - started > seconds:
                return Climb(fired, None, tuple(tried), True, time.perf_counter() - started)
            made = _combined(bounds, reading, chosen)
            if made is None or _twice(chosen):
                continue
            b, r, flags = made
            walk = walk_together(Machine(b, r, first), Machine(b, r, second), max_pairs,
                                 shared=split(b, r, first, second), deadline=started + seconds)
            apart = walk.only_in_first is not None or walk.only_in_second is not None
            rung = Rung(flags, b, r.name, apart or not walk.same_states, apart, walk.pairs, walk.complete, size)
            if not walk.complete and not rung.fired:  # cut (pairs or time) with nothing seen: not decided
                continue
            if rung.fired and not apart and verdicts is not None:
                changed = verdicts(b, r, started + seconds - time.perf_counter())
                if changed:
                    rung = dataclasses.replace(rung, apart=True, verdicts=tuple(changed))
                    apart = True
            tried.append(rung)
            if rung.fired and fired is None:
                fired = rung
            if apart:
                return Climb(fired, rung, tuple(tried), False, time.perf_counter() - started)
    return Climb(fired, None, tuple(tried), False, time.perf_counter() - started)
