"""Conformance: drive a runtime through the model's behaviours and compare what it shows.

The runtime is reset before each covering sequence (`cover.py`), replays the sequence's prefix, and
is observed before the first new step and after each new one. Two verdicts:

- strict: every observation equals the model's (`model/observe.py`; the held lists too, if the
  runtime exposes them) under the chosen reading;
- properties: only the black-box properties (`blackbox.py`) are judged, for a runtime that takes
  another legitimate reading.

A runtime that can restart (`"restart": true` in its hello) is also crashed and restarted after
each new step that leaves no segment in flight, and observed again: there the model's state is all
durable (run records, held lists, messages, questions, warnings), so a restart must change nothing
the runtime shows now or later. This tests "held durably" (T7.1) where the model itself has no crash.

The first divergence ends the run: a refused action the model allows, a fault (hang, exit, bad
line), an observation that differs, or a broken black-box property; it comes with the model's path
up to that step, written as an ITF trace that `pausecheck replay` re-executes on the model, and the
steps after which the runtime was restarted on the way. It names what broke (`culprit.py`): the
property, or the observation field that differs, with that property's clauses first and the step's
second.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from pausecheck.model import Machine, observe, white_box
from pausecheck.model.properties import property_named
from pausecheck.traces.replay import first_difference

from ..mutants.evidence import document_for
from ..search.budget import LimitReached
from ..search.explore import Discovery
from .adapters import Adapter, RuntimeFault, describe, restart
from .blackbox import BLACK_BOX, History
from .cover import Sequence, covering_sequences
from .culprit import Culprit, culprit
from .exercised import Tally
from .macros import Coarse, coarsen, enacts, fine
from .protocol import PROTOCOL, apply_request

__all__ = ["ConformError", "Divergence", "ConformResult", "conform", "shrink_divergence", "divergence_at",
           "divergence_document", "judge_shown", "handshake", "drive"]

STRICT, PROPERTIES = "strict", "properties"
RESTART = {"type": "restart"}


class ConformError(Exception):
    """The runtime cannot be checked at all (wrong protocol, reading not supported): one line."""


@dataclass(frozen=True, slots=True)
class Divergence:
    """The first step at which the runtime departs from the model."""

    steps: tuple[tuple[Any, Any, Any], ...]  # the model's path, up to and including the step
    step: int  # 1-based: the step after which (or at which) it diverged; 0 for the reset
    kind: str  # refused, fault, observation, property
    message: str
    clauses: tuple[str, ...]
    expected: Any = None
    actual: Any = None
    property: str | None = None  # the property it breaks, where one can be named
    found_at: int = 0  # the step of the divergence as first found, before shrinking
    field: str | None = None  # the observation's JSON path that differs (an observation divergence)
    restarts: tuple[int, ...] = ()  # the steps after which the runtime was restarted, up to the divergence
    also: tuple[str, ...] = ()  # other properties it breaks, their clauses after the property's


@dataclass(frozen=True, slots=True)
class ConformResult:
    runtime: str
    mode: str
    sequences: int
    steps: int  # every step applied, prefixes included
    edges: int  # edges of the reachable graph taken as new steps and judged
    skipped: int  # edges with an action kind the runtime does not support
    complete: bool  # every covering sequence ran (no divergence, no limit)
    seconds: float
    divergence: Divergence | None
    edges_total: int | None = None  # the reachable graph's edges, when the sequences given are a sample
    clause_edges: tuple[tuple[str, int], ...] = ()  # per clause, the judged edges that enact it (sorted)
    witnessed: tuple[str, ...] = ()  # the model's witnesses some judged edge reaches (sorted)
    macros: tuple[str, ...] = ()  # the macros the runtime declared: the grain it was driven at (macros.py)
    undeclared: tuple[str, ...] = ()  # the kinds of the model's steps the runtime does not declare (sorted)

    @property
    def coverage(self) -> float | None:
        """Edges judged over all edges of the reachable graph (known once every sequence ran)."""
        total = self.edges_total if self.edges_total is not None else self.edges + self.skipped
        return self.edges / total if self.complete and total else None

    @property
    def ok(self) -> bool:
        return self.divergence is None and self.complete and not self.skipped


Progress = Callable[[int, int, int], None]  # (sequences, steps, edges) so far


def conform(adapter: Adapter, machine: Machine, *, mode: str = STRICT, max_sequences: int | None = None,
            sequences: Iterable[Sequence] | None = None, progress: Progress | None = None,
            shrink: bool = True, edges_total: int | None = None) -> ConformResult:
    """Drive the runtime behind `adapter` through `sequences` (default: all covering sequences).

    With `shrink`, a divergence is cut down to a short sequence of the model's steps on which the
    runtime still diverges (`shrink_divergence`)."""
    started = time.perf_counter()
    hello = handshake(adapter, machine)
    macros = tuple(hello.get("macros", ()))
    supported, held, restart = set(hello["actions"]) | set(macros), bool(hello.get("held")), bool(hello.get("restart"))
    reset = {"type": "reset", "bounds": machine.bounds.as_dict(), "reading": machine.reading.name}
    view = Coarse(machine, macros) if macros else machine  # the graph at the runtime's grain
    if macros and sequences is not None:
        sequences = [_at_grain(view, s) for s in sequences]
    count = steps = edges = skipped = 0
    undeclared: set[str] = set()
    divergence, complete = None, True
    tally = Tally(machine)
    for sequence in covering_sequences(view) if sequences is None else sequences:
        if max_sequences is not None and count >= max_sequences:
            complete = False
            break
        missing = {a.KIND for _, a, _ in sequence.steps} - supported
        if missing:
            skipped += len(sequence.steps) - sequence.fresh
            undeclared |= missing
            continue
        count += 1
        divergence = drive(adapter, view, sequence, reset, mode, held, restart)
        steps += len(sequence.steps)
        if divergence is not None:
            if shrink:
                try:
                    divergence = shrink_divergence(adapter, view, divergence, reset, mode, held, restart)
                except LimitReached:  # out of time while shrinking: the divergence as found still stands
                    divergence = dataclasses.replace(divergence, found_at=divergence.step)
            complete = False
            break
        edges += len(sequence.steps) - sequence.fresh
        tally.add(sequence.steps[sequence.fresh:])
        if progress is not None and (count == 1 or count % 64 == 0):  # the first: driving has begun
            progress(count, steps, edges)
    return ConformResult(adapter.name, mode, count, steps, edges, skipped, complete, time.perf_counter() - started,
                         divergence, edges_total, tuple(sorted(tally.clauses.items())), tuple(sorted(tally.witnessed)),
                         macros, tuple(sorted(undeclared)))


def _at_grain(view: Coarse, sequence: Sequence) -> Sequence:
    """A sequence of the model's steps folded to the runtime's macros; one that cannot be is refused."""
    steps = None if sequence.recorded is not None else coarsen(view, sequence.steps)
    if steps is None:
        what = "vectors record each of the model's steps (run pausecheck conform instead)" \
            if sequence.recorded is not None else "this sequence interleaves other steps with a macro's parts"
        raise ConformError(f"the runtime performs {', '.join(m.name for m in view.macros)} as one step, and {what}")
    return Sequence(steps, min(sequence.fresh, len(steps)))


def handshake(adapter: Adapter, machine: Machine) -> dict[str, Any]:
    """The runtime's `hello`, checked: the protocol it speaks and the reading it must support."""
    try:
        hello = adapter.exchange([{"type": "hello", "protocol": PROTOCOL}])[0]
    except RuntimeFault as fault:
        raise ConformError(str(fault)) from None
    if hello.get("ok") is False:
        raise ConformError(f"the runtime refused hello: {hello['error']}")
    if machine.reading.name not in hello["readings"]:
        raise ConformError(f"the runtime {hello['name']!r} does not support the reading {machine.reading.name!r} "
                           f"(it supports: {', '.join(hello['readings']) or 'none'})")
    return hello


