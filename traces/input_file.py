"""The one reader of every file pausecheck opens: traces, logs, vectors, manifests, checkpoints.

Every input goes through the same limits before any of it reaches the model or a printer: a size cap
(a file larger than `MAX_BYTES` is refused rather than read, so `/dev/zero` is too), a time limit for a
pipe or device, UTF-8, a nesting cap, and text that encodes (no lone surrogate). Every problem is one
`InputError` naming the file and the JSON path or line of the problem, and any text of the input it
echoes is passed through `printable`, so that a newline or an escape sequence in a file never splits
the one error line or reaches the terminal.
"""

from __future__ import annotations

import json
import os
import select
import stat
import time
from pathlib import Path
from typing import Any

__all__ = ["InputError", "MAX_BYTES", "MAX_DEPTH", "READ_TIMEOUT", "read_limited", "parse_json", "check_values",
           "read_json", "read_json_lines", "printable", "say", "short"]

MAX_BYTES = 64 << 20  # an input larger than this is refused rather than read (64 MiB)
MAX_DEPTH = 64  # JSON nesting deeper than this is refused: nothing pausecheck writes nests beyond 8
READ_TIMEOUT = 10.0  # seconds to wait for a pipe or device to deliver the input


class InputError(ValueError):
    """An input that cannot be used: names the file and where in it (JSON path or line) the problem is."""

    def __init__(self, file: str, path: str, problem: str) -> None:
        file, path = printable(file), printable(path)
        super().__init__(f"{file}: {path}: {problem}" if path else f"{file}: {problem}")
        self.file, self.path, self.problem = file, path, problem


_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def printable(text: str) -> str:
    """The text with every control character (C0, DEL, C1, the Unicode line and paragraph separators) and
    lone surrogate written as an escape, so that echoing it prints one line and sends no terminal command."""
    if text.isprintable():
        return text
    out = []
    for char in text:
        code = ord(char)
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif code < 0x20 or 0x7F <= code < 0xA0 or code in (0x2028, 0x2029) or 0xD800 <= code < 0xE000:
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        else:
            out.append(char)
    return "".join(out)


def say(text: str) -> None:
    """Print one line on stdout with any echoed input made printable (`printable`)."""
    print(printable(text))


def short(value: Any) -> str:
    """A value as a short, printable excerpt for an error message."""
    text = printable(repr(value))
    return text if len(text) <= 40 else text[:37] + "..."


def read_limited(path: str | Path, name: str, limit: int = MAX_BYTES, what: str = "an input pausecheck reads") -> str:
    """The file's text: at most `limit` bytes, within READ_TIMEOUT for a pipe or device, UTF-8."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO with no writer opens at once
    except FileNotFoundError:
        raise InputError(name, "", "no such file") from None
    except OSError as error:
        raise InputError(name, "", f"cannot read: {error.strerror or error}") from None
    chunks, size = [], 0
    try:
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            raise InputError(name, "", "is a folder, not a file")
        deadline = time.monotonic() + READ_TIMEOUT
        while True:
            try:
                chunk = os.read(fd, 1 << 20)
            except BlockingIOError:  # a pipe with a writer that has not written yet
                if time.monotonic() > deadline or not select.select([fd], [], [], deadline - time.monotonic())[0]:
                    raise InputError(name, "", f"nothing to read within {READ_TIMEOUT:g} s") from None
                continue
            except OSError as error:
                raise InputError(name, "", f"cannot read: {error.strerror or error}") from None
            if not chunk:
                break
            size += len(chunk)
            if size > limit:
                raise InputError(name, "", f"larger than {limit >> 20} MiB: not {what}")
            chunks.append(chunk)
            if time.monotonic() > deadline:  # a device that never ends (e.g. /dev/urandom under a large limit)
                raise InputError(name, "", f"still arriving after {READ_TIMEOUT:g} s: not {what}")
    finally:
        os.close(fd)
    try:
        return b"".join(chunks).decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(name, "", f"not UTF-8 (byte {error.start})") from None


def parse_json(text: str, name: str, line: int | None = None) -> Any:
    """One JSON value from text, shape-checked by `check_values`; `line` numbers the text's line in a
    JSON-lines file, which is then named `file:line`."""
    label = name if line is None else f"{name}:{line}"
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        if line is None:
            raise InputError(name, f"line {error.lineno} column {error.colno}", f"not JSON: {error.msg}") from None
        raise InputError(label, "", f"not JSON: {error.msg} (column {error.colno})") from None
    except RecursionError:
        raise InputError(label, "$", f"nested more than {MAX_DEPTH} levels deep") from None
    except ValueError:  # Python refuses integers of more than 4,300 digits
        raise InputError(label, "$", "an integer with thousands of digits: not an input of ours") from None
    check_values(label, value, "$")
    return value


def check_values(name: str, value: Any, path: str, depth: int = 0) -> None:
    """Every string encodable (no lone surrogate), nesting at most MAX_DEPTH."""
    if depth > MAX_DEPTH:
        raise InputError(name, path, f"nested more than {MAX_DEPTH} levels deep")
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise InputError(name, path, "a string with a lone surrogate (not encodable text)") from None
    elif isinstance(value, dict):
        for key, item in value.items():
            check_values(name, key, path, depth + 1)
            check_values(name, item, f"{path}.{key}" if key.isidentifier() else f"{path}[{key!r}]", depth + 1)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            check_values(name, item, f"{path}[{i}]", depth + 1)


def read_json(path: str | Path, name: str | None = None, what: str = "an input pausecheck reads") -> Any:
    """A whole file as one JSON value, within every limit of this module."""
    name = str(path) if name is None else name
    text = read_limited(path, name, what=what)
    if not text.strip():
        raise InputError(name, "", "empty")
    return parse_json(text, name)


def read_json_lines(path: str | Path, name: str | None = None, what: str = "an input pausecheck reads"
                    ) -> list[tuple[int, Any]]:
    """A JSON-lines file as (line number, value) for each non-blank line, within every limit of this module."""
    name = str(path) if name is None else name
    text = read_limited(path, name, what=what)
    return [(number, parse_json(line, name, number)) for number, line in enumerate(text.split("\n"), 1)
            if line.strip()]
