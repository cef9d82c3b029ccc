"""One session's view of a many-session state, as values over an algebra: `model/projection.py` for z3.

`view(A, caps, state, session, spent)` is the value of `project(decode(state), session, spent)` at the
one-session capacities `caps`: the session's executions, segments, warnings, artifacts and crashed refs
kept in order and renumbered by rank (execution ids e1, e2, ...; artifact refs 1, 2, ...; a ref to
another session's artifact becomes 0), its new turns, and the spent budgets from the ghost `spent`
(write failures, races, crashes). Over z3 every rank is a sum and every renaming a chain of
if-then-elses over the capacities, so a proof can speak of the projection of any state at once; over
Python values it is checked against `project` on every reachable state (tests/test_projected.py).

`owner(A, state, move, session)` says whether a step is that session's, `seen_as(A, state, move, session)`
gives the step's action fields as that session sees them (`project_action`), and `spent_after` the
session's ghost after the step: what the proof needs beside the projection.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from pausecheck.model.actions import StartTurn

from .relation import Caps, Move
from .values import EXEC, RACE, Algebra, Seq, base_key, pick, racing, zero_like

__all__ = ["Ghost", "view", "owner", "seen_as", "spent_after", "view_fits", "ghost_within"]

# The state's fields by position (model/state.py's order, which the values keep).
EXECUTIONS, SEGMENTS, WARNINGS, ARTIFACTS, WRITE_FAILURES, CRASHES, CRASHED, NEW_TURNS, RACES = range(9)
# An execution's: id, session, ..., held, messages; a segment's: execution key, ..., collected, taken.
E_ID, E_SESSION, E_HELD, E_MESSAGES = 0, 1, 6, 7
G_KEY, G_COLLECTED, G_TAKEN = 0, 2, 5


class Ghost(NamedTuple):
    """A session's spent budgets as values: failed write-backs, lost races, crashes (`projection.Spent`)."""

    write_failures: Any
    races: Any
    crashes: Any


class _Names:
    """The renamings of one session in one state: which executions and artifacts are its own, their ranks."""

    def __init__(self, A: Algebra, state: Any, session: int) -> None:
        self.A = A
        executions, artifacts = state[EXECUTIONS], state[ARTIFACTS]
        self.ids = [e[E_ID] for e in executions.items]
        self.own = [A.conj(A.lt(A.num(i), executions.length), A.eq(e[E_SESSION], A.num(session)))
                    for i, e in enumerate(executions.items)]
        self.rank = _ranks(A, self.own)
        self.owned = [A.conj(A.lt(A.num(r), artifacts.length), self.mine(a[0]))
                      for r, a in enumerate(artifacts.items)]  # artifact ref r + 1
        self.ref_rank = _ranks(A, self.owned)

    def mine(self, execution: Any) -> Any:
        """Is this execution id one of the session's?"""
        A = self.A
        return A.disj(*[A.conj(own, A.eq(x, execution)) for own, x in zip(self.own, self.ids, strict=True)])

    def id(self, execution: Any) -> Any:
        """The execution id the session alone would have given it (0 if not the session's)."""
        A = self.A
        out = A.num(0)
        for own, x, rank in zip(self.own, self.ids, self.rank, strict=True):
            out = A.ite(A.conj(own, A.eq(x, execution)), A.add(A.num(EXEC + 1), rank), out)
        return out

    def key(self, key: Any) -> Any:
        """A segment key (an execution id, or a racing resume's e<n>') renamed the same way."""
        A = self.A
        new = self.id(base_key(A, key))
        return A.ite(racing(A, key), A.add(new, A.num(RACE - EXEC)), new)

    def ref(self, ref: Any) -> Any:
        """An artifact ref renumbered among the session's own (0 if another session's, or none)."""
        A = self.A
        out = A.num(0)
        for r, (owned, rank) in enumerate(zip(self.owned, self.ref_rank, strict=True)):
            out = A.ite(A.conj(owned, A.eq(ref, A.num(r + 1))), A.add(rank, A.num(1)), out)
        return out

    def refs(self, seq: Seq) -> Seq:
        return Seq(seq.length, tuple(self.ref(x) for x in seq.items), seq.t)


def _ranks(A: Algebra, keep: Sequence[Any]) -> list[Any]:
    """How many of the items before each are kept."""
    out, count = [], A.num(0)
    for k in keep:
        out.append(count)
        count = A.add(count, A.ite(k, A.num(1), A.num(0)))
    return out


def _kept(A: Algebra, seq: Seq, keep: Sequence[Any], edit: Callable[[int, Any], Any], cap: int) -> Seq:
    """The items of `seq` that `keep` names, edited, in order, at capacity `cap` (the length counts every
    kept item: one past the capacity is for `view_fits` to report)."""
    keep = [A.conj(A.lt(A.num(i), seq.length), k) for i, k in enumerate(keep)]
    ranks = _ranks(A, keep)
    edited = [edit(i, item) for i, item in enumerate(seq.items)]
    zero = zero_like(A, seq.items[0]) if seq.items else None
    items = []
    for p in range(cap):
        item = zero
        for i in range(len(edited) - 1, -1, -1):
            item = pick(A, A.conj(keep[i], A.eq(ranks[i], A.num(p))), edited[i], item)
        items.append(item)
    length = A.num(0)
    for k in keep:
        length = A.add(length, A.ite(k, A.num(1), A.num(0)))
    return Seq(length, tuple(items), seq.t)


