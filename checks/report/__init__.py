"""Reports: the renderings of a check's verdict (text and JSON in `text`; HTML and Markdown with sequence
diagrams beside them; the kill matrix in `killtext`). The verdict itself is `checks/verdict/`, a floor below,
re-exported here under its old names."""

from ..verdict import (
    ClauseVerdict,
    Companion,
    PropertyVerdict,
    Report,
    build_report,
    check,
    companion_machine,
    with_companion,
)

__all__ = ["ClauseVerdict", "Companion", "PropertyVerdict", "Report", "build_report", "check", "companion_machine",
           "with_companion"]
