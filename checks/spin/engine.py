"""`pausecheck check --engine spin`: the properties checked by Spin on the generated Promela.

`spin_check(bounds, reading, properties)` generates the model with every property as an assertion and
deadlock as one (`assertions.py`), compiles it, runs pan (`pan.py`) and reads its verdicts: a property
reported is broken (a witness reported is witnessed); one not reported holds, or is not witnessed, when
the search was complete, and is otherwise not established. Each counterexample or witness is decoded from
its trail into a path of the explicit model (`trail.py`) and written as an ITF document that `pausecheck
replay` re-executes; the Python engine judges the path's end too, where it knows the property.

What stays with the Python engine (`pausecheck check`): the liveness properties (weak fairness on the
state graph), the companion searches, vacuity (each property's situation witnessed) and the report.
Partial-order reduction: the model is one process (every rule reads and writes shared state: the
executions, the segments in key order, the artifact ledger, the failed write-backs), so pan compiled with
reduction stores the same states as without; `reduce=False` compiles with -DNOREDUCE.
"""

from __future__ import annotations

import dataclasses
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pausecheck.model import Bounds, Machine
from pausecheck.model.liveness import FAIR, liveness_named
from pausecheck.model.machine import DEADLOCK_DOC
from pausecheck.model.reading import Reading

from ..mutants.evidence import command_line, document_for, lasso_document
from ..search.liveness import LivenessVerdict
from ..symbolic.relation import Caps
from .assertions import ALWAYS, DEADLOCK, SOMETIMES, Assertions, flag_name
from .fair import optimise_for, spin_liveness
from .pan import DEPTH, HASH_BITS, PanRun, SpinError, compile_model, run_pan
from .promela import Model, generate
from .trail import TrailError, path_of, trail_options
from .words import HOLDS, NOT_EXERCISED, NOT_WITNESSED, UNKNOWN, VACUOUS, VIOLATED, WITNESSED

__all__ = ["SpinVerdict", "SpinReport", "spin_check", "LEFT_TO_PYTHON", "HOLDS", "VIOLATED", "WITNESSED",
           "NOT_WITNESSED", "UNKNOWN", "VACUOUS", "NOT_EXERCISED"]

LEFT_TO_PYTHON = ("liveness (eventually, under the stated fairness)", "the companion searches",
                  "the report (pausecheck report)")
BRANCHING = "no_stuck_execution (from every state a final state is reachable: branching time, which no LTL " \
            "formula says)"
EVENTUALLY = "eventually"



@dataclass
class SpinVerdict:
    """One property's verdict from pan, with its trace (ITF) where pan reported it."""

    name: str
    kind: str
    clauses: tuple[str, ...]
    status: str
    document: dict[str, Any] | None = None
    note: str | None = None  # a trail that did not decode, or that the Python engine does not confirm
    situation: str | None = None  # the witness of its situation, if it has one


@dataclass
class SpinReport:
    """A Spin search: what pan stored, the verdicts, what it did not check and why."""

    bounds: Bounds
    reading: Reading
    run: PanRun
    verdicts: list[SpinVerdict]
    skipped: dict[str, str] = field(default_factory=dict)
    accept_unexercised: bool = False
    generate_seconds: float = 0.0
    compile_seconds: float = 0.0
    wall_seconds: float = 0.0
    liveness: list[Any] = field(default_factory=list)  # `fair.SpinLiveness`, where liveness was asked
    fairness: tuple[str, ...] | None = None  # the fairness it was decided under (None: not asked)
    processes: int = 0  # the processes of its model: one per action

    @property
    def exit_code(self) -> int:
        """1 a violation or deadlock; 3 nothing violated but something not established (an incomplete or
        probabilistic search, a witness not found, a vacuous property, one the bounds cannot exercise unless
        that is accepted); 0 every property established."""
        if any(v.status == VIOLATED for v in self.verdicts):
            return 1
        failing = {NOT_WITNESSED, UNKNOWN, VACUOUS} | (set() if self.accept_unexercised else {NOT_EXERCISED})
        if not self.run.complete or any(v.status in failing for v in self.verdicts):
            return 3
        return 0

    @property
    def left_to_python(self) -> tuple[str, ...]:
        """What this search did not judge, which `pausecheck check` does."""
        judged = {v.name for v in self.verdicts}
        vacuity = () if all(v.situation in judged for v in self.verdicts if v.situation) and \
            any(v.situation for v in self.verdicts) else ("vacuity (each property's situation witnessed)",)
        if self.fairness is None:
            return LEFT_TO_PYTHON + vacuity
        return (BRANCHING,) + LEFT_TO_PYTHON[1:] + vacuity


