"""The readings as z3 terms: the symbolic twin of each switch value that the rules branch on with every
fault off, applied to the conformant successor of the moves it changes (as `symbolic.mutants` does for
a mutant).

A reading sets one or more switches (`model.reading`); it is encoded when each of its switch values has
a twin here and no two of them change the same action kind (two twins on one kind would have to be
composed as the explicit rule composes them, which is not encoded). Several values deviate exactly as a
mutant of the catalogue does, and reuse its twin; the no-drift tests hold every twin to the explicit
rules under its reading.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import z3
from pausecheck.model.actions import (
    Answer,
    PutBack,
    ReportFailure,
    StartWriteBack,
    ToolFails,
    ToolInterrupts,
    WriteMessage,
)
from pausecheck.model.config import FAULTS, Bounds
from pausecheck.model.reading import CONFORMANT, SWITCH_OF, Reading
from pausecheck.model.state import PENDING

from .mutants import (
    SYMBOLIC_MUTANTS,
    SymbolicMutant,
    _both,
    _e,
    _g,
    _on,
    _rehold,
    _seg,
    _set,
    _unbounded_held,
    _write_back_skips_held,
    _written,
)
from .rules import Deviation, Move, NotEncoded, Semantics
from .state import SState, Universe, code
from .vec import Vec, pick

__all__ = ["READING_TWINS", "reading_semantics", "encoded_readings", "why_not_encoded", "envelope"]


# --- the twins the mutant catalogue does not already have -------------------------------------------

def _interim_takes_nothing(m: Semantics, mv: Move, pre: SState) -> SState:
    """A-T11 hold: an interim write-back takes nothing; the held list waits for the last one."""
    return mv.post if mv.param else _write_back_skips_held(m, mv, pre)


def _resumed_takes_nothing(m: Semantics, mv: Move, pre: SState) -> SState:
    """A-T1 turn: once a question is settled the answer's turn holds nothing: the write-back takes nothing."""
    settled = _e(pre, mv).questions.any(lambda q: q[1] != code(PENDING))
    return pick(settled, _write_back_skips_held(m, mv, pre), mv.post)


def _put_back(m: Semantics, mv: Move, pre: SState, held: Vec, collected: Vec | None = None,
              bounded: bool = False) -> SState:
    """The put-back's post-state with `held` as the held list (the newest beyond the bound dropped with
    warnings when `bounded`) and, if given, `collected` as what the segment keeps."""
    post = mv.post
    if collected is not None:
        post = _seg(post, mv, _g(post, mv)._replace(collected=collected))
    if not bounded:
        return _set(post, mv, held=held.resized(_e(pre, mv).held.cap))
    return _rehold(m, Move(mv.kind, mv.slot, mv.param, mv.guard, post), pre, held.prefix(m.bounds.held_bound),
                   held.suffix(m.bounds.held_bound, cap=held.cap))


def _put_back_merged(m: Semantics, mv: Move, pre: SState) -> SState:
    """A-T4 merge: what was taken and what the segment collected go back in front; the segment keeps nothing."""
    g = _g(pre, mv)
    return _put_back(m, mv, pre, g.taken.extend(g.collected).extend(_e(pre, mv).held),
                     Vec.empty(g.collected.cap, 1))


def _put_back_appended(m: Semantics, mv: Move, pre: SState) -> SState:
    """A-T5 append: what was taken goes back behind the held list."""
    return _put_back(m, mv, pre, _e(pre, mv).held.extend(_g(pre, mv).taken))


def _put_back_bounded(m: Semantics, mv: Move, pre: SState) -> SState:
    """A-T9 put-back: the put-back is bounded too, the newest dropped with warnings."""
    return _put_back(m, mv, pre, _g(pre, mv).taken.extend(_e(pre, mv).held), bounded=True)


def _repause_unbounded(m: Semantics, mv: Move, pre: SState) -> SState:
    """A-T9 first-hold: a re-pause's merge (something already held) is not bounded."""
    return pick(_e(pre, mv).held.length > 0, _unbounded_held(m, mv, pre), mv.post)


def _delivery_bounded(m: Semantics, mv: Move, pre: SState) -> SState:
    """A-T9 merge: the delivered merge is bounded too, the newest dropped with warnings."""
    if not mv.param:
        return mv.post
    g, bound = _g(pre, mv), m.bounds.held_bound
    merged = g.taken.extend(g.collected)
    cap = _e(pre, mv).messages[0].cap
    post = _set(mv.post, mv, messages=_written(_e(mv.post, mv), _e(pre, mv), merged.prefix(bound).resized(cap)))
    return post._replace(warnings=pre.warnings.extend(merged.suffix(bound, cap=merged.cap).tagged(mv.slot + 1)))


def _twin(kind: type, patch: object, *grow: tuple[str, int]) -> tuple[type, SymbolicMutant]:
    return kind, SymbolicMutant(Deviation(patch=_on(kind, patch)), grow)


def _mutant(kind: type, name: str) -> tuple[type, SymbolicMutant]:
    return kind, SYMBOLIC_MUTANTS[name]


