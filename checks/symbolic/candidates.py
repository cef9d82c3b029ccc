"""Candidate invariants for induction, found automatically: templates in the rule language, instantiated
with what the explicit search sees.

k-induction proves a property from an arbitrary state where the property (and whatever else is
assumed) holds; most such states are unreachable, so a property is rarely inductive on its own. The
strengthening invariants that rule those states out are mostly not written by hand here: each template
below (a field's values, a count's range, a count's range under a status or a phase, the refs'
range, what a segment's execution looks like) is instantiated with the values observed on a sample
of the reachable states (`mine`), and only those true on the whole sample are kept; beside them, a
fixed list of shapes no template states (`_fixed`: refs in arrival order, an execution's attempts
bounded by its calls, approvals and the races, ...) is screened the same way. The candidates
are a guess, checked by z3: Houdini (`inductive.py`) keeps the largest subset that is inductive, so
a wrong guess costs strength, never soundness.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from pausecheck.model.config import Bounds
from pausecheck.model.formulas import S, execution
from pausecheck.model.lang import _FIELD_TYPES as FIELD_TYPES
from pausecheck.model.lang import B, Expr, base_of, exec_id, is_race, ite, lift, span
from pausecheck.model.pycheck import compiled_expr
from pausecheck.model.state import Artifact, Attempt, Execution, Question, Segment, State, Warning

from ..search.parallel import run_all
from .judge import Judge

__all__ = ["Candidate", "WIDEN", "mine", "screen", "templates"]


@dataclass(frozen=True, eq=False)
class Candidate:
    """A candidate invariant: a name a reader follows, and its formula over the state `S`."""

    name: str
    expr: Expr


# What is measured of a record, by name: (the record's type, measure)
_EXECUTION_MEASURES: dict[str, Callable[[Expr], Expr]] = {
    "calls": lambda x: x.calls, "unhandled": lambda x: x.unhandled, "write_failures": lambda x: x.write_failures,
    "attempts": lambda x: x.attempts.size, "questions": lambda x: x.questions.size, "held": lambda x: x.held.size,
    "messages": lambda x: x.messages.size, "node_failures": lambda x: x.node_failures.size,
    "segments": lambda x: S.segments.count(lambda y: base_of(y.execution) == x.id),
    "refs_on_messages": lambda x: x.messages.total(lambda m: m.size),
}
_ATTEMPT_STATUSES = ("running", "completed", "failed", "interrupted", "cancelled")
_QUESTION_STATUSES = ("pending", "approved", "declined", "expired")
for _w in _ATTEMPT_STATUSES:
    _EXECUTION_MEASURES[f"{_w}_attempts"] = lambda x, w=_w: x.attempts.count(lambda a: a.status == w)
for _w in _QUESTION_STATUSES:
    _EXECUTION_MEASURES[f"{_w}_questions"] = lambda x, w=_w: x.questions.count(lambda q: q.status == w)

_SEGMENT_MEASURES: dict[str, Callable[[Expr], Expr]] = {
    "calls": lambda y: y.calls, "collected": lambda y: y.collected.size, "taken": lambda y: y.taken.size,
    "write_failed": lambda y: y.write_failed, "final": lambda y: y.final,
    **{f"execution's {name}": (lambda y, f=f: f(execution(S, y.execution))) for name, f in _EXECUTION_MEASURES.items()
       if name != "segments"},
}

_STATE_MEASURES: dict[str, Callable[[Expr], Expr]] = {
    "executions": lambda s: s.executions.size, "segments": lambda s: s.segments.size,
    "warnings": lambda s: s.warnings.size, "artifacts": lambda s: s.artifacts.size,
    "write_failures": lambda s: s.write_failures, "crashes": lambda s: s.crashes, "crashed": lambda s: s.crashed.size,
    "new_turns": lambda s: s.new_turns.size, "races": lambda s: s.races,
    "racing segments": lambda s: s.segments.count(lambda y: is_race(y.execution)),
}


def _in_range(refs: Expr) -> Expr:
    return refs.all_of(lambda r: (r >= 1) & (r <= S.artifacts.size))


def _owned_by(refs: Expr, execution_id: Expr) -> Expr:
    return refs.all_of(lambda r: S.artifacts.at(r - 1).execution == execution_id)


def _increasing(refs: Expr) -> Expr:
    """Each ref older than the next: a list in arrival order (refs are numbered as the artifacts arrive)."""
    return span(1, refs.size).all_of(lambda i: refs.at(i - 1) < refs.at(i))


def _older(refs: Expr, than: Expr) -> Expr:
    """Every ref of `refs` arrived before every ref of `than`."""
    return refs.all_of(lambda r: than.all_of(lambda t: r < t))


def _fixed() -> list[Candidate]:
    """Shapes no template states: refs name artifacts that exist, a segment's execution exists, ..."""
    return [
        Candidate("refs name artifacts that exist", S.executions.all_of(
            lambda x: _in_range(x.held) & x.messages.all_of(_in_range))
            & S.segments.all_of(lambda y: _in_range(y.collected) & _in_range(y.taken)) & _in_range(S.crashed)
            & S.warnings.all_of(lambda w: (w.ref >= 1) & (w.ref <= S.artifacts.size))),
        Candidate("an execution's held and message refs name its own artifacts", S.executions.all_of(
            lambda x: _owned_by(x.held, x.id) & x.messages.all_of(lambda m: _owned_by(m, x.id)))),
        Candidate("a segment's refs name its execution's artifacts", S.segments.all_of(
            lambda y: _owned_by(y.collected, base_of(y.execution)) & _owned_by(y.taken, base_of(y.execution)))),
        Candidate("a warning's ref names an artifact of its execution", S.warnings.all_of(
            lambda w: S.artifacts.at(w.ref - 1).execution == w.execution)),
        Candidate("a segment's execution exists", S.segments.all_of(
            lambda y: S.executions.any_of(lambda x: x.id == base_of(y.execution)))),
        Candidate("a warning's execution exists", S.warnings.all_of(
            lambda w: S.executions.any_of(lambda x: x.id == w.execution))),
        Candidate("an artifact's execution exists", S.artifacts.all_of(
            lambda a: S.executions.any_of(lambda x: x.id == a.execution))),
        Candidate("execution ids are distinct", S.executions.all_of(
            lambda x: S.executions.count(lambda z: z.id == x.id) == 1)),
        Candidate("segment keys are distinct", S.segments.all_of(
            lambda y: S.segments.count(lambda z: z.execution == y.execution) == 1)),
        Candidate("question ids number the questions", S.executions.all_of(
            lambda x: x.questions.all_of(lambda q: (q.id >= 1) & (q.id <= x.questions.size)
                                         & (x.questions.count(lambda p: p.id == q.id) == 1)))),
        Candidate("only the latest question may be pending", S.executions.all_of(
            lambda x: x.questions.prefix(x.questions.size - 1).all_of(lambda q: q.status != "pending"))),
        Candidate("a question's call has an attempt", S.executions.all_of(
            lambda x: x.questions.all_of(lambda q: x.attempts.any_of(lambda a: a.call == q.call)))),
        Candidate("held lists are in arrival order", S.executions.all_of(lambda x: _increasing(x.held))),
        Candidate("messages list their refs in arrival order", S.executions.all_of(
            lambda x: x.messages.all_of(_increasing))),
        Candidate("a segment collects in arrival order", S.segments.all_of(lambda y: _increasing(y.collected))),
        Candidate("a segment's take is in arrival order", S.segments.all_of(lambda y: _increasing(y.taken))),
        Candidate("what a segment took is older than what it collected", S.segments.all_of(
            lambda y: _older(y.taken, y.collected))),
        Candidate("what an execution holds is older than what its segments collected", S.segments.all_of(
            lambda y: _older(execution(S, y.execution).held, y.collected))),
        Candidate("what a segment took is older than what its execution holds", S.segments.all_of(
            lambda y: _older(y.taken, execution(S, y.execution).held))),
        Candidate("question n of an execution has id n", S.executions.all_of(
            lambda x: span(1, x.questions.size + 1).all_of(lambda i: x.questions.at(i - 1).id == i))),
        Candidate("a running attempt is the latest of its call", S.executions.all_of(
            lambda x: x.attempts.all_of(lambda a: (a.status != "running") | (
                x.attempts.filter(lambda b: b.call == a.call).last.status == "running")))),
        Candidate("a running attempt's execution is running", S.executions.all_of(
            lambda x: (x.attempts.count(lambda a: a.status == "running") == 0) | (x.status == "running"))),
        Candidate("a pending question's call has an interrupted attempt", S.executions.all_of(
            lambda x: x.questions.all_of(lambda q: (q.status != "pending") | x.attempts.any_of(
                lambda a: (a.call == q.call) & (a.status == "interrupted"))))),
        Candidate("a question's call has one attempt, two once approved", S.executions.all_of(
            lambda x: x.questions.all_of(lambda q: x.attempts.count(lambda a: a.call == q.call) == ite(
                q.status == "approved", 2, 1)))),
        Candidate("a question's call has an interrupted attempt exactly while it is pending", S.executions.all_of(
            lambda x: x.questions.all_of(lambda q: x.attempts.count(
                lambda a: (a.call == q.call) & (a.status == "interrupted")) == ite(q.status == "pending", 1, 0)))),
        Candidate("an interrupted attempt's call has a pending question (a lost race adds a second one)",
                  S.executions.all_of(lambda x: x.attempts.all_of(lambda a: (a.status != "interrupted") | (
                      x.questions.any_of(lambda q: (q.call == a.call) & (q.status == "pending")))))),
        Candidate("a settled question's call has no interrupted attempt", S.executions.all_of(
            lambda x: x.questions.all_of(lambda q: (q.status == "pending") | ~x.attempts.any_of(
                lambda a: (a.call == q.call) & (a.status == "interrupted"))))),
        Candidate("an execution's attempts are its calls, plus one per approval", S.executions.all_of(
            lambda x: x.attempts.size == x.calls + x.questions.count(lambda q: q.status == "approved"))),
        Candidate("an execution's attempts are at most its calls, plus one per approval, plus the races lost",
                  S.executions.all_of(lambda x: x.attempts.size
                                      <= x.calls + x.questions.count(lambda q: q.status == "approved") + S.races)),
        Candidate("a write-back under way, or to retry, that is not final has room for its interim message",
                  S.segments.all_of(lambda y: ((y.phase == "working") & ~y.write_failed) | y.final
                                    | (execution(S, y.execution).messages.size < B.interim_writes))),
        Candidate("an execution not finished has written only interim messages", S.executions.all_of(
            lambda x: x.status.one_of("completed", "failed", "cancelled") | (x.messages.size <= B.interim_writes))),
        Candidate("every failed write-back is counted: those each execution reported, and those of segments still "
                  "to put back or report, are at most the state's count", S.executions.total(
                      lambda x: x.write_failures)
                  + S.segments.count(lambda y: y.phase.one_of("write failed", "put back")) <= S.write_failures),
        Candidate("sessions are within the bound", S.executions.all_of(
            lambda x: (x.session >= 1) & (x.session <= B.sessions))),
        Candidate("a session's executions are at most its turns plus the new turns it started while paused",
                  S.executions.all_of(lambda x: S.executions.count(lambda z: z.session == x.session)
                                      <= B.turns + S.new_turns.count(lambda n: n == x.session))),
    ]


