"""Packaging: one import package, every layer mapped under it, nothing imported by its old top-level name."""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

import pausecheck

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("model", "checks", "traces")


def _config() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]


def test_every_folder_of_a_layer_is_a_listed_package():
    listed = set(_config()["packages"])
    for layer in LAYERS:
        for folder in [ROOT / layer, *(p for p in (ROOT / layer).rglob("*") if p.is_dir())]:
            if folder.name == "__pycache__":
                continue
            name = "pausecheck." + ".".join(folder.relative_to(ROOT).parts)
            assert name in listed, f"{name} is not in [tool.setuptools] packages: it would not be installed"


def test_layers_are_mapped_under_pausecheck():
    mapping = _config()["package-dir"]
    assert mapping == {"pausecheck": "pausecheck", **{f"pausecheck.{layer}": layer for layer in LAYERS}}


def test_no_module_imports_a_layer_by_its_top_level_name():
    for path in [*ROOT.glob("*/**/*.py")]:
        if ".venv" in path.parts or "build" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level else [])
            for name in names:
                assert name.split(".")[0] not in LAYERS, f"{path.relative_to(ROOT)} imports {name}"


def test_model_imports_only_the_standard_library_and_itself():
    for path in (ROOT / "model").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and not node.level:
                assert node.module.split(".")[0] in sys.stdlib_module_names | {"__future__"}, path.name
            elif isinstance(node, ast.Import):
                assert all(a.name.split(".")[0] in sys.stdlib_module_names for a in node.names), path.name


def test_python_m_pausecheck_version():
    done = subprocess.run([sys.executable, "-m", "pausecheck", "--version"], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == f"pausecheck {pausecheck.__version__} (interpreted)"


def test_version_says_when_the_hot_modules_are_compiled(monkeypatch):
    import importlib.machinery

    from pausecheck.checks import explore
    from pausecheck.checks.build import HOT, build
    assert build() == "interpreted"
    monkeypatch.setattr(explore, "__file__", explore.__file__[:-3] + importlib.machinery.EXTENSION_SUFFIXES[0])
    assert build() == f"compiled with mypyc: 1 of {len(HOT)} hot modules"


def test_public_api_is_documented():
    for name in pausecheck.__all__:
        item = getattr(pausecheck, name)
        if callable(item) and not isinstance(item, type(pausecheck.DEFAULT_BOUNDS)):
            assert item.__doc__, f"pausecheck.{name} has no docstring"
