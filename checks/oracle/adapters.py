"""Adapters: how pausecheck talks to a runtime under test.

`Subprocess` runs the runtime as a child process speaking JSON lines on stdin/stdout, in any
language; `InProcess` calls a Python object's `handle(request) -> response` directly. Both take a
batch of requests and return one validated response per request, in order. A subprocess batch is
pipelined: requests are written while responses are read, so a long batch cannot deadlock on full
pipes. Anything wrong (no answer within the timeout, an exit, a line that is not JSON or breaks its
schema, a line longer than `MAX_LINE`, a line still arriving when the timeout runs out) is a
`RuntimeFault` naming the request it answers. After a fault, `restart` gives a fresh runtime: a dead, hung
or half-written process is never asked again.
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from .protocol import SCHEMAS, validate

__all__ = ["Adapter", "RuntimeFault", "Subprocess", "InProcess", "describe", "restart", "MAX_LINE"]

MAX_LINE = 16 << 20  # bytes: a response line longer than this is a fault (no observation of ours comes near it)


class RuntimeFault(Exception):
    """The runtime did not answer as the protocol requires; `index` is the request in its batch."""

    def __init__(self, message: str, index: int) -> None:
        super().__init__(message)
        self.index = index


class Adapter(Protocol):
    name: str

    def exchange(self, requests: Sequence[dict[str, Any]]) -> list[dict[str, Any]]: ...

    def close(self) -> None: ...

    # Optional: `restart()` replaces the runtime by a fresh one (a subprocess is started again); see `restart`.


def restart(adapter: Any) -> None:
    """A fresh runtime behind the adapter, if it can give one (after a fault, or for each candidate of a
    shortest-trace search); the caller says hello again."""
    fresh = getattr(adapter, "restart", None)
    if fresh is not None:
        fresh()


def describe(request: dict[str, Any]) -> str:
    """A request in a few words, for messages: "apply step 4 (tool-returns)", "observe", ..."""
    if request["type"] == "apply":
        return f"apply step {request['step']} ({request['action']['kind']})"
    return request["type"]


def checked(request: dict[str, Any], response: Any, index: int) -> dict[str, Any]:
    """The response if it conforms to the schema of its request (or of a refusal); else a fault."""
    if isinstance(response, dict) and response.get("ok") is False:
        problem = validate(response, SCHEMAS["refused"], "response")
    else:
        problem = validate(response, SCHEMAS[request["type"]], "response")
    if problem:
        raise RuntimeFault(f"the response to {describe(request)} is malformed: {problem}", index)
    return response


class InProcess:
    """A Python runtime in this process: `handler(request) -> response`, both JSON-shaped dicts."""

    def __init__(self, handler: Callable[[dict[str, Any]], Any], name: str = "in-process") -> None:
        self.handler = handler
        self.name = name

    def exchange(self, requests: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        out = []
        for i, request in enumerate(requests):
            try:
                response = self.handler(request)
            except Exception as error:  # the runtime's own bug, reported as its answer
                raise RuntimeFault(f"{describe(request)} raised {type(error).__name__}: {error}", i) from None
            out.append(checked(request, response, i))
        return out

    def close(self) -> None:
        pass

    def restart(self) -> None:
        """Nothing to restart: the handler's state is reset by each `reset` request."""


