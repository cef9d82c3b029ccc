"""Reports: the renderings of a check's verdict (text and JSON in `text`; HTML and Markdown with sequence
diagrams beside them; the kill matrix in `killtext`). The verdict itself is `checks/verdict/`, a floor below;
its three names callers knew from here stay importable from here."""

from ..verdict import Companion, Report, check

__all__ = ["Companion", "Report", "check"]
