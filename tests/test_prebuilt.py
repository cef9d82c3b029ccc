"""Generated code run from modules a build wrote (`model/prebuilt.py`, `checks/build.py`) gives what `exec` gives."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from pausecheck.model import DEFAULT_BOUNDS, Machine, reading_named
from pausecheck.model import prebuilt as prebuilt_module
from pausecheck.model.prebuilt import PACKAGE, module_name, prebuilt, recording
from pausecheck.model.pycheck import compiled_for
from pausecheck.model.pygen import source, successor_function

# A reading under which properties fail (violations with traces) and a bound set of a few hundred states.
BOUNDS = {"calls": 1, "per_call": 1, "artifacts": 2, "pauses": 1, "write_failures": 1, "observations": 0}
READING = "conformant+A-T4=release"  # no_loss fails
COMMAND = ["check", *(f"--{name.replace('_', '-')}={value}" for name, value in BOUNDS.items()), "--reading", READING,
           "--accept-unexercised", "--json"]

# The child: `record` runs the command collecting every generated text and writes them as a build would
# (`build._write`) into FOLDER/generated; `module` runs it with FOLDER on pausecheck.model's path, so that
# `pausecheck.model.generated` is that folder; `exec` runs it as it is. It prints, on stderr's last line, the
# generated modules imported.
CHILD = """
import json, sys
from pathlib import Path
import pausecheck.model as model
from pausecheck.checks.build import _write
from pausecheck.checks.cli import main
from pausecheck.model.prebuilt import PACKAGE, recording
mode, folder, *argv = sys.argv[1:]
if mode == "record":
    with recording() as texts:
        code = main(argv)
    _write(Path(folder) / "generated", texts)
else:
    if mode == "module":
        model.__path__.append(folder)
    code = main(argv)
sys.stdout.flush()
print(json.dumps(sorted(n for n in sys.modules if n.startswith(PACKAGE + "."))), file=sys.stderr)
sys.exit(code)
"""


def _run(mode: str, folder: Path) -> tuple[int, str, list[str]]:
    """The command run by the child in `mode`, in a folder of that name under `folder` (traces in its `out`)."""
    (folder / mode).mkdir()
    done = subprocess.run([sys.executable, "-c", CHILD, mode, str(folder), *COMMAND, "--out", "out"],
                          capture_output=True, text=True, cwd=folder / mode)
    return done.returncode, done.stdout, json.loads(done.stderr.splitlines()[-1])


def _timeless(report: str) -> object:
    """A JSON report without its clock readings (every other figure and word kept)."""
    def drop(x: object) -> object:
        if isinstance(x, dict):
            return {k: drop(v) for k, v in x.items() if k not in ("seconds", "states_per_second")}
        return [drop(v) for v in x] if isinstance(x, list) else x
    return drop(json.loads(report))


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_the_modules_a_build_writes_give_byte_for_byte_what_exec_gives(tmp_path):
    code, _, _ = _run("record", tmp_path)
    written = sorted(p.stem for p in (tmp_path / "generated").glob("g_*.py"))
    assert code == 1 and len(written) > 10  # the successors, the tests and the screens of a search with violations
    runs = {}
    for mode in ("exec", "module"):
        runs[mode] = _run(mode, tmp_path)
    assert runs["exec"][2] == []  # the pure-Python path imports no generated module
    assert runs["module"][2] == [f"{PACKAGE}.{name}" for name in written]  # every text came from its module
    assert runs["module"][0] == runs["exec"][0]
    assert _timeless(runs["module"][1]) == _timeless(runs["exec"][1])  # the report, but for its clock
    traces = _files(tmp_path / "exec" / "out")
    assert any(name.endswith(".itf.json") for name in traces)
    assert _files(tmp_path / "module" / "out") == traces  # the counterexamples and witnesses, byte for byte


def test_a_module_is_named_by_its_text_and_the_text_is_the_same_in_every_process():
    bounds = DEFAULT_BOUNDS.replace(calls=1, pauses=1)
    text = source(bounds, reading_named("conformant"))
    child = subprocess.run([sys.executable, "-c", "from pausecheck.model import DEFAULT_BOUNDS, reading_named\n"
                            "from pausecheck.model.pygen import source\n"
                            "print(source(DEFAULT_BOUNDS.replace(calls=1, pauses=1), reading_named('conformant')), "
                            "end='')"], capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "1"},
                           check=True)
    assert child.stdout == text
    assert module_name(text) != module_name(text + " ") and module_name(text).startswith("g_")


def test_the_pure_python_package_has_no_generated_modules_and_execs_its_text():
    assert prebuilt() == frozenset()
    assert importlib.util.find_spec(PACKAGE) is None
    successors = successor_function(DEFAULT_BOUNDS, reading_named("conformant"))
    assert not (successors.__module__ or "").startswith(PACKAGE)


def test_recording_collects_each_text_once_and_only_while_open():
    bounds = DEFAULT_BOUNDS.replace(calls=1, artifacts=1, pauses=0, write_failures=0, observations=0)
    with recording() as texts:
        Machine(bounds).successors(Machine(bounds).init_states()[0])
        compiled_for(bounds).all_hold(("no_loss",))
    assert prebuilt_module._RECORDING == []
    assert any(text.startswith("def successors(s: State):") for text in texts.values())
    assert all(name == module_name(text) for name, text in texts.items())


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("mypy") is None or not shutil.which("gcc"), reason="needs mypyc and gcc")
def test_the_compiled_build_gives_byte_for_byte_what_the_interpreted_package_gives(tmp_path):
    """The whole build (`make`), mypyc included (a few minutes): a report and traces of the compiled copy."""
    from pausecheck.checks.build import make
    path, note = make(tmp_path / "build", (DEFAULT_BOUNDS.replace(**BOUNDS),), READING, echo=False)
    assert path is not None, note
    runs = {}
    for name, env in (("interpreted", {}), ("compiled", {"PYTHONPATH": str(path)})):
        (tmp_path / name).mkdir()
        done = subprocess.run([sys.executable, "-m", "pausecheck", *COMMAND, "--out", "out"],
                              capture_output=True, text=True, env={**os.environ, **env}, cwd=tmp_path / name)
        runs[name] = done.returncode, _timeless(done.stdout)
    version = subprocess.run([sys.executable, "-m", "pausecheck", "--version"], capture_output=True, text=True,
                             env={**os.environ, "PYTHONPATH": str(path)}, cwd=tmp_path).stdout
    assert "compiled with mypyc" in version and "generated" in version
    assert runs["compiled"] == runs["interpreted"]
    assert _files(tmp_path / "compiled" / "out") == _files(tmp_path / "interpreted" / "out")