def _ranges(name: str, quantify: Callable[[Callable[[Expr], Expr]], Expr], values: Iterable[Any],
            measure: Callable[[Expr], Expr], when: Callable[[Expr], Expr] | None, label: str) -> list[Candidate]:
    """`measure` within the observed range (under `when`, if given), as candidates."""
    seen = sorted(set(values))
    if not seen:
        return []
    low, high = seen[0], seen[-1]
    guard = (lambda r: lift(True)) if when is None else when
    out = []
    if isinstance(low, bool):
        if low == high:
            out.append(Candidate(f"{label}: {name} is {low}", quantify(
                lambda r: ~guard(r) | (measure(r) == low))))
        return out
    if low == high:
        out.append(Candidate(f"{label}: {name} is {low}", quantify(lambda r: ~guard(r) | (measure(r) == low))))
        return out
    out.append(Candidate(f"{label}: {name} at most {high}", quantify(lambda r: ~guard(r) | (measure(r) <= high))))
    if low > 0:
        out.append(Candidate(f"{label}: {name} at least {low}", quantify(lambda r: ~guard(r) | (measure(r) >= low))))
    return out


def _records(sample: list[State], bounds: Bounds, records: Expr, mode: str,
             measures: dict[str, Callable[[Expr], Expr]], kind: str) -> list[Candidate]:
    """The templates of one kind of record: its mode's values, each measure's range, and each measure's
    range under each value of the mode."""
    quantify: Callable[[Callable[[Expr], Expr]], Expr] = records.all_of
    modes_of = compiled_expr(records.map(lambda x: getattr(x, mode)), bounds)
    per_state = [modes_of(state) for state in sample]
    modes = sorted({m for ms in per_state for m in ms})
    out = [Candidate(f"each {kind}'s {mode} is one of {', '.join(modes)}",
                     quantify(lambda x: getattr(x, mode).one_of(*modes)))] if modes else []
    for name, measure in measures.items():
        measured = compiled_expr(records.map(measure), bounds)
        rows = {row for state, ms in zip(sample, per_state, strict=True)  # (mode, value), once each: ranges
                for row in zip(ms, measured(state), strict=True)}
        out += _ranges(name, quantify, (v for _, v in rows), measure, None, f"each {kind}")
        for m in modes:
            out += _ranges(name, quantify, (v for w, v in rows if w == m), measure,
                           lambda x, m=m: getattr(x, mode) == m, f"each {m} {kind}")
    return out


