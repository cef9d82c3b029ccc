"""Past a lucky bound: the smallest bounds, faults and reading at which two tables (or two readings) part,
found by climbing from the bounds given.

`diff` answers at the bounds it is given, and `readings` at its own. Where nothing told the two apart there,
`climb` tries bound sets above them: a bound raised by one, a fault allowed once (with the reading it needs, a
race its non-atomic reading), another value of an ambiguity a changed rule reads, and every combination of up
to `max_raises` of those. Each rung walks the two machines together (`walk.walk_together`, no property checked:
cheap) and records whether they reached another state anywhere (the change *took effect*) and whether a
behaviour only one allows was found (they are *told apart*); where the change took effect and no client saw it,
`verdicts` may still tell them apart (and for `readings`, only verdicts do).

The order is cheapest first, not fewest raises first: every single raise is walked, and what it multiplies the
pairs walked by is measured; a combination is then estimated as the product of its raises' factors, and walked
in that order. A combination that needs a race, its reading and two more bounds at once is reached after the
cheaper ones, not after every combination of three. The ladder stops at the first rung that tells them apart,
or when its budget (`seconds`) is spent, and says the rungs it finished: "none up to ..." is bounded by what it
tried, and says so.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations, product
from typing import Any

from pausecheck.model import Bounds, Machine, Reading, reading_named
from pausecheck.model.actions import Action
from pausecheck.model.lang import Rule, fields_of, reads_of
from pausecheck.model.lang import walk as walk_nodes
from pausecheck.model.pygen import Successors
from pausecheck.model.reading import SWITCH_OF

from .walk import Behaviour, parts_along, walk_together

__all__ = ["Raise", "Rung", "Climb", "Tables", "climb", "raises_for", "near_raises"]

# Bounds raised by one, cheapest first; a second session or turn multiplies the states (last).
_BOUNDS = ("observations", "write_failures", "held_bound", "per_call", "calls", "artifacts", "pauses",
           "interim_writes", "node_failures", "sessions", "turns")
_FAULTS = ("crashes", "expiries", "races", "new_turns")
_NEEDS = {"races": ("A-T7", ("racy", "racy-read-then-clear"))}  # a fault enabled only under another reading

_WIDEST = 16  # a single raise that multiplies the pairs walked by more is not combined with others

# The two machines of a rung at its bounds and reading, and the successors of the rules they share (`walk.split`).
Tables = Callable[[Bounds, Reading], tuple[Machine, Machine, "tuple[Successors, Successors, Successors] | None"]]


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
    """A bound set tried: its flags (from the bounds given), whether the change took effect, whether a behaviour
    (or a verdict) told the two apart, how many pairs of states were walked."""

    flags: str
    bounds: Bounds
    reading: str
    fired: bool
    apart: bool
    pairs: int
    complete: bool
    raises: int = 1  # how many raises above the bounds given
    verdicts: tuple[str, ...] = ()  # where no behaviour told them apart: the verdicts that did
    switches: tuple[tuple[str, str], ...] = ()  # the readings the rung sets beside the bounds given's
    # the shortest behaviour only one allows there, where the walk found one
    behaviour: Behaviour | None = dataclasses.field(default=None, repr=False, compare=False)


@dataclass(frozen=True)
class Climb:
    """What the ladder found: the smallest rung where the change takes effect (the one that tells the two apart,
    where it does), the one that tells them apart (no raise of it can go), every rung tried (in order), whether
    it stopped on its budget, its seconds."""

    fired: Rung | None
    apart: Rung | None
    tried: tuple[Rung, ...]
    stopped: bool
    seconds: float

    @property
    def alone(self) -> int:
        """How many rungs tried set no other reading (the change tried alone, with bounds and faults only)."""
        return sum(1 for r in self.tried if not r.switches)

    def as_json(self) -> dict[str, Any]:
        def rung(r: Rung | None) -> dict[str, Any] | None:
            if r is None:
                return None
            steps = None if r.behaviour is None else len(r.behaviour.actions)
            why = None if r.behaviour is None else r.behaviour.why
            return {"flags": r.flags, "reading": r.reading, "pairs": r.pairs, "verdicts": list(r.verdicts),
                    "beside": [f"{a}={v}" for a, v in r.switches], "steps": steps, "why": why}
        return {"fires_at": rung(self.fired), "apart_at": rung(self.apart), "tried": len(self.tried),
                "largest": self.tried[-1].flags if self.tried else None, "stopped": self.stopped,
                "seconds": round(self.seconds, 2)}


def raises_for(bounds: Bounds, reading: Reading, touched: list[str], changed: list[str] = (),
               table: tuple[Rule, ...] = ()) -> list[Raise]:
    """Every single raise from `bounds` under `reading`: first those of a bound a changed rule's guard reads in
    `table` (a fault's bound, say: the rule may run only once it is raised), then the rest, cheapest first."""
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
    enabling = frozenset().union(*(_bounds_read(r) for r in table if r.action.__name__ in changed))
    return sorted(out, key=lambda r: not any(name in enabling for name, _ in r.bounds))  # stable: cheapest first


def _bounds_read(rule: Rule) -> frozenset[str]:
    """The bounds a rule's guard reads: raising one lets the rule run more often (or at all)."""
    return frozenset(x.args[0] for x in walk_nodes(rule.guard) if x.op == "bound")


def near_raises(singles: list[Raise], table: tuple[Rule, ...], kinds: list[str]) -> frozenset[Raise]:
    """The raises that let a rule interleave with a change to the rules of these `kinds`: a reading read by, or
    a bound read by the guard of, a rule that sets a field a changed rule reads. A put-back that appends instead
    of prepending shows only where a hold lands between a take and its put-back: a race with its reading, and
    the pauses that hold, read by rules that set the held list."""
    reads = frozenset().union(*(fields_of(r)[0] for r in table if r.action.__name__ in kinds))
    writers = [r for r in table if fields_of(r)[1] & reads]
    ambiguities = frozenset().union(*(reads_of(r) for r in writers))
    bounds = frozenset().union(*(_bounds_read(r) for r in writers))
    return frozenset(s for s in singles if any(a in ambiguities for a, _ in s.switches) or
                     any(name in bounds for name, _ in s.bounds))


def _combined(bounds: Bounds, reading: Reading, chosen: tuple[Raise, ...]) -> tuple[Bounds, Reading, str] | None:
    """The bounds and reading of several raises at once (None where two raise one bound, or set one switch
    otherwise: a combination the ladder meets elsewhere or not at all)."""
    names = [name for r in chosen for name, _ in r.bounds]
    if len(set(names)) < len(names):
        return None
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


def climb(bounds: Bounds, reading: Reading, tables: Tables, singles: list[Raise], seconds: float, *,
          max_pairs: int = 200_000, max_raises: int = 4, base_pairs: int | None = None,
          verdicts: Callable[[Bounds, Reading, float], list[str]] | None = None,
          by_verdicts: bool = False, near: frozenset[Raise] = frozenset(),
          names: tuple[str, str] = ("the first table", "the second table")) -> Climb:
    """Climb from `bounds` by the `singles` and their combinations, cheapest first, until the two `tables` are
    told apart, or `seconds`. Where the change takes effect and no client sees it, `verdicts(bounds, reading,
    seconds left)` (the properties whose established verdicts differ there) may still tell them apart;
    `by_verdicts`: only verdicts tell them apart (a behaviour that differs is not enough: `readings`). `near`: the
    raises that let another rule interleave with the change (`near_raises`), tried first. `names`: the two
    tables, as a behaviour found says them."""
    started = time.perf_counter()
    deadline = started + seconds
    tried: list[Rung] = []
    fired: list[Rung] = []
    judged: dict[tuple[Raise, ...], Rung] = {}

    def walk(chosen: tuple[Raise, ...], cap: int = max_pairs) -> Rung | None:
        """The rung of these raises walked (None: they cannot be set at once); not judged by verdicts."""
        made = _combined(bounds, reading, chosen)
        if made is None:
            return None
        b, r, flags = made
        first, second, shared = tables(b, r)
        w = walk_together(first, second, cap, names=names, shared=shared, deadline=deadline)
        behaviour = w.only_in_first or w.only_in_second
        switches = tuple(s for c in chosen for s in c.switches)
        rung = Rung(flags, b, r.name, behaviour is not None or not w.same_states,
                    behaviour is not None and not by_verdicts, w.pairs, w.complete, len(chosen), switches=switches,
                    behaviour=behaviour)
        if w.complete or rung.fired:  # a walk cut with nothing seen decides nothing
            tried.append(rung)
        if rung.fired:
            fired.append(rung)
        return rung

    def tells(rung: Rung) -> bool:
        """Told apart, or (where verdicts decide) worth judging: the change took effect."""
        return rung.fired if by_verdicts else rung.apart

    def settle(chosen: tuple[Raise, ...], rung: Rung | None) -> Rung | None:
        """Where a rung tells them apart: the smallest rung inside it that does (judged by verdicts where the
        change took effect and no client saw it, or where only verdicts decide); else None."""
        if rung is None or not (tells(rung) or (rung.fired and verdicts is not None)):
            return None
        if tells(rung):
            chosen, rung = _fewest(chosen, rung, walk, tells, factor, replays)
        if rung.apart or verdicts is None or time.perf_counter() > deadline:
            return rung if rung.apart else None
        if chosen not in judged:
            changed = verdicts(rung.bounds, reading_named(rung.reading), deadline - time.perf_counter())
            judged[chosen] = dataclasses.replace(rung, apart=bool(changed), verdicts=tuple(changed))
            tried[tried.index(rung)] = judged[chosen]
        return judged[chosen] if judged[chosen].apart else None

    def replays(chosen: tuple[Raise, ...], actions: tuple[Action, ...]) -> bool:
        made = _combined(bounds, reading, chosen)
        return made is not None and parts_along(*tables(*made[:2])[:2], actions)

    def answer(apart: Rung | None) -> Climb:
        stopped = apart is None and time.perf_counter() > deadline
        first = apart if apart is not None and apart.fired else min(fired, key=lambda r: r.pairs, default=None)
        return Climb(first, apart, tuple(tried), stopped, time.perf_counter() - started)

    base = base_pairs or walk_together(*tables(bounds, reading)[:2], max_pairs).pairs
    factor: dict[Raise, float] = {}
    firing: set[Raise] = set()
    # Those near the change first, and among them a fault allowed (a rule that could not run at all now can)
    for single in sorted(singles, key=lambda s: (s not in near, not any(n in _FAULTS for n, _ in s.bounds))):
        if time.perf_counter() > deadline:
            return answer(None)
        rung = walk((single,), min(max_pairs, max(10_000, _WIDEST * base)))  # wider: not worth combining
        if (apart := settle((single,), rung)) is not None:
            return answer(apart)
        if rung is not None and rung.complete:
            factor[single] = max(1.0, rung.pairs / max(1, base))
            if rung.fired:
                firing.add(single)
    usable = [s for s in singles if s in factor]
    idle = {s for s in usable if factor[s] == 1.0 and s not in firing}  # changed nothing alone: combined last
    # First the top of what is near the change: every raise near it at once (one value of each switch), walked
    # breadth first, which stops at the shortest behaviour that differs; then that top with one or two more
    # raises of bounds and faults, the cheapest first. Where one tells them apart, each raise it does not need is
    # dropped. A change that needs a race, its reading and three more bounds at once is found in seconds.
    rest = [s for s in usable if not s.switches and s not in idle]
    for top in _tops([s for s in usable if s in near and s not in idle]):
        more = [c for size in (1, 2) for c in combinations([s for s in rest if s not in top], size)]
        more.sort(key=lambda c: math.prod(factor[s] for s in c))
        for extra in [(), *more]:
            if time.perf_counter() > deadline:
                return answer(None)
            rung = walk(top + extra)
            if (apart := settle(top + extra, rung)) is not None:
                return answer(apart)
            if rung is not None and not rung.complete and not extra:
                break  # the top alone is past what a walk ends in
    # Then every combination, those with a raise that changed nothing alone last, those made of raises near the
    # change first, the cheapest first.
    ahead = [c for size in range(2, max_raises + 1) for c in combinations(usable, size)]
    ahead.sort(key=lambda c: (any(s in idle for s in c), not all(s in near for s in c),
                              math.prod(factor[s] for s in c), len(c)))
    for chosen in ahead:
        if time.perf_counter() > deadline:
            return answer(None)
        if (apart := settle(chosen, walk(chosen))) is not None:
            return answer(apart)
    return answer(None)


def _tops(raises: list[Raise]) -> list[tuple[Raise, ...]]:
    """Every raise at once, once for each choice of one value per switch they set (two values of one switch
    cannot be set at once), where that is more than one raise."""
    fixed = [r for r in raises if not r.switches]
    by_switch: dict[tuple[str, ...], list[Raise]] = {}
    for r in raises:
        if r.switches:
            by_switch.setdefault(tuple(a for a, _ in r.switches), []).append(r)
    return [tuple(fixed) + choice for choice in product(*by_switch.values()) if len(fixed) + len(choice) > 1]


def _fewest(chosen: tuple[Raise, ...], rung: Rung, walk: Callable[[tuple[Raise, ...]], Rung | None],
            tells: Callable[[Rung], bool], factor: dict[Raise, float],
            replays: Callable[[tuple[Raise, ...], tuple[Action, ...]], bool]) -> tuple[tuple[Raise, ...], Rung]:
    """The raises and rung with every raise dropped that it `tells` without: first each the behaviour found does
    not need (replayed without it: no walk), then each a walk shows is not needed (the costliest first). No raise
    of what is left can go."""
    behaviour = None if rung.behaviour is None else rung.behaviour.actions
    if behaviour is not None:
        needed = chosen
        for r in chosen:
            fewer = tuple(x for x in needed if x != r)
            if fewer and replays(fewer, behaviour):
                needed = fewer
        if needed != chosen and (smaller := walk(needed)) is not None and tells(smaller):
            chosen, rung = needed, smaller
    for r in sorted(chosen, key=lambda r: -factor.get(r, 1.0)):
        fewer = tuple(x for x in chosen if x != r)
        if fewer and (smaller := walk(fewer)) is not None and tells(smaller):
            chosen, rung = fewer, smaller
    return chosen, rung
