"""Liveness properties: what a state may show for a while but never forever.

Each property names, per state, its *pending* facts (an unfinished execution, a held artifact, a
declined question whose execution has not finished). It holds when every fair behaviour resolves
every pending fact: no behaviour ends circling a loop (or stuttering in an end state) in every state
of which one fact is pending. `checks/search/liveness.py` decides this on the reachable graph; the
functions here judge one recorded lasso or witness, so that a trace file replays on its own.

A witness of a liveness property is a finite path through a state with a pending fact to a final
state, where every fact is resolved: it shows the property is not vacuous at these bounds.

Fairness. Which infinite behaviours count is said by named assumptions (`FAIRNESS`), each switchable:
weak fairness of every state-changing step (`steps`: one enabled in every state from some point on is
taken), and strong fairness of a write that succeeds (`write`: one enabled again and again is taken).
Each speaks of each action on its own (its kind and fields: `WriteMessage(e1, ok=True)`). A self-loop
(a poll) changes nothing and is never required. `unfair` judges one loop against them.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

from .actions import WriteMessage
from .config import Bounds
from .lang import Expr, exec_id, var
from .pycheck import compiled_expr
from .rules import finished
from .state import DECLINED, State

__all__ = ["EVENTUALLY", "Eventually", "LIVENESS", "liveness_named", "persisting", "judge_lasso", "judge_witness",
           "Fairness", "FAIRNESS", "FAIR", "WEAK", "STRONG", "fairness_named", "owed", "unfair"]

WEAK, STRONG = "weak", "strong"


@dataclass(frozen=True, slots=True)
class Fairness:
    """A fairness assumption: of which actions (`covers`), and how strong. Weak: an action enabled in every
    state of a loop is taken in it. Strong: an action enabled in some state of a loop is taken in it."""

    name: str
    strength: str
    doc: str
    covers: Callable[[Any], bool]


FAIRNESS: tuple[Fairness, ...] = (
    Fairness("steps", WEAK, "a state-changing step enabled without pause is eventually taken: the runtime's own "
             "steps, and the environment's (a caller answers, a tool returns, a turn starts)", lambda action: True),
    Fairness("write", STRONG, "a write that can succeed again and again eventually succeeds: a store does not "
             "refuse a write-back forever", lambda action: type(action) is WriteMessage and action.ok),
)
FAIR: tuple[str, ...] = tuple(f.name for f in FAIRNESS)  # every assumption on: the default


def fairness_named(names: Collection[str]) -> tuple[Fairness, ...]:
    """The assumptions called `names`, in table order (ValueError naming an unknown one)."""
    unknown = sorted(set(names) - set(FAIR))
    if unknown:
        raise ValueError(f"unknown fairness assumption {unknown[0]!r} (known: {', '.join(FAIR)}, or none)")
    return tuple(f for f in FAIRNESS if f.name in names)


def owed(f: Fairness, enabled: Sequence[Collection[Any]]) -> set[Any]:
    """What assumption `f` owes a loop whose i-th state enables the state-changing actions `enabled[i]` (at least
    one state): weak, the actions it covers enabled in every state; strong, those enabled in any."""
    covered = [{a for a in actions if f.covers(a)} for actions in enabled]
    return set.intersection(*covered) if f.strength == WEAK else set.union(*covered)


def unfair(fairness: Sequence[Fairness], enabled: Sequence[Collection[Any]], taken: Collection[Any]) -> str | None:
    """Does a loop break an assumption? `enabled[i]`: the state-changing actions enabled in its i-th state;
    `taken`: the actions of its steps. None for a fair loop, else what it leaves untaken, in words."""
    if not enabled:
        return None
    for f in fairness:
        left = sorted(owed(f, enabled) - set(taken), key=repr)
        if left:
            how = "enabled in every state of the loop" if f.strength == WEAK else "enabled again and again in the loop"
            return f"{left[0]} is {how} and never taken ({f.name} fairness)"
    return None

EVENTUALLY = "eventually"

_S = var("S", State)
Facts = Callable[[Bounds], tuple[tuple[str, Expr], ...]]


@dataclass(frozen=True, slots=True)
class Eventually:
    """A liveness property: no fact of `facts` may hold forever (one fact pending in every state of a loop).

    `facts(bounds)` names every fact the bounds allow, each with its formula over the state `S` in the rule
    language (`lang.py`): the one source every engine reads (the search compiles them, `pending`; Spin writes
    them into its never claims, `checks/spin/fair.py`). `what` names the facts in messages; `situation` is
    the model's witness of the same situation, whose bound requirement says whether these bounds can raise
    a pending fact at all."""

    name: str
    clauses: tuple[str, ...]
    doc: str
    facts: Facts
    what: str
    situation: str | None = None
    kind: str = EVENTUALLY

    def pending(self, state: State, bounds: Bounds) -> frozenset[str]:
        """The names of the facts that hold in this state."""
        return frozenset(name for name, test in _compiled(self, bounds) if test(state))


_COMPILED: dict[tuple[str, Bounds], tuple[tuple[str, Callable[[State], bool]], ...]] = {}


def _compiled(prop: Eventually, bounds: Bounds) -> tuple[tuple[str, Callable[[State], bool]], ...]:
    """The property's facts at these bounds, each compiled to a test of a state (once per bounds)."""
    key = (prop.name, bounds)
    if key not in _COMPILED:
        if len(_COMPILED) >= 256:
            _COMPILED.clear()
        _COMPILED[key] = tuple((name, compiled_expr(x, bounds)) for name, x in prop.facts(bounds))
    return _COMPILED[key]


