"""Forged checkpoints (issue 45): well-formed files sealed afresh, as a forger holding the user's key could
(`checks/search/sealing.py`; one without it is refused at the seal, tested last), so that only their contents are
wrong. Each is made afresh from a real checkpoint of the current model at small bounds (so
the suite stays valid as the model changes), then resumed with `pausecheck check --resume`: it must be refused
with exit 2 and one line naming what is wrong, or resume to exactly the figures, verdicts and trace files of
the search never stopped. Each forgery says which of the two it must be."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from pausecheck.checks.cli import main
from pausecheck.checks.search.checkpoint import FILE, MAGIC, Checkpoint
from pausecheck.checks.search.explore import explore
from pausecheck.checks.search.restore import STUCK

from .forgeries import Ladder, Parts, figures, ladder_saved, packed, parts_of, sign, uninterrupted

SMALL = ["--pauses", "1", "--accept-unexercised", "--no-liveness", "--no-companion"]  # 2,885 states
SCENARIOS = {
    "conformant": SMALL,  # witnesses only: nothing breaks, nothing deadlocks
    "broken": [*SMALL, "--reading", "A-G1=leave"],  # violations (one always, one transition) and deadlocks too
}
RESUMES = None  # a forgery that must resume to the uninterrupted search's figures


def _frontier(p: Parts) -> int:
    """A state stored but not expanded yet, with a neighbour after it: where edits are hardest to notice."""
    return (p.position + p.count) // 2


def _swap(p: Parts, j: int) -> Parts:
    """States j and j + 1 trade places (their numbers, so each is still a real successor of a real state)."""
    parents, choices = list(p.parents), list(p.choices)
    parents[j], parents[j + 1], choices[j], choices[j + 1] = parents[j + 1], parents[j], choices[j + 1], choices[j]
    return p.numbers(parents, choices)


def _set(p: Parts, which: str, j: int, value: int) -> Parts:
    parents, choices = list(p.parents), list(p.choices)
    (parents if which == "parents" else choices)[j] = value
    return p.numbers(parents, choices)


def _drop(p: Parts, j: int, k: int = 1) -> Parts:
    return p.numbers(p.parents[:j] + p.parents[j + k:], p.choices[:j] + p.choices[j + k:])


def _insert(p: Parts, j: int, parent: int, choice: int) -> Parts:
    return p.numbers(p.parents[:j] + [parent] + p.parents[j:], p.choices[:j] + [choice] + p.choices[j:])


def _violation(p: Parts, kind: str) -> tuple[str, list[Any]]:
    """The file's violation of an always (`state`) or a transition (`step`) property."""
    return next((n, e) for n, e in p.header["violations"].items() if (e[1] is None) == (kind == "state"))


def _discovery(p: Parts, table: str, name: str, end: list[Any] | None) -> Parts:
    header = json.loads(json.dumps(p.header))
    if end is None:
        del header[table][name]
    else:
        header[table][name] = end
    return replace(p, header=header)


def _holding(p: Parts) -> str:
    """An always property the search finds unbroken: a forged violation names it."""
    from pausecheck.model import ALWAYS, PROPERTIES

    return next(q.name for q in PROPERTIES if q.kind == ALWAYS and q.name not in p.header["violations"])


def _witness(p: Parts) -> tuple[str, list[Any]]:
    return next((n, e) for n, e in p.header["witnesses"].items() if e[1] is not None)


