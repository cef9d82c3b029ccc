"""Docs that cannot go stale: every sample output in README.md and docs/ is what the tool prints.

The samples of README.md and of the pages that document commands (`PAGES`) are compared where their
examples run (`tests/test_examples.py`, one run each); those of the other docs pages here. Each command
runs in-process in a temporary folder, the repository files it reads copied there, the searches at the
default bounds shared with the other tests.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pausecheck.checks.cli import commands

from .samples import ELIDED, mismatch, samples, text_blocks
from .test_examples import PAGE_SAMPLES, PAGES, ROOT, _prepare, _run

DOCS = sorted(path for path in (ROOT / "docs").glob("*.md") if path not in PAGES)
DOC_SAMPLES = [s for path in DOCS for s in samples(path, ROOT)]


def test_every_text_block_is_a_checked_sample() -> None:
    assert len(PAGE_SAMPLES) == sum(text_blocks(path) for path in PAGES) >= 2
    assert len(DOC_SAMPLES) == sum(text_blocks(path) for path in DOCS) >= 3


def test_the_matching_of_samples() -> None:
    out = "a\nb\nc\nd\n"
    assert mismatch(("a", "b", "c", "d"), out) is None
    assert mismatch((ELIDED, "c", "d"), out) is None and mismatch(("a", ELIDED), out) is None
    assert mismatch(("a", ELIDED, "d"), out) is None and mismatch((ELIDED, "b", ELIDED), out) is None
    assert "sample line 2 'c'" in mismatch(("a", "c", ELIDED), out)  # a gap needs its `...`
    assert "goes on after the sample ends" in mismatch(("a", "b"), out)
    assert "not found" in mismatch((ELIDED, "x"), out)


@pytest.mark.parametrize("sample", [pytest.param(s, id=s.where) for s in DOC_SAMPLES])
def test_the_sample_is_what_the_tool_prints(sample: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch, shared_check: Any) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(commands, "check", shared_check)
    monkeypatch.setenv("NO_COLOR", "1")
    code, out = _run(capsys, _prepare(sample.argv, tmp_path))
    assert code == sample.exit, f"{sample.where}: `pausecheck {' '.join(sample.argv)}` exits {code}\n{out[-1500:]}"
    why = mismatch(sample.lines, out)
    assert why is None, f"{sample.where}: the sample output is stale: {why}"
