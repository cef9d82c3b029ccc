"""Macro steps: a runtime that performs several of the model's steps as one.

The model splits a write-back into its parts (take the held list, write the message or fail to, put
back, report the failure) so that every interleaving of them can be tested. A real runtime that writes
back in one transaction has no state between those parts to show. It declares in `hello` the macros it
performs (`"macros": ["write-back"]`); the oracle then drives the model's graph at that grain (`Coarse`):
a step that starts a macro is composed with the steps that finish it, for the same execution, into one
step (`Composed`) whose `apply` action is the macro's (`{"kind": "write-back", "execution": "e1",
"final": true, "ok": false}`), and the runtime is observed only before and after it. Each composed step
keeps the model's steps it stands for: clauses, witnesses, traces and shrinking use them, so a divergence
is still a path of the model that `pausecheck replay` re-executes.

What the coarser view cannot check is said (`Macro.unchecked`): an order inside one transaction, a state
between the parts, other executions' steps between them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from pausecheck.model import PutBack, ReportFailure, StartWriteBack, WriteMessage
from pausecheck.model.rules import clauses_of

__all__ = ["Macro", "MACROS", "Composed", "Coarse", "fine", "enacts", "actions_of", "macro_json", "unchecked",
           "coarsen"]

Step = tuple[Any, Any, Any]


@dataclass(frozen=True, slots=True)
class Macro:
    """Model steps a runtime may take as one: it starts with a step of `start`, and takes every step of
    `parts` for the same execution until none is enabled; `unchecked`, the clauses (with why) that only the
    steps in between show."""

    name: str
    doc: str
    start: tuple[type, ...]
    parts: tuple[type, ...]
    unchecked: tuple[tuple[str, str], ...]


MACROS: dict[str, Macro] = {m.name: m for m in (
    Macro("write-back", "take the held list, write the message; on a failed write, put back and report the "
          "failure: one transaction", (StartWriteBack,), (WriteMessage, PutBack, ReportFailure), (
              ("T7.7", "taking is destructive: the held list between the take and the write is never observed "
                       "(what follows still is: an artifact delivered twice, or kept held after delivery)"),
              ("T7.11", "the put-back comes before the failure is reported: inside one transaction there is no "
                        "order to observe"),
          )),
)}


@dataclass(frozen=True, slots=True)
class Composed:
    """One step of a runtime's macro: the model's steps it stands for, in order."""

    macro: str
    steps: tuple[Step, ...]

    @property
    def KIND(self) -> str:  # noqa: N802 - the name every action's kind goes by
        return self.macro

    def __str__(self) -> str:
        return "; ".join(str(action) for _, action, _ in self.steps)


def macro_json(action: Composed) -> dict[str, Any]:
    """The `apply` action of a composed step: the macro, its execution, and what its parts decided."""
    first = action.steps[0][1]
    writes = [a for _, a, _ in action.steps if isinstance(a, WriteMessage)]
    return {"kind": action.macro, "execution": first.execution, "final": first.final,
            "ok": all(w.ok for w in writes)}


def fine(steps: Iterable[Step]) -> Iterator[Step]:
    """The model's steps behind `steps`, each composed step unfolded."""
    for step in steps:
        if isinstance(step[1], Composed):
            yield from step[1].steps
        else:
            yield step


def enacts(step: Step) -> tuple[str, ...]:
    """The clauses a step enacts (a composed step: those of its parts, each once)."""
    return tuple(dict.fromkeys(c for part in fine((step,)) for c in clauses_of(*part)))


def actions_of(action: Any) -> tuple[Any, ...]:
    """The model's actions an action stands for."""
    return tuple(a for _, a, _ in action.steps) if isinstance(action, Composed) else (action,)


class Coarse:
    """The model's graph at the grain of a runtime's macros: the same `init_states` and `successors`
    protocol as `Machine`, and its `bounds`, `reading` and `context`."""

    def __init__(self, machine: Any, names: Iterable[str]) -> None:
        self.machine = machine
        self.macros = tuple(MACROS[n] for n in names)
        self.bounds, self.reading = machine.bounds, machine.reading

    def __getattr__(self, name: str) -> Any:  # properties, context, ...: the machine's
        return getattr(self.machine, name)

    def init_states(self) -> Any:
        return self.machine.init_states()

    def successors(self, state: Any) -> list[tuple[Any, Any]]:
        out = []
        for action, post in self.machine.successors(state):
            macro = next((m for m in self.macros if isinstance(action, m.start)), None)
            if macro is None:
                out.append((action, post))
                continue
            for rest in self._finish(macro, action.execution, post):
                steps = ((state, action, post), *rest)
                out.append((Composed(macro.name, steps), steps[-1][2]))
        return out

    def _finish(self, macro: Macro, execution: str, state: Any) -> Iterator[tuple[Step, ...]]:
        """Every way the macro's remaining parts can go from `state`, to where none is enabled."""
        parts = [(a, p) for a, p in self.machine.successors(state)
                 if isinstance(a, macro.parts) and a.execution == execution]
        if not parts:
            yield ()
        for action, post in parts:
            for rest in self._finish(macro, execution, post):
                yield ((state, action, post), *rest)


def unchecked(names: Iterable[str]) -> tuple[tuple[str, str], ...]:
    """The clauses (with why) the macros named leave unchecked, and the interleavings they never take."""
    out = [c for n in names for c in MACROS[n].unchecked]
    return tuple(out)


def coarsen(view: Coarse, steps: Iterable[Step]) -> tuple[Step, ...] | None:
    """The model's steps of a trace at the grain of `view`: each macro's parts folded into one composed
    step; None where a macro's parts are interleaved with other steps or stop before it is done."""
    macros, steps, out, i = view.macros, list(steps), [], 0
    while i < len(steps):
        pre, action, _ = steps[i]
        macro = next((m for m in macros if isinstance(action, m.start)), None)
        if macro is None:
            out.append(steps[i])
            i += 1
            continue
        j = i + 1
        while j < len(steps) and isinstance(steps[j][1], macro.parts) and steps[j][1].execution == action.execution:
            j += 1
        composed = Composed(macro.name, tuple(steps[i:j]))
        if (composed, steps[j - 1][2]) not in view.successors(pre):
            return None
        out.append((pre, composed, steps[j - 1][2]))
        i = j
    return tuple(out)