# name -> (scenario, the forgery, what a resume must do: a substring of its one line, or RESUMES)
FORGERIES: dict[str, tuple[str, Callable[[Parts], bytes | Parts], str | None]] = {
    # controls: the genuine file, and one re-signed unchanged, resume
    "the genuine file": ("broken", lambda p: p, RESUMES),
    "the seconds forged": ("broken", lambda p: p.edited(seconds=10**400), RESUMES),  # a traceback before: float
    "the seconds negative": ("conformant", lambda p: p.edited(seconds=-1e308), RESUMES),
    # dropped states
    "the last states dropped": ("conformant", lambda p: _drop(p, p.count - 3, 3), "stores one more there"),
    "a state dropped in the queue": ("broken", lambda p: _drop(p, _frontier(p)), "state {f}:"),
    "an expanded state dropped": ("broken", lambda p: _drop(p, p.position // 2).edited(
        i=p.position - 1, level_end=p.header["loop"]["level_end"] - 1), "state {h}:"),
    "states dropped, the position moved back to fit": ("conformant", lambda p: _drop(p, p.count - 200, 200).edited(
        i=p.position - 150, level_end=p.count - 200), "stores one more there"),
    # states duplicated or added
    "a state duplicated": ("broken", lambda p: _insert(p, _frontier(p) + 1, p.parents[_frontier(p)],
                                                         p.choices[_frontier(p)]), "stored already"),
    "a state overwritten by its neighbour": ("conformant", lambda p: _set(_set(
        p, "parents", _frontier(p), p.parents[_frontier(p) - 1]), "choices", _frontier(p),
        p.choices[_frontier(p) - 1]), "stored already"),
    "a successor of an unexpanded state added": ("broken", lambda p: _insert(p, p.count, p.count - 1, 0),
                                                 "expanding its first"),
    # order
    "two states swapped": ("broken", lambda p: _swap(p, _frontier(p)), "the search stores successor"),
    "a parent after its child": ("conformant", lambda p: _set(p, "parents", _frontier(p), _frontier(p) + 5),
                                 "not a state stored before it"),
    "an initial state given a parent": ("conformant", lambda p: _set(p, "parents", 0, 3), "initial states"),
    # choices
    "a choice naming no successor": ("broken", lambda p: _set(p, "choices", _frontier(p), 999), "no successor 999"),
    "a negative choice": ("conformant", lambda p: _set(p, "choices", _frontier(p), -1), "no successor -1"),
    # counters
    "transitions inflated": ("conformant", lambda p: p.edited(transitions=p.header["loop"]["transitions"] + 9),
                             "counter 'transitions'"),
    "depth inflated": ("broken", lambda p: p.edited(depth=p.header["loop"]["depth"] + 1), "counter 'depth'"),
    "the level's end moved": ("broken", lambda p: p.edited(level_end=p.header["loop"]["level_end"] - 1),
                              "counter 'level_end'"),
    "deadlocks inflated": ("broken", lambda p: p.edited(deadlocks=p.header["loop"]["deadlocks"] + 1),
                           "counter 'deadlocks'"),
    "the position moved back": ("broken", lambda p: p.edited(i=p.position - 1), "counter 'transitions'"),
    "the position moved on": ("conformant", lambda p: p.edited(i=p.position + 100), "stores one more there"),
    # huge numbers
    "transitions huge": ("broken", lambda p: p.edited(transitions=10**30), "counter 'transitions' is"),
    "depth a huge float": ("conformant", lambda p: sign(json.dumps(p.edited(depth=0).header).replace(
        '"depth": 0', '"depth": 1e999').encode(), packed(p.parents) + packed(p.choices)), "counter 'depth'"),
    "a counter of 5,000 digits": ("conformant", lambda p: sign(json.dumps(p.edited(deadlocks=0).header).replace(
        '"deadlocks": 0', '"deadlocks": ' + "9" * 5000).encode(), packed(p.parents) + packed(p.choices)),
        "header is not JSON"),
    "the position huge": ("broken", lambda p: p.edited(i=2**63, level_end=2**63), "past the states"),
    "a count of states huge": ("conformant", lambda p: sign(json.dumps({**p.header, "states": 2**62}).encode(),
                                                              packed(p.parents) + packed(p.choices)), "holds"),
    "a parent huge": ("broken", lambda p: _set(p, "parents", _frontier(p), 2**63 - 1), "not a state stored"),
    "a choice most negative": ("conformant", lambda p: _set(p, "choices", _frontier(p), -(2**63)), "no successor"),
    "a discovery's state huge": ("broken", lambda p: _discovery(p, "witnesses", _witness(p)[0],
                                                                [10**20, 0, None]), "not [state, successor"),
    # discoveries
    "a violation added to a search that breaks nothing": (
        "conformant", lambda p: _discovery(p, "violations", _holding(p), [0, None, "forged"]), "does not occur"),
    "a violation added where it does not hold": (
        "broken", lambda p: _discovery(p, "violations", _holding(p), [5, None, "forged"]), "does not occur"),
    "a violation moved to a later state": ("broken", lambda p: _discovery(
        p, "violations", _violation(p, "state")[0], [p.count - 1, None, _violation(p, "state")[1][2]]),
        "the search finds it first at"),
    "a transition's violation moved to another step": ("broken", lambda p: _discovery(
        p, "violations", _violation(p, "step")[0], [_violation(p, "step")[1][0], 0, _violation(p, "step")[1][2]]),
        "the search finds it first at"),
    "a violation's message changed": ("broken", lambda p: _discovery(
        p, "violations", _violation(p, "state")[0], [*_violation(p, "state")[1][:2], "something else"]),
        "not the model's"),
    "a witness moved to the first state": ("conformant", lambda p: _discovery(
        p, "witnesses", _witness(p)[0], [0, 0, None]), "the search finds it first at"),
    "a witness at a step its state lacks": ("broken", lambda p: _discovery(
        p, "witnesses", _witness(p)[0], [_witness(p)[1][0], 99, None]), "ends at successor 99"),
    "a witness added that the search never finds": ("broken", lambda p: _discovery(
        p, "witnesses", "completes_after_decline", [0, 0, None]), "does not occur"),
    "a deadlock added": ("conformant", lambda p: p.edited(deadlock=[5, STUCK], deadlocks=1), "counter 'deadlocks'"),
    "a deadlock added, its count left": ("conformant", lambda p: p.edited(deadlock=[5, STUCK]), "first deadlock"),
    "the deadlock moved": ("broken", lambda p: p.edited(deadlock=[p.header["deadlock"][0] + 1, STUCK]),
                           "first deadlock"),
    "the deadlock's message changed": ("broken", lambda p: p.edited(deadlock=[p.header["deadlock"][0], "ok"]),
                                       "first deadlock"),
    "the deadlock removed": ("broken", lambda p: p.edited(deadlock=None), "first deadlock"),
}