def view(A: Algebra, caps: Caps, state: Any, session: int, spent: Ghost) -> Any:
    """The one-session value that is `session`'s part of the many-session value `state` (see the module)."""
    names = _Names(A, state, session)
    executions, segments = state[EXECUTIONS], state[SEGMENTS]

    def execution(i: int, e: Any) -> Any:
        fields = list(e)
        fields[E_ID] = A.add(A.num(EXEC + 1), names.rank[i])
        fields[E_SESSION] = A.num(1)
        fields[E_HELD] = names.refs(e[E_HELD])
        messages = e[E_MESSAGES]
        fields[E_MESSAGES] = Seq(messages.length, tuple(names.refs(m) for m in messages.items), messages.t)
        return tuple(fields)

    def segment(_: int, g: Any) -> Any:
        fields = list(g)
        fields[G_KEY] = names.key(g[G_KEY])
        fields[G_COLLECTED], fields[G_TAKEN] = names.refs(g[G_COLLECTED]), names.refs(g[G_TAKEN])
        return tuple(fields)

    def base(key: Any) -> Any:
        return base_key(A, key)

    warnings, artifacts, crashed, new_turns = state[WARNINGS], state[ARTIFACTS], state[CRASHED], state[NEW_TURNS]
    owned_ref = [A.disj(*[A.conj(o, A.eq(x, A.num(r + 1))) for r, o in enumerate(names.owned)]) for x in crashed.items]
    return (
        _kept(A, executions, names.own, execution, caps.executions),
        _kept(A, segments, [names.mine(base(g[G_KEY])) for g in segments.items], segment, caps.segments),
        _kept(A, warnings, [names.mine(w[0]) for w in warnings.items],
              lambda _, w: (names.id(w[0]), names.ref(w[1])), caps.warnings),
        _kept(A, artifacts, names.owned, lambda _, a: (names.id(a[0]),) + tuple(a[1:]), caps.artifacts),
        spent.write_failures,
        spent.crashes,
        _kept(A, crashed, owned_ref, lambda _, r: names.ref(r), caps.lists),
        _kept(A, new_turns, [A.eq(s, A.num(session)) for s in new_turns.items], lambda _, s: A.num(1), caps.new_turns),
        spent.races,
    )


def view_fits(A: Algebra, value: Any) -> Any:
    """Does the view's every kept sequence fit the one-session capacities it was built at?"""
    return A.conj(*[A.le(value[f].length, A.num(value[f].cap))
                    for f in (EXECUTIONS, SEGMENTS, WARNINGS, ARTIFACTS, CRASHED, NEW_TURNS)])


def _execution_field(move: Move) -> int | None:
    names = [f.name for f in dataclasses.fields(move.kind)]
    return names.index("execution") if "execution" in names else None


def owner(A: Algebra, state: Any, move: Move, session: int) -> Any:
    """Is the step `move` (from `state`) session `session`'s own? (A crash is no one's: see `spent_after`.)"""
    if move.kind is StartTurn:
        return A.eq(move.fields[0], A.num(session))
    at = _execution_field(move)
    if at is None:
        return A.boolean(False)
    key = move.fields[at]
    return _Names(A, state, session).mine(base_key(A, key))


def seen_as(A: Algebra, state: Any, move: Move, session: int) -> tuple[Any, ...]:
    """The move's action fields as the session sees them: its execution renamed, a new turn its session 1."""
    if move.kind is StartTurn:
        return (A.num(1),) + tuple(move.fields[1:])
    at = _execution_field(move)
    if at is None:
        return move.fields
    fields = list(move.fields)
    fields[at] = _Names(A, state, session).key(fields[at])
    return tuple(fields)


def spent_after(A: Algebra, pre: Any, post: Any, spent: Ghost, mine: Any, caught: Any) -> Ghost:
    """The session's ghost after a step from `pre` to `post`: what the step spent of the shared budgets where
    it is the session's own (`mine`), a crash more where the step is a crash that catches one of its
    segments (`caught`: where the one-session model can crash in the session's view)."""
    def grown(f: int, g: Any) -> Any:
        return A.ite(mine, A.add(g, A.sub(post[f], pre[f])), g)
    return Ghost(grown(WRITE_FAILURES, spent.write_failures), grown(RACES, spent.races),
                 A.ite(caught, A.add(spent.crashes, A.num(1)), spent.crashes))


def ghost_within(A: Algebra, state: Any, spent: Ghost) -> Any:
    """The ghost spent no more than the state records spent by every session: `0 <= spent <= state`."""
    return A.conj(*[A.conj(A.le(A.num(0), g), A.le(g, state[f]))
                    for g, f in zip(spent, (WRITE_FAILURES, RACES, CRASHES), strict=True)])
