"""Checkpoints: a long search's state written to disk now and then, so that a crash or a kill loses
at most the time since the last one.

A checkpoint is one pickle file, written whole to a temporary name, flushed to disk, then renamed
over the previous one: a crash mid-write leaves the previous checkpoint intact. It holds what the
breadth-first search needs to carry on exactly where it was (the states found, their parents and
actions, the discoveries so far, the position in the queue and the counters) and a key (pausecheck
version, model version, bounds, reading, mutant, and how states are stored: --symmetry, --compact) that a
resume must match. A resumed search visits
the same states in the same order as one never stopped, so its counts and traces are the same.
"""

from __future__ import annotations

import os
import pickle
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Checkpoint", "CheckpointError", "FILE"]

FILE = "search.checkpoint"


class CheckpointError(Exception):
    """A checkpoint that cannot be used: missing, damaged, or from another search."""


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """Where to keep a search's checkpoint, how often, and the key naming the search."""

    folder: Path
    every: float  # seconds between checkpoints
    key: tuple[Any, ...]

    @property
    def path(self) -> Path:
        return self.folder / FILE

    def save(self, snapshot: dict[str, Any]) -> None:
        """Write atomically: a temporary file, flushed and synced, then renamed over the old one."""
        self.folder.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_suffix(".writing")
        with temporary.open("wb") as out:
            pickle.dump({"key": self.key, "snapshot": snapshot}, out, protocol=pickle.HIGHEST_PROTOCOL)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, self.path)

    def load(self) -> dict[str, Any]:
        """The saved snapshot; refused if it belongs to another search or version."""
        try:
            with self.path.open("rb") as source:
                saved = pickle.load(source)
        except FileNotFoundError:
            raise CheckpointError(f"{self.path}: no checkpoint to resume from") from None
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError, IndexError) as error:
            raise CheckpointError(f"{self.path}: damaged checkpoint ({type(error).__name__})") from None
        if not isinstance(saved, dict) or saved.get("key") != self.key:
            theirs = saved.get("key") if isinstance(saved, dict) else None
            raise CheckpointError(f"{self.path}: a checkpoint of another search ({_describe(theirs)}); this one is "
                                  f"{_describe(self.key)}")
        return saved["snapshot"]


def _describe(key: Any) -> str:
    if not isinstance(key, tuple) or len(key) != 6:
        return "unknown"
    version, model, bounds, reading, mutant, stored = key
    flags = " ".join(f"{k}={v}" for k, v in bounds)
    return (f"pausecheck {version}, {model}, {flags}, reading {reading}" + (f", mutant {mutant}" if mutant else "")
            + "".join(f", --{option}" for option in stored))