def drive(adapter: Adapter, machine: Machine, sequence: Sequence, reset: dict[str, Any], mode: str,
          held: bool, restart: bool = False) -> Divergence | None:
    """Run one sequence; the first divergence, or None."""
    observe_request = {"type": "observe", "held": True} if held else {"type": "observe"}
    recorded = sequence.recorded
    requests: list[dict[str, Any]] = [reset]
    where: list[int] = [0]  # the step each request belongs to
    for i, (pre, action, _) in enumerate(sequence.steps, 1):
        if i == sequence.fresh + 1 and i > 1:
            requests.append(observe_request)
            where.append(i - 1)
        requests.append(recorded.requests[i - 1] if recorded else apply_request(i, pre, action))
        where.append(i)
        if i > sequence.fresh:
            requests.append(observe_request)
            where.append(i)
            if restart and not sequence.steps[i - 1][2].segments:  # all durable here: a restart changes nothing
                requests += [RESTART, observe_request]
                where += [i, i]
    try:
        responses = adapter.exchange(requests)
    except RuntimeFault as fault:
        step = where[fault.index]
        fresh_runtime(adapter)  # a dead, hung or half-written runtime is never asked again: the next gets a new one
        return divergence_at(sequence, step, "fault", str(fault), restarts=_restarts(requests, where, fault.index))
    before = observe(machine.init_states()[0])
    applied: list[dict[str, Any]] = []
    for index, (request, response, step) in enumerate(zip(requests, responses, where, strict=True)):
        restarts = _restarts(requests, where, index)
        if response.get("ok") is False:
            what = "refused" if request["type"] in ("apply", "restart") else "fault"
            return divergence_at(sequence, step, what, f"the runtime refused {describe(request)}: {response['error']}",
                                 restarts=restarts)
        if request["type"] == "apply":
            applied.append(request)
        if request["type"] != "observe":
            continue
        found = judge_shown(machine, sequence, step, mode, response, tuple(applied), before,
                            restarted=index > 0 and requests[index - 1] is RESTART)
        if found is not None:
            return dataclasses.replace(found, restarts=restarts)
        before = response["observation"]
    return None


