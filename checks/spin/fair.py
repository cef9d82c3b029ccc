"""Liveness on Spin under the same fairness as the search: one process per action, LTL, `pan -a`.

The search (`checks/search/liveness.py`) decides each liveness property of `model/liveness.py` under the
assumptions `--fairness` names (`model/liveness.py`'s `FAIRNESS`): weak fairness of every state-changing
step, strong fairness of a write that succeeds, each of one action (its kind and fields) on its own. This
module asks Spin the same question of the generated Promela (`promela.generate` with `actions`):

- **One process per action.** Each rule option (a rule at one binder slot and parameter values) is split
  into one option per action it can take: the option's guard, and that the action's fields have the
  action's values (the execution of the slot; a segment's key, its own or a racing resume's; the running
  call, the latest question's id). The options of one action form one process, looping over them. So a
  process is enabled exactly where its action is, and Spin's weak fairness (`pan -f`: a process enabled
  without pause eventually moves) is the search's weak fairness of each action. A poll enabled without
  pause moves too: that changes no state, and the properties speak of states only (stutter-invariant).
- **Strong fairness of a write** is a conjunct of the formula for each process of a `WriteMessage(..., ok
  =True)`: `([]<> enabled) -> ([]<> _last == pid)`, its enabledness being the disjunction of its guards.
- **The property**: its facts (`Eventually.facts`, the same formulas the search compiles) each as a macro;
  the formula says that every fact fails again and again: `fair -> ([]<> !f1 && []<> !f2 ...)`. Spin
  decides it exactly; a violation is an acceptance cycle, whose trail (the steps, and pan's marker where the
  cycle starts) is decoded into a path of the explicit model and a `Lasso`, written as ITF with its loop,
  which `pausecheck replay` confirms under the same fairness.

`no_stuck_execution` (from every reachable state a final state is reachable) is a branching-time property:
no LTL formula says it, and it stays with the search. A rule whose action has a field other than the ones
above is refused in one line (`TooLarge`), since its process could not be named.
"""

from __future__ import annotations

import itertools
import os
import re
import subprocess
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pausecheck.model import Bounds, Machine
from pausecheck.model.actions import WriteMessage
from pausecheck.model.liveness import LIVENESS, Eventually, fairness_named
from pausecheck.model.reading import Reading
from pausecheck.model.rules import EXECUTIONS, RULES, SEGMENTS, SESSIONS
from pausecheck.model.state import Attempt, Question, State

from ..search.liveness import Lasso
from ..symbolic.relation import Caps, Lower
from ..symbolic.values import EXEC, RACE, encode_str
from .code import Code, text
from .pan import DEPTH, HASH_BITS, SpinError, _tool, parse
from .promela import Model, Option, TooLarge, _paths, capacities, generate, reached_states
from .trail import TrailError, d_step_lines, options_on, path_of
from .words import HOLDS, UNKNOWN, VIOLATED

__all__ = ["LTL", "SpinLiveness", "liveness_model", "optimise_for", "spin_liveness"]

LTL = tuple(p.name for p in LIVENESS if p.name != "no_stuck_execution")  # the properties LTL can say

OTHER = "?"  # the value of a split field outside its domain: "any other call" (one process for all of them)


def domains(bounds: Bounds, states: Sequence[State] = ()) -> dict[tuple[type, str], tuple[Any, ...]]:
    """The values a field computed from the state may take in an action: the running call (c1 .. c<calls x
    (pauses + 1)>), the latest question's id (1 .. pauses); widened to every value found in `states` (a mutant's
    or a draft's sample: a fresh call on resume goes past the rules' count)."""
    calls = bounds.calls * (bounds.pauses + 1)
    questions = set(range(1, bounds.pauses + 1))
    for state in states:
        for e in state.executions:
            calls = max([calls] + [int(a.call[1:]) for a in e.attempts])
            questions |= {q.id for q in e.questions}
    return {(Attempt, "call"): tuple(f"c{k}" for k in range(1, calls + 1)),
            (Question, "id"): tuple(sorted(questions))}


def _encoded(value: Any) -> Any:
    return encode_str(value) if isinstance(value, str) else value


