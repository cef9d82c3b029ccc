"""Reports: verdicts per property and per clause (`verdicts`), and their renderings (text and JSON in
`text`; HTML and Markdown with sequence diagrams beside them)."""

from .verdicts import (
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