class Subprocess:
    """A runtime as a child process (`argv`), JSON lines both ways; `timeout` seconds per response."""

    def __init__(self, argv: Sequence[str], timeout: float = 10.0) -> None:
        self.argv = list(argv)
        self.name = " ".join(self.argv)
        self.timeout = timeout
        self.starts = 0  # processes started so far
        self._start()

    def _start(self) -> None:
        self._stderr = tempfile.TemporaryFile()
        try:
            self._proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=self._stderr, bufsize=0)
        except OSError as error:
            raise RuntimeFault(f"cannot start {self.argv[0]}: {error.strerror or error}", 0) from None
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._in, self._out = self._proc.stdin.fileno(), self._proc.stdout.fileno()
        os.set_blocking(self._in, False)
        self._buffer = bytearray()
        self.starts += 1

    def restart(self) -> None:
        """End this process (killed if it does not end at once) and start a fresh one."""
        self.close(wait=0.2)
        self._start()

    def exchange(self, requests: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        data = b"".join(json.dumps(r, separators=(",", ":")).encode() + b"\n" for r in requests)
        lines: list[bytes] = []
        with selectors.DefaultSelector() as selector:
            selector.register(self._out, selectors.EVENT_READ)
            if data:
                selector.register(self._in, selectors.EVENT_WRITE)
            deadline = time.monotonic() + self.timeout
            while len(lines) < len(requests):
                events = selector.select(max(0.0, deadline - time.monotonic()))
                if not events or time.monotonic() > deadline:  # the timeout covers a line still arriving
                    partial = " (a part of a line came)" if self._buffer else ""
                    raise RuntimeFault(f"no answer to {describe(requests[len(lines)])} within {self.timeout:g} s"
                                       f"{partial}", len(lines))
                for key, _ in events:
                    if key.fd == self._in:
                        data = self._write(data, len(lines), requests)
                        if not data:
                            selector.unregister(self._in)
                    else:
                        before = len(lines)
                        self._read(lines, requests)
                        if len(lines) > before:
                            deadline = time.monotonic() + self.timeout
        return [checked(r, self._parse(line, r, i), i) for i, (r, line) in enumerate(zip(requests, lines, strict=True))]

    def _write(self, data: bytes, answered: int, requests: Sequence[dict[str, Any]]) -> bytes:
        try:
            return data[os.write(self._in, data):]
        except BrokenPipeError:
            raise RuntimeFault(self._gone(requests[answered]), answered) from None

    def _read(self, lines: list[bytes], requests: Sequence[dict[str, Any]]) -> None:
        chunk = os.read(self._out, 1 << 16)
        if not chunk:
            partial = " in the middle of a line" if self._buffer else ""
            raise RuntimeFault(self._gone(requests[len(lines)], partial), len(lines))
        too_long = False
        if b"\n" not in chunk:  # the common case of a long line: no copy of what came before
            self._buffer += chunk
        else:
            *complete, rest = (bytes(self._buffer) + chunk).split(b"\n")
            lines.extend(complete)
            self._buffer = bytearray(rest)
            too_long = any(len(line) > MAX_LINE for line in complete)
        if too_long or len(self._buffer) > MAX_LINE:
            raise RuntimeFault(f"the response to {describe(requests[min(len(lines), len(requests) - 1)])} is longer "
                               f"than {MAX_LINE >> 20} MiB", min(len(lines), len(requests) - 1))
        if len(lines) > len(requests):
            raise RuntimeFault(f"more than one response to {describe(requests[-1])}", len(requests) - 1)

    @staticmethod
    def _parse(line: bytes, request: dict[str, Any], index: int) -> Any:
        try:
            return json.loads(line)
        except RecursionError:
            raise RuntimeFault(f"the response to {describe(request)} is nested too deeply", index) from None
        except ValueError as error:
            text = line[:60].decode("utf-8", "replace")
            raise RuntimeFault(f"the response to {describe(request)} is not JSON ({error}): {text!r}", index) from None

    def _gone(self, request: dict[str, Any], partial: str = "") -> str:
        try:
            code = self._proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            code = None
        self._stderr.seek(0)
        tail = self._stderr.read()[-300:].decode("utf-8", "replace").strip().splitlines()
        said = f"; its last words: {tail[-1]}" if tail else ""
        how = "closed its output" if code is None else f"exited with code {code}"
        return f"the runtime {how}{partial} before answering {describe(request)}{said}"

    def close(self, wait: float = 1.0) -> None:
        """End the runtime: its input closed, then killed if it has not ended within `wait` seconds."""
        if self._proc.poll() is None:
            try:
                self._proc.stdin.close()  # type: ignore[union-attr]
                self._proc.wait(timeout=wait)
            except (OSError, subprocess.TimeoutExpired):
                self._proc.kill()
                self._proc.wait()
        self._proc.stdout.close()  # type: ignore[union-attr]
        self._stderr.close()
