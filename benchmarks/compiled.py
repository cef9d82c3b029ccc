"""A mypyc-compiled copy of pausecheck, for `benchmarks/bench.py` to time beside the interpreted one.

    path, why = build(folder)      # folder: an empty temporary directory; path: put it first on sys.path

The build is the package's own (`python -m pausecheck.checks.build`, `checks/build.py`): a copy of the
package in the real layout under `folder`, the search's hot modules and the code the model generates for the
default bounds (and for `bounds`) compiled there in place by mypyc (a minute or two on two cores). The
compiled modules sit next to their sources as `.so` files, which the import system prefers; `folder` also
holds mypyc's shared library, so it is the folder to put on the path. Nothing is installed and the repository
is not touched. Where mypy (the `bench` extra) or a C compiler is missing, or mypyc fails, `path` is None and
`why` says why.
"""

from __future__ import annotations

from pathlib import Path

from pausecheck.checks.build import PARTS, make

ROOT = Path(__file__).resolve().parent.parent
# repository folder -> its place in the package (pyproject), for trees exported from git (`against.py`)
LAYOUT = {part.rpartition(".")[2]: place for part, place in PARTS.items()}


def build(folder: str | Path, bounds: tuple[object, ...] = ()) -> tuple[Path | None, str]:
    """Compile a copy of pausecheck in `folder` (with the generated code of the defaults and of `bounds`):
    the folder to put first on sys.path, and a note (what was compiled and how long it took), or None and
    why not."""
    return make(folder, bounds)
