"""Any number of sessions: the compositional theorem for every N at once (`prove --compositional --sessions any`).

The claim: at the bounds given (their `sessions` aside), under the reading and the rule table, for EVERY number
of sessions N, every behaviour of N sessions projects, for each session, onto a behaviour of the one-session
model (`model/projection.py`: the session's items renumbered as if it ran alone, the shared budgets counted
per session), and no step of one session changes another's projection; so every property that *carries*
(it holds of an N-session state wherever it holds of each session's part) holds for N sessions wherever
`pausecheck check` establishes it for one.

The proof is by induction on the length of a behaviour, with each session's projection being a reachable
one-session state as the hypothesis. What it rests on, each checked here (docs/symbolic.md, "Any number of
sessions", gives the argument):

1. *the footprint lemmas* (`footprint.py`, z3): every use of a shared list or counter by every rule treats the
   other sessions' items as if they were not there, adds only the acting session's items, reads the others'
   only as budgets that narrow what the session may do, and names new executions and artifacts in order.
   Each is a statement about one item of one list, so it holds for lists of any length: for any N;
2. *two facts of the one-session model*, checked on every state it reaches at these bounds: every ref and id a
   state holds names an artifact or an execution of it (so, under the hypothesis, a session holds only its own
   refs), and every running execution has a segment in flight (so a crash that catches nothing of a session,
   brought by another's segment, changes nothing of it);
3. *carrying*, per property (`carrying.py`): a state property is a property of
   each item whose reads see only the item's session, or a comparison of two sums of every session's counts; a
   transition property, step kind by step kind, reads only the moving session's items, pairs each execution
   with itself after (where every other session's unchanged pair keeps it), or compares what every session
   adds.

Where a lemma fails, a search of two sessions at small bounds looks for a
property that two sessions break and one does not, and writes its run as ITF, replayed.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pausecheck.model import Bounds, Machine
from pausecheck.model.config import FAULTS
from pausecheck.model.formulas import FORMULAS
from pausecheck.model.lang import Rule
from pausecheck.model.properties import PROPERTIES
from pausecheck.model.property import ALWAYS
from pausecheck.model.reading import Reading
from pausecheck.model.state import RUNNING, State, base_id

from .carrying import carries, carries_step
from .footprint import Finding, footprint

__all__ = ["FACTS", "Fact", "Carried", "AnySessions", "prove_any_sessions", "MAX_STATES"]

MAX_STATES = 2_000_000  # the one-session states the facts are checked on, at most
# Where a lemma fails, two sessions are searched here: the least bounds where a session holds an artifact
# across a pause (a call that returns it, then one that pauses), with each fault the bounds given allow, once.
SMALL_TWO = Bounds(sessions=2, calls=2, per_call=1, artifacts=1, pauses=1, write_failures=0, observations=0,
                   interim_writes=0, node_failures=0, held_bound=1)

FACTS: dict[str, str] = {
    "named": "every ref and execution id a one-session state holds names one of its artifacts or executions",
    "restartable": "every running execution of a one-session state has a segment in flight",
}


@dataclass(frozen=True)
class Fact:
    """A fact of the one-session model, checked on every state it reaches at the bounds."""

    name: str
    holds: bool
    example: str = ""  # a reached state where it fails, and how


@dataclass(frozen=True)
class Carried:
    """Does a property carry to any number of sessions, and why not."""

    name: str
    carried: bool
    why: str = ""


@dataclass
class AnySessions:
    """What `prove_any_sessions` established."""

    bounds: Bounds  # the one-session bounds
    reading: Reading
    findings: list[Finding] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    states: int = 0  # one-session states the facts were checked on
    complete: bool = True  # every part ran to its end (else, stopped: what stopped it)
    stopped: str = ""  # what stopped it: the one-session facts' search at its most states, or --max-seconds
    carried: list[Carried] = field(default_factory=list)
    counterexample: dict[str, Any] | None = None  # ITF of two sessions breaking what one session keeps
    witnessed: str = ""  # the property it breaks
    seconds: float = 0.0

    @property
    def proved(self) -> bool:
        """Every lemma and every fact holds: the theorem, for every number of sessions."""
        return self.complete and all(f.holds for f in self.findings) and all(f.holds for f in self.facts)


def prove_any_sessions(bounds: Bounds, reading: Reading, rules: tuple[Rule, ...],
                       progress: Callable[[str], None] | None = None, max_states: int = MAX_STATES,
                       deadline: float | None = None) -> AnySessions:
    """The theorem for every number of sessions at `bounds` (one session's), under `reading` and `rules`;
    `deadline` (on `time.perf_counter`) stops it between its parts and in its search, as incomplete."""
    started = time.perf_counter()
    one = bounds.replace(sessions=1)
    result = AnySessions(one, reading)
    say = progress or (lambda text: None)

    def late() -> bool:
        if deadline is not None and time.perf_counter() >= deadline:
            result.complete, result.stopped = False, "--max-seconds"
        return not result.complete

    say("the footprint lemmas, rule by rule (z3)")
    result.findings = footprint(one, reading, rules)
    if late():
        return _done(result, started)
    say("the one-session facts, on every reachable one-session state")
    result.facts, result.states, result.complete = _facts(Machine(one, reading, rules), max_states, say, deadline)
    if not result.complete:
        result.stopped = result.stopped or ("--max-seconds" if deadline is not None and time.perf_counter()
                                            >= deadline else f"{max_states:,} one-session states")
        return _done(result, started)
    say("which properties carry")
    for p in PROPERTIES:
        if late():
            return _done(result, started)
        formula = FORMULAS.get(p.name)
        if formula is None or p.kind not in (ALWAYS, "transition"):
            continue
        found = carries_step(one, reading, rules, formula.expr, p.on) if formula.step else \
            carries(one, reading, formula.expr)
        result.carried.append(Carried(p.name, found.holds, found.why))
    if not all(f.holds for f in result.findings) and not late():
        say("a lemma fails: searching two sessions for a run that shows it")
        result.counterexample, result.witnessed = _two_sessions(one, reading, rules)
    return _done(result, started)


def _done(result: AnySessions, started: float) -> AnySessions:
    result.seconds = time.perf_counter() - started
    return result


def _named(state: State) -> str:
    """Where a ref or id of the state names nothing, else ""."""
    refs, ids = len(state.artifacts), {e.id for e in state.executions}

    def bad(where: str, seq: Any) -> str:
        wrong = [r for r in seq if not 1 <= r <= refs]
        return f"{where} holds ref {wrong[0]}, of no artifact" if wrong else ""

    for e in state.executions:
        found = bad(e.id, e.held) or bad(f"a message of {e.id}", [r for m in e.messages for r in m])
        if found:
            return found
    for g in state.segments:
        if base_id(g.execution) not in ids:
            return f"segment {g.execution} is of no execution"
        found = bad(f"segment {g.execution}", g.collected + g.taken)
        if found:
            return found
    for w in state.warnings:
        if w.execution not in ids or not 1 <= w.ref <= refs:
            return f"a warning names {w.execution} and ref {w.ref}"
    for a in state.artifacts:
        if a.execution not in ids:
            return f"an artifact of {a.execution}, no execution"
    return bad("the crashed list", state.crashed)


def _restartable(state: State) -> str:
    live = {base_id(g.execution) for g in state.segments}
    return next((f"{e.id} is running with no segment in flight" for e in state.executions
                 if e.status == RUNNING and e.id not in live), "")


def _facts(machine: Machine, max_states: int, say: Callable[[str], None],
           deadline: float | None = None) -> tuple[list[Fact], int, bool]:
    """Both facts on every state the one-session model reaches (breadth first, at most `max_states`, until
    `deadline`); and whether it reached them all."""
    tests = {"named": _named, "restartable": _restartable}
    failed: dict[str, str] = {}
    seen = set(machine.init_states())
    queue = deque(seen)
    last = time.perf_counter()
    complete = True
    while queue and complete:
        state = queue.popleft()
        for name, test in tests.items():
            why = "" if name in failed else test(state)
            if why:
                failed[name] = f"{why}, in {state}"
        for _action, post in machine.successors(state):
            if post not in seen:
                complete = len(seen) < max_states
                if not complete:
                    break
                seen.add(post)
                queue.append(post)
        if time.perf_counter() - last > 2:
            last = time.perf_counter()
            complete = complete and (deadline is None or last < deadline)
            say(f"the one-session facts: {len(seen):,} states")
    return [Fact(n, n not in failed, failed.get(n, "")) for n in tests], len(seen), complete


def _two_sessions(one: Bounds, reading: Reading, rules: tuple[Rule, ...]) -> tuple[dict[str, Any] | None, str]:
    """A run of two sessions (at the small two-session bounds) breaking a property that one session at the same
    bounds keeps, as an ITF document that `replay` confirms; (None, "") if there is none."""
    from pausecheck.traces.replay import replay

    from ..mutants.evidence import command_line, trace_of
    from ..search.explore import explore
    small = SMALL_TWO.replace(**{f: min(getattr(one, f), 1) for f in FAULTS})
    two, alone = Machine(small, reading, rules), Machine(small.replace(sessions=1), reading, rules)
    broken = explore(two).violations
    kept = explore(alone).violations
    for name in sorted(broken, key=lambda n: (len(broken[n].actions), n)):
        if name in kept:
            continue
        document = trace_of(two, broken[name], name=name, command=command_line(small, reading.name, rules=rules))
        if replay(document, two).reproduced:
            return document, name
    return None, ""