class _Actions:
    """Each option split by the action it takes (`promela.Actions`)."""

    def __init__(self, bounds: Bounds, states: Sequence[State] = ()) -> None:
        self.bounds = bounds
        self.domains = domains(bounds, states)

    def _values(self, pure: Code, L: Lower, rule: Any, slot: int, index: int, scope: dict[str, Any],
                field: Any) -> list[tuple[Any, Any]]:
        """(the test that the field has this value, the value) for each value it may have here."""
        if field.op == "const":
            return [(True, field.args[0])]
        if field.op == "var" and field.args[0] == "session" and rule.over is SESSIONS:
            return [(True, slot)]
        value = L.expr(field, scope)
        if field.op == "field" and field.args[0].op == "var":
            binder, name = field.args[0].args[0], field.args[1]
            if (binder, name, rule.over) == ("e", "id", EXECUTIONS):
                return [(pure.eq(value, EXEC + 1 + slot), f"e{slot + 1}")]
            if (binder, name, rule.over) == ("g", "execution", SEGMENTS):
                keys = [(pure.eq(value, EXEC + 1 + index), f"e{index + 1}")]
                if self.bounds.races:
                    keys.append((pure.eq(value, RACE + 1 + index), f"e{index + 1}'"))
                return keys
        record = field.args[0].t if field.op == "field" else None
        domain = None if record is None else self.domains.get((getattr(record, "item", record), field.args[1]))
        if domain is None:
            raise TooLarge(f"Spin's liveness cannot name the actions of {rule.action.__name__}: its field {field!r} "
                           "is computed from the state and has no known domain (checks/spin/fair.py domains)")
        tests = [(pure.eq(value, _encoded(v)), v) for v in domain]
        # every other value in one process, so that no step is lost: its fairness is then of all of them at once
        return tests + [(pure.conj(*[pure.neg(t) for t, _ in tests]), OTHER)]

    def __call__(self, pure: Code, L: Lower, rule: Any, slot: int, index: int, scope: dict[str, Any], guard: Any,
                 fields: tuple[Any, ...]) -> list[tuple[Any, Any]]:
        out = []
        choices = [self._values(pure, L, rule, slot, index, scope, f) for f in fields]
        for combo in itertools.product(*choices):
            taken = pure.conj(guard, *[test for test, _ in combo])
            if pure.known(taken) is not False:
                out.append((taken, rule.action(*[v for _, v in combo])))
        return out


def _claim(name: str, formula: str) -> str:
    """The never claim of a property (`spin -f` of its negation, over macro names only: Spin's LTL parser would
    read a macro's `c -> a : b` as an implication), named so that `pan -N name` picks it."""
    done = subprocess.run(["spin", "-f", f"!({formula})"], capture_output=True, text=True)
    if done.returncode != 0 or "never" not in done.stdout:
        raise SpinError(f"spin -f failed on the formula of {name}: {(done.stderr or done.stdout).strip()[:200]}")
    return done.stdout.replace("never  {", f"never {name} {{", 1).replace("never {", f"never {name} {{", 1)


def _formulas(bounds: Bounds, caps: Caps, model: Model, strong: bool,
              props: Sequence[Eventually]) -> list[str]:
    """The macros and one never claim per property."""
    pure = Code()
    L = Lower(pure, caps)
    pre = _paths(State, "", None, caps)
    lines: list[str] = []
    fair: list[str] = []
    if strong:  # strong fairness of each write that succeeds: enabled again and again, taken again and again
        for pid, action in enumerate(model.processes):
            if type(action) is WriteMessage and action.ok:
                lines += [f"#define en_{pid} ({model.enabled[pid]})", f"#define took_{pid} (_last == {pid})"]
                fair.append(f"(([]<> en_{pid}) -> ([]<> took_{pid}))")
    formulas: dict[str, str] = {}
    for p in props:
        facts = []
        for k, (name, x) in enumerate(p.facts(bounds)):
            value = L.expr(x, {"S": pre})
            if pure.known(value) is False:
                continue  # a fact these bounds cannot raise
            macro = f"{p.name}_{k}"
            lines.append(f"#define {macro} ({text(value) if pure.known(value) is None else int(value)})  /* {name} */")
            facts.append(f"([]<> !{macro})")
        goal = "(" + " && ".join(facts) + ")" if facts else "true"
        formulas[p.name] = f"({' && '.join(fair)}) -> {goal}" if fair else goal
    return lines + [_claim(name, formula) for name, formula in formulas.items()]


@dataclass
class SpinLiveness:
    """One liveness property as Spin decided it: holds, VIOLATED (with its lasso) or not established."""

    name: str
    status: str
    lasso: Lasso | None = None
    states: int = 0
    seconds: float = 0.0
    note: str | None = None


def liveness_model(bounds: Bounds, reading: Reading, fairness: Sequence[str], rules: tuple[Any, ...] = RULES,
                   caps: Caps | None = None, out_name: str = "model.pml", states: Sequence[State] = ()) -> Model:
    """The Promela model of one process per action, with one never claim per property of `LTL`; `states`, a
    sample of a table of one's own, widens the domains of the fields computed from the state (`domains`)."""
    caps = caps or capacities(bounds, reading)
    strong = "write" in fairness
    bare = generate(bounds, reading, out_name, caps, rules=rules, actions=_Actions(bounds, states))
    extra = _formulas(bounds, caps, bare, strong, [p for p in LIVENESS if p.name in LTL])
    return Model(bare.text + "\n".join(extra) + "\n", bare.options, bare.processes, bare.enabled)


