"""Which build of pausecheck runs, and the optional compiled build: the search's hot modules and the code the
model generates for chosen bounds, compiled by mypyc.

    python -m pausecheck.checks.build FOLDER [--calls 3 ...] [--reading NAME]   # then PYTHONPATH=FOLDER pausecheck ...

`HOT` is the one list of the hand-written modules compiled: `make` compiles them, and `pausecheck --version`
says how many of them were loaded compiled, and how many generated modules the build holds (`build`).

The successors (`model/pygen.py`) and the property tests and screens (`model/pycheck.py`) are Python text
generated at run time for one (bounds, reading, rule table) and `exec`'d. `make` searches the default bounds
and the bounds asked for, with every property, recording every text generated (`prebuilt.recording`), and
writes each as a module of `pausecheck.model.generated`, named by the SHA-256 of its text, which the copy
imports in place of the `exec` (`prebuilt.namespace`) and mypyc compiles with the hot modules. The same text
either way: the same successors and verdicts. At other bounds, readings or property sets the text differs and
is `exec`'d as in the pure-Python package.

mypyc, not Cython: the generated code is typed Python that mypyc compiles as it stands, in the same build as the
hand-written hot modules and with the one extra (`bench`, mypy) the project already has; Cython would need a
second compiler and its own dialect (cdef types) for the same gain.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.machinery
import importlib.util
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

__all__ = ["HOT", "build", "make", "main"]

# The search's hot path. Not model/machine.py: mypyc does not keep `functools.cached_property` (the compiled
# `Machine.successors` got the successor function back, not its list), and its one line costs nothing
# interpreted.
HOT = ("pausecheck.model.properties", "pausecheck.model.witnesses", "pausecheck.model.state",
       "pausecheck.checks.search.explore")

# The package's parts -> their place in the copy (the repository maps its top-level folders under one
# package, which mypyc cannot follow: the copy has the real layout).
PARTS = {"pausecheck": "pausecheck", "pausecheck.model": "pausecheck/model", "pausecheck.checks": "pausecheck/checks",
         "pausecheck.traces": "pausecheck/traces"}
# mypyc compiles only code that type-checks. follow_imports = silent: the modules left interpreted are
# read for their types, their own errors not reported. union-attr and arg-type: a property looks up
# the record a step changed (`find_segment` returns `Segment | None`); sound by construction, and mypyc
# checks such values at run time, so a wrong one would raise, not miscompute.
# index, in the generated code: a record looked up (`Execution | None`, a hoisted lookup) and then indexed, sound
# there by the same construction; None indexed would raise a TypeError compiled or not.
MYPY_INI = """\
[mypy]
follow_imports = silent
disable_error_code = union-attr, arg-type

[mypy-pausecheck.model.generated.*]
disable_error_code = union-attr, arg-type, index
"""


def build() -> str:
    """"interpreted", or "compiled with mypyc" with how many of the hot modules are, and how many generated
    modules the build holds."""
    from pausecheck.model.prebuilt import prebuilt
    native = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    compiled = [name for name in HOT if (importlib.import_module(name).__file__ or "").endswith(native)]
    if not compiled:
        return "interpreted"
    generated = len(prebuilt())
    return f"compiled with mypyc: {len(compiled)} of {len(HOT)} hot modules" + (
        f" and {generated} generated" if generated else "")


def make(folder: str | Path, bounds: tuple[object, ...] = (), reading: str = "conformant",
         echo: bool = True) -> tuple[Path | None, str]:
    """A compiled copy of pausecheck in `folder` (empty or new): the folder to put first on sys.path, and a note
    (what was compiled, how long it took), or None and why not. `bounds`: the bound sets, beside the defaults,
    whose generated code is compiled too. Nothing is installed and the package is not touched."""
    if importlib.util.find_spec("mypy") is None:
        return None, "mypy is not installed (pip install 'pausecheck[bench]')"
    if not any(shutil.which(cc) for cc in ("cc", "gcc", "clang")):
        return None, "no C compiler (cc, gcc or clang) on this machine"
    folder = Path(folder)
    _copy(folder)
    started = time.perf_counter()
    texts = _generated(bounds, reading)
    (folder / "mypy.ini").write_text(MYPY_INI)
    if echo:
        print(f"build: compiling {len(HOT)} hot modules and {len(texts)} generated ones with mypyc in {folder} "
              "(a few minutes)...", file=sys.stderr, flush=True)
    out, refused = _mypyc(folder, texts), {}
    while out.returncode != 0:  # a generated module mypy refuses stays Python text (`exec`'d), the rest compiled
        errors = (out.stdout + out.stderr).splitlines()
        bad = {name for line in errors for name in _GENERATED_ERROR.findall(line)} & texts.keys()
        if not bad:
            errors = [line for line in errors if "error" in line] or [out.stderr[-500:]]
            return None, f"FAILED: mypyc exited {out.returncode}: " + "; ".join(errors[:5])
        refused |= {name: texts.pop(name) for name in bad}
        out = _mypyc(folder, texts)
    seconds = round(time.perf_counter() - started, 1)
    return folder, (f"{len(HOT)} hot and {len(texts)} generated modules compiled by mypyc in {seconds} s"
                    + (f" ({len(refused)} generated modules refused by mypy, left to exec)" if refused else ""))


_GENERATED_ERROR = re.compile(r"generated/(g_[0-9a-f]+)\.py:\d+: error")


def _mypyc(folder: Path, texts: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """mypyc run in `folder` on the hot modules and these generated ones (written there, with their index)."""
    package = folder / PARTS["pausecheck.model"] / "generated"
    if package.exists():
        shutil.rmtree(package)
    _write(package, texts)
    modules = [name.replace(".", "/") + ".py" for name in HOT] + [f"{package.relative_to(folder)}/{name}.py"
                                                                  for name in texts]
    return subprocess.run([sys.executable, "-m", "mypyc", *modules], cwd=folder, capture_output=True, text=True)


def _copy(folder: Path) -> None:
    """The package's sources, wherever they are installed, laid out under `folder` as one package."""
    for part, place in PARTS.items():
        source = Path(list(importlib.import_module(part).__path__)[0])
        if part == "pausecheck":  # its own modules only: in an installed package its folder holds the others
            (folder / place).mkdir(parents=True, exist_ok=True)
            for module in source.glob("*.py"):
                shutil.copyfile(module, folder / place / module.name)
        else:
            shutil.copytree(source, folder / place, ignore=shutil.ignore_patterns("__pycache__", "*.so", "generated"))


