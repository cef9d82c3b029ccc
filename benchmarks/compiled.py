"""A mypyc-compiled copy of pausecheck, for `benchmarks/bench.py` to time beside the interpreted one.

    path, why = build(folder)      # folder: an empty temporary directory; path: put it first on sys.path

The repository maps its top-level folders under one package (pyproject: `pausecheck.model` is
`model/`, and so on), which mypyc cannot follow, so `build` copies them into the real layout,
`<folder>/pausecheck/{model,checks,traces}`, and compiles the search's hot modules there in place
(`python -m mypyc`, about 50 s on two cores). The rest of the package stays Python and is imported
from the same copy. The compiled modules sit next to their sources as `.so` files, which the import
system prefers; `<folder>` also holds mypyc's shared library, so it is the folder to put on the path.
Nothing is installed and the repository is not touched. Where mypy (the `bench` extra) or a C
compiler is missing, or mypyc fails, `path` is None and `why` says why.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import time
from pathlib import Path

from pausecheck.checks.build import HOT

ROOT = Path(__file__).resolve().parent.parent
LAYOUT = {"pausecheck": "pausecheck", "model": "pausecheck/model", "checks": "pausecheck/checks",
          "traces": "pausecheck/traces"}  # repository folder -> its place in the package (pyproject)
# The successors are generated Python (model/pygen.py), compiled by Python at run time, not by mypyc.
MODULES = [name.replace(".", "/") + ".py" for name in HOT]  # what `pausecheck --version` looks for
# mypyc compiles only code that type-checks. follow_imports = silent: the modules left interpreted are
# read for their types, their own errors not reported. union-attr and arg-type: a property looks up
# the record a step changed (`find_segment` returns `Segment | None`); sound by construction, and mypyc
# checks such values at run time, so a wrong one would raise, not miscompute.
MYPY_INI = """\
[mypy]
follow_imports = silent
disable_error_code = union-attr, arg-type
"""


def build(folder: str | Path) -> tuple[Path | None, str]:
    """Compile a copy of pausecheck in `folder`: the folder to put first on sys.path, and a note (what
    was compiled and how long it took), or None and why not."""
    if importlib.util.find_spec("mypy") is None:
        return None, "mypy is not installed (pip install -e '.[bench]')"
    if not any(shutil.which(cc) for cc in ("cc", "gcc", "clang")):
        return None, "no C compiler (cc, gcc or clang) on this machine"
    folder = Path(folder)
    for source, target in LAYOUT.items():
        shutil.copytree(ROOT / source, folder / target, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    (folder / "mypy.ini").write_text(MYPY_INI)
    print(f"compiled: building a mypyc copy of pausecheck in {folder} (about 50 s)...", file=sys.stderr, flush=True)
    started = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "mypyc", *MODULES], cwd=folder, capture_output=True, text=True)
    seconds = round(time.perf_counter() - started, 1)
    if out.returncode != 0:
        errors = [line for line in (out.stdout + out.stderr).splitlines() if "error" in line] or [out.stderr[-500:]]
        return None, f"FAILED: mypyc exited {out.returncode}: " + "; ".join(errors[:5])
    return folder, f"{len(MODULES)} modules compiled by mypyc in {seconds} s"