def _flat(field: str) -> Callable[[Expr], Expr]:
    """The records of a field of every execution, in one sequence (its attempts, its questions)."""
    return lambda s: s.executions.fold(lift((), getattr(S.executions.at(0), field).t),
                                       lambda acc, x: acc + getattr(x, field))


# Every kind of record, as (name, all of them in a state, a test of each of them in a state, its type)
_KINDS: tuple[tuple[str, Callable[[Expr], Expr], Callable[[Callable[[Expr], Expr]], Expr], type], ...] = (
    ("execution", lambda s: s.executions, lambda test: S.executions.all_of(test), Execution),
    ("attempt", _flat("attempts"), lambda test: S.executions.all_of(lambda x: x.attempts.all_of(test)), Attempt),
    ("question", _flat("questions"), lambda test: S.executions.all_of(lambda x: x.questions.all_of(test)), Question),
    ("segment", lambda s: s.segments, lambda test: S.segments.all_of(test), Segment),
    ("artifact", lambda s: s.artifacts, lambda test: S.artifacts.all_of(test), Artifact),
    ("warning", lambda s: s.warnings, lambda test: S.warnings.all_of(test), Warning),
)


def _typed(sample: list[State], bounds: Bounds) -> list[Candidate]:
    """Each scalar field of each kind of record within what the sample shows: its values (a word, a flag)
    or its range (a number)."""
    out = []
    for kind, records, quantify, record in _KINDS:
        for name, t in FIELD_TYPES[record].items():
            if t not in (str, bool, int):
                continue
            read = compiled_expr(records(S).map(lambda r, n=name: getattr(r, n)), bounds)
            values = {v for state in sample for v in read(state)}
            if not values:
                continue
            if t is int:
                out += _ranges(name, quantify, values, lambda r, n=name: getattr(r, n), None, f"each {kind}")
            else:
                ordered = sorted(values)
                out.append(Candidate(f"each {kind}'s {name} is one of {', '.join(map(str, ordered))}",
                                     quantify(lambda r, n=name, vs=tuple(ordered): getattr(r, n).one_of(*vs))))
    return out


