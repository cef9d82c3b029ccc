"""The report reads at a glance (issue 57): its pages rendered in a headless Chromium (`tests/browser.py`) at
1,400 px and at a phone's 412 px, and every table measured. No column is narrower than ten characters of its
font (the kill matrix's numbered property columns aside: a legend names them), no word is broken inside (a line
breaks at a space, after a hyphen, or after an identifier's underscore), and the page never scrolls sideways (a
table too wide for a phone scrolls in its own box)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pausecheck.checks.cli import main
from pausecheck.checks.mutants.flips import flip_matrix
from pausecheck.checks.report.html import html_report

import pausecheck

from .browser import Browser, chromium
from .test_page_width import TINY, widest_matrix

needs_chromium = pytest.mark.skipif(chromium() is None, reason="no Chromium installed (.ci/run installs Debian's)")
ROOT = Path(__file__).resolve().parent.parent
SMALL = ["--calls", "1", "--artifacts", "1", "--pauses", "1", "--write-failures", "0", "--observations", "0",
         "--accept-unexercised"]

# For every table cell: its width against ten characters ("0") of its own font; for every word of its text (split
# at spaces, and after hyphens and underscores), whether it takes more than one line box.
MEASURE = r"""
(() => {
  const probe = document.createElement('span');
  probe.textContent = '0000000000';
  probe.style.cssText = 'position:absolute;visibility:hidden;white-space:nowrap';
  document.body.appendChild(probe);
  const narrow = [], broken = [];
  document.querySelectorAll('td').forEach(td => {
    probe.style.font = getComputedStyle(td).font;
    const ten = probe.getBoundingClientRect().width, width = td.getBoundingClientRect().width;
    const numbered = td.closest('table.matrix') && td.cellIndex >= 2;
    if (!numbered && width + 0.5 < ten)
      narrow.push(`${td.textContent.trim().slice(0, 30)} (${Math.round(width)} px < ${Math.round(ten)})`);
    const walker = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const m of node.textContent.matchAll(/[^\s_-]+[_-]*/g)) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        if (Array.from(range.getClientRects()).filter(r => r.width > 0).length > 1) broken.push(m[0]);
      }
    }
  });
  probe.remove();
  return JSON.stringify({narrow, broken, scroll: document.documentElement.scrollWidth,
                         window: document.documentElement.clientWidth, cells: document.querySelectorAll('td').length});
})()
"""


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The main, draft, readings and kill-matrix reports at small bounds (the matrix at its widest)."""
    folder = tmp_path_factory.mktemp("reports")
    report = pausecheck.check(TINY, accept_unexercised=True)
    (folder / "main.html").write_text(html_report(report, []), encoding="utf-8")
    (folder / "mutants.html").write_text(html_report(report, [], widest_matrix()), encoding="utf-8")
    (folder / "readings.html").write_text(html_report(report, [], readings=flip_matrix(TINY, pairs=False, jobs=1)),
                                          encoding="utf-8")
    draft = ROOT / "examples" / "drafts" / "put_back_drops.py"
    assert main(["report", *SMALL, "--draft", str(draft), "--out", str(folder / "draft.html")]) in (0, 1)
    return {path.stem: path for path in folder.glob("*.html")}


def measured(browser: Browser, path: Path) -> dict:
    browser.load(path.as_uri())
    return json.loads(browser.evaluate(MEASURE))


@needs_chromium
@pytest.mark.parametrize("width", [1400, 412])
def test_every_table_reads_at_a_glance(width: int, pages: dict[str, Path]) -> None:
    assert sorted(pages) == ["draft", "main", "mutants", "readings"]
    with Browser(width) as browser:
        for name, path in sorted(pages.items()):
            found = measured(browser, path)
            assert found["cells"] > 50, name
            assert not found["narrow"], f"{name} at {width} px: columns under ten characters: {found['narrow'][:5]}"
            assert not found["broken"], f"{name} at {width} px: words broken inside: {found['broken'][:8]}"
            assert found["scroll"] <= found["window"], f"{name} at {width} px scrolls sideways ({found['scroll']} px)"


@needs_chromium
def test_the_measure_sees_a_squeezed_column_and_a_broken_word(tmp_path: Path) -> None:
    """The measure can fail: the old stylesheet's squeeze (a long identifier beside a quote, words broken anywhere)."""
    page = tmp_path / "squeezed.html"
    names = '<span style="white-space: nowrap">failed_write_back_restores, finished_holds_nothing</span>'
    page.write_text('<!DOCTYPE html><style>td { overflow-wrap: anywhere; } body { max-width: 420px; }</style><table>'
                    '<tr><td><q>Artifacts produced before a pause are held durably</q></td>'
                    f'<td>{names}</td></tr></table>', encoding="utf-8")
    with Browser(1400) as browser:
        found = measured(browser, page)
    assert found["narrow"] and found["broken"], found