def _executions(bounds: Bounds) -> range:
    """The numbers of every execution the bounds can start (e1, e2, ...)."""
    return range(1, bounds.sessions * bounds.turns + bounds.new_turns + 1)


def _unfinished(bounds: Bounds) -> tuple[tuple[str, Expr], ...]:
    live = tuple((f"e{n}", _S.executions.any_of(lambda x, n=n: (x.id == exec_id(n)) & ~finished(x.status)))
                 for n in _executions(bounds))
    return live + (("a turn not started", _S.executions.size - _S.new_turns.size < bounds.sessions * bounds.turns),)


def _held(bounds: Bounds) -> tuple[tuple[str, Expr], ...]:
    # Held, or taken by a write-back in flight and not yet written: a write-back retried forever takes and puts
    # back again and again, and delivers nothing. Refs are named as on the wire ("a1"), so the trace
    # explanation can say where each was produced.
    return tuple((f"a{r}", _S.executions.any_of(lambda x, r=r: x.held.contains(r))
                  | _S.segments.any_of(lambda g, r=r: g.taken.contains(r))) for r in range(1, bounds.artifacts + 1))


def _declined_unfinished(bounds: Bounds) -> tuple[tuple[str, Expr], ...]:
    return tuple((f"e{n}", _S.executions.any_of(
        lambda x, n=n: (x.id == exec_id(n)) & ~finished(x.status) & x.questions.any_of(lambda q: q.status == DECLINED)))
        for n in _executions(bounds))


LIVENESS: tuple[Eventually, ...] = (
    Eventually("no_stuck_execution", ("G6.5", "G5.2"), "from every reachable state a final state is reachable",
               _unfinished, "unfinished execution(s) or turn(s)"),
    Eventually("eventual_delivery", ("T7.1", "T7.12"),
               "every artifact held by an execution is eventually delivered or dropped with a warning: no longer held, "
               "nor in the hands of a write-back",
               _held, "held artifact ref(s)", "held_across_pause"),
    Eventually("declined_run_completes", ("G5.2",), "an execution with a declined question eventually finishes",
               _declined_unfinished, "declined and unfinished execution(s)", "decline"),
)


def liveness_named(name: str) -> Eventually | None:
    """The liveness property called `name`, or None."""
    return next((p for p in LIVENESS if p.name == name), None)


def persisting(prop: Eventually, loop: Sequence[State], bounds: Bounds) -> frozenset[str]:
    """The pending facts common to every state of a loop."""
    return frozenset.intersection(*(prop.pending(s, bounds) for s in loop))


def judge_lasso(prop: Eventually, states: Sequence[State], loop_start: int, bounds: Bounds,
                closes: bool) -> tuple[bool, str | None]:
    """Does this lasso break `prop`? `closes`: the last state steps back to states[loop_start], or (a
    stutter, loop_start the last index) has no state-changing step. (broken, what persists)."""
    if not closes or not 0 <= loop_start < len(states):
        return False, None
    facts = persisting(prop, states[loop_start:], bounds)
    if not facts:
        return False, None
    return True, f"{prop.what} {', '.join(sorted(facts))} pending in every state of the loop from step {loop_start}"


def judge_witness(prop: Eventually, states: Sequence[State], bounds: Bounds, final: Callable[[State], bool]) -> bool:
    """Does this path witness `prop`: a fact is pending somewhere, and the path ends in a final state?"""
    return bool(states) and final(states[-1]) and any(prop.pending(s, bounds) for s in states)
