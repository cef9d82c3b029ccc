"""The explorer's local HTTP server (the standard library's): the page at `/`, and its questions under
`/api/` as JSON. It listens on 127.0.0.1 only and serves nothing else."""

from __future__ import annotations

import json
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from pausecheck.model import Machine

from .page import PAGE
from .views import ViewError, encode, itf_of, load_document, machine_json, view

__all__ = ["Explorer", "MAX_BODY"]

MAX_BODY = 64 << 20  # bytes: a request larger than this is refused (the size of the largest trace read)


class Explorer:
    """The machine being walked (replaced when the page loads a trace made on another) and the
    actions of the trace given at start, behind a lock: the server answers each request in a thread."""

    def __init__(self, machine: Machine, mutant: str | None = None, actions: list[dict[str, Any]] | None = None):
        self.machine, self.mutant, self.actions = machine, mutant, list(actions or [])
        self.lock = threading.Lock()

    def answer(self, what: str, body: dict[str, Any] | None) -> dict[str, Any]:
        """The answer to one question of the page; a ViewError for one it cannot answer."""
        with self.lock:
            if what == "start":
                return {"machine": machine_json(self.machine, self.mutant), "actions": self.actions}
            body = body or {}
            if what == "view":
                return view(self.machine, body.get("actions"), self.mutant)
            if what == "itf":
                return {"text": itf_of(self.machine, body.get("actions"), self.mutant)}
            if what == "load":
                if not isinstance(body.get("text"), str):
                    raise ViewError("load: send the trace's text as {\"text\": ...}")
                self.machine, self.mutant, self.actions = load_document(body["text"])
                return {"machine": machine_json(self.machine, self.mutant), "actions": self.actions}
        raise ViewError(f"no such question: {what}")

    def server(self, port: int = 0) -> ThreadingHTTPServer:
        """An HTTP server for this explorer on 127.0.0.1 (`port` 0: any free one); call serve_forever."""
        explorer = self

        class Handler(_Handler):
            owner = explorer

        return ThreadingHTTPServer(("127.0.0.1", port), Handler)


class _Handler(BaseHTTPRequestHandler):
    owner: Explorer
    server_version = "pausecheck-explore"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass  # the terminal shows where to look, not every request

    def _send(self, status: HTTPStatus, body: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        # the page may use nothing but itself and this server
        self.send_header("Content-Security-Policy", "default-src 'self'; script-src 'unsafe-inline'; "
                         "style-src 'unsafe-inline'; img-src 'self' data:")
        self.end_headers()
        self.wfile.write(body)

    def _question(self, what: str, body: dict[str, Any] | None) -> None:
        try:
            answer = self.owner.answer(what, body)
        except ViewError as error:
            self._send(HTTPStatus.BAD_REQUEST, encode({"error": str(error)}), "application/json")
            return
        self._send(HTTPStatus.OK, encode(answer), "application/json")

    def do_GET(self) -> None:  # noqa: N802 - the base class's name
        if self.path in ("/", "/index.html"):
            self._send(HTTPStatus.OK, PAGE.encode("utf-8"), "text/html; charset=utf-8")
        elif self.path == "/api/start":
            self._question("start", None)
        else:
            self._send(HTTPStatus.NOT_FOUND, encode({"error": f"nothing at {self.path}"}), "application/json")

    def do_POST(self) -> None:  # noqa: N802 - the base class's name
        if not self.path.startswith("/api/"):
            self._send(HTTPStatus.NOT_FOUND, encode({"error": f"nothing at {self.path}"}), "application/json")
            return
        try:
            length = int(self.headers.get("Content-Length", "0"))
        except ValueError:
            length = -1
        if not 0 <= length <= MAX_BODY:
            self._send(HTTPStatus.BAD_REQUEST, encode({"error": f"a body of 0 to {MAX_BODY:,} bytes"}),
                       "application/json")
            return
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except (ValueError, RecursionError):
            self._send(HTTPStatus.BAD_REQUEST, encode({"error": "the body is not JSON"}), "application/json")
            return
        self._question(self.path.removeprefix("/api/"), body if isinstance(body, dict) else None)
