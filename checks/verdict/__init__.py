"""The verdict of a check: each property's and each clause's verdict from a search (`verdicts`), below every
engine room that reads a check's outcome (mutants, diff, readings); the renderings of a verdict (text, JSON,
HTML, Markdown) are in `report/`, a floor above."""

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
