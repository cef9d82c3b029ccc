"""`pausecheck explore`: serve the interactive state explorer on 127.0.0.1 until Ctrl-C."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from pausecheck.model import action_to_json
from pausecheck.traces.itf import TraceError, load_trace
from pausecheck.traces.replay import decode_actions

from ..browse import Explorer, ViewError, view
from ..mutants import mutant_named, mutate, unknown_mutant
from ..mutants.evidence import machine_for
from .draft import machine_of

__all__ = ["explore_command", "explorer_for"]


def explorer_for(args: argparse.Namespace, bounds: Any, usage: type[Exception]) -> Explorer:
    """The explorer the flags ask for: the model at these bounds and reading (a mutant applied), or the
    machine a trace was made on, with the trace's actions ready to step through."""
    if args.trace is not None:
        file = str(args.trace)
        try:
            document = load_trace(args.trace, complete=False)
            machine = machine_for(document["#meta"], file)
            actions = [action_to_json(a) for a in decode_actions(document, file)]
        except TraceError as error:
            raise usage(str(error)) from None
        mutant = document["#meta"].get("mutant")
        try:
            view(machine, actions, mutant)
        except ViewError as error:
            raise usage(f"{file}: {error}") from None
        return Explorer(machine, mutant, actions)
    machine = machine_of(args, bounds)
    if args.mutant is not None:
        try:
            machine = mutate(machine, mutant_named(args.mutant))
        except KeyError:
            raise usage(unknown_mutant(args.mutant)) from None
    return Explorer(machine, args.mutant)


def explore_command(args: argparse.Namespace, bounds: Any, usage: type[Exception]) -> int:
    """Serve the explorer until interrupted; the address is printed first."""
    if not 0 <= args.port <= 65535:
        raise usage("--port must be from 0 (any free port) to 65535")
    explorer = explorer_for(args, bounds, usage)
    try:
        server = explorer.server(args.port)
    except OSError as error:
        raise usage(f"cannot listen on 127.0.0.1:{args.port}: {error.strerror or error}") from None
    host, port = server.server_address[:2]
    print(f"pausecheck explore: open http://{host}:{port}/ in a browser (Ctrl-C stops it)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("pausecheck explore: stopped", file=sys.stderr)
    finally:
        server.server_close()
    return 0