# (ambiguity, value) -> (the action kind it changes, its twin)
READING_TWINS: dict[tuple[str, str], tuple[type, SymbolicMutant]] = {
    ("A-G1", "leave"): _mutant(Answer, "decline_leaves_interrupted"),
    ("A-T15", "new-first"): _mutant(ToolInterrupts, "repause_prepends_new"),
    ("A-T11", "hold"): _twin(StartWriteBack, _interim_takes_nothing),
    ("A-T1", "turn"): _twin(StartWriteBack, _resumed_takes_nothing),
    ("A-T4", "release"): _mutant(ReportFailure, "failed_write_back_releases_collected"),
    ("A-T4", "merge"): _twin(PutBack, _put_back_merged),
    ("A-T5", "append"): _twin(PutBack, _put_back_appended),
    ("A-T5", "assign"): _mutant(PutBack, "put_back_by_assignment"),
    ("A-T9", "first-hold"): _twin(ToolInterrupts, _repause_unbounded),
    ("A-T9", "put-back"): _twin(PutBack, _put_back_bounded),
    ("A-T9", "merge"): _twin(WriteMessage, _delivery_bounded),
    ("A-T14", "ambiguous"): _mutant(WriteMessage, "failed_write_lands"),
    ("A-G4", "failed-unmarked"): _mutant(ToolFails, "tool_failure_unhandled"),
    ("A-G4", "completed-with-error"): _mutant(ToolFails, "tool_failure_recorded_completed"),
}


def why_not_encoded(ambiguity: str, value: str) -> str | None:
    """Why a switch value has no symbolic twin (None: it has one)."""
    if (ambiguity, value) in READING_TWINS:
        return None
    switch = SWITCH_OF[ambiguity]
    if switch.needs:
        return f"{ambiguity}={value} differs only under a fault (--{switch.needs[0].replace('_', '-')}), " \
               "and faults are not encoded symbolically"
    if ambiguity == "A-T12":
        return f"{ambiguity}={value} needs the call that produced each artifact, which the symbolic state " \
               "does not carry"
    return f"{ambiguity}={value} is not encoded symbolically"


def encoded_readings() -> tuple[Reading, ...]:
    """Every single-switch reading with a symbolic twin, in the order of the switches and their values."""
    from pausecheck.model.reading import SWITCHES, reading_named
    return tuple(reading_named(f"{s.ambiguity}={v}") for s in SWITCHES for v in s.values
                 if (s.ambiguity, v) in READING_TWINS)


def reading_semantics(bounds: Bounds, reading: Reading = CONFORMANT) -> Semantics:
    """The symbolic semantics of `reading` at `bounds` (NotEncoded says why a reading or fault is not)."""
    faults = [name for name in FAULTS if getattr(bounds, name)]
    if faults:
        raise NotEncoded(f"faults are not encoded symbolically ({', '.join(faults)})")
    m = Semantics.of(bounds)
    if reading == CONFORMANT or not reading.switches:
        return m
    twins, kinds = [], set()
    for ambiguity, value in reading.switches:
        reason = why_not_encoded(ambiguity, value)
        if reason is not None:
            raise NotEncoded(f"the reading {reading.name}: {reason}")
        kind, twin = READING_TWINS[(ambiguity, value)]
        if kind in kinds:
            raise NotEncoded(f"the reading {reading.name} sets two switches on one rule ({kind.KIND}); only "
                             "switches on different rules are encoded together")
        kinds.add(kind)
        twins.append(twin)
    patch = twins[0].deviation.patch if len(twins) == 1 else _both(*(t.deviation.patch for t in twins))
    return dataclasses.replace(m, universe=_grown(m, twins, sum), deviation=Deviation(patch=patch))


def _grown(m: Semantics, twins: list[SymbolicMutant], combine: Callable[[list[int]], int]) -> Universe:
    """The universe with room for what the twins add (their extras combined: summed when they act in one
    behaviour, the largest when only one does), and every ref twice in every list: a reading may hold or
    deliver an artifact twice."""
    fields = {name for twin in twins for name, _ in twin.grow}
    extra = {f: combine([n for twin in twins for name, n in twin.grow if name == f]) for f in fields}
    return dataclasses.replace(m.universe, **{f: getattr(m.universe, f) + n for f, n in extra.items()},
                               refs=2 * m.universe.artifacts)


def envelope(m: Semantics, choice: z3.ArithRef, readings: tuple[Reading, ...]) -> Semantics:
    """Every reading of `readings` at once: the successor of each move is that of reading number
    `choice` (0: the conformant reading, i: readings[i - 1]), one reading for the whole behaviour."""
    twins = [READING_TWINS[r.switches[0]][1] for r in readings]

    def patch(m2: Semantics, mv: Move, pre: SState) -> SState:
        post = mv.post
        for i, twin in enumerate(twins, 1):
            post = pick(choice == i, twin.deviation.patch(m2, mv, pre), post)
        return post

    universe = _grown(m, twins, max)
    return dataclasses.replace(m, universe=universe, deviation=Deviation(patch=patch))
