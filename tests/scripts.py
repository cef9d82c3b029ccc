"""The project's scripts (benchmarks, examples) loaded as modules by path, for the tests that call their parts."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def load(path: Path | str, name: str) -> ModuleType:
    """The script at `path` (relative to the repository, or absolute) as the module `name`, registered so that
    its dataclasses find their module; the benchmarks' folder on the path for what they import of each other."""
    if str(ROOT / "benchmarks") not in sys.path:
        sys.path.insert(0, str(ROOT / "benchmarks"))
    spec = importlib.util.spec_from_file_location(name, ROOT / path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