def _generated(bounds: tuple[object, ...], reading: str) -> dict[str, str]:
    """Every text the model generates in a search, with every property, of the default bounds and of each of
    `bounds`, under `reading`: module name -> text."""
    from pausecheck.checks.search.explore import explore
    from pausecheck.model import DEFAULT_BOUNDS, Machine, reading_named
    from pausecheck.model.prebuilt import recording
    with recording() as texts:
        for each in dict.fromkeys((DEFAULT_BOUNDS, *bounds)):
            explore(Machine(each, reading_named(reading)))  # type: ignore[arg-type]
    return texts


def _write(package: Path, texts: dict[str, str]) -> None:
    """The texts as modules of `package`, each importing the names the generated code uses, and the index."""
    from pausecheck.model.pygen import _NAMESPACE
    sources: dict[str, list[str]] = {}
    for name, value in _NAMESPACE.items():
        where = getattr(value, "__module__", None) or ""
        sources.setdefault(where if where.startswith("pausecheck.") else "pausecheck.model.pygen", []).append(name)
    header = "".join(f"from {where} import {', '.join(sorted(names))}\n" for where, names in sorted(sources.items()))
    package.mkdir(parents=True, exist_ok=True)
    for name, code in texts.items():
        (package / f"{name}.py").write_text(f'"""Generated by pausecheck.checks.build; named by the SHA-256 of the '
                                            f'code below the imports."""\n\n{header}\n\n{code}')
    (package / "__init__.py").write_text(
        '"""The generated code of the bounds a build was asked for, as modules (`pausecheck.model.prebuilt`)."""\n\n'
        f"MODULES = frozenset({sorted(texts)!r})\n")


def main(argv: list[str] | None = None) -> int:
    """`python -m pausecheck.checks.build FOLDER [bound flags] [--reading NAME]`."""
    from pausecheck.checks.flags import bound_flags, bounds_of
    from pausecheck.checks.flags import reading as _reading
    from pausecheck.model import DEFAULT_BOUNDS, BoundError
    parser = argparse.ArgumentParser(prog="python -m pausecheck.checks.build",
                                     description="Build a mypyc-compiled copy of pausecheck in FOLDER, the "
                                                 "generated code of the default bounds and of these compiled too; "
                                                 "then run it with PYTHONPATH=FOLDER.")
    parser.add_argument("folder", help="where to build (a new or empty folder)")
    parser.add_argument("--reading", type=_reading, default="conformant", metavar="NAME",
                        help="the reading whose successors are compiled (default conformant)")
    bound_flags(parser, DEFAULT_BOUNDS)
    args = parser.parse_args(argv)
    folder = Path(args.folder)
    if folder.exists() and any(folder.iterdir()):
        print(f"build: {folder} is not empty: name a new or empty folder", file=sys.stderr)
        return 2
    try:
        bounds = bounds_of(args)
    except BoundError as error:
        print(f"build: {error}", file=sys.stderr)
        return 2
    path, note = make(folder, (bounds,), args.reading)
    print(f"build: {note}" + (f"; run it with PYTHONPATH={path}" if path else ""),
          file=sys.stdout if path else sys.stderr)
    return 0 if path else 1


if __name__ == "__main__":
    sys.exit(main())
