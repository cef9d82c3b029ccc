"""An independent runtime whose take copies the held list, behind an adapter written from docs/oracle-adapter.md
alone: the reference runtime's `copy-not-take` (its write-back reads the held list without clearing it),
shown through an adapter that reports as held only what no write-back has in flight, since a take empties
the held list. The copy is then first seen after the write, held and on the wire at once, not at the take
(the project's own copying runtime shows it at the take, a step of its own).

usage: python tests/copying_adapter.py
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples" / "sqlite_runtime"))

from runtime import Runtime, serve  # noqa: E402


class CopyingAdapter:
    """The copying runtime, its held lists shown without what a write-back has taken and not yet written."""

    def __init__(self, path: str = ":memory:") -> None:
        self.runtime = Runtime(path, "copy-not-take")

    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        response = self.runtime.handle(request)
        if request.get("type") == "hello" and response.get("ok"):
            return {**response, "name": "copying take, in-flight hidden"}
        if request.get("type") == "observe" and "held" in response:
            flight = {eid: set(segment.taken) for eid, segment in self.runtime.segments.items()}
            response["held"] = {eid: [ref for ref in refs if ref not in flight.get(eid, ())]
                                for eid, refs in response["held"].items()}
        return response


if __name__ == "__main__":
    serve(CopyingAdapter())
