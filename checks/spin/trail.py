"""A Spin counterexample made a path of the explicit model, then an ITF trace that `pausecheck replay` runs.

Each step of pan's trail N (`model.pmlN.trail`: depth, process, transition) is a d_step, named in pan's
transition table (`pan.t`) by the line it opens on (`spin -t<N> -p` prints the same, much slower on a large
model); that is the `do` option taken, whose line the generator recorded (`promela.Model.options`). Each
option is a rule at one binder slot with given parameter values: the step is the one successor of the
explicit model (`Machine.successors` of that rule alone) whose action names that slot (its session, or the id
of the execution or segment in that slot) and those values. Options of the checks (`assertions.py`)
change no state and are skipped. A step that matches no successor, or more than one different
post-state, means the Promela and the explicit model disagree: `TrailError`.
"""

from __future__ import annotations

import dataclasses
import re
import subprocess
from pathlib import Path
from typing import Any

from pausecheck.model.machine import Machine
from pausecheck.model.rules import EXECUTIONS, SEGMENTS, SESSIONS
from pausecheck.model.state import State

from ..search.explore import Discovery
from .promela import Model, Option

__all__ = ["TrailError", "trail_options", "d_step_lines", "options_on", "path_of"]

_STEP = re.compile(r"^\s*(\d+):\s+proc\s+\d+ \(\S+\) \S+?:(\d+) ")
_SETTR = re.compile(r"settr\((\d+),[^\n]*?\"D_STEP(\d+)\"")


class TrailError(RuntimeError):
    """A trail that does not decode to a path of the explicit model (one line)."""


def trail_options(model: Model, folder: Path, number: int) -> list[Option]:
    """The options trail `number` takes, in order (checks included): read from the trail file itself, each
    step's transition named by the line its d_step opens on in pan's table (`pan.t`: `D_STEP<line>`; no
    parse of the model, which `spin -t -p` spends seconds on for a large one), or by spin where a step is
    not a d_step."""
    steps = _trail_lines(folder, number)
    return options_on(model, steps if steps is not None else _spin_lines(folder, number), f"trail {number}")


def d_step_lines(table: str) -> dict[int, int]:
    """Each d_step transition of pan's table (the text of `pan.t`) with the line of the model it opens on."""
    return {int(t): int(line) for t, line in _SETTR.findall(table)}


def options_on(model: Model, lines: list[int], what: str) -> list[Option]:
    """The options whose steps open on these lines, in order: a line inside an option split in several d_steps
    (`promela._chunks`) is the same step; a line that is no option's is a `TrailError`."""
    taken: list[Option] = []
    for step, line in enumerate(lines, 1):
        option = model.option_at(line)
        if option is None and model.continues(line):
            continue
        if option is None:
            raise TrailError(f"{what}: step {step} starts on line {line}, no option's guard")
        taken.append(option)
    return taken


def _trail_lines(folder: Path, number: int) -> list[int] | None:
    """The line each step of trail `number` opens on, from the trail (depth:process:transition) and pan's
    transition table; None if a step is not a d_step."""
    table = d_step_lines((folder / "pan.t").read_text(encoding="utf-8"))
    lines = []
    for entry in (folder / f"model.pml{number}.trail").read_text(encoding="utf-8").split():
        depth, _process, transition = (int(x) for x in entry.split(":"))
        if depth < 0:  # the header, and pan's markers (-4: the trail's start, -1: a cycle's)
            continue
        if transition not in table:
            return None
        lines.append(table[transition])
    return lines


def _spin_lines(folder: Path, number: int) -> list[int]:
    """The line each step of trail `number` starts on, as `spin -t -p` prints them."""
    done = subprocess.run(["spin", f"-t{number}", "-p", "model.pml"], cwd=folder, capture_output=True, text=True)
    lines, last_step = [], None
    for line in done.stdout.splitlines():
        found = _STEP.match(line)
        if found is None or found.group(1) == last_step:
            continue
        last_step = found.group(1)
        lines.append(int(found.group(2)))
    return lines


def _field_index(rule: Any, name: str) -> int | None:
    """The position in the action of the field a parameter fills, if any."""
    for k, expr in enumerate(rule.fields):
        if expr.op == "var" and expr.args[0] == name:
            return k
    return None


def _matches(option: Option, state: State, action: Any) -> bool:
    rule = option.rule
    if type(action) is not rule.action:
        return False
    values = [getattr(action, f.name) for f in dataclasses.fields(action)]
    if rule.over is SESSIONS and values[0] != option.slot:
        return False
    if rule.over is EXECUTIONS and values[0] != state.executions[option.slot].id:
        return False
    if rule.over is SEGMENTS:
        if values[0] != state.segments[option.slot].execution:
            return False
    for name, value in option.given:
        k = _field_index(rule, name)
        if k is not None and values[k] != value:
            return False
    return True


def path_of(machine: Machine, options: list[Option], message: str | None) -> Discovery:
    """The explicit model's path that the rule options take, from the initial state."""
    states: list[State] = [machine.init_states()[0]]
    actions: list[Any] = []
    alone: dict[int, Machine] = {}  # the machine of each rule by itself (a mutant may add a rule of the same action)
    for i, option in enumerate(o for o in options if o.rule is not None):
        state = states[-1]
        rule = alone.setdefault(id(option.rule), dataclasses.replace(machine, rules=(option.rule,)))
        found = [(a, post) for a, post in rule.successors(state) if _matches(option, state, a)]
        posts = {post for _, post in found}
        if len(posts) != 1:
            raise TrailError(f"step {i + 1} of the trail ({option.rule.action.__name__} at slot {option.slot}) "
                             f"matches {len(found)} successors of the explicit model")
        actions.append(found[0][0])
        states.append(found[0][1])
    return Discovery(tuple(states), tuple(actions), message)
