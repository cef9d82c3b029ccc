"""The mutants: named deviations of the rules that prove each check can fail, and what is built from them.

- `catalogue.py` the catalogue (this package re-exports it: `from pausecheck.checks.mutants import
  catalogue, mutate`), `deviations.py` each mutant's edits of the rule table;
- `killmatrix.py` which property kills which mutant, `strength.py` how strongly each clause is checked,
  `golden.py` a counterexample per mutant, `evidence.py` a discovery as an ITF document;
- `flips.py` and `flipbounds.py`: which verdicts each reading of an ambiguity changes, and at what bounds.

It may import `pausecheck.model`, the explicit search (`..search`), the drafts and the report's verdicts;
never the command line.
"""

from __future__ import annotations

from typing import Any

from . import catalogue as _catalogue
from .catalogue import *  # noqa: F403 - the package is the catalogue's public face
from .catalogue import __all__  # noqa: F401


def __getattr__(name: str) -> Any:
    """`MUTANTS`, built when first read, as `catalogue.MUTANTS` is."""
    return getattr(_catalogue, name)