# Measures of an execution related pairwise (a <= b + c): the counts its steps move together.
_LINKED = ("calls", "attempts", "questions", "completed_attempts", "failed_attempts", "interrupted_attempts",
           "cancelled_attempts", "running_attempts", "approved_questions", "declined_questions", "pending_questions",
           "segments", "segment calls", "settled questions")
_EXECUTION_MEASURES["segment calls"] = lambda x: S.segments.total(
    lambda y: ite(base_of(y.execution) == x.id, y.calls, 0))
_EXECUTION_MEASURES["settled questions"] = lambda x: x.questions.count(lambda q: q.status != "pending")


def _times(x: Expr, k: int) -> Expr:
    """k * x, as a sum (the language has no product)."""
    out = x
    for _ in range(k - 1):
        out = out + x
    return out


def _at_most(a: Expr, b: Expr, c: int) -> Expr:
    """a <= b + c, with every side at least 0 (the symbolic integers are small and non-negative)."""
    return a <= b + c if c >= 0 else a + (-c) <= b


def _linked(sample: list[State], bounds: Bounds) -> list[Candidate]:
    """For two measures a, b of an execution: a <= b + c, with c the largest difference the sample shows;
    and a <= B.calls * b + c for the calls (each segment makes at most B.calls)."""
    values = [compiled_expr(S.executions.map(_EXECUTION_MEASURES[name]), bounds) for name in _LINKED]
    # Each execution record of the sample as its measures, once each: the largest gap is the same over the
    # distinct ones (a few hundred where the sample has tens of thousands of records).
    records = {measured for state in sample for measured in zip(*(value(state) for value in values), strict=True)}
    column = {name: [r[k] for r in records] for k, name in enumerate(_LINKED)}
    out = []
    for a in _LINKED:
        for b in _LINKED:
            if a == b or not records:
                continue
            for scale in (1, bounds.calls) if a == "calls" and bounds.calls > 1 else (1,):
                c = max(x - scale * y for x, y in zip(column[a], column[b], strict=True))
                fa, fb = _EXECUTION_MEASURES[a], _EXECUTION_MEASURES[b]
                times = f"{scale} * " if scale > 1 else ""
                out.append(Candidate(f"each execution: {a} <= {times}{b} + {c}", S.executions.all_of(
                    lambda x, fa=fa, fb=fb, k=scale, c=c: _at_most(fa(x), _times(fb(x), k), c))))
    settled, own = _EXECUTION_MEASURES["settled questions"], _EXECUTION_MEASURES["segment calls"]
    has_segment = _EXECUTION_MEASURES["segments"]
    if bounds.calls:
        out.append(Candidate("each execution's calls came from its segments: at most the bound per settled "
                             "question, plus those of its segment in flight (the bound, if none)", S.executions.all_of(
                                 lambda x: x.calls <= _times(settled(x), bounds.calls) + ite(
                                     has_segment(x) > 0, own(x), bounds.calls))))
    out.append(Candidate("a segment makes at most the bound's calls", S.segments.all_of(lambda y: y.calls <= B.calls)))
    return out


