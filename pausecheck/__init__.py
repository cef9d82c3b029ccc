"""pausecheck: a reference model and model checker for FlowDrop RT-TOOL-7 and RT-GATE-6.

The public API, in the order a user meets it::

    import pausecheck

    bounds = pausecheck.Bounds(pauses=1)                      # or pausecheck.DEFAULT_BOUNDS
    report = pausecheck.check(bounds)                         # explore and judge every property
    print(report.exit_code, report.result.states)             # 0 when every property holds
    for verdict in report.properties:
        print(verdict.name, verdict.status, verdict.doc)

    machine = pausecheck.Machine(bounds)                      # the model under these bounds
    result = pausecheck.explore(machine)                      # the bare search: counts, discoveries
    trace = pausecheck.trace_of(machine, result.witnesses["approve"], name="approve")
    pausecheck.write_trace(pathlib.Path("approve.itf.json"), trace)
    print(pausecheck.replay_file("approve.itf.json").reproduced)   # True

Layers (imports point one way): `pausecheck.model` (the pure model, standard library only) <-
`pausecheck.traces` (ITF traces, rendering, replay) <- `pausecheck.checks` (engines, reports, CLI).
"""

from __future__ import annotations

from importlib import metadata

from pausecheck.checks.mutants.evidence import replay_file, trace_of
from pausecheck.checks.search.explore import Discovery, Limits, Result, explore
from pausecheck.checks.verdict import Report, check
from pausecheck.model import CLAUSES, DEFAULT_BOUNDS, PROPERTIES, READINGS, BoundError, Bounds, Machine
from pausecheck.model.liveness import LIVENESS
from pausecheck.traces.itf import TraceError, load_trace, write_trace
from pausecheck.traces.replay import Replay, replay

try:
    __version__ = metadata.version("pausecheck")
except metadata.PackageNotFoundError:  # imported from a checkout that was never installed
    __version__ = "0+unknown"

__all__ = [
    "Bounds", "BoundError", "DEFAULT_BOUNDS", "READINGS", "Machine", "CLAUSES", "PROPERTIES", "LIVENESS",
    "check", "Report", "explore", "Limits", "Result", "Discovery",
    "trace_of", "write_trace", "load_trace", "replay", "replay_file", "Replay", "TraceError",
    "__version__",
]