_SECTION = re.compile(r"/\* proctype \d+: (\w+) \*/")


def _claim_transitions(table: str, claims: Sequence[str]) -> set[int]:
    """The transitions of the never claims in pan's table (`pan.t`), section by section."""
    out: set[int] = set()
    inside = False
    for line in table.splitlines():
        found = _SECTION.search(line)
        if found:
            inside = found.group(1) in claims
        elif inside:
            out |= {int(t) for t in re.findall(r"settr\((\d+),", line)}
    return out


def lasso_options(model: Model, folder: Path, trail: Path, claims: Sequence[str]) -> tuple[list[Option], int]:
    """The options an acceptance cycle's trail takes, and how many come before its cycle (pan's `-1` marker).
    The claim's own moves are skipped; a step that is neither a claim's nor a d_step is a `TrailError`."""
    table_text = (folder / "pan.t").read_text(encoding="utf-8")
    table = d_step_lines(table_text)
    claim = _claim_transitions(table_text, claims)
    stem: list[int] = []
    cycle: list[int] | None = None
    for entry in trail.read_text(encoding="utf-8").split():
        depth, _process, transition = (int(x) for x in entry.split(":"))
        if depth == -1:
            cycle = []
        if depth < 0 or transition in claim:
            continue
        if transition not in table:
            raise TrailError(f"the cycle's trail: transition {transition} is neither the claim's nor a d_step")
        (stem if cycle is None else cycle).append(table[transition])
    if cycle is None:
        raise TrailError("pan's trail marks no cycle")
    return options_on(model, stem + cycle, "the cycle's trail"), len(options_on(model, stem, "the cycle's trail"))


def _lasso(machine: Machine, options: list[Option], loop: int) -> Lasso:
    """The explicit model's lasso along the options: the path, its loop from `loop`, closed by its last step
    (or, with no step in the cycle, a stutter in the last state); shortened as a reader wants it: the stem
    without its detours (a state it returns to), the loop without the steps that change nothing (a poll,
    which fairness never owes), unless only such steps close it."""
    path = path_of(machine, options, None)
    states, actions = list(path.states), list(path.actions)
    if loop < len(actions) and states[-1] != states[loop]:
        raise TrailError(f"the cycle does not return to the state of step {loop}: the engines disagree")
    stem_states, stem_actions = _without_detours(states[:loop + 1], actions[:loop])
    cycle = [(a, t) for a, s, t in zip(actions[loop:], states[loop:-1], states[loop + 1:], strict=True) if s != t]
    start = len(stem_states) - 1
    if not cycle:  # a stutter: closed by the step that changes nothing, if there is one
        return Lasso(tuple(stem_states), tuple(stem_actions + actions[loop:loop + 1]), start)
    loop_states = [t for _, t in cycle[:-1]]
    return Lasso(tuple(stem_states + loop_states), tuple(stem_actions + [a for a, _ in cycle]), start)


def _shrunk(machine: Machine, name: str, lasso: Lasso) -> Lasso:
    """The lasso with each stretch of its loop that returns to a state it left cut out, the largest first, while
    the machine still judges it a fair loop that breaks `name` (`judge_eventually`)."""
    states, actions, start = list(lasso.states), list(lasso.actions), lasso.loop_start
    if len(actions) < len(states):
        return lasso  # a stutter with no step: nothing to cut
    cut = True
    while cut:
        cut = False
        loop = states[start:]
        seen: dict[Any, int] = {}
        pairs = []
        for j, state in enumerate(loop):
            if state in seen:
                pairs.append((seen[state], j))
            seen.setdefault(state, j)
        for i, j in sorted(pairs, key=lambda p: p[0] - p[1]):
            trial_states = states[:start + i] + states[start + j:]
            trial_actions = actions[:start + i] + actions[start + j:]
            if machine.judge_eventually(name, trial_states, start, trial_actions)[0]:
                states, actions, cut = trial_states, trial_actions, True
                break
    return Lasso(tuple(states), tuple(actions), start)


def _without_detours(states: list[Any], actions: list[Any]) -> tuple[list[Any], list[Any]]:
    """A path with every stretch that returns to a state it left cut out (the same ends, no repeated state)."""
    out_states: list[Any] = [states[0]]
    out_actions: list[Any] = []
    seen = {states[0]: 0}
    for action, state in zip(actions, states[1:], strict=True):
        if state in seen:
            cut = seen[state]
            for gone in out_states[cut + 1:]:
                del seen[gone]
            del out_states[cut + 1:], out_actions[cut:]
            continue
        seen[state] = len(out_states)
        out_states.append(state)
        out_actions.append(action)
    return out_states, out_actions


