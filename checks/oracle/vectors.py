"""Conformance vectors: the covering sequences with their expected observations, as plain JSON files a
runtime can replay in its own test suite, in any language, without pausecheck.

A folder holds `manifest.json` (versions, bounds, reading, counts and the coverage figure),
`vectors.jsonl` (one vector per line: its `apply` requests, each with the observation expected after
it where one is judged) and a README saying how to run them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pausecheck.model import (
    MODEL_VERSION,
    ActionError,
    BoundError,
    Bounds,
    Machine,
    ReadingError,
    action_from_json,
    observe,
    reading_named,
    white_box,
)
from pausecheck.traces.input_file import InputError, read_json, read_json_lines, short

from pausecheck import __version__

from .cover import Recorded, Sequence, covering_sequences
from .protocol import PROTOCOL, apply_request

__all__ = ["FORMAT", "VectorError", "export_vectors", "load_vectors"]

FORMAT = "pausecheck-vectors/1"

README = """# Conformance vectors for RT-TOOL-7 and RT-GATE-6

Exported by pausecheck {version} (model {model}) at the bounds in `manifest.json`, reading
`{reading}`. Together the {vectors:,} vectors take {edges:,} of the {edges_total:,} edges of the model's
reachable graph at these bounds, each once as a new step ({coverage:.1%} coverage). With full
coverage, a runtime that passes them all behaves as the model does on every behaviour within the
bounds; with less, on the behaviours these vectors take.

Each line of `vectors.jsonl` is one vector: `{{"id": N, "fresh": K, "steps": [...]}}` (the steps
before `fresh` replay a path an earlier vector judged; the rest are new). To run one against your
runtime, without pausecheck:

1. reset the runtime (forget every run, message, attempt, question, warning and held list); its
   held-list capacity is `bounds.held_bound` of the manifest;
2. for each step in order, take the action of `step.apply` (an `apply` request of the adapter
   protocol: `action` is the model's action, `payload` names what it creates and carries the
   artifacts a tool returns);
3. where the step has `expect`, read what a caller sees now and compare it with
   `expect.observation` for equality (and your held lists with `expect.held`, if you keep them
   visible to tests); the first difference fails the vector.

The observation's shape and every action are documented in pausecheck's docs/oracle-adapter.md and
docs/itf.md. `pausecheck vectors check DIR -- CMD` runs these vectors against a runtime that speaks
the adapter protocol.
"""


class VectorError(Exception):
    """A vectors folder that cannot be read or no longer matches the model: one line."""


def export_vectors(machine: Machine, folder: Path, max_vectors: int | None = None) -> dict[str, Any]:
    """Write the covering sequences of `machine` with their expected observations; returns the manifest.

    With `max_vectors`, only that many, spread evenly over the whole set (the first, then every k-th),
    so that a small sample still reaches deep into the graph; the manifest's coverage is the share of
    all edges the written vectors take."""
    folder.mkdir(parents=True, exist_ok=True)
    every = sum(1 for _ in covering_sequences(machine)) if max_vectors is not None else 0
    chosen = None if max_vectors is None else {i * every // max_vectors for i in range(min(max_vectors, every))}
    count = steps = edges = total = 0
    with (folder / "vectors.jsonl").open("w", encoding="utf-8") as out:
        for index, sequence in enumerate(covering_sequences(machine)):
            new = len(sequence.steps) - sequence.fresh
            total += new
            if chosen is not None and index not in chosen:
                continue
            count += 1
            vector = {"id": index + 1, "fresh": sequence.fresh, "steps": list(_steps(sequence))}
            out.write(json.dumps(vector, separators=(",", ":")) + "\n")
            steps += len(sequence.steps)
            edges += new
    manifest = {
        "format": FORMAT, "pausecheck": __version__, "model": MODEL_VERSION, "protocol": PROTOCOL,
        "bounds": machine.bounds.as_dict(), "reading": machine.reading.name, "vectors": count, "steps": steps,
        "edges": edges, "edges_total": total, "coverage": round(edges / total, 4) if total else 1.0,
        "file": "vectors.jsonl",
    }
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    (folder / "README.md").write_text(README.format(version=__version__, **manifest),
                                      encoding="utf-8")
    return manifest


def _steps(sequence: Sequence) -> Iterator[dict[str, Any]]:
    for i, (pre, action, post) in enumerate(sequence.steps, 1):
        step: dict[str, Any] = {"apply": apply_request(i, pre, action)}
        if i >= sequence.fresh:  # the step before the first new one, and every new one
            step["expect"] = {"observation": observe(post), "held": white_box(post)}
        yield step


def load_vectors(folder: Path) -> tuple[Machine, list[Sequence], dict[str, Any]]:
    """The machine of a vectors folder, its vectors as sequences (the model's steps, with the
    requests and expectations recorded in the file), and its manifest."""
    if not (folder / "manifest.json").is_file():
        raise VectorError(f"{folder}: not a vectors folder (it has no manifest.json)")
    try:
        manifest = read_json(folder / "manifest.json", what="a vectors manifest")
        if not isinstance(manifest, dict):
            raise InputError(f"{folder}/manifest.json", "$", "must be a JSON object")
        file = manifest.get("file", "vectors.jsonl")
        if not isinstance(file, str) or not file or "/" in file or "\\" in file or file in (".", ".."):
            raise InputError(f"{folder}/manifest.json", "$.file", f"must name a file in the folder, got {short(file)}")
        lines = read_json_lines(folder / file, what="a vectors file")
    except InputError as error:
        raise VectorError(str(error)) from None
    if manifest.get("format") != FORMAT or manifest.get("model") != MODEL_VERSION:
        raise VectorError(f"{folder}/manifest.json: format {manifest.get('format')!r} of model "
                          f"{manifest.get('model')!r}; this pausecheck reads {FORMAT} of {MODEL_VERSION}: export again")
    try:
        machine = Machine(Bounds(**manifest["bounds"]), reading_named(manifest["reading"]))
    except (KeyError, TypeError, BoundError, ReadingError) as error:
        raise VectorError(f"{folder}/manifest.json: bad bounds or reading ({error})") from None
    sequences = [_sequence(machine, vector, f"{folder}/{file}:{n}") for n, vector in lines]
    return machine, sequences, manifest


def _sequence(machine: Machine, vector: Any, where: str) -> Sequence:
    try:
        state, steps, requests, expected = machine.init_states()[0], [], [], {}
        for i, step in enumerate(vector["steps"], 1):
            action = action_from_json(step["apply"]["action"])
            post = machine.step(state, action)
            if post is None:
                raise VectorError(f"{where}: step {i} ({action}) is not enabled in the model")
            steps.append((state, action, post))
            requests.append(step["apply"])
            if "expect" in step:
                expected[i] = (step["expect"]["observation"], step["expect"].get("held"))
            state = post
        fresh = vector["fresh"]
        if type(fresh) is not int or not 0 <= fresh < len(steps):
            raise VectorError(f"{where}: fresh must be a step index below {len(steps)}, got {fresh!r}")
        missing = sorted(set(range(max(fresh, 1), len(steps) + 1)) - set(expected))
        if missing:
            raise VectorError(f"{where}: step {missing[0]} is judged but has no expect")
    except (ValueError, KeyError, TypeError, ActionError) as error:
        raise VectorError(f"{where}: malformed vector ({type(error).__name__}: {error})") from None
    return Sequence(tuple(steps), fresh, Recorded(tuple(requests), expected))
