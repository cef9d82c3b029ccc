"""No process outlives its command, and a hostile draft is one line: the command line is run as a user runs it,
in a session of its own, and once it has exited nothing of that session may still be running."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

SMALL = ["--calls", "1", "--pauses", "1", "--artifacts", "1", "--observations", "0", "--held-bound", "1"]

DRAFTS = {
    # The segment no longer counts its calls: the space grows without end.
    "uncounted": ("from pausecheck.model.actions import CallTool\n"
                  "from pausecheck.model.deviate import Drop, deviate, on\n"
                  "from pausecheck.model.rules import g\n"
                  "RULES = deviate(on(CallTool, Drop(g.calls)))\n"),
    # The write-back no longer records whether it is final.
    "unrecorded": ("from pausecheck.model.actions import StartWriteBack\n"
                   "from pausecheck.model.deviate import Drop, deviate, on\n"
                   "from pausecheck.model.rules import g\n"
                   "RULES = deviate(on(StartWriteBack, Drop(g.final)))\n"),
    # The write-back hands its segment to an execution that does not exist: the table breaks on one side.
    "breaking": ("from pausecheck.model.actions import StartWriteBack\n"
                 "from pausecheck.model.deviate import Also, deviate, on\n"
                 "from pausecheck.model.lang import Set\n"
                 "from pausecheck.model.rules import S, g\n"
                 "RULES = deviate(on(StartWriteBack, Also(Set(S.segments, S.segments.update_where(\n"
                 "    lambda y: y.execution == g.execution, lambda y: y.but(execution='zz'))))))\n"),
    # A thread that never ends, and one that is not a daemon.
    "threading": ("import threading, time\n"
                  "from pausecheck.model.rules import RULES\n"
                  "threading.Thread(target=lambda: time.sleep(10**6)).start()\n"),
    # pausecheck's own command line, called by the draft.
    "calling main": ("from pausecheck.checks.cli import main\n"
                     "from pausecheck.model.rules import RULES\n"
                     "main(['--help'])\n"),
}


def _run(argv: list[str], cwd: Path, timeout: float) -> tuple[int, str, str, float]:
    """The command line in a session of its own; after it exits, nothing of that session may remain."""
    started = time.monotonic()
    process = subprocess.Popen([sys.executable, "-m", "pausecheck", *argv], cwd=cwd, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = process.communicate(timeout=timeout)
    finally:
        left = _session_alive(process.pid)
        if left:
            os.killpg(process.pid, signal.SIGKILL)
        process.kill()
    assert not left, f"processes outlived the command: {left}"
    return process.returncode, out, err, time.monotonic() - started


def _session_alive(sid: int) -> list[str]:
    """The processes of session `sid` still running (Linux /proc)."""
    alive = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[3]) == sid and fields[0] != "Z":
            alive.append(pid)
    return alive


@pytest.fixture
def drafts(tmp_path: Path) -> Path:
    for name, text in DRAFTS.items():
        # not a module's name: the command line runs in this folder, where `threading.py` would be imported
        (tmp_path / f"draft_{name.replace(' ', '_')}.py").write_text(text, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("name, bounds, codes", [("uncounted", [], {1, 3}), ("unrecorded", SMALL, {1}),
                                                 ("breaking", SMALL, {2})])
def test_diff_of_a_hostile_draft_is_one_answer_and_leaves_nothing_running(name: str, bounds: list[str],
                                                                          codes: set[int], drafts: Path) -> None:
    code, out, err, took = _run(["diff", "--draft", f"draft_{name}.py", "--max-seconds", "6", "--ladder-seconds", "0",
                                 "--jobs", "2", *bounds], drafts, timeout=60)
    assert code in codes and "Traceback" not in err + out, (code, err)
    assert took < 6 + 8, took  # the limit, the grace and the hard stop
    if code == 2:
        assert len(err.strip().splitlines()) == 1 and err.startswith(f"pausecheck: draft_{name}.py"), err


def test_a_draft_with_a_thread_that_never_ends_ends_with_its_command(drafts: Path) -> None:
    code, out, err, took = _run(["check", "--draft", "draft_threading.py", "--max-seconds", "5", "--workers", "2"],
                                drafts, timeout=60)
    assert code in (0, 3) and "Traceback" not in err, err  # 0 where the check ends inside its 5 s (an idle machine)
    assert took < 5 + 8, took


def test_a_draft_that_calls_the_command_line_is_one_line(drafts: Path) -> None:
    code, out, err, _ = _run(["check", "--draft", "draft_calling_main.py", *SMALL], drafts, timeout=60)
    assert code == 2 and out == "", out
    assert err == "pausecheck: draft_calling_main.py:3: SystemExit: 0\n", err


def _sleep_or_fail(item: int) -> int:
    if item == 1:
        raise ValueError("this search failed")
    time.sleep(60 if item == 0 else 0)
    return item


def test_a_failed_search_ends_its_batch_at_once_and_no_worker_remains() -> None:
    import multiprocessing

    from pausecheck.checks.search.parallel import run_all

    started = time.monotonic()
    with pytest.raises(ValueError, match="this search failed"):
        run_all(_sleep_or_fail, [0, 1, 2], jobs=2)
    assert time.monotonic() - started < 30
    assert multiprocessing.active_children() == []
    assert run_all(_sleep_or_fail, [2, 3, 4, 5], jobs=2, fresh=False) == [2, 3, 4, 5]


def _sleep_for(item: float) -> tuple[float, float]:
    time.sleep(item)
    return item, time.monotonic()


def test_ordered_gives_each_result_in_order_as_it_comes_and_a_reader_that_stops_ends_the_rest() -> None:
    """A slow first item does not hold up the others' work (they run on the other worker meanwhile, and end
    before it), its result comes first all the same; a reader that stops part way leaves no worker running."""
    import multiprocessing
    from contextlib import closing

    from pausecheck.checks.search.parallel import ordered

    got = list(ordered(_sleep_for, [3.0, 0.1, 0.1, 0.1, 0.1], jobs=2))
    assert [item for item, _ in got] == [3.0, 0.1, 0.1, 0.1, 0.1]
    assert all(ended < got[0][1][1] for _, (_, ended) in got[1:])  # done while the first still slept
    with closing(ordered(_sleep_for, [0.0, 60.0, 60.0], jobs=2)) as results:
        assert next(results)[0] == 0.0
    assert multiprocessing.active_children() == []


ABANDONING = """
import multiprocessing, os, threading, time
from pausecheck.model import Bounds, Machine
from pausecheck.checks.search.explore import NO_LIMITS
from pausecheck.checks.search.parallel import ordered
from pausecheck.checks.search.spread import Processes
team = Processes(Machine(Bounds(calls=1, pauses=1)), 2, True, NO_LIMITS)  # idle, waiting on their pipes
busy = ordered(time.sleep, [600.0, 600.0], jobs=2)  # at work
threading.Thread(target=lambda: next(busy), daemon=True).start()
while len(multiprocessing.active_children()) < 4:
    time.sleep(0.05)
