"""A runtime under test that fails the way a careless one does, for the oracle's tests: the reference runtime
(`examples/sqlite_runtime/runtime.py`) until it is asked to apply an action of kind KIND, then it dies,
hangs, sends half a line and hangs, sends a line too long to keep, or dribbles a line a byte at a time.

usage: python tests/faulty_runtime.py {die,hang,partial,huge,dribble} KIND
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples" / "sqlite_runtime"))

from runtime import Runtime, serve  # noqa: E402


def main() -> None:
    how, kind = sys.argv[1], sys.argv[2]
    runtime = Runtime(":memory:")
    handle = runtime.handle

    def faulty(request: dict) -> dict:
        if request.get("type") == "apply" and request.get("action", {}).get("kind") == kind:
            if how == "die":
                os._exit(7)
            if how == "partial":
                sys.stdout.write('{"ok": tr')
                sys.stdout.flush()
            if how == "huge":
                chunk = "x" * (1 << 20)
                sys.stdout.write('{"ok": true, "junk": "')
                for _ in range(40):
                    sys.stdout.write(chunk)
                sys.stdout.flush()
            if how == "dribble":
                sys.stdout.write('{"ok": true, "junk": "')
                for _ in range(100_000):
                    sys.stdout.write("x")
                    sys.stdout.flush()
                    time.sleep(0.02)
            time.sleep(3600)
        return handle(request)

    runtime.handle = faulty  # type: ignore[method-assign]
    serve(runtime)


if __name__ == "__main__":
    main()
