"""Mutants: named, minimal deviations a real runtime could make, applied on top of the default rules.

A mutant never edits `model/rules.py`. It is a `patch` of the default successor (what the deviant
runtime does instead, computed from the pre-state, the action and the default post-state) and/or a
deviant wire view (`show`). Each names the clauses it breaks, the property meant to catch it and the
length of that property's shortest counterexample at the default bounds.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Callable

from model import Machine, Patch
from model.actions import Answer, FinishSegment, ObserveAgain, ToolFails, ToolInterrupts
from model.observe import shown
from model.state import (
    CANCELLED, FAILED, INTERRUPTED, PENDING, RUNNING, Attempt, Question, State, find_execution,
    with_execution,
)

__all__ = ["Mutant", "MUTANTS", "mutant_named", "mutate"]


@dataclass(frozen=True, slots=True)
class Mutant:
    """One deviation: what it does, which clauses it breaks, and what must catch it."""

    name: str
    clauses: tuple[str, ...]
    doc: str
    target: str  # the property meant to catch it
    shortest: int  # steps in that property's shortest counterexample at the default bounds
    patch: Patch | None = None
    show: Callable[[State], tuple] | None = None


def mutate(machine: Machine, mutant: Mutant) -> Machine:
    """The machine with the mutant's deviation applied."""
    changes = {}
    if mutant.patch is not None:
        changes["patch"] = mutant.patch
    if mutant.show is not None:
        changes["show"] = mutant.show
    return dataclasses.replace(machine, **changes)


def _only(kind: type, deviate: Callable[[State, object, State], State]) -> Patch:
    """A patch that deviates on one action kind and leaves every other step alone."""
    def patch(bounds: object, pre: State, action: object, post: State) -> State:
        return deviate(pre, action, post) if type(action) is kind else post
    return patch


def _set(post: State, execution_id: str, **fields: object) -> State:
    return with_execution(post, find_execution(post, execution_id)._replace(**fields))


# ---------------------------------------------------------------------------------------------


def _take_keeps_held(pre: State, action: FinishSegment, post: State) -> State:
    # A successful write-back reads the held list but never clears it.
    if not action.write_ok:
        return post
    return _set(post, action.execution, held=find_execution(pre, action.execution).held)


def _no_put_back(pre: State, action: FinishSegment, post: State) -> State:
    # A failed write-back reports the failure with what it took still in hand: it is gone.
    if action.write_ok:
        return post
    return _set(post, action.execution, held=())


def _poll_shows_held(state: State) -> tuple:
    # The turn's poll serves the held list as part of the turn's artifacts.
    return tuple((e.id, tuple(r for m in e.messages for r in m) + e.held) for e in state.executions)


def _interrupt_recorded_failed(pre: State, action: ToolInterrupts, post: State) -> State:
    # The interrupt escapes the tool invocation as an exception and is recorded failed.
    e = find_execution(post, action.execution)
    attempts = tuple(Attempt(a.call, FAILED) if a.status == INTERRUPTED else a for a in e.attempts)
    return _set(post, action.execution, attempts=attempts)


def _resume_flips_attempt(pre: State, action: Answer, post: State) -> State:
    # On approve, the same interrupted record is flipped back to running: no new attempt.
    if not action.approve:
        return post
    e = find_execution(post, action.execution)
    attempts = e.attempts[:-1]  # drop the new attempt
    for i in range(len(attempts) - 1, -1, -1):
        if attempts[i].status == CANCELLED and attempts[i].call == e.attempts[-1].call:
            attempts = attempts[:i] + (Attempt(attempts[i].call, RUNNING),) + attempts[i + 1:]
            break
    return _set(post, action.execution, attempts=attempts)


def _question_per_observation(pre: State, action: ObserveAgain, post: State) -> State:
    # Every observation of the same interrupt raises a fresh question (which inherits the count of
    # observations, so the observation bound still ends the search).
    e = find_execution(post, action.execution)
    last = e.questions[-1]
    return _set(post, action.execution, questions=e.questions + (Question(last.call, PENDING, last.observations),))


def _tool_failure_unhandled(pre: State, action: ToolFails, post: State) -> State:
    # A tool failure is counted towards the run's unhandled failures.
    e = find_execution(post, action.execution)
    return _set(post, action.execution, unhandled=e.unhandled + 1)


MUTANTS: tuple[Mutant, ...] = (
    Mutant("take_keeps_held", ("T7.7", "T7.8"),
           "a successful write-back reads the held list without clearing it",
           "no_double_delivery", 9, patch=_only(FinishSegment, _take_keeps_held)),
    Mutant("no_put_back", ("T7.10", "T7.11", "T7.12"),
           "a failed write-back does not put back what it took",
           "failed_write_back_restores", 6, patch=_only(FinishSegment, _no_put_back)),
    Mutant("poll_shows_held", ("T7.3",),
           "a poll of the paused turn shows its held artifacts",
           "held_hidden", 5, show=_poll_shows_held),
    Mutant("interrupt_recorded_failed", ("G6.1", "G6.2"),
           "an interrupt escaping a tool records the attempt as failed",
           "interrupted_not_failed", 3, patch=_only(ToolInterrupts, _interrupt_recorded_failed)),
    Mutant("resume_flips_attempt", ("G6.3", "G6.4"),
           "a resume flips the interrupted attempt back to running instead of adding a new one",
           "resume_supersedes", 4, patch=_only(Answer, _resume_flips_attempt)),
    Mutant("question_per_observation", ("G6.9",),
           "each observation of the same interrupt raises another question",
           "one_question_per_pause", 4, patch=_only(ObserveAgain, _question_per_observation)),
    Mutant("tool_failure_unhandled", ("G6.6", "G6.8", "E9.5"),
           "a tool failure counts towards the run's unhandled failures",
           "tool_failures_handled", 3, patch=_only(ToolFails, _tool_failure_unhandled)),
)


def mutant_named(name: str) -> Mutant:
    """The mutant with this name (KeyError if none)."""
    for m in MUTANTS:
        if m.name == name:
            return m
    raise KeyError(name)