print(" ".join(str(p.pid) for p in multiprocessing.active_children()), flush=True)
os._exit(3)  # as a limit's hard stop ends the process: no exit handler runs
"""


def test_workers_end_with_a_parent_that_ends_without_stopping_them() -> None:
    """A spread search's workers waiting on their pipes and a pool's workers at work all end when their parent
    ends by `os._exit` (a limit's hard stop) without stopping them: before, the spread workers waited for ever,
    each holding the other's pipe open, and with them the command's output."""
    child = subprocess.Popen([sys.executable, "-c", ABANDONING], stdout=subprocess.PIPE, text=True)
    pids = [int(pid) for pid in child.stdout.readline().split()]
    assert child.wait(timeout=60) == 3 and len(pids) == 4
    deadline = time.monotonic() + 10
    while (alive := [pid for pid in pids if _alive(pid)]) and time.monotonic() < deadline:
        time.sleep(0.1)
    for pid in alive:
        os.kill(pid, signal.SIGKILL)
    assert alive == []
    child.stdout.close()


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        return False


def test_a_full_fingerprint_table_is_one_line_and_leaves_no_worker(tmp_path: Path) -> None:
    """A spread checkpoint whose fingerprint table a holder of the key filled (every slot in use) and sealed again:
    one line, exit 2, and no worker left probing the table for a free slot."""
    from pausecheck.checks.search import levels

    flags = ["check", *SMALL, "--no-companion", "--no-liveness", "--workers", "2", "--fingerprint"]
    code, _, err, _ = _run([*flags, "--checkpoint", str(tmp_path / "c"), "--checkpoint-every", "0.001",
                            "--max-states", "60"], tmp_path, timeout=120)
    assert code == 3, err
    name = sorted(p.name for p in (tmp_path / "c").iterdir() if levels.PART.fullmatch(p.name))[0]
    header, body = levels._read_sealed(tmp_path / "c" / name)
    sections, at = [], 0
    for length in header["sections"]:
        sections.append(body[at:at + length])
        at += length
    sections[3] = (b"\x01" + bytes(7)) * (len(sections[3]) // 8)
    size, digest = levels._write_sealed(tmp_path / "c" / name, header, sections)
    driver, _ = levels._read_sealed(tmp_path / "c" / levels.DRIVER)
    for entry in driver["parts"]:
        if entry[0] == name:
            entry[1:] = [size, digest]
    levels._write_sealed(tmp_path / "c" / levels.DRIVER, driver, [])
    code, out, err, took = _run([*flags, "--resume", str(tmp_path / "c")], tmp_path, timeout=60)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "slots in use" in err, (code, err)
    assert "Traceback" not in out + err
