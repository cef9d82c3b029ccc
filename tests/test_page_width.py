"""The report's pages fit a 1400 px window: measured in a headless Chromium (`tests/browser.py`).

The kill matrix is drawn at its widest (every mutant killed by every property, every equivalence
reason printed), the readings section from the flip matrix at small bounds (under a second).
"""

from __future__ import annotations

from html import escape
from pathlib import Path
from types import SimpleNamespace

import pytest
from pausecheck.checks.mutants import MUTANTS
from pausecheck.checks.mutants.flips import flip_matrix
from pausecheck.checks.report.html import html_report
from pausecheck.model import PROPERTIES
from pausecheck.model.machine import DEADLOCK
from pausecheck.model.properties import ALWAYS, TRANSITION

import pausecheck

from .browser import Browser, chromium

WIDTH = 1400
TINY = pausecheck.Bounds(calls=1, artifacts=1, pauses=1, write_failures=0, observations=0)
needs_chromium = pytest.mark.skipif(chromium() is None, reason="no Chromium installed (.ci/run installs Debian's)")


def widest_matrix() -> SimpleNamespace:
    """A kill matrix as wide as the real one can get: every property kills every mutant in 12 steps,
    and every mutant marked equivalent shows its reason."""
    names = [p.name for p in PROPERTIES if p.kind in (ALWAYS, TRANSITION)] + [DEADLOCK]  # the matrix's columns
    mutants = [SimpleNamespace(name=m.name, clauses=m.clauses, equivalent=m.equivalent,
                               reason=m.reason or "", survived=False, base_kills=(),
                               killed_by=() if m.equivalent else tuple(names),
                               steps=(lambda _: None) if m.equivalent else (lambda _: 12)) for m in MUTANTS]
    killers = tuple(m.name for m in mutants if m.killed_by)
    properties = [SimpleNamespace(name=n, killers=killers, sole_killers=(), redundant_with=tuple(names[:3]),
                                  jointly=False) for n in names]
    return SimpleNamespace(mutants=mutants, properties=properties, survivors=(), refuted=(), seconds=60.0,
                           base_failure=lambda: None, base_broken=frozenset(),
                           verdict=lambda: "[ok] every mutant is killed or marked equivalent")


@pytest.fixture(scope="module")
def report() -> pausecheck.Report:
    return pausecheck.check(TINY, accept_unexercised=True)


def test_the_matrix_names_its_columns_in_a_legend_and_on_hover(report: pausecheck.Report) -> None:
    page = html_report(report, [], widest_matrix())
    columns = [p.name for p in widest_matrix().properties]
    assert len(columns) > 20
    for i, name in enumerate(columns, 1):
        assert f'<abbr title="{name}">P{i}</abbr>' in page and f"<li><b>P{i}</b> {name}</li>" in page
    assert "<th>no_loss</th>" not in page  # no full-name header
    reason = next(m.reason for m in MUTANTS if m.equivalent)
    assert '<summary><span class="status muted">equivalent</span></summary>' in page and escape(reason) in page


@needs_chromium
def test_the_kill_matrix_and_readings_pages_fit_1400_px(report: pausecheck.Report, tmp_path: Path) -> None:
    pages = {"matrix": html_report(report, [], widest_matrix()),
             "readings": html_report(report, [], readings=flip_matrix(TINY, pairs=False, jobs=1))}
    with Browser(WIDTH) as browser:
        for name, page in pages.items():
            path = tmp_path / f"{name}.html"
            path.write_text(page, encoding="utf-8")
            browser.load(path.as_uri())
            assert browser.evaluate(f"document.getElementById('{name}') !== null")
            width = browser.evaluate("document.documentElement.scrollWidth")
            assert width <= WIDTH, f"the {name} page is {width} px wide: it scrolls sideways in a {WIDTH} px window"
        wide = tmp_path / "wide.html"  # the measure can fail: a page wider than the window is seen as such
        wide.write_text('<!DOCTYPE html><div style="width: 2000px">x</div>', encoding="utf-8")
        browser.load(wide.as_uri())
        assert browser.evaluate("document.documentElement.scrollWidth") > WIDTH
