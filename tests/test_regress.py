"""The CPU-time regression benchmark (`benchmarks/regress.py`) can fail: its comparison flags a command that grew
past 1.5x its baseline, or whose exit code changed, and passes one that did not. No time is measured here."""

from __future__ import annotations

from .scripts import load


def _regress():
    return load("benchmarks/regress.py", "regress")


def test_the_comparison_flags_growth_and_a_changed_exit_and_passes_the_rest():
    regress = _regress()
    base = {"check": {"cpu": 10.0, "exit": 0}, "diff": {"cpu": 4.0, "exit": 1}, "mutants": {"cpu": 2.0, "exit": 0}}
    now = {"check": {"cpu": 15.1, "exit": 0}, "diff": {"cpu": 4.1, "exit": 0}, "mutants": {"cpu": 2.9, "exit": 0},
           "new": {"cpu": 1.0, "exit": 0}}
    lines, regressions = regress.compare(now, base)
    assert len(lines) == 4 and "no baseline" in lines[3]
    assert [r.split()[0] for r in regressions] == ["check", "diff"]
    assert "REGRESSION" in regressions[0] and "EXIT 0, was 1" in regressions[1]
    assert regress.compare({"check": {"cpu": 14.9, "exit": 0}}, base)[1] == []


def test_every_command_is_a_pausecheck_command_and_the_machine_has_a_key():
    regress = _regress()
    assert all(c.startswith("pausecheck ") for c in regress.COMMANDS.values())
    assert "cores" in regress.machine_key() and "Python" in regress.machine_key()
