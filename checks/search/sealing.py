"""The key that seals this user's checkpoints: a resume trusts only a file its own user's searches wrote.

A checksum anyone can recompute detects accidents, not a hand-made file; and one thing no resume can
re-derive without redoing every check the search made is that a property the file does not name was
not found before it (`restore.py`). So a checkpoint is sealed with HMAC-SHA-256 under a random key of
32 bytes kept, readable by its user only, at `$PAUSECHECK_CHECKPOINT_KEY`, else
`$XDG_STATE_HOME/pausecheck/checkpoint.key` (`~/.local/state/...` by default), made on first use. A
checkpoint edited, or written under another key (another user or machine), is refused in one line; to
resume on another machine, copy the key there too (or point the variable at a shared one).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from functools import cache
from pathlib import Path

__all__ = ["KEY_VARIABLE", "SealError", "key_path", "sealer"]

KEY_VARIABLE = "PAUSECHECK_CHECKPOINT_KEY"
KEY_BYTES = 32


class SealError(Exception):
    """The key cannot be read or made: one line naming the file and the variable that moves it."""


def key_path() -> Path:
    """Where the key is kept: the variable's file, else the user's state folder."""
    given = os.environ.get(KEY_VARIABLE)
    if given:
        return Path(given)
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "pausecheck" / "checkpoint.key"


def sealer() -> hmac.HMAC:
    """A fresh HMAC-SHA-256 under this user's key, to feed a checkpoint's contents."""
    return hmac.new(_key(key_path()), digestmod=hashlib.sha256)


@cache
def _key(path: Path) -> bytes:
    """The key in `path`, made there (atomically, mode 0600) if there is none yet."""
    try:
        return _read(path)
    except FileNotFoundError:
        pass
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        temporary = path.with_name(f"{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(secrets.token_bytes(KEY_BYTES))
            out.flush()
            os.fsync(out.fileno())
        try:
            os.link(temporary, path)  # never over a key another process made meanwhile: theirs is kept
        except FileExistsError:
            pass
        finally:
            temporary.unlink()
        return _read(path)
    except OSError as error:
        raise SealError(f"cannot make the checkpoint key {path}: {error.strerror or error} "
                        f"(set {KEY_VARIABLE} to a file that can be written)") from None


def _read(path: Path) -> bytes:
    try:
        key = path.read_bytes()
    except FileNotFoundError:
        raise
    except OSError as error:
        raise SealError(f"cannot read the checkpoint key {path}: {error.strerror or error} "
                        f"(set {KEY_VARIABLE} to another file)") from None
    if len(key) != KEY_BYTES:
        raise SealError(f"the checkpoint key {path} is not {KEY_BYTES} bytes (move it away to make a new one; "
                        f"the checkpoints sealed with it cannot then be resumed)")
    return key
