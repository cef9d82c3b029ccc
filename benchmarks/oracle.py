"""Benchmark the golden oracle: steps per second through the adapter protocol, as a subprocess and in
process, on the reference runtime (SQLite), and the model's share of the time.

    python benchmarks/oracle.py             # the small bound set below (about 20 s)
    python benchmarks/oracle.py --default   # the default bounds (about three minutes)
    python benchmarks/oracle.py --two-turns 60   # the bounds that reach a leak across two turns, 60 s

With `--two-turns S`, `conform` drives the reference runtime at `TWO_TURNS` for S seconds: the time until its
first sequence is driven, the rate, and the process's peak memory, which grows only with the states the walk
has entered (61 bytes each). Measured here: the graph has 14,433,631 states and 69,410,087 edges; the whole
covering walk (the model alone) takes 660 s, 16,023,492 sequences of 513,117,457 steps in all, at a peak of
877 MB; the first 300 s with the reference runtime reach 148 MB, at 7,013 steps/s (the whole run: some 20 h).

Three runs of `conform` over every edge, one after the other in this process, so that the figures
compare within one run on one machine: the reference runtime as a subprocess (JSON lines over
pipes), the same runtime in process (`InProcess`: no JSON, no pipes), and a null runtime in process
that answers every request from the model itself (the oracle's own cost: covering sequences, model
steps, observations and comparisons). Times depend on the machine; the tests assert none of them.
"""

from __future__ import annotations

import argparse
import importlib.util
import platform
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from pausecheck.checks.cli.oracle import _edges
from pausecheck.checks.oracle import InProcess, Subprocess, conform
from pausecheck.model import DEFAULT_BOUNDS, Bounds, Machine, action_from_json, observe, white_box

ROOT = Path(__file__).resolve().parent.parent
RUNTIME = ROOT / "examples" / "sqlite_runtime" / "runtime.py"
TWO_TURNS = Bounds(turns=2, new_turns=1, calls=2, per_call=1, artifacts=1, pauses=1, observations=0,
                   write_failures=0, held_bound=1)
SMALL = Bounds(calls=2, per_call=1, artifacts=2, pauses=2, write_failures=1, observations=0, held_bound=2)


def reference(folder: str) -> Any:
    """The reference runtime in this process, on a SQLite file as the subprocess keeps one."""
    spec = importlib.util.spec_from_file_location("sqlite_runtime", RUNTIME)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module.Runtime(str(Path(folder) / "runtime.sqlite"))


class ModelRuntime:
    """A runtime that is the model: what the oracle costs with a runtime that costs nothing."""

    def __init__(self, machine: Machine) -> None:
        self.machine = machine
        self.state = machine.init_states()[0]

    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        kind = request["type"]
        if kind == "hello":
            return {"ok": True, "protocol": request["protocol"], "name": "model", "actions": [
                cls for cls in ("start-turn", "call-tool", "tool-returns", "tool-fails", "tool-interrupts",
                                "observe-again", "poll", "answer", "node-fails", "start-write-back",
                                "write-message", "put-back", "report-failure")], "readings": ["conformant"],
                "held": True}
        if kind == "reset":
            self.state = self.machine.init_states()[0]
            return {"ok": True}
        if kind == "apply":
            self.state = self.machine.step(self.state, action_from_json(request["action"]))
            return {"ok": True}
        return {"ok": True, "observation": observe(self.state), "held": white_box(self.state)}


def run(label: str, adapter: Any, machine: Machine) -> float:
    result = conform(adapter, machine)
    adapter.close()
    assert result.ok, result.divergence
    rate = result.steps / result.seconds
    print(f"{label:<34} {result.steps:>9,} steps {result.edges:>9,} edges {result.seconds:>7.1f} s "
          f"{rate:>9,.0f} steps/s")
    return rate


def streaming(seconds: float) -> None:
    """conform at the two-turn bounds, as the command runs it (the edges counted first only in a small
    graph), stopped after `seconds`: when the first sequence was driven, and the peak memory."""
    machine = Machine(TWO_TURNS)
    started = time.monotonic()
    first: list[float] = []

    def progress(count: int, steps: int, edges: int) -> None:
        if not first:
            first.append(time.monotonic() - started)
        if time.monotonic() - started > seconds:
            raise StopIteration(steps)

    total = _edges(machine)
    adapter = Subprocess([sys.executable, str(RUNTIME)])
    try:
        result = conform(adapter, machine, progress=progress)
        steps, edges = result.steps, result.edges
    except StopIteration as stop:
        steps, edges = stop.value, None
    finally:
        adapter.close()
    took = time.monotonic() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print("bounds " + " ".join(f"{k}={v}" for k, v in TWO_TURNS.as_dict().items()))
    print(f"edges counted first: {'no (more than the states counted first)' if total is None else f'{total:,}'}")
    print(f"first sequence driven after {first[0]:.1f} s; {steps:,} steps in {took:.0f} s ({steps / took:,.0f} "
          f"steps/s){'' if edges is None else f', {edges:,} edges'}; peak memory of this process {peak:,.0f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--default", action="store_true", help="the default bounds instead of the small set")
    parser.add_argument("--two-turns", type=float, metavar="S", help="conform at the two-turn bounds for S seconds")
    args = parser.parse_args()
    if args.two_turns is not None:
        return streaming(args.two_turns)
    bounds = DEFAULT_BOUNDS if args.default else SMALL
    machine = Machine(bounds)
    print(f"python {platform.python_version()} on {platform.machine()}; bounds "
          + " ".join(f"{k}={v}" for k, v in bounds.as_dict().items()))
    sub = run("reference runtime, subprocess", Subprocess([sys.executable, str(RUNTIME)]), machine)
    with tempfile.TemporaryDirectory() as folder:
        inproc = run("reference runtime, in process", InProcess(reference(folder).handle), machine)
    null = run("the model as runtime, in process", InProcess(ModelRuntime(machine).handle), machine)
    print(f"in process / subprocess: {inproc / sub:.2f}x; the oracle alone: {null:,.0f} steps/s "
          f"({sub / null:.0%} of the subprocess run's time per step is the oracle's)")


if __name__ == "__main__":
    main()