def _restarts(requests: list[dict[str, Any]], where: list[int], upto: int) -> tuple[int, ...]:
    """The steps after which a restart was asked for, among the requests before `upto`."""
    return tuple(where[i] for i in range(upto) if requests[i] is RESTART)


def judge_shown(machine: Machine, sequence: Sequence, step: int, mode: str, response: dict[str, Any],
                applied: tuple[dict[str, Any], ...], before: dict[str, Any], *,
                restarted: bool = False) -> Divergence | None:
    """Judge what the runtime showed after `step` (an `observe` response; `restarted`: the runtime was
    restarted after the step, then observed): against the expected observation (strict), or the
    black-box properties given what was applied and shown before. A divergence names what broke."""
    actual, shown_held = response["observation"], response.get("held")
    history = History(applied, before, actual, shown_held)
    the_step = sequence.steps[step - 1] if step else None
    when = f"after step {step}" + (" and a restart" if restarted else "")
    if mode == STRICT:
        want, want_held = _expected(machine, sequence, step)
        found = first_difference(want, actual, "observation") or (
            first_difference(want_held, shown_held, "held") if shown_held is not None and want_held is not None
            else None)
        if found:
            path, expected, got = found
            path = path.lstrip(".")
            source = "the vector expects" if sequence.recorded else "the model has"
            broke = culprit(the_step, history, path, restarted)
            return divergence_at(sequence, step, "observation",
                                 f"{when}, {path} is {got!r}; {source} {expected!r}{naming(broke, history)}",
                                 clauses=broke.clauses, expected=want, actual=actual, prop=broke.property, field=path,
                                 also=tuple(name for name, _ in broke.also))
        return None
    for prop in BLACK_BOX:
        message = prop.check(history)
        if message:
            broke = culprit(the_step, history, None, restarted)
            return divergence_at(sequence, step, "property", f"{when}, {prop.name} ({prop.doc}): {message}",
                                 clauses=broke.clauses, actual=actual, prop=prop.name)
    return None


def naming(broke: Culprit, history: History) -> str:
    """`: NAME breaks (what the black-box check says, what the runtime did, or the property's meaning)`, then
    each other property it breaks, or nothing."""
    if broke.property is None:
        return ""
    said = next((check.check(history) for check in BLACK_BOX if check.name == broke.property), None)
    also = "".join(f"; {name} breaks too ({what})" for name, what in broke.also)
    return f": {broke.property} breaks ({said or broke.said or property_named(broke.property).doc}){also}"


def _expected(machine: Machine, sequence: Sequence, step: int) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The observation and held lists expected after `step`: recorded, or the model's."""
    if sequence.recorded is not None:
        return sequence.recorded.expected[step]
    post = sequence.steps[step - 1][2] if step else machine.init_states()[0]
    return observe(post), white_box(post)


def divergence_at(sequence: Sequence, step: int, kind: str, message: str, *, clauses: tuple[str, ...] | None = None,
                  expected: Any = None, actual: Any = None, prop: str | None = None, field: str | None = None,
                  restarts: tuple[int, ...] = (), also: tuple[str, ...] = ()) -> Divergence:
    """The divergence at `step` of `sequence`: the steps up to it and, unless given, the clauses it enacts."""
    steps = sequence.steps[:step]
    if clauses is None:
        clauses = enacts(steps[-1]) if steps else ()
    return Divergence(steps, step, kind, message, tuple(clauses), expected, actual, prop, field=field,
                      restarts=restarts, also=also)