def _types(bounds: Bounds) -> list[Candidate]:
    """Each field within its type at these bounds (looser than what a sample shows, so that Houdini keeps
    them where a tighter guess fails): the words a status or a phase can be, the ids that can exist, and
    execution n named e{n}."""
    executions = bounds.sessions * bounds.turns + bounds.new_turns
    calls = bounds.calls * (bounds.pauses + 1) * (bounds.crashes + 1) + bounds.races
    ids = tuple(f"e{n}" for n in range(1, executions + 1))
    keys = ids + tuple(f"e{n}'" for n in range(1, executions + 1))
    call_ids = tuple(f"c{n}" for n in range(1, calls + 1))
    return [
        Candidate("execution n is e{n}", S.executions.fold(lift(0), lambda n, x: ite(x.id == exec_id(n + 1), n + 1, 99))
                  == S.executions.size),
        Candidate("statuses are statuses", S.executions.all_of(
            lambda x: x.status.one_of("running", "paused", "completed", "failed", "cancelled")
            & x.attempts.all_of(lambda a: a.status.one_of("running", "completed", "failed", "interrupted",
                                                          "cancelled") & a.call.one_of(*call_ids))
            & x.questions.all_of(lambda q: q.status.one_of("pending", "approved", "declined", "expired")
                                 & q.call.one_of(*call_ids)))),
        Candidate("segments are of executions that exist, in a phase", S.segments.all_of(
            lambda y: y.execution.one_of(*keys) & y.phase.one_of("working", "taken", "write failed", "put back",
                                                                 "read", "written")
            & (y.closing.one_of("", *call_ids)))),
        Candidate("artifacts and warnings name executions", S.artifacts.all_of(lambda a: a.execution.one_of(*ids))
                  & S.warnings.all_of(lambda w: w.execution.one_of(*ids))),
    ]


WIDEN = 3  # times a template some screened state breaks is instantiated again, with that state in the sample


