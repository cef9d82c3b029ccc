"""The interactive state explorer (`pausecheck explore`): walk the model's state space by hand in a
browser, as Stateright's Explorer and the TLA+ debugger let a spec author do.

A local page (`page.py`, no external asset) served by the standard library (`server.py`) on
127.0.0.1: the state reached, the enabled actions with their clauses, the properties that hold, break
or are witnessed here, back and forward, an ITF trace loaded and stepped through, the path copied as
ITF. What it shows is computed by `views.py` from the model alone.
"""

from __future__ import annotations

from .server import Explorer
from .views import ViewError, itf_of, load_document, view

__all__ = ["Explorer", "ViewError", "view", "itf_of", "load_document"]