def shrink_divergence(adapter: Adapter, machine: Machine, divergence: Divergence, reset: dict[str, Any], mode: str,
                      held: bool, restart: bool = False, budget: int = 500_000) -> Divergence:
    """The shortest sequence of model steps on which the runtime diverges, found breadth-first.

    Every edge of the model's graph is tried in order of depth, up to the depth of the divergence
    found: the runtime takes the shortest path to the edge's state and the edge, observed after every
    step. The first divergence
    is a shortest one, for a deterministic runtime. Gives up, keeping `divergence`, after `budget`
    steps.

    A fault (the runtime died, hung, or sent a partial or malformed line) leaves the process unfit to ask
    again: each candidate is then tried on a fresh process (at most `FRESH` of them), so that the fault is
    found again at the step where it happens, or the divergence as first found is kept."""
    root = machine.init_states()[0]
    fresh_each = divergence.kind == "fault"
    if fresh_each and not fresh_runtime(adapter):
        return dataclasses.replace(divergence, found_at=divergence.step)
    started = 0
    paths: dict[Any, tuple[tuple[Any, Any, Any], ...]] = {root: ()}
    level, spent = [root], 0
    for _ in range(divergence.step - 1):
        deeper = []
        for state in level:
            path = paths[state]
            for action, post in machine.successors(state):
                spent += len(path) + 1
                if spent > budget:
                    return dataclasses.replace(divergence, found_at=divergence.step)
                if fresh_each and started:
                    if started >= FRESH or not fresh_runtime(adapter):
                        return dataclasses.replace(divergence, found_at=divergence.step)
                started += 1
                # judged after every step (and restarted wherever nothing is in flight), not only the last:
                # a restart in the middle may be what the runtime fails at later
                found = drive(adapter, machine, Sequence(path + ((state, action, post),), 0), reset, mode, held,
                               restart)
                if found is not None:
                    return dataclasses.replace(found, found_at=divergence.step)
                if post not in paths:
                    paths[post] = path + ((state, action, post),)
                    deeper.append(post)
        level = deeper
    return dataclasses.replace(divergence, found_at=divergence.step)


FRESH = 200  # fresh runtimes a shrink after a fault may start


def fresh_runtime(adapter: Adapter) -> bool:
    """A fresh runtime behind the adapter, greeted; False if it cannot even say hello."""
    try:
        restart(adapter)
        adapter.exchange([{"type": "hello", "protocol": PROTOCOL}])
    except RuntimeFault:
        return False
    return True


def divergence_document(machine: Machine, result: ConformResult, command: str) -> dict[str, Any]:
    """The ITF trace of a divergence: the model's path to it, and what the runtime showed instead."""
    d = result.divergence
    if d is None:
        raise ValueError("the runtime did not diverge: there is no trace to write")
    steps = tuple(fine(d.steps))  # the model's own steps, a composed one unfolded
    at = [0]  # the trace's step at which each of the runtime's steps ends
    for step in d.steps:
        at.append(at[-1] + len(tuple(fine((step,)))))
    states = (machine.init_states()[0],) + tuple(post for _, _, post in steps)
    discovery = Discovery(states, tuple(action for _, action, _ in steps), d.message)
    document = document_for(machine, discovery, name=d.property or "conformance", kind="conformance",
                            clauses=d.clauses, verdict="divergence",
                            description=f"the runtime {result.runtime!r} departs from the model ({result.mode})",
                            command=command)
    document["#meta"]["runtime"] = {"command": result.runtime, "mode": result.mode, "step": at[d.step],
                                    "kind": d.kind, "found_at": d.found_at, "field": d.field,
                                    "restarts": [at[s] for s in d.restarts], "expected": d.expected,
                                    "actual": d.actual}
    if result.macros:  # the runtime's steps, each a run of the trace's: `grain` lists where each ends
        document["#meta"]["runtime"] |= {"macros": list(result.macros), "grain": at[1:d.step + 1]}
    for step in d.restarts:  # the runtime under test restarted after this step (the model's state is all durable)
        document["states"][at[step]].setdefault("#meta", {})["restart"] = True
    return document