def templates(sample: list[State], bounds: Bounds) -> list[Candidate]:
    """Every template instantiated with what the sample shows (see the module's doc)."""
    out = _fixed() + _types(bounds) + _typed(sample, bounds) + _linked(sample, bounds)
    out += _records(sample, bounds, S.executions, "status", _EXECUTION_MEASURES, "execution")
    out += _records(sample, bounds, S.segments, "phase", _SEGMENT_MEASURES, "segment")
    for name, measure in _STATE_MEASURES.items():
        read = compiled_expr(measure(S), bounds)
        values = [read(state) for state in sample]
        out += _ranges(name, lambda test: test(S), values, measure, None, "the state")
    return out


def mine(sample: list[State], bounds: Bounds, late: Callable[[], bool] = lambda: False,
         screened: Callable[[int, int], None] = lambda done, of: None,
         states: list[State] | None = None, workers: int = 1) -> list[Candidate]:
    """The candidate invariants instantiated from `sample` that hold on every state of `states` (of the sample,
    if none is given). A candidate a state breaks is not kept, but its template is instantiated again with
    that state in the sample (a range widened to cover it), up to `WIDEN` times, so that what a thinned sample
    missed costs a constant, not the invariant. `late` says when to give up (what is returned then is cut
    short); `screened(done, of)` hears how many states the screen has judged, so that a proof stopped here
    says how far it got; `workers` processes screen the states (`screen`)."""
    pool = sample if states is None else states
    sample = list(sample)
    kept: dict[str, Candidate] = {}
    broken: set[str] = set()
    for _ in range(1 + WIDEN):
        found = [c for c in templates(sample, bounds) if c.name not in kept and c.name not in broken]
        held, witnesses = screen(found, pool, bounds, late, screened, workers)
        kept.update((c.name, c) for c in held)
        broken.update(c.name for c in found if c not in held)
        if not witnesses or late():
            break
        sample += witnesses
    return list(kept.values())


SHARED = 100  # candidates at least, for the screen to be shared: each worker pays a pass over every state


def screen(found: list[Candidate], states: list[State], bounds: Bounds, late: Callable[[], bool] = lambda: False,
           screened: Callable[[int, int], None] = lambda done, of: None, workers: int = 1
           ) -> tuple[list[Candidate], list[State]]:
    """The candidates that hold (and are judged) on every state, in order, and the states that broke the others
    (once `late()`: those that held on the states judged by then).

    A candidate is dropped at the first state that breaks it (or leaves it unjudged), and that state is a
    witness: so the answer is each candidate's first such state, and the witnesses are those states, in order.
    That is the candidate's own, whatever else is screened beside it: with `workers` above one, each forked
    worker screens every state for its share of the candidates (every `workers`-th), and the answer is the
    same as one process's, state for state. (Shares of the states would not do: a screen's cost is mostly
    judging each record seen for the first time, and each share would meet nearly all of them again.) Progress
    is then told at the start and at the end."""
    if workers <= 1 or len(found) < SHARED:
        first = _firsts(found, states, bounds, late, screened)
    else:
        n = min(workers, len(found))
        screened(0, len(states))
        first = {}
        for k, part in enumerate(run_all(_firsts, [found[k::n] for k in range(n)], jobs=n,
                                         args=(states, bounds, late, _unheard))):
            first.update((k + i * n, at) for i, at in part.items())  # share k holds found[k], found[k + n], ...
        if not late():  # a worker stopped by `late` judged only some of the states
            screened(len(states), len(states))
    return [c for i, c in enumerate(found) if i not in first], [states[at] for at in sorted(set(first.values()))]


def _firsts(found: list[Candidate], states: list[State], bounds: Bounds, late: Callable[[], bool],
            screened: Callable[[int, int], None]) -> dict[int, int]:
    """Each candidate that a state breaks or leaves unjudged, by its place in `found`: the index of the first such
    state (of those judged before `late()`)."""
    place = {id(c): i for i, c in enumerate(found)}
    judge = Judge(found, bounds)
    active = list(found)
    check = judge.screen(active)
    first: dict[int, int] = {}
    for at, state in enumerate(states):
        if at % 4096 == 0:
            screened(at, len(states))
            if late():
                return first
        broken, odd = check(state)
        if broken or odd:
            first.update((place[id(c)], at) for c in broken + odd)
            active = [c for c in active if place[id(c)] not in first]
            check = judge.screen(active)
    screened(len(states), len(states))
    return first


def _unheard(done: int, of: int) -> None:
    """A worker's progress: not told (its parent tells the screen's start and end)."""
