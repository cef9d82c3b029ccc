"""Hostile but fair input: every case gets one line naming the file and JSON path (or the output
path) and exit 2, or ends quietly with a non-zero code; never a traceback, never a hang."""

from __future__ import annotations

import copy
import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pausecheck.checks.cli import main

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "traces" / "golden" / "no_put_back.itf.json"
TINY = ["--calls", "1", "--per-call", "0", "--artifacts", "0", "--pauses", "0", "--write-failures", "0",
        "--observations", "0", "--accept-unexercised", "--no-liveness"]


def _golden() -> dict[str, Any]:
    return json.loads(GOLDEN.read_text(encoding="utf-8"))


def _set(path: tuple[Any, ...], value: Any) -> str:
    document = copy.deepcopy(_golden())
    target = document
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return json.dumps(document)


CASES = {
    "reading a list": (_set(("#meta", "reading"), ["x"]), '$["#meta"].reading: must be a string'),
    "reading an object": (_set(("#meta", "reading"), {"a": 1}), '$["#meta"].reading: must be a string'),
    "property a list": (_set(("#meta", "property"), ["x"]), '$["#meta"].property: must be a string or null'),
    "property a number": (_set(("#meta", "property"), 5), '$["#meta"].property: must be a string or null'),
    "verdict a list": (_set(("#meta", "verdict"), ["x"]), '$["#meta"].verdict: must be a string or null'),
    "clauses of numbers": (_set(("#meta", "clauses"), [1]), '$["#meta"].clauses: must be a list of clause ids'),
    "step clauses a number": (_set(("states", 1, "#meta", "clauses"), 5), '$.states[1]["#meta"].clauses: must be'),
    "first state's #meta a list": (_set(("states", 0, "#meta"), ["x"]), '$.states[0]["#meta"]: not an object'),
    "first state's #meta a number": (_set(("states", 0, "#meta"), 5), '$.states[0]["#meta"]: not an object'),
    "first state's clauses a number": (_set(("states", 0, "#meta", "clauses"), 5),
                                       '$.states[0]["#meta"].clauses: must be'),
    "a later #meta a list": (_set(("states", 2, "#meta"), []), '$.states[2]["#meta"]: missing'),
    "lone surrogate": (json.dumps(_golden()).replace('"property": "', '"property": "\\ud800'),
                       "$['#meta'].property: a string with a lone surrogate"),
    "5000 digits": (json.dumps(_golden()).replace('"steps": ', '"steps": ' + "9" * 5000 + ', "x": '),
                    "an integer with thousands of digits"),
    "100k nested arrays": ("[" * 100_000 + "]" * 100_000, "nested more than 64 levels deep"),
    "huge bound": (_set(("#meta", "bounds", "sessions"), 10**12), "must be a whole number from 1 to 1,000"),
    "empty": ("", "empty: no trace in it"),
    "not UTF-8": (b"\xff\xfe{}".decode("latin-1"), "not UTF-8"),
}


