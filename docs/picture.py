"""The README's picture: the sequence diagram `pausecheck report` draws for one golden counterexample.

    python docs/picture.py            # rewrites docs/counterexample.svg
    python docs/picture.py --check    # exit 1 when the committed file is not what it draws

The diagram is `sequence_svg` (`checks/report/sequence.py`, what the HTML report inlines) of
`traces/golden/no_put_back.itf.json`, on a white ground (so that it reads on a dark page too) under three
heading lines taken from the trace's `#meta`. The drawing is deterministic; `tests/test_docs.py` redraws it
and compares it with the committed file byte for byte.
"""

from __future__ import annotations

import json
import re
import sys
from html import escape
from pathlib import Path

from pausecheck.checks.report.sequence import sequence_svg

ROOT = Path(__file__).resolve().parent.parent
TRACE = ROOT / "traces" / "golden" / "no_put_back.itf.json"
PICTURE = ROOT / "docs" / "counterexample.svg"
HEADING = 66  # pixels above the diagram for the three heading lines


def picture(trace: Path = TRACE) -> str:
    """The SVG text: the trace's sequence diagram under a heading naming the mutant and what it breaks."""
    document = json.loads(trace.read_text(encoding="utf-8"))
    meta = document["#meta"]
    diagram = sequence_svg(document)
    found = re.search(r'width="(\d+)" height="(\d+)"', diagram)
    assert found is not None, "sequence_svg no longer states its size"
    width, height = int(found.group(1)), int(found.group(2)) + HEADING
    first = f"mutant {meta['mutant']}: {meta['mutant_description']}"
    second = f"breaks {meta['property']} ({' '.join(meta['clauses'])}) at step {meta['steps']}, drawn in red:"
    return "\n".join([
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        f'role="img" font-family="sans-serif">',
        f"<title>{escape(first)}</title>",
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>',
        f'<text x="12" y="20" font-size="14" font-weight="bold" fill="#263238">{escape(first)}</text>',
        f'<text x="12" y="40" font-size="12" fill="#546e7a">{escape(second)}</text>',
        f'<text x="12" y="56" font-size="12" fill="#546e7a">{escape(meta["message"])}</text>',
        f'<g transform="translate(0,{HEADING})">',
        diagram,
        "</g>",
        "</svg>",
        "",
    ])


def main(argv: list[str]) -> int:
    drawn = picture()
    if argv[1:] == ["--check"]:
        same = PICTURE.exists() and PICTURE.read_text(encoding="utf-8") == drawn
        print(f"{PICTURE.relative_to(ROOT)}: " + ("up to date" if same else "stale: run python docs/picture.py"))
        return 0 if same else 1
    PICTURE.write_text(drawn, encoding="utf-8")
    print(f"wrote {PICTURE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
