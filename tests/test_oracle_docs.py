"""The oracle's pages stay true to the protocol: every schema and the worked exchanges are generated here.

`python tests/test_oracle_docs.py` rewrites them: the schemas in docs/oracle-schemas.md (from "request
`hello`:" to the next heading or the end of the page), and the fenced exchanges that start with a hello
in docs/oracle-adapter.md.
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

from pausecheck.checks.oracle import PROTOCOL, REQUESTS, SCHEMAS, InProcess
from pausecheck.checks.oracle.macros import Coarse, Composed, actions_of
from pausecheck.checks.oracle.protocol import apply_request
from pausecheck.model import (
    Answer,
    Bounds,
    CallTool,
    Machine,
    StartTurn,
    StartWriteBack,
    ToolInterrupts,
    ToolReturns,
    WriteMessage,
)

ROOT = Path(__file__).resolve().parent.parent
SCHEMA_DOC = ROOT / "docs" / "oracle-schemas.md"  # the reference page: every message's JSON Schema
EXCHANGE_DOC = ROOT / "docs" / "oracle-adapter.md"  # the protocol page: the worked exchanges
EXCHANGE_BOUNDS = Bounds(calls=1, per_call=1, artifacts=1, pauses=1, write_failures=0, observations=0, held_bound=1)
EXCHANGE_ACTIONS = (StartTurn(1), CallTool("e1"), ToolReturns("e1", "c1", 1), StartWriteBack("e1", True),
                    WriteMessage("e1", True))
PAUSE_ACTIONS = (StartTurn(1), CallTool("e1"), ToolInterrupts("e1", "c1"), Answer("e1", 1, True))


def schema_blocks() -> list[str]:
    """One fenced JSON block per message schema, requests then responses."""
    blocks = [f"request `{name}`:\n\n```json\n{json.dumps(schema, indent=2)}\n```" for name, schema in REQUESTS.items()]
    blocks += [f"response to `{name}`:\n\n```json\n{json.dumps(schema, indent=2)}\n```"
               for name, schema in SCHEMAS.items() if name != "refused"]
    blocks.append(f"a refusal, in answer to any request:\n\n```json\n{json.dumps(SCHEMAS['refused'], indent=2)}\n```")
    return blocks


def _runtime(example: str, folder: str) -> Any:
    """An example runtime in process, its store in `folder`, as the command line runs it (a file: it restarts)."""
    sys.path.insert(0, str(ROOT / "examples" / example))
    try:
        import runtime  # the example's module, in process
    finally:
        sys.path.pop(0)
        sys.modules.pop("runtime", None)
    return runtime.Runtime(os.path.join(folder, "store"))


def exchange(actions: tuple[Any, ...], example: str = "sqlite_runtime") -> str:
    """A complete exchange with an example runtime: `>` what pausecheck sends, `<` the answer. A runtime that
    declares macros gets the model's steps at its grain: `actions` then hold the composed steps' first actions."""
    with tempfile.TemporaryDirectory() as folder:
        handler = _runtime(example, folder).handle
        hello = handler({"type": "hello", "protocol": PROTOCOL})
        machine = Machine(EXCHANGE_BOUNDS)
        view = Coarse(machine, hello.get("macros", ())) if hello.get("macros") else machine
        requests: list[dict[str, Any]] = [{"type": "hello", "protocol": PROTOCOL}, {
            "type": "reset", "bounds": EXCHANGE_BOUNDS.as_dict(), "reading": "conformant"}]
        state = machine.init_states()[0]
        for step, wanted in enumerate(actions, 1):
            action, post = next((a, p) for a, p in view.successors(state) if actions_of(a)[0] == wanted and (
                not isinstance(a, Composed) or all(getattr(x, "ok", True) for x in actions_of(a))))
            requests.append(apply_request(step, state, action))
            requests.append({"type": "observe"})
            state = post
        adapter = InProcess(handler)
        lines = []
        for request, response in zip(requests, adapter.exchange(requests), strict=True):
            lines += ["> " + json.dumps(request, separators=(",", ":")),
                      "< " + json.dumps(response, separators=(",", ":"))]
    return "```\n" + "\n".join(lines) + "\n```"


EXCHANGES = ((EXCHANGE_ACTIONS, "sqlite_runtime"), (PAUSE_ACTIONS, "sqlite_runtime"),
             (EXCHANGE_ACTIONS[:4], "atomic_runtime"))


def test_every_schema_is_in_the_doc() -> None:
    text = SCHEMA_DOC.read_text(encoding="utf-8")
    for block in schema_blocks():
        assert block in text, f"docs/oracle-schemas.md lacks or differs on:\n{block}"


def test_the_worked_exchanges_are_real() -> None:
    text = EXCHANGE_DOC.read_text(encoding="utf-8")
    for actions, example in EXCHANGES:
        assert exchange(actions, example) in text, example


def rewrite() -> None:
    """Put the generated schema blocks into docs/oracle-schemas.md and the exchanges into docs/oracle-adapter.md."""
    text = SCHEMA_DOC.read_text(encoding="utf-8")
    start = text.index("request `hello`:")
    end = text.find("\n## ", start) + 1 or len(text)  # the next heading, else the end of the page
    text = text[:start] + "\n\n".join(schema_blocks()) + ("\n\n" if end < len(text) else "\n") + text[end:]
    SCHEMA_DOC.write_text(text, encoding="utf-8")
    text = EXCHANGE_DOC.read_text(encoding="utf-8")
    found = list(re.finditer(r"```\n> \{\"type\":\"hello\".*?\n```", text, re.S))
    for match, block in reversed(list(zip(found, (exchange(a, e) for a, e in EXCHANGES), strict=True))):
        text = text[:match.start()] + block + text[match.end():]
    EXCHANGE_DOC.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    rewrite()
