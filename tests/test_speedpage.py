"""docs/speed.md, the one page that quotes times, is what `benchmarks/bench.py --readme` writes
(`benchmarks/speedpage.py`): its generated section reads back as it was written, every command of the
README's commands table has a time there, and a run replaces only the rows it measured. Nothing here is
timed: the mechanism is tested, not the machine."""

from __future__ import annotations

from typing import Any

import pytest

from .scripts import load


@pytest.fixture(scope="module")
def speedpage() -> Any:
    return load("benchmarks/speedpage.py", "bench_speedpage")


def test_the_section_reads_back_as_written(speedpage: Any) -> None:
    page = speedpage.PAGE.read_text(encoding="utf-8")
    section = speedpage.parse(page)
    assert speedpage.rewrite(page, section) == page, "docs/speed.md's section was edited by hand: run bench.py --readme"
    assert len(section.rows) >= 20 and {run for run, _ in section.runs} == {row.run for row in section.rows}
    assert all(" | " not in row.figure for row in section.rows)


def test_every_documented_command_has_its_time(speedpage: Any) -> None:
    """The README's commands table and the default-bound runs the docs describe: each has a row."""
    table = speedpage.documented_commands(speedpage.README.read_text(encoding="utf-8"))
    assert "pausecheck check" in table and "pausecheck replay traces/golden/no_put_back.itf.json" in table
    assert not [c for c in table if "DIR -- CMD" in c]  # `vectors check DIR -- CMD` names no file: not timed
    rows = {row.what for row in speedpage.parse(speedpage.PAGE.read_text(encoding="utf-8")).rows}
    missing = [c for c in speedpage.commands(None) if speedpage.cell(c) not in rows]
    assert not missing, f"docs/speed.md has no time for {missing}: python benchmarks/bench.py --readme --commands ..."
    assert speedpage.commands("^replay ") == ["pausecheck replay traces/golden/no_put_back.itf.json"]


def test_a_run_replaces_its_rows_and_keeps_the_others(speedpage: Any) -> None:
    Row, Section = speedpage.Row, speedpage.Section
    old = Section((Row("`pausecheck check`", "a few seconds", "old"), Row("`pausecheck fuzz`", "~4 s", "older")),
                  (("old", "by hand"), ("older", "by hand too")))
    new = speedpage.merged(old, [("`pausecheck check`", "5.1 s wall, 5.0 s CPU, exit 0"), ("a figure", "1 us")],
                           "2026-12-05 at abc1234", "2 cores")
    assert new.rows == (Row("`pausecheck check`", "5.1 s wall, 5.0 s CPU, exit 0", "2026-12-05 at abc1234"),
                        Row("`pausecheck fuzz`", "~4 s", "older"), Row("a figure", "1 us", "2026-12-05 at abc1234"))
    assert new.runs == (("2026-12-05 at abc1234", "2 cores"), ("older", "by hand too"))  # "old" is cited no more
    page = f"# Speed\n\n{speedpage.BEGIN}\nanything\n{speedpage.END}\n\nkept\n"
    written = speedpage.rewrite(page, new)
    assert speedpage.parse(written) == new and written.endswith(f"{speedpage.END}\n\nkept\n")
    with pytest.raises(ValueError, match="no generated section"):
        speedpage.parse("# Speed\n")


def test_a_serving_command_is_not_timed(speedpage: Any) -> None:
    assert speedpage.time_command("pausecheck explore --calls 1 --pauses 1", 1.0) == "serves until Ctrl-C: not timed"