@pytest.mark.parametrize("command", ["replay", "shrink"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_a_bad_trace_is_one_line(case: str, command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text, words = CASES[case]
    path = tmp_path / "bad.itf.json"
    path.write_bytes(text.encode("latin-1") if case == "not UTF-8" else text.encode("utf-8", "surrogatepass"))
    assert main([command, str(path)]) == 2
    err = capsys.readouterr().err
    assert words in err and str(path) in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize("source", ["/dev/zero", "fifo", "folder"])
def test_a_device_a_fifo_with_no_writer_or_a_folder_is_refused_quickly(source: str, tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    path = source
    if source == "fifo":
        path = str(tmp_path / "fifo")
        os.mkfifo(path)
    elif source == "folder":
        path = str(tmp_path)
    assert main(["replay", path]) == 2
    err = capsys.readouterr().err
    words = {"/dev/zero": "larger than 64 MiB", "fifo": "empty", "folder": "is a folder"}[source]
    assert words in err and len(err.strip().splitlines()) == 1, err


def test_a_bound_too_large_to_search_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--sessions", "1000000000", "--max-states", "100"]) == 2
    assert "bound sessions=1000000000: must be a whole number from 1 to 1,000" in capsys.readouterr().err


@pytest.mark.parametrize("argv, words", [
    (["check", *TINY, "--out", "{file}"], "cannot write"),
    (["check", *TINY, "--out", "{file}/sub"], "cannot write"),
    (["shrink", str(GOLDEN), "--out", "{dir}"], "Is a directory"),
    pytest.param(["mutants", "--only", "no_put_back", "--golden", "{file}"], "cannot write",
                 marks=pytest.mark.slow),  # runs the mutant first: a default-bounds search
])
def test_an_output_path_that_cannot_be_written_is_one_line(argv: list[str], words: str, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "file").write_text("x", encoding="utf-8")
    filled = [a.format(file=tmp_path / "file", dir=tmp_path) for a in argv]
    assert main(filled) == 2
    err = capsys.readouterr().err
    # A search slower than 5 s (a loaded machine) also prints progress lines ("pausecheck mutants: ..."),
    # which are not the error: the error itself is one line.
    errors = [line for line in err.splitlines() if line.startswith("pausecheck: ")]
    assert words in err and len(errors) == 1 and errors[-1] == err.strip().splitlines()[-1], err


def _run(*argv: str, **streams: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pausecheck", *argv], text=True, timeout=120, **streams)


def test_a_full_disk_or_a_closed_stdout_ends_quietly() -> None:
    with open("/dev/full", "w") as full:
        done = _run("check", *TINY, stdout=full, stderr=subprocess.PIPE)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.strip() == "pausecheck: cannot write the output: No space left on device"
    closed = subprocess.run(f"{sys.executable} -m pausecheck check {' '.join(TINY)} >&-", shell=True, text=True,
                            capture_output=True, timeout=120)
    assert closed.returncode == 2 and "Traceback" not in closed.stderr and "standard output is closed" in closed.stderr


@pytest.mark.parametrize("argv", [
    ["--help"], ["--version"], ["check", "--help"], ["conform", "--help"], ["mutants", "--list"],
    ["replay", str(GOLDEN)], ["check", *TINY, "--json"],
    ["report", *TINY, "--out", "/dev/full"], ["shrink", str(GOLDEN), "--out", "/dev/full"],
    ["graph", "--calls", "1", "--pauses", "0", "--format", "dot", "--out", "/dev/full"],
], ids=lambda argv: " ".join(argv[:2]))
def test_a_full_disk_is_exit_1_for_every_command(argv: list[str]) -> None:
    with open("/dev/full", "w") as full:
        done = _run(*argv, stdout=full, stderr=subprocess.PIPE)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.count("\n") == 1 and "No space left on device" in done.stderr, done.stderr


def test_a_reader_that_stops_reading_ends_it_quietly() -> None:
    """The reader is gone before the first line (its end of the pipe closed before the run starts), so
    the run's first write meets a broken pipe whatever the machine's speed: exit 1, nothing on stderr.
    (Closing after reading a line raced: a run that had written everything into the pipe's buffer
    first ended 0, as it should.)"""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run([sys.executable, "-m", "pausecheck", "check", *TINY], stdout=write_end,
                              stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(write_end)
    assert done.returncode == 1 and done.stderr == "", done.stderr


def test_shrink_of_stdin_writes_in_the_current_folder(tmp_path: Path) -> None:
    done = _run("shrink", "/dev/stdin", input=GOLDEN.read_text(encoding="utf-8"), capture_output=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "stdin.shrunk.itf.json").is_file()


def test_max_seconds_stops_with_the_statistics_reached(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--sessions", "2", "--max-seconds", "0.5"]) == 3
    out = capsys.readouterr().out
    assert "INCOMPLETE (stopped by --max-seconds: nothing is established)" in out
    assert "[incomplete] stopped by --max-seconds after" in out and "searched " in out


@pytest.mark.parametrize("size", ["lots", "0", "12Q"])
def test_a_bad_memory_size_is_a_usage_error(size: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["check", "--max-memory", size])
    assert stop.value.code == 2 and "is not a size such as 200M or 2G" in capsys.readouterr().err


@pytest.mark.slow  # grows to 200 MB: about 20 s
def test_max_memory_stops_cleanly_before_the_machine_runs_out() -> None:
    done = _run("check", "--sessions", "2", "--max-memory", "200M", capture_output=True)
    assert done.returncode == 3 and "Traceback" not in done.stderr
    assert "INCOMPLETE (stopped by --max-memory before memory ran out" in done.stdout
    assert "lower the bounds to finish" in done.stdout


@pytest.mark.slow  # waits for the first progress line (5 s off a terminal)
def test_sigterm_stops_a_search_like_ctrl_c_with_its_statistics() -> None:
    search = subprocess.Popen([sys.executable, "-m", "pausecheck", "check", "--sessions", "2", "--no-color"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert search.stderr is not None
    search.stderr.readline()  # the first progress line: the search is under way
    search.terminate()
    out, err = search.communicate(timeout=60)
    assert search.returncode == 3 and "Traceback" not in err
    assert "INCOMPLETE (interrupted: nothing is established)" in out and "[incomplete] interrupted after" in out


def _unnumbered(action: Any) -> Any:
    """The action with its execution id blanked: what stays the same when executions are renumbered."""
    return dataclasses.replace(action, execution="") if hasattr(action, "execution") else action


def test_an_800_step_trace_shrinks_to_a_short_subsequence_that_still_breaks_it() -> None:
    import random

    from pausecheck.checks.mutants import mutant_named, mutate
    from pausecheck.checks.shrink import shrink
    from pausecheck.model import Machine
    from pausecheck.model.config import FUZZ_BOUNDS

    from .scripts import load

    bench = load("benchmarks/shrink.py", "bench_shrink")
    machine = mutate(Machine(FUZZ_BOUNDS), mutant_named("no_put_back"))
    actions = bench.walk(machine, 800, random.Random(7))
    found = shrink(machine, actions, bench.TARGET)
    assert found is not None and len(actions) == 800 and len(found.actions) <= 15
    # a subsequence, in order, once executions are renumbered (dropping a whole execution renumbers the later ones)
    remaining = iter(_unnumbered(a) for a in actions)
    assert all(any(_unnumbered(a) == b for b in remaining) for a in found.actions)
    pre, action, post = found.states[-2], found.actions[-1], found.states[-1]
    assert machine.judge(bench.TARGET, pre, action, post)[0]


def _comparable(report: dict[str, Any]) -> dict[str, Any]:
    """A check's JSON without what depends on the clock."""
    drop = {"seconds", "states_per_second"}
    if isinstance(report, dict):
        return {k: _comparable(v) for k, v in report.items() if k not in drop}
    if isinstance(report, list):
        return [_comparable(v) for v in report]  # type: ignore[return-value]
    return report


@pytest.mark.slow  # three searches at the default bounds, one of them killed: about 40 s
def test_a_killed_and_resumed_search_equals_an_uninterrupted_one(tmp_path: Path) -> None:
    whole = _run("check", "--json", "--out", str(tmp_path / "whole"), capture_output=True, cwd=tmp_path)
    assert whole.returncode == 0, whole.stderr
    saved = tmp_path / "saved"
    killed = subprocess.Popen([sys.executable, "-m", "pausecheck", "check", "--checkpoint", str(saved),
                               "--checkpoint-every", "0.5"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(600):  # until the first checkpoint is on disk
        if (saved / "search.checkpoint").exists() or killed.poll() is not None:
            break
        import time

        time.sleep(0.05)
    killed.kill()
    killed.wait()
    assert (saved / "search.checkpoint").exists()
    resumed = _run("check", "--json", "--resume", str(saved), "--out", str(tmp_path / "resumed"),
                   capture_output=True, cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    one, two = json.loads(whole.stdout), json.loads(resumed.stdout)
    for report, folder in ((one, "whole"), (two, "resumed")):
        for p in report["properties"]:
            p["trace"] = p["trace"] and Path(p["trace"]).name
        assert folder
    assert _comparable(one) == _comparable(two)
    names = sorted(p.name for p in (tmp_path / "whole").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "resumed").iterdir())
    for name in names:
        assert (tmp_path / "whole" / name).read_bytes() == (tmp_path / "resumed" / name).read_bytes(), name


def test_a_checkpoint_of_another_search_or_a_damaged_one_is_refused(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", *TINY, "--checkpoint", str(tmp_path), "--checkpoint-every", "0.001"]) == 0
    capsys.readouterr()
    assert main(["check", "--resume", str(tmp_path / "nothing")]) == 2
    assert "no checkpoint to resume from" in capsys.readouterr().err
    from array import array

    from pausecheck.checks.search.checkpoint import FILE, Checkpoint, Snapshot

    Checkpoint(tmp_path, 1.0, ("other",)).save(Snapshot(array("q"), array("q"), {}))
    assert main(["check", "--resume", str(tmp_path)]) == 2
    assert "a checkpoint of another search" in capsys.readouterr().err
    (tmp_path / FILE).write_bytes(b"not a pickle")
    assert main(["check", "--resume", str(tmp_path)]) == 2
    assert "damaged checkpoint" in capsys.readouterr().err