@pytest.fixture(scope="module")
def genuine(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Parts]:
    """A real checkpoint of each scenario's search, cut by the clock: the last one saved (at 2,048 states
    expanded of 2,361 stored, here)."""
    saved = {}
    for scenario, argv in SCENARIOS.items():
        folder = tmp_path_factory.mktemp(scenario)
        main(["check", *argv, "--checkpoint", str(folder), "--checkpoint-every", "0.0001"])
        saved[scenario] = parts_of((folder / FILE).read_bytes())
    return saved


@dataclass(frozen=True)
class Outcome:
    code: int
    err: str
    report: Any  # the JSON report without what depends on the clock or the folder
    traces: dict[str, bytes]


def _check(argv: list[str], out: Path, capsys: pytest.CaptureFixture[str]) -> Outcome:
    capsys.readouterr()
    code = main(["check", *argv, "--json", "--out", str(out)])
    captured = capsys.readouterr()
    report = json.loads(captured.out) if code in (0, 1) else None
    for p in report["properties"] if report else ():
        p["trace"] = p["trace"] and Path(p["trace"]).name
    if report:
        report["deadlock_trace"] = report["deadlock_trace"] and Path(report["deadlock_trace"]).name
        del report["seconds"], report["states_per_second"]
    traces = {p.name: p.read_bytes() for p in sorted(out.iterdir())} if out.exists() else {}
    return Outcome(code, captured.err, report, traces)


_UNINTERRUPTED: dict[str, Outcome] = {}


