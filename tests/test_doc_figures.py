"""Figures in README.md and docs/ that the tool decides: each read from the text and compared with the tool,
so that a change to the model or the catalogue that moves one fails here instead of leaving the docs stale."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pausecheck.checks.cli import main
from pausecheck.model import COMPANIONS, DEFAULT_BOUNDS, SWITCHES
from pausecheck.model.ambiguities import AMBIGUITIES
from pausecheck.traces.itf import VARS

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = {name: (ROOT / "docs" / f"{name}.md").read_text(encoding="utf-8") for name in ("commands", "engines",
                                                                                     "limitations")}
NUMBERS = {"two": 2, "three": 3, "four": 4, "five": 5, "nine": 9, "ten": 10, "sixteen": 16, "seventeen": 17,
           "eighteen": 18}


def _number(word: str) -> int:
    return int(word.replace(",", "")) if word[0].isdigit() else NUMBERS[word.lower()]


def test_the_count_of_switches_and_fixed_ambiguities():
    said = re.search(r"- (\w+) of the \d+ ambiguities are switches the rules branch on .*?the\s+other (\w+)\s+are "
                     r"fixed", DOCS["limitations"], re.S)
    assert said, "docs/limitations.md: the sentence counting switched and fixed ambiguities is gone"
    assert _number(said.group(1)) == len(SWITCHES)
    assert _number(said.group(2)) == len(AMBIGUITIES) - len(SWITCHES)
    for each in re.findall(r"for each of the (\d+) ambiguities the rules\s+switch on", README + DOCS["commands"]):
        assert int(each) == len(SWITCHES)


def test_the_itf_doc_counts_the_variables():
    itf, fields = ((ROOT / "docs" / name).read_text(encoding="utf-8") for name in ("itf.md", "itf-schema.md"))
    assert f"always `{str(VARS).replace(chr(39), chr(34))}`" in fields  # the reference page's table of keys
    counted = re.findall(r"all (\w+) variables", itf + fields)
    assert re.findall(r"all (\w+) variables", itf) and all(_number(w) == len(VARS) for w in counted)


def test_the_no_companion_help_names_every_companion(capsys):
    with pytest.raises(SystemExit):
        main(["check", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    said = text[text.rindex("--no-companion"):][:400]
    assert all(name in said for name, _ in COMPANIONS), said


def test_the_state_counts_of_the_default_check(shared_check):
    """docs/commands.md: the states of the default search and of each companion search."""
    report = shared_check(DEFAULT_BOUNDS)
    said = re.search(r"searches ([\d,]+) states, then (\w+) small companion searches\s+\(([^;)]*) states[;)]",
                     DOCS["commands"])
    assert said, "docs/commands.md: the sentence with the default check's state counts is gone"
    assert _number(said.group(1)) == report.result.states
    assert _number(said.group(2)) == len(report.companions) == len(COMPANIONS)
    assert [_number(n) for n in said.group(3).split(" + ")] == [c.result.states for c in report.companions]


def test_the_bytes_a_state_of_each_store_are_quoted_and_ordered(monkeypatch):
    """docs/engines.md quotes the bytes a state of the exact, compact and fingerprint stores, which
    `benchmarks/bench.py` measures at the defaults under tracemalloc (some 50 times slower: three minutes,
    a benchmark's figure, which it compares with the docs). Here: the sentences are there, their order is
    the measured order at small bounds, and the check the benchmark runs flags a figure 10% off."""
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    from bench import documented_bytes, stale_bytes, stored_bytes

    quoted = documented_bytes(DOCS["engines"])
    assert quoted, "docs/engines.md: the sentences quoting the bytes a state of each store are gone"
    small = stored_bytes("default", DEFAULT_BOUNDS.replace(calls=1, per_call=1, artifacts=1))
    order = sorted(quoted, key=quoted.__getitem__)
    assert order == sorted(small, key=small.__getitem__) == ["bytes_per_state_fingerprints",
                                                             "bytes_per_state_compact", "bytes_per_state"], small
    assert stale_bytes(quoted) == []
    off = dict(quoted, bytes_per_state=round(quoted["bytes_per_state"] * 1.1))
    assert stale_bytes(off) == [f"docs/engines.md says {quoted['bytes_per_state']} for bytes_per_state, "
                                f"measured {off['bytes_per_state']}"]


def test_the_machine_and_the_bytes_a_fingerprint_takes_are_said_alike():
    """Every page that sizes a search against this machine names the same memory, and the README says what its
    16 bytes a state of `--fingerprint` count, beside the figure the speed page measures."""
    pages = [README] + [p.read_text(encoding="utf-8") for p in sorted((ROOT / "docs").glob("*.md"))]
    sizes = {size for page in pages for size in re.findall(r"this machine's ([\d.]+ ?\w+)", page)}
    assert len(sizes) == 1, f"the machine's memory is said otherwise on two pages: {sorted(sizes)}"
    speed = (ROOT / "docs" / "speed.md").read_text(encoding="utf-8")
    measured = re.search(r"with `--fingerprint`, (\d+) \(the visited states' fingerprints", speed)
    assert measured, "docs/speed.md: the sentence measuring a fingerprint search's bytes a state is gone"
    assert re.search(rf"at most 16 bytes a visited state in its fingerprint table, {measured.group(1)} a state\s+"
                     r"with the states still to expand", README), "README: the bytes a state of --fingerprint"


def test_the_speed_tables_exit_codes_are_those_the_command_pages_give():
    """A command the speed page times with its exit code, and a command page shows with one: the same code."""
    speed = (ROOT / "docs" / "speed.md").read_text(encoding="utf-8")
    timed = dict(re.findall(r"^\| `(pausecheck [^`]+)` \| [^|]*exit (\d)", speed, re.M))
    said = {}
    for page in [README] + [p.read_text(encoding="utf-8") for p in sorted((ROOT / "docs").glob("*.md"))]:
        said.update(re.findall(r"^(pausecheck \S.*?)\s+# exit (\d)", page, re.M))
    shared = sorted(set(timed) & set(said))
    assert len(shared) >= 4, shared
    assert [(c, timed[c]) for c in shared] == [(c, said[c]) for c in shared]
