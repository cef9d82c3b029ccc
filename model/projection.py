"""One session's view of a many-session state: the projection the compositional argument rests on.

`project(state, session, spent)` is the one-session state that session `session` of `state` would be in
had it run alone: its executions (renumbered e1, e2, ... in creation order, their session 1), their
segments, their artifacts (renumbered 1, 2, ... in creation order, every ref mapped by its rank among
them), the warnings, crashed refs and new turns that are its own. Three budgets are spent by the
sessions together and leave no trace of who spent them: failed write-backs and lost races (once a crash
has lost the segment that did), and crashes (a crash is every session's step, but the one-session model
crashes only at points where it matters, `rules.CRASH`'s guard, so a crash counts for the sessions at
such a point). What each session spent of them is `spent`, a ghost the search keeps beside the state;
`project` puts it in their place.

`project_action(action, state, session)` is the step's action as that session sees it (its ids
renumbered), or None where the action is another session's (a crash is every session's).

The claim this serves (`checks/composition.py`): every step of the many-session model is, under each
session's projection, a step of the one-session model or leaves the projection as it was, and the
initial state projects to the initial state; so every state a session reaches beside others it reaches
alone, and what holds of every one-session behaviour holds of each session's part of a many-session one.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import NamedTuple

from .actions import Action, StartTurn
from .state import State, base_id, find_execution, id_key

__all__ = ["Spent", "NOTHING_SPENT", "project", "project_action", "spent_after", "session_of"]


class Spent(NamedTuple):
    """What one session spent of the budgets the sessions share without a trace: failed write-backs, lost
    races, and the crashes it went through at a point where the one-session model can crash (`crashed_by`)."""

    write_failures: int = 0
    races: int = 0
    crashes: int = 0


NOTHING_SPENT = Spent()


def session_of(action: Action, state: State) -> int | None:
    """The session whose step `action` is (in the state before it), or None for every session's (a crash)."""
    if isinstance(action, StartTurn):
        return action.session
    execution = getattr(action, "execution", None)
    return None if execution is None else find_execution(state, execution).session


def spent_after(spent: tuple[Spent, ...], pre: State, action: Action, post: State,
                crashed_by: Callable[[int], bool]) -> tuple[Spent, ...]:
    """Each session's budgets after the step: what the step spent goes to its session; a crash, every
    session's step, counts for those sessions `crashed_by(session)` names."""
    who = session_of(action, pre)
    if who is None:
        if post.crashes == pre.crashes:
            return spent
        return tuple(s._replace(crashes=s.crashes + 1) if crashed_by(k) else s for k, s in enumerate(spent, 1))
    grew = Spent(post.write_failures - pre.write_failures, post.races - pre.races)
    if grew == NOTHING_SPENT:
        return spent
    return tuple(Spent(*(a + b for a, b in zip(s, grew, strict=True))) if k == who - 1 else s
                 for k, s in enumerate(spent))


def _renaming(state: State, session: int) -> tuple[dict[str, str], dict[int, int]]:
    """The session's execution ids and artifact refs, each mapped to its rank among the session's own."""
    ids = {e.id: f"e{n}" for n, e in enumerate((e for e in state.executions if e.session == session), 1)}
    refs: dict[int, int] = {}
    for ref, artifact in enumerate(state.artifacts, 1):
        if artifact.execution in ids:
            refs[ref] = len(refs) + 1
    return ids, refs


def _key(ids: dict[str, str], key: str) -> str:
    return ids[base_id(key)] + key[len(base_id(key)):]


def project(state: State, session: int, spent: Spent = NOTHING_SPENT) -> State:
    """The one-session state that is `session`'s part of `state` (see the module's doc)."""
    ids, refs = _renaming(state, session)

    def mapped(seq: tuple[int, ...]) -> tuple[int, ...]:  # another session's artifact (never, if isolated): 0
        return tuple(refs.get(r, 0) for r in seq)

    executions = tuple(e._replace(id=ids[e.id], session=1, held=mapped(e.held),
                                  messages=tuple(mapped(m) for m in e.messages))
                       for e in state.executions if e.id in ids)
    segments = tuple(sorted((g._replace(execution=_key(ids, g.execution), collected=mapped(g.collected),
                                        taken=mapped(g.taken))
                             for g in state.segments if base_id(g.execution) in ids),
                            key=lambda g: id_key(g.execution)))
    return State(
        executions=executions,
        segments=segments,
        warnings=tuple(w._replace(execution=ids[w.execution], ref=refs.get(w.ref, 0))
                       for w in state.warnings if w.execution in ids),
        artifacts=tuple(a._replace(execution=ids[a.execution]) for a in state.artifacts if a.execution in ids),
        write_failures=spent.write_failures,
        crashes=spent.crashes,
        crashed=tuple(refs[r] for r in state.crashed if r in refs),
        new_turns=tuple(1 for s in state.new_turns if s == session),
        races=spent.races,
    )


def project_action(action: Action, state: State, session: int) -> Action | None:
    """The action as `session` sees it in `state` (the state before it), or None if it is another session's."""
    who = session_of(action, state)
    if who is None:
        return action
    if who != session:
        return None
    if isinstance(action, StartTurn):
        return StartTurn(1)
    ids, _ = _renaming(state, session)
    return dataclasses.replace(action, execution=_key(ids, action.execution))  # type: ignore[type-var]