def _document(machine: Machine, verdict: SpinVerdict, discovery: Any, command: str, doc: str) -> dict[str, Any]:
    kind = DEADLOCK if verdict.kind == DEADLOCK else verdict.kind
    shown = "witness" if verdict.kind == SOMETIMES else DEADLOCK if kind == DEADLOCK else "violation"
    return document_for(machine, discovery, name=verdict.name, kind=kind, clauses=verdict.clauses, verdict=shown,
                        description=doc, command=command)


def _confirm(machine: Machine, name: str, kind: str, discovery: Any) -> tuple[str | None, str | None]:
    """(the Python engine's message at the path's end, a note if it does not show the property there)."""
    known = name == DEADLOCK or any(p.name == name for p in machine.properties)
    if not known:
        return "broken in the last state, by Spin's assertion" if kind != SOMETIMES else None, None
    post = discovery.states[-1]
    pre = discovery.states[-2] if len(discovery.states) > 1 else None
    action = discovery.actions[-1] if discovery.actions else None
    shows, message = machine.judge(name, pre, action, post)
    if not shows:
        return None, "the explicit model does not show it at the trace's end: the engines disagree"
    return message, None


def _verdict(kind: str, name: str, properties: Sequence[Any], run: PanRun, number: int | None, machine: Machine,
             model: Model, folder: Path, command: str) -> SpinVerdict:
    """One property's verdict: reported by pan (its trail `number` decoded into an ITF document), or not."""
    prop = next((p for p in properties if p.name == name), None)
    clauses, situation = tuple(getattr(prop, "clauses", ())), getattr(prop, "situation", None)
    if number is None:
        status = (NOT_WITNESSED if kind == SOMETIMES else HOLDS) if run.complete else UNKNOWN
        return SpinVerdict(name, kind, clauses, status, situation=situation)
    verdict = SpinVerdict(name, kind, clauses, WITNESSED if kind == SOMETIMES else VIOLATED, situation=situation)
    try:
        discovery = path_of(machine, trail_options(model, folder, number), None)
    except TrailError as error:
        verdict.note = str(error)
        return verdict
    message, verdict.note = _confirm(machine, name, kind, discovery)
    discovery = type(discovery)(discovery.states, discovery.actions, message)
    doc = DEADLOCK_DOC if kind == DEADLOCK else next((p.doc for p in machine.properties if p.name == name), name)
    verdict.document = _document(machine, verdict, discovery, command, doc)
    return verdict


def _situations(verdicts: list[SpinVerdict], properties: Sequence[Any], bounds: Bounds) -> None:
    """As the Python engine judges them: a witness the bounds cannot reach (its `requires` names the flag
    they lack) is not exercised; a property that holds is vacuous where its situation's witness was not
    found, and not exercised where the bounds cannot reach it. A situation Spin does not check is left to
    the Python engine."""
    by_name = {v.name: v for v in verdicts}
    for p in properties:
        v, requires = by_name.get(p.name), getattr(p, "requires", None)
        missing = requires(bounds) if v is not None and requires is not None else None
        if v is not None and v.status == NOT_WITNESSED and missing:
            v.status, v.note = NOT_EXERCISED, f"these bounds cannot reach it: {missing}"
    for v in verdicts:
        w = by_name.get(v.situation) if v.situation else None
        if w is None or v.status != HOLDS:
            continue
        if w.status == NOT_EXERCISED:
            v.status, v.note = NOT_EXERCISED, f"its situation, {w.name}, is not exercised at these bounds"
        elif w.status == NOT_WITNESSED:
            v.status, v.note = VACUOUS, f"its situation, {w.name}, is never reached"