def _uninterrupted(scenario: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Outcome:
    if scenario not in _UNINTERRUPTED:
        _UNINTERRUPTED[scenario] = _check(SCENARIOS[scenario], tmp_path / "whole", capsys)
    return _UNINTERRUPTED[scenario]


def _resumed(scenario: str, data: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Outcome:
    folder = tmp_path / "forged"
    folder.mkdir()
    (folder / FILE).write_bytes(data)
    return _check([*SCENARIOS[scenario], "--resume", str(folder)], tmp_path / "resumed", capsys)


def assert_refused_or_uninterrupted(got: Outcome, whole: Outcome, expected: str | None) -> None:
    """Refused in one line naming `expected`, or (`expected` RESUMES) exactly the uninterrupted search."""
    assert "Traceback" not in got.err, got.err
    if expected is RESUMES:
        assert (got.code, got.report, got.traces, got.err) == (whole.code, whole.report, whole.traces, whole.err)
        return
    assert got.code == 2 and got.err.count("\n") == 1 and "damaged checkpoint" in got.err, got.err
    assert expected in got.err, got.err


@pytest.mark.parametrize("name", list(FORGERIES))
def test_a_forged_checkpoint_is_refused_or_changes_nothing(name: str, genuine: dict[str, Parts], tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    scenario, forge, expected = FORGERIES[name]
    parts = genuine[scenario]
    forged = forge(parts)
    data = forged if isinstance(forged, bytes) else forged.signed()
    assert name == "the genuine file" or data != parts.signed(), "the forgery changed nothing"
    if expected is not RESUMES:  # where the forgery falls, for the messages that name a state
        expected = expected.format(f=_frontier(parts), h=parts.position // 2)
    got = _resumed(scenario, data, tmp_path, capsys)
    assert_refused_or_uninterrupted(got, _uninterrupted(scenario, tmp_path, capsys), expected)


@pytest.mark.parametrize("deleted", ["a violation", "a witness"])
@pytest.mark.xfail(strict=True, reason="sealed under the user's own key, a resume trusts that a property the file "
                   "does not name was not found before the checkpoint: re-deriving that absence takes every check the "
                   "search made (restore.py); without the key it is refused (the test below)")
def test_a_discovery_deleted_is_the_one_forgery_a_resume_trusts(deleted: str, genuine: dict[str, Parts],
                                                                tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    parts = genuine["broken"]
    table, name = ("violations", _violation(parts, "state")[0]) if deleted == "a violation" else (
        "witnesses", _witness(parts)[0])
    got = _resumed("broken", _discovery(parts, table, name, None).signed(), tmp_path, capsys)
    whole = _uninterrupted("broken", tmp_path, capsys)
    assert got.code == 2 or (got.code, got.report, got.traces) == (whole.code, whole.report, whole.traces)


@pytest.mark.parametrize("deleted", ["a violation", "a witness"])
def test_a_discovery_deleted_without_the_key_is_refused_at_the_seal(deleted: str, genuine: dict[str, Parts],
                                                                   tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """What anyone can compute (a SHA-256), or a seal under another key, opens no checkpoint."""
    parts = genuine["broken"]
    table, name = ("violations", _violation(parts, "state")[0]) if deleted == "a violation" else (
        "witnesses", _witness(parts)[0])
    body = _discovery(parts, table, name, None).signed()[len(MAGIC):].partition(b"\n")[2]
    for forged in (MAGIC + hashlib.sha256(body).hexdigest().encode() + b"\n" + body,
                   MAGIC + hmac.new(b"k" * 32, body, hashlib.sha256).hexdigest().encode() + b"\n" + body):
        got = _resumed("broken", forged, tmp_path, capsys)
        assert got.code == 2 and got.err.count("\n") == 1 and "its seal does not match its contents" in got.err
        shutil.rmtree(tmp_path / "forged")


def test_the_fuzzed_ladder_checkpoint_holds_every_kind_of_discovery(tmp_path: Path) -> None:
    """What `test_input_fuzz.py`'s forgeries edit is there, and resumes unedited to the search never stopped."""
    parts = ladder_saved(tmp_path / "saved")
    header = parts.header
    assert (header["loop"]["i"], sorted(header["violations"]), sorted(header["witnesses"]), header["deadlock"][0]) == (
        1024, ["no_jump_from_300", "not_700"], ["step_from_600"], 900)
    checkpoint = Checkpoint(tmp_path / "forged", 3600.0, ("ladder",))
    checkpoint.folder.mkdir()
    checkpoint.path.write_bytes(parts.signed())
    assert figures(explore(Ladder(), checkpoint=checkpoint, resume=True)) == uninterrupted(Ladder)


# -- a file far larger than its states: refused before it is read --------------------------------------------

_MEASURE = """
import json, os, resource, sys, time
from pausecheck.checks.cli import main
from pausecheck.checks.search.explore import explore
def mapped(): return int(open("/proc/self/status").read().split("VmSize:")[1].split()[0]) * 1024
# A reader that held the file, even once, would need 6 GB: under this limit it dies of MemoryError.
resource.setrlimit(resource.RLIMIT_AS, (mapped() + (1 << 30), resource.RLIM_INFINITY))
imported = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
started = time.perf_counter()
code = main(sys.argv[1:])
seconds = time.perf_counter() - started
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"code": code, "seconds": seconds, "peak": peak, "growth": peak - imported}))
"""
SIX_GB = 6 * 10**9


def _refuse_in_a_child(folder: Path) -> tuple[dict[str, Any], str]:
    """`check --resume folder` in a fresh interpreter: its exit code, the seconds it took, its peak resident
    memory and how much of it came after the imports; and its standard error."""
    done = subprocess.run([sys.executable, "-c", _MEASURE, "check", *SMALL, "--resume", str(folder)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1]), done.stderr


def _stretched(parts: Parts, path: Path, header: str) -> None:
    """A real checkpoint's header, the file then stretched to 6 GB without writing it (sparse); or a header whose
    count of states is what those 6 GB would hold."""
    if header == "its own":
        path.write_bytes(parts.signed())
        os.truncate(path, SIX_GB)
        return
    line = json.dumps({**parts.header, "states": SIX_GB // 16}).encode()  # as many digits as the count
    count = (SIX_GB - len(MAGIC) - 65 - len(line) - 1) // 16
    path.write_bytes(MAGIC + b"0" * 64 + b"\n" + json.dumps({**parts.header, "states": count}).encode() + b"\n")
    os.truncate(path, path.stat().st_size + 16 * count)


@pytest.mark.parametrize("header", ["its own", "one naming the states 6 GB would hold"])
def test_a_sparse_6_gb_checkpoint_is_refused_in_a_second_and_100_mb(header: str, genuine: dict[str, Parts],
                                                                     tmp_path: Path) -> None:
    """Measured in a child process: here about 0.02 s, and no resident memory beyond the imports' (72 MB)."""
    path = tmp_path / FILE
    _stretched(genuine["conformant"], path, header)
    assert SIX_GB - 16 < path.stat().st_size <= SIX_GB and path.stat().st_blocks * 512 < 1 << 20  # sparse
    measured, err = _refuse_in_a_child(tmp_path)
    assert measured["code"] == 2 and err.count("\n") == 1 and "damaged checkpoint" in err, (measured, err)
    assert ("holds 5,999" if header == "its own" else "more than this process's memory") in err, err
    assert measured["seconds"] < 1.0 and measured["growth"] < 100 << 20, measured
