"""Where a reading shows: the smallest bounds at which a single change of reading flips a verdict.

`pausecheck readings` at small bounds finds that many readings change nothing there, and a spec author
then wants to know whether they never matter or only need larger bounds. `smallest_flip` answers by
search: from the tiniest bounds (one session, one call, one artifact, one pause, no failing write, no
second observation, a held bound of one; with the faults the reading needs), breadth first over raising
bounds (`RAISES`), the first bound set, in the fewest raises, at which some verdict differs from the
conformant reading's at the same bounds. A second session or turn multiplies the states: it weighs two
raises (so that two sessions of two turns, whose search alone takes minutes, is beyond the search).
`SHOWN_AT` records what that search found for every single change, so that the readings report names it
without searching: `benchmarks/flip_bounds.py` recomputes the table, and `tests/test_flipbounds.py` checks
every entry (slow).
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations

from pausecheck.model import DEFAULT_BOUNDS, Bounds

__all__ = ["TINY", "RAISES", "SHOWN_AT", "flags", "from_flags", "flipped", "smallest_flip", "shown_at"]

TINY = Bounds(calls=1, per_call=1, artifacts=1, pauses=1, write_failures=0, observations=0, held_bound=1)
# each bound a search may raise, and to what: every situation of the default bounds (and the companions') is one
# or two raises away from TINY
RAISES = (("calls", 2), ("artifacts", 2), ("pauses", 2), ("write_failures", 1), ("observations", 1),
          ("held_bound", 2), ("interim_writes", 1), ("node_failures", 1), ("sessions", 2), ("turns", 2))
WEIGHT = {"sessions": 2, "turns": 2}  # raises that multiply the states count twice
MAX_RAISES = 3

# reading (the single change, as `readings` names it) -> the bound flags at which a verdict first flips, in the
# fewest raises from TINY (with the reading's faults), or None where no bound set within MAX_RAISES raises shows
# one (A-T5's: a put-back lands on an empty held list, so appending, prepending and assigning coincide; A-T9's
# put-back: the overflow it handles needs more than three raises); recomputed by benchmarks/flip_bounds.py
SHOWN_AT: dict[str, str | None] = {
    "A-G1=leave": "--calls 1 --artifacts 1 --pauses 1 --write-failures 0 --observations 0 --held-bound 1",
    "A-T15=new-first": "--artifacts 2 --write-failures 0 --observations 0 --held-bound 1",
    "A-T11=hold": "--artifacts 1 --pauses 1 --write-failures 0 --observations 0 --interim-writes 1 --held-bound 1",
    "A-T1=turn": "--artifacts 1 --pauses 1 --write-failures 0 --observations 0 --held-bound 1",
    "A-T4=release": "--calls 1 --artifacts 1 --pauses 1 --observations 0 --held-bound 1",
    "A-T4=merge": "--calls 1 --artifacts 1 --pauses 1 --observations 0 --held-bound 1",
    "A-T5=append": None,
    "A-T5=assign": None,
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
    "A-T9=put-back": None,
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
            baselines: dict[Bounds, dict[str, str]] | None = None) -> tuple[str, ...]:
    """The properties whose verdict the reading changes at these bounds (from the conformant reading's)."""
    from .flips import Variant, run_variant  # here: the report's readings section imports this module

    baselines = {} if baselines is None else baselines
    if bounds not in baselines:
        baselines[bounds] = run_variant(Variant((), bounds)).statuses
    now = run_variant(Variant(switches, bounds)).statuses
    return tuple(name for name, status in now.items() if status != baselines[bounds].get(name))


def _candidates(start: Bounds, raises: int) -> list[Bounds]:
    """The bound sets `raises` raises (by weight) above `start`, in the order of RAISES."""
    out = []
    for size in range(raises + 1):
        for chosen in combinations(RAISES, size):
            if sum(WEIGHT.get(name, 1) for name, _ in chosen) == raises:
                out.append(start.replace(**{name: max(value, getattr(start, name)) for name, value in chosen}))
    return list(dict.fromkeys(b for b in out if b != start or raises == 0))


def smallest_flip(switches: tuple[tuple[str, str], ...], *, max_raises: int = MAX_RAISES,
                  progress: Callable[[Bounds], None] | None = None,
                  baselines: dict[Bounds, dict[str, str]] | None = None) -> tuple[Bounds, tuple[str, ...]] | None:
    """The first bounds, in the fewest raises from TINY (with the faults the reading needs), at which the
    reading flips a verdict, and what flips there; None if none within `max_raises` raises. `baselines`: the
    conformant reading's verdicts per bounds, filled as they are computed (shared between calls)."""
    from .flips import _with_faults

    start = _with_faults(TINY, switches)
    baselines = {} if baselines is None else baselines
    seen: set[Bounds] = set()
    for raises in range(max_raises + 1):
        for bounds in _candidates(start, raises):
            if bounds in seen:
                continue
            seen.add(bounds)
            if progress is not None:
                progress(bounds)
            found = flipped(switches, bounds, baselines)
            if found:
                return bounds, found
    return None


def shown_at(reading: str) -> str:
    """For a reading that flips nothing at some bounds: where it shows, in words."""
    if reading not in SHOWN_AT:
        return "no bound set is known to show it (not searched)"
    found = SHOWN_AT[reading]
    if found is None:
        return f"none known: no bound set within {MAX_RAISES} raises of the smallest shows a flip"
    return f"the smallest bounds known to show a flip: {found} (the other bounds at their defaults)"
