"""A headless Chromium driven through the Chrome DevTools protocol over a pipe (standard library only).

Chromium started with `--remote-debugging-pipe` reads protocol commands from its file descriptor 3 and
writes replies and events to descriptor 4, each message JSON ended by a NUL byte: no port, no
websocket, nothing on the network. `Browser` opens one page at a given window size, loads a URL and
evaluates JavaScript in it. `.ci/run` installs Debian's `chromium`; where no browser is installed the
tests that need one are skipped, saying so.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import tempfile
import time
from typing import Any

__all__ = ["Browser", "BrowserError", "chromium"]

NAMES = ("chromium", "chromium-browser", "google-chrome", "chrome")


class BrowserError(Exception):
    """The browser answered a command with an error, or stopped answering."""


def chromium() -> str | None:
    """The path of an installed Chromium, or None."""
    return next((path for path in map(shutil.which, NAMES) if path), None)


class Browser:
    """One headless Chromium with one page `width` x `height` CSS pixels; use as a context manager."""

    def __init__(self, width: int = 1400, height: int = 900, timeout: float = 30.0) -> None:
        binary = chromium()
        if binary is None:
            raise BrowserError("no Chromium installed (Debian: apt-get install chromium)")
        self.timeout = timeout
        self._profile = tempfile.TemporaryDirectory(prefix="pausecheck-chromium-")
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        # the child's descriptors 3 and 4: its end of each pipe
        self._process = subprocess.Popen(
            [binary, "--headless=new", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
             "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--mute-audio",
             f"--user-data-dir={self._profile.name}", f"--window-size={width},{height}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            pass_fds=(3, 4), preexec_fn=lambda: _as_fds(to_browser_r, from_browser_w),
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._next_id, self._buffer, self._session = 0, b"", None
        target = self._command("Target.createTarget", url="about:blank")["targetId"]
        self._session = self._command("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        self._command("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1,
                      mobile=False)
        self._command("Page.enable")

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        """End the browser (the process this object started) and remove its profile."""
        for fd in (self._to_browser, self._from_browser):
            try:
                os.close(fd)
            except OSError:
                pass
        self._process.terminate()
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        try:
            self._profile.cleanup()
        except OSError:  # a helper process of Chromium's still writing to the profile as it ends
            time.sleep(0.5)
            shutil.rmtree(self._profile.name, ignore_errors=True)

    def load(self, url: str) -> None:
        """Navigate to `url` and wait until its load event fired."""
        self._command("Page.navigate", url=url)
        self._wait_event("Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (awaited if it is a promise)."""
        reply = self._command("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in reply:
            raise BrowserError(f"{expression}: {reply['exceptionDetails'].get('text')} "
                               f"{reply['exceptionDetails'].get('exception', {}).get('description', '')}")
        return reply["result"].get("value")

    def set_files(self, selector: str, paths: list[str]) -> None:
        """Choose files in the `<input type=file>` matching a CSS selector, as a user would."""
        root = self._command("DOM.getDocument")["root"]["nodeId"]
        node = self._command("DOM.querySelector", nodeId=root, selector=selector)["nodeId"]
        self._command("DOM.setFileInputFiles", files=paths, nodeId=node)

    def wait_for(self, expression: str, timeout: float | None = None) -> Any:
        """Evaluate `expression` until it is truthy (the page updates asynchronously); its value."""
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            value = self.evaluate(expression)
            if value or time.monotonic() > deadline:
                if not value:
                    raise BrowserError(f"still false after {timeout or self.timeout} s: {expression}")
                return value
            time.sleep(0.05)

    def _send(self, method: str, params: dict[str, Any]) -> int:
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params}
        if self._session is not None and not method.startswith("Target."):
            message["sessionId"] = self._session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        return self._next_id

    def _messages(self) -> Any:
        """Each message the browser sends, as it arrives (until the timeout)."""
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            while b"\0" in self._buffer:
                raw, self._buffer = self._buffer.split(b"\0", 1)
                yield json.loads(raw)
            chunk = os.read(self._from_browser, 1 << 16)
            if not chunk:
                raise BrowserError("the browser closed its pipe")
            self._buffer += chunk
        raise BrowserError(f"no answer within {self.timeout} s")

    def _command(self, method: str, **params: Any) -> dict[str, Any]:
        ident = self._send(method, params)
        for message in self._messages():
            if message.get("id") == ident:
                if "error" in message:
                    raise BrowserError(f"{method}: {message['error'].get('message')}")
                return message.get("result", {})
        raise BrowserError(f"{method}: no answer")  # pragma: no cover - _messages raises first

    def _wait_event(self, method: str) -> dict[str, Any]:
        for message in self._messages():
            if message.get("method") == method:
                return message.get("params", {})
        raise BrowserError(f"no {method}")  # pragma: no cover


def _as_fds(read_end: int, write_end: int) -> None:
    """In the child: its end of each pipe as descriptors 3 (commands in) and 4 (replies out); each is
    first copied above 9, so that neither is overwritten when one of them already is 3 or 4."""
    high_read, high_write = fcntl.fcntl(read_end, fcntl.F_DUPFD, 10), fcntl.fcntl(write_end, fcntl.F_DUPFD, 10)
    os.dup2(high_read, 3)
    os.dup2(high_write, 4)