def spin_check(bounds: Bounds, reading: Reading, properties: Sequence[Any], *, store: str = "exact",
               reduce: bool = True, hash_bits: int = HASH_BITS, depth: int = DEPTH, memory_mb: int | None = None,
               max_seconds: float | None = None, progress: Callable[[str], None] | None = None,
               optimise: str = "-O0", rules: tuple[Any, ...] | None = None, caps: Caps | None = None,
               machine: Machine | None = None, accept_unexercised: bool = False,
               fairness: tuple[str, ...] | None = None) -> SpinReport:
    """Check `properties` (objects with name, kind, clauses, expr) and deadlock with Spin (see the module's
    doc): on `rules` (default the rule table; a mutant's table), its paths decoded on `machine` (default the
    explicit model of the bounds and reading), its arrays sized by `caps` (default `promela.capacities`; a
    mutant's lists may need more). With `fairness` (names of `model.liveness.FAIRNESS`), the liveness properties
    LTL can say are decided too, under it (`fair.py`). Raises `pan.SpinError` if spin or gcc fails on the model,
    `promela.TooLarge` for bounds past the encoding."""
    say = progress or (lambda _line: None)
    started = time.monotonic()
    checks = Assertions(bounds, reading, properties)
    model = generate(bounds, reading, "model.pml", caps=caps, checks=checks,
                     **({} if rules is None else {"rules": rules}))
    generated = time.monotonic()
    say(f"generated the Promela model ({len(model.options)} options, {len(model.text) // 1024} KiB); compiling")
    machine = machine or Machine(bounds, reading)
    command = command_line(bounds, reading.name, "--engine spin", rules=rules, fairness=fairness or FAIR)
    with tempfile.TemporaryDirectory(prefix="pausecheck-spin-") as tmp:
        folder = Path(tmp)
        compile_model(model.text, folder, store, reduce, memory_mb, optimise)
        compiled = time.monotonic()
        say("pan is searching")
        left = None if max_seconds is None else max_seconds - (compiled - started)  # counted from the call
        if left is not None and left <= 0:  # spent before pan could start: nothing searched
            run = PanRun("", interrupted=True, store=store, reduced=reduce)
        else:
            run = run_pan(folder, store, reduce, hash_bits, depth, progress=say, max_seconds=left)
        if run.overflows:
            raise SpinError(f"pan: {run.overflows[0]}: a successor does not fit the model's arrays (" + (
                "a defect of the generator's capacities, checks/symbolic/relation.py Caps)" if caps is None else
                "sized to the states the table was seen to reach first; export --list-capacity N widens them)"))
        trails = {flag: number for flag, number in run.reports}
        verdicts = [_verdict(kind, name, properties, run, trails.get(flag_name(kind, name)), machine, model, folder,
                             command) for kind, name in checks.reports]
    live: list[Any] = []
    processes = 0
    if fairness is not None:
        left = None if max_seconds is None else max(max_seconds - (time.monotonic() - started), 0.1)
        fair_machine = dataclasses.replace(machine, fairness=tuple(fairness))
        live, processes = spin_liveness(bounds, reading, fairness, rules=machine.rules, machine=fair_machine,
                                        caps=caps, hash_bits=hash_bits, depth=depth, max_seconds=left,
                                        optimise=optimise_for(run.states, optimise))
        verdicts += [_live_verdict(v, fair_machine, command) for v in live]
    _situations(verdicts, properties, bounds)
    report = SpinReport(bounds, reading, run, verdicts, dict(checks.skipped), accept_unexercised)
    report.liveness, report.fairness, report.processes = live, None if fairness is None else tuple(fairness), processes
    report.generate_seconds = generated - started
    report.compile_seconds = compiled - generated
    report.wall_seconds = time.monotonic() - started
    return report


def _live_verdict(v: Any, machine: Machine, command: str) -> SpinVerdict:
    """A liveness property as Spin decided it, its lasso written as ITF with its loop (`lasso_document`)."""
    prop = liveness_named(v.name)
    assert prop is not None
    verdict = SpinVerdict(v.name, EVENTUALLY, prop.clauses, v.status, note=v.note, situation=prop.situation)
    if v.lasso is not None:
        broken, how = machine.judge_eventually(v.name, v.lasso.states, v.lasso.loop_start, v.lasso.actions)
        if not broken:
            verdict.note = f"the explicit model does not confirm the lasso: {how or 'no fact persists'}"
        shown = LivenessVerdict(v.name, prop.clauses, prop.doc, False, v.lasso, how)
        verdict.document = lasso_document(machine, shown, command)
    return verdict


def always_first(verdicts: list[SpinVerdict]) -> list[SpinVerdict]:
    """The verdicts in a reading order: always, transition, deadlock, eventually, witnesses (stable within each)."""
    rank = {ALWAYS: 0, "transition": 1, DEADLOCK: 2, EVENTUALLY: 3, SOMETIMES: 4}
    return sorted(verdicts, key=lambda v: rank.get(v.kind, len(rank)))
