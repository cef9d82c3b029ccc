"""A counterexample as a few lines of Python to paste: the machine it ran on (bounds, reading, mutant)
and its actions as records of `pausecheck.model`, stepped one by one, then the property judged on the
last step. What Hypothesis prints for a failing stateful test, for a trace of ours."""

from __future__ import annotations

import textwrap
from typing import Any

from pausecheck.model import DEFAULT_BOUNDS, action_from_json
from pausecheck.model.actions import declared

__all__ = ["reproduction"]


def _bounds(bounds: dict[str, int]) -> str:
    """`Bounds(...)` with only the fields that differ from the defaults."""
    changed = [f"{k}={v}" for k, v in sorted(bounds.items()) if getattr(DEFAULT_BOUNDS, k, None) != v]
    return f"Bounds({', '.join(changed)})"


def reproduction(document: dict[str, Any]) -> str:
    """Python that rebuilds the trace's behaviour on the model and shows what it breaks (or witnesses).

    Every action is a record of `pausecheck.model` written as its own constructor; the machine is the
    trace's bounds and reading, with its mutant applied if it names one. The last line prints the
    property's verdict on the last step, `(True, how)` for a broken property; for a liveness lasso it
    prints the state the behaviour ends in (from there the property cannot be met)."""
    meta = document["#meta"]
    actions = [action_from_json((state.get("#meta") or {}).get("action")) for state in document["states"][1:]]
    own = {cls.__name__ for cls in declared()}  # a draft's actions: importable once its draft is loaded
    kinds = sorted({type(a).__name__ for a in actions} - own)
    drafted = sorted({type(a).__name__ for a in actions} & own)
    names = ", ".join(["Bounds", "Machine", "reading_named", *kinds])
    imports = f"from pausecheck.model import {names}"
    if len(imports) > 100:
        imports = "from pausecheck.model import (\n" + textwrap.fill(names + ",", 100, initial_indent="    ",
                                                                     subsequent_indent="    ") + "\n)"
    lines = ["# the same behaviour in Python: paste into python3", imports,
             f"bounds = {_bounds(meta.get('bounds') or {})}",
             f"machine = Machine(bounds, reading_named({meta.get('reading', 'conformant')!r})"
             + (f", fairness={tuple(meta['fairness'])!r})" if isinstance(meta.get("fairness"), list) else ")")]
    if isinstance(meta.get("draft"), dict):
        lines += ["from pausecheck.checks.drafts import load_draft",
                  f"machine = Machine(bounds, machine.reading, load_draft({meta['draft'].get('path')!r}).rules)"]
        if drafted:
            lines.append(f"from pausecheck.model.actions import {', '.join(drafted)}  # declared by the draft")
    if meta.get("mutant"):
        lines += ["from pausecheck.checks.mutants import mutant_named, mutate",
                  f"machine = mutate(machine, mutant_named({meta['mutant']!r}))"]
    lines += ["pre = action = None", "state = machine.init_states()[0]", "for action in ["]
    lines += [f"    {a!r}," for a in actions]
    lines += ["]:", "    pre, state = state, machine.step(state, action)"]
    if meta.get("kind") == "eventually":  # a lasso: its states judged whole, the loop from state `loop` on
        name, loop = meta.get("property"), meta.get("loop")
        lines[lines.index("pre = action = None"):] = [
            "actions = ["] + [f"    {a!r}," for a in actions] + [
            "]", "states = [machine.init_states()[0]]", "for action in actions:",
            "    states.append(machine.step(states[-1], action))",
            f"broken, how = machine.judge_eventually({name!r}, states, {loop!r}, actions)",
            f"print('breaks' if broken else 'does not show', {name!r} + (f': {{how}}' if how else ''))"]
    else:
        name = meta.get("property")
        verb = {"violation": "breaks", "witness": "witnesses", "deadlock": "reaches"}.get(meta.get("verdict"), "shows")
        lines += [f"shown, how = machine.judge({name!r}, pre, action, state)",
                  f"print({verb!r} if shown else 'does not show', {name!r} + (f': {{how}}' if how else ''))"]
    return "\n".join(lines) + "\n"
