"""`conform --sequence` as a regression test (issue 56, item 3): it drives that sequence only (no search for a
shorter divergence unless `--shrink` asks), says how many of its steps it judged (never a coverage of the whole
graph), and never writes a name with its tag twice."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from pausecheck.checks.cli import main

RUNTIME = [sys.executable, str(Path(__file__).resolve().parent.parent / "examples" / "sqlite_runtime" / "runtime.py")]


def test_a_divergence_driven_again_is_a_regression_test(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["conform", "--calls", "1", "--", *RUNTIME, "--bug", "copy-not-take"]) == 1
    assert (tmp_path / "divergence.itf.json").exists()
    capsys.readouterr()
    assert main(["conform", "--sequence", "divergence.itf.json", "--", *RUNTIME, "--bug", "copy-not-take"]) == 1
    out, err = capsys.readouterr()
    assert "edges judged" not in out and "coverage" not in out, out
    assert "written to divergence.2.itf.json" in out and "divergence.divergence" not in out + err
    assert main(["conform", "--sequence", "divergence.itf.json", "--", *RUNTIME]) == 0  # the runtime fixed
    out = capsys.readouterr().out
    steps = out.split("drove ", 1)[1].split(" ", 1)[0]
    assert f"drove {steps} step(s) of the {steps} of divergence.itf.json" in out, out
    assert "[ok] the runtime agrees with the model on every step of divergence.itf.json (that sequence alone)" in out
    assert "%" not in out and "edges judged" not in out


def test_replay_of_a_divergence_at_the_runtime_grain_speaks_in_the_trace_s_steps(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A runtime that writes back in one step (a macro): conform says its step and the model's; replay says the
    trace's step first, and the runtime's beside it (was: "departed from it at step 12: after step 9")."""
    monkeypatch.chdir(tmp_path)
    atomic = [sys.executable, str(Path(RUNTIME[1]).parent.parent / "atomic_runtime" / "runtime.py")]
    assert main(["conform", "--calls", "1", "--", *atomic, "--bug", "commit-failed-take"]) == 1
    capsys.readouterr()
    assert main(["replay", "divergence.itf.json"]) == 1  # it shows a divergence
    out = capsys.readouterr().out
    assert "departed from it at step 12: after step 12 (the runtime's step 9, at its grain)," in out, out[-400:]


def test_junit_output_is_read_back_by_a_junit_parser(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """`--junit FILE`: one test case per sequence (or vector), the diverging one failing with its clauses, a
    skipped case per group of unexercised witnesses; read back with the standard library's XML parser, as a CI
    system's JUnit reader reads it."""
    from xml.etree import ElementTree as ET

    monkeypatch.chdir(tmp_path)
    assert main(["conform", "--calls", "1", "--junit", "conform.xml", "--", *RUNTIME, "--bug", "copy-not-take"]) == 1
    suite = ET.parse(tmp_path / "conform.xml").getroot().find("testsuite")
    assert suite is not None and suite.get("name") == "pausecheck conform" and suite.get("failures") == "1"
    cases = suite.findall("testcase")
    failed = [c for c in cases if c.find("failure") is not None]
    assert len(failed) == 1 and "T7.7" in (failed[0].find("failure").text or "")
    assert "divergence.itf.json" in failed[0].find("failure").text
    assert int(suite.get("tests")) == len(cases) > 1
    capsys.readouterr()
    vectors = Path(RUNTIME[1]).parent.parent / "vectors"
    assert main(["vectors", "check", str(vectors), "--junit", "vectors.xml", "--", *RUNTIME]) in (0, 3)
    suite = ET.parse(tmp_path / "vectors.xml").getroot().find("testsuite")
    assert suite.get("name") == "pausecheck vectors check" and suite.get("failures") == "0"
    names = [c.get("name") for c in suite.findall("testcase")]
    assert names[0] == "vector 1" and all(c.find("failure") is None for c in suite.findall("testcase"))
