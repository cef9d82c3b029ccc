"""A Spin counterexample made a path of the explicit model, then an ITF trace that `pausecheck replay` runs.

`spin -t<N> -p model.pml` replays pan's trail N and prints, for each step, the source line of each
statement it runs; a step's first statement is the guard of the `do` option taken, whose line the
generator recorded (`promela.Model.options`). Each option is a rule at one binder slot with given
parameter values: the step is the one successor of the explicit model (`Machine.successors`) of that
rule whose action names that slot (its session, or the id of the execution or segment in that slot) and
those values. Options of the checks (`assertions.py`) change no state and are skipped. A step that
matches no successor, or more than one different post-state, means the Promela and the explicit model
disagree: `TrailError`.
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

from ..explore import Discovery
from .promela import Model, Option

__all__ = ["TrailError", "trail_options", "path_of"]

_STEP = re.compile(r"^\s*(\d+):\s+proc\s+\d+ \(\S+\) \S+?:(\d+) ")


class TrailError(RuntimeError):
    """A trail that does not decode to a path of the explicit model (one line)."""


def trail_options(model: Model, folder: Path, number: int) -> list[Option]:
    """The options trail `number` takes, in order (checks included)."""
    done = subprocess.run(["spin", f"-t{number}", "-p", "model.pml"], cwd=folder, capture_output=True, text=True)
    taken: list[Option] = []
    last_step = None
    for line in done.stdout.splitlines():
        found = _STEP.match(line)
        if found is None or found.group(1) == last_step:
            continue
        last_step = found.group(1)
        option = model.option_at(int(found.group(2)))
        if option is None and model.continues(int(found.group(2))):
            continue  # the next d_step of an option split in several (`promela._chunks`): the same step
        if option is None:
            raise TrailError(f"trail {number}: step {last_step} starts on line {found.group(2)}, no option's guard")
        taken.append(option)
    return taken


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
    for i, option in enumerate(o for o in options if o.rule is not None):
        state = states[-1]
        found = [(a, post) for a, post in machine.successors(state) if _matches(option, state, a)]
        posts = {post for _, post in found}
        if len(posts) != 1:
            raise TrailError(f"step {i + 1} of the trail ({option.rule.action.__name__} at slot {option.slot}) "
                             f"matches {len(found)} successors of the explicit model")
        actions.append(found[0][0])
        states.append(found[0][1])
    return Discovery(tuple(states), tuple(actions), message)
