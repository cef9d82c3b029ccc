"""Stateful testing with Hypothesis: long random behaviours beyond the exhaustive bounds.

A `RuleBasedStateMachine` walks the model one enabled action at a time (Hypothesis chooses which),
at bounds far larger than an exhaustive search can cover (many sessions, turns, calls and pauses).
After every step it judges every `always` and `transition` property of the model; given a runtime,
it also applies the same step to the runtime and compares what it shows (strict) or judges the
black-box properties on it. The first failure ends generation; it is then shrunk by dropping chunks
of its steps (halving the chunk when none can go) while the model still enables the rest and the
same property, or the runtime, still fails: Hypothesis's own shrinking of the choices is off, since a
choice is an index into the actions enabled at that point, and those change with every earlier step.

Runs are deterministic (Hypothesis derandomised, no example database): the same bounds, examples
and steps give the same behaviours and the same result.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, rule, run_state_machine_as_test
from pausecheck.model import Machine, observe
from pausecheck.model.config import FUZZ_BOUNDS
from pausecheck.model.properties import ALWAYS, TRANSITION

from ..search.budget import note
from .adapters import Adapter, RuntimeFault, describe, restart
from .conform import STRICT, Divergence, divergence_at, drive, fresh_runtime, handshake, judge_shown
from .cover import Sequence
from .minimise import broken, minimise, path_of
from .protocol import apply_request

__all__ = ["FUZZ_BOUNDS", "FuzzResult", "fuzz"]



@dataclass(frozen=True, slots=True)
class FuzzResult:
    examples: int  # behaviours Hypothesis ran (shrinking included)
    steps: int  # steps taken over all of them
    seconds: float
    failure: Divergence | None  # the minimal failing behaviour, if any
    property: str | None = None  # the model property it breaks (None: the runtime diverged)


class _Found(AssertionError):
    def __init__(self, divergence: Divergence, prop: str | None) -> None:
        super().__init__(divergence.message)
        self.divergence = divergence
        self.prop = prop


class _Counts(dict):
    """The counts of behaviours and steps run, noted for a limit's stop as each behaviour starts."""

    def __setitem__(self, key: str, value: int) -> None:
        if key == "examples":
            note("fuzz: fuzz", f"fuzz: {self['examples']:,} behaviours ({self['steps']:,} steps) run without a "
                 "failure")
        super().__setitem__(key, value)


class _Restarting:
    """An adapter that replaces its runtime after a fault: Hypothesis runs a failing behaviour again, and
    it must meet a runtime that can answer."""

    def __init__(self, adapter: Adapter) -> None:
        self.adapter, self.name = adapter, adapter.name

    def exchange(self, requests: Any) -> list[dict[str, Any]]:
        try:
            return self.adapter.exchange(requests)
        except RuntimeFault:
            fresh_runtime(self.adapter)
            raise

    def restart(self) -> None:
        restart(self.adapter)

    def close(self) -> None:
        self.adapter.close()


def fuzz(machine: Machine, adapter: Adapter | None = None, *, examples: int = 100, steps: int = 50,
         mode: str = STRICT, progress: Callable[[int, int], None] | None = None) -> FuzzResult:
    """Run `examples` random behaviours of up to `steps` steps; the first failure, shrunk. `progress`
    is told, as each behaviour starts, how many have run and how many steps they took in all."""
    checks = [p for p in machine.properties if p.kind in (ALWAYS, TRANSITION)]
    reset = {"type": "reset", "bounds": machine.bounds.as_dict(), "reading": machine.reading.name}
    held = adapter is not None and bool(handshake(adapter, machine).get("held"))
    observe_request = {"type": "observe", "held": True} if held else {"type": "observe"}
    # Walk's source is left as it is: Hypothesis derives its derandomised seed from it, so an edit there would
    # change every behaviour `fuzz` runs. The notes of a limit and the fresh runtime after a fault wrap it instead.
    counts: dict[str, int] = _Counts(examples=0, steps=0)
    adapter = None if adapter is None else _Restarting(adapter)

    class Walk(RuleBasedStateMachine):
        def __init__(self) -> None:
            super().__init__()
            self.path: list[tuple[Any, Any, Any]] = []
            self.state = machine.init_states()[0]
            self.applied: list[dict[str, Any]] = []
            self.shown = observe(self.state)
            counts["examples"] += 1
            if progress is not None:
                progress(counts["examples"] - 1, counts["steps"])
            if adapter is not None:
                self._exchange([reset])

        @rule(data=st.data())
        def step(self, data: st.DataObject) -> None:
            options = list(machine.successors(self.state))
            if not options:
                return
            action, post = options[data.draw(st.integers(0, len(options) - 1), label="choice")]
            self.path.append((self.state, action, post))
            counts["steps"] += 1
            for prop in checks:
                broken, message = machine.judge(prop.name, self.state, action, post)
                if broken:
                    found = divergence_at(Sequence(tuple(self.path), 0), len(self.path), "property",
                                          f"{prop.name}: {message}", clauses=prop.clauses, prop=prop.name)
                    raise _Found(found, prop.name)
            if adapter is not None:  # in lockstep: the same step, then what the runtime shows
                request = apply_request(len(self.path), self.state, action)
                response = self._exchange([request, observe_request])[1]
                self.applied.append(request)
                sequence = Sequence(tuple(self.path), len(self.path) - 1)
                found = judge_shown(machine, sequence, len(self.path), mode, response, tuple(self.applied), self.shown)
                if found is not None:
                    raise _Found(found, None)
                self.shown = response["observation"]
            self.state = post

        def _exchange(self, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
            assert adapter is not None
            sequence = Sequence(tuple(self.path), max(len(self.path) - 1, 0))
            try:
                responses = adapter.exchange(requests)
            except RuntimeFault as fault:
                raise _Found(divergence_at(sequence, len(self.path), "fault", str(fault)), None) from None
            for request, response in zip(requests, responses, strict=True):
                if response.get("ok") is False:
                    message = f"the runtime refused {describe(request)}: {response['error']}"
                    raise _Found(divergence_at(sequence, len(self.path), "refused", message), None)
            return responses

    started = time.perf_counter()
    options = settings(max_examples=examples, stateful_step_count=steps, derandomize=True, database=None,
                       deadline=None, suppress_health_check=list(HealthCheck), report_multiple_bugs=False,
                       phases=[Phase.explicit, Phase.generate])
    try:
        run_state_machine_as_test(Walk, settings=options)
    except _Found as found:
        prop, first = found.prop, found.divergence

        def fails(actions: list[Any]) -> Divergence | None:
            path = path_of(machine, actions)
            if path is None:
                return None
            if prop is not None:
                return broken(machine, path, prop)
            return drive(adapter, machine, Sequence(tuple(path), 0), reset, mode, held)  # type: ignore[arg-type]

        shrunk = minimise(first, fails)
        return FuzzResult(counts["examples"], counts["steps"], time.perf_counter() - started, shrunk, prop)
    return FuzzResult(counts["examples"], counts["steps"], time.perf_counter() - started, None)