def _nfair(processes: int) -> int:
    """pan's `-DNFAIR` for weak fairness over this many processes and the claim (it holds 4 * NFAIR - 2)."""
    return max(2, (processes + 1 + 2 + 3) // 4)


def optimise_for(states: int, given: str = "-O0") -> str:
    """gcc's level for the liveness model of a graph of `states` states (the safety search's count): -O1 past
    10,000, since pan -f unfolds the graph about ten times and -O1 pays past some 100,000 states; a level the
    user gave (past -O0) stands."""
    return given if given != "-O0" or states < 10_000 else "-O1"


def spin_liveness(bounds: Bounds, reading: Reading, fairness: Sequence[str], *, rules: tuple[Any, ...] = RULES,
                  machine: Machine | None = None, caps: Caps | None = None, hash_bits: int = HASH_BITS,
                  depth: int = DEPTH, max_seconds: float | None = None,
                  optimise: str = "-O0") -> tuple[list[SpinLiveness], int]:
    """Each property of `LTL` decided by Spin under `fairness` (names of `FAIRNESS`): weak fairness of the steps
    by `pan -f`, strong fairness of the writes in the formula; one pan per property, side by side on the cores.
    A violation's lasso is decoded on `machine`. Also the number of processes of the model (one per action). A
    table of one's own (a mutant's, a draft's) is sampled first (`promela.reached_states`): its arrays and its
    actions' fields sized to what it reaches. `optimise` is gcc's level (-O1 pays past some 100,000 states:
    at the defaults gcc took 8.3 s against 2.9 s, and pan 22 s against 72 s a property)."""
    fairness_named(fairness)  # a ValueError naming an unknown assumption
    machine = machine or Machine(bounds, reading, rules=rules, fairness=tuple(fairness))
    states = () if rules is RULES else reached_states(machine)
    caps = caps or capacities(bounds, reading).covering(states)
    model = liveness_model(bounds, reading, fairness, rules, caps, states=states)
    with tempfile.TemporaryDirectory(prefix="pausecheck-spin-live-") as tmp:
        folder = Path(tmp)
        (folder / "model.pml").write_text(model.text, encoding="utf-8")
        _tool(["spin", "-a", "-o2", "model.pml"], folder)
        _tool(["gcc", optimise, "-w", "-DNOREDUCE", f"-DNFAIR={_nfair(len(model.processes))}", "-o", "pan", "pan.c"],
              folder)

        def pan(name: str) -> tuple[str, subprocess.CompletedProcess[str] | None, float]:
            """One property's search, in a folder of its own (each pan writes its trail where it runs)."""
            (folder / name).mkdir()
            argv = ["../pan", "-a", *(["-f"] if "steps" in fairness else []), "-N", name, f"-m{depth}",
                    f"-w{hash_bits}", "-c1", "-e", "-n"]
            started = time.monotonic()
            try:
                done = subprocess.run(argv, cwd=folder / name, capture_output=True, text=True, timeout=max_seconds)
            except subprocess.TimeoutExpired:
                return name, None, time.monotonic() - started
            return name, done, time.monotonic() - started

        with ThreadPoolExecutor(max_workers=max(1, min(len(LTL), os.cpu_count() or 1))) as pool:
            runs = list(pool.map(pan, LTL))
        out = [_decided(name, done, seconds, model, folder, machine, max_seconds) for name, done, seconds in runs]
    return out, len(model.processes)


def _decided(name: str, done: subprocess.CompletedProcess[str] | None, seconds: float, model: Model, folder: Path,
             machine: Machine, max_seconds: float | None) -> SpinLiveness:
    """One property's verdict from its pan run: holds, VIOLATED with its lasso, or not established."""
    if done is None:
        return SpinLiveness(name, UNKNOWN, seconds=seconds, note=f"pan stopped after {max_seconds:g} s")
    if "too many processes" in done.stdout:
        raise SpinError(f"pan: {done.stdout.splitlines()[1].strip()}")
    run = parse(done.stdout)
    if run.overflows and not any("acceptance cycle" in o for o in run.overflows):
        raise SpinError(f"pan: {run.overflows[0]}: a successor does not fit the model's arrays")
    verdict = SpinLiveness(name, HOLDS, states=run.states, seconds=seconds)
    if "acceptance cycle" in done.stdout:
        verdict.status = VIOLATED
        try:
            options, loop = lasso_options(model, folder, folder / name / "model.pml1.trail", LTL)
            verdict.lasso = _shrunk(machine, name, _lasso(machine, options, loop))
        except TrailError as error:
            verdict.note = str(error)
    elif not run.complete:
        verdict.status, verdict.note = UNKNOWN, "pan's search did not end (a depth or memory limit)"
    return verdict
