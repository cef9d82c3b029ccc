"""A conformance run as JUnit XML (`conform --junit FILE`, `vectors check --junit FILE`), the format a CI
system reads to show which behaviours failed: one test case per sequence (or vector) driven, the one the
runtime diverged on carrying the divergence (its step, kind, message, the clauses and property it breaks, the
trace written), and one skipped case per group of witnesses the bounds left unexercised.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from xml.etree import ElementTree as ET

from .conform import ConformResult

__all__ = ["junit_xml"]


def junit_xml(result: ConformResult, suite: str, trace: str | None, missed: Iterable[Any] = (),
              names: list[str] | None = None) -> str:
    """The run as a JUnit XML document: `suite` names it, `names` the sequences (default "sequence N")."""
    missed = list(missed)
    d = result.divergence
    root = ET.Element("testsuites")
    failures = 1 if d is not None else 0
    node = ET.SubElement(root, "testsuite", name=suite, tests=str(result.sequences + len(missed)),
                         failures=str(failures), errors="0", skipped=str(len(missed)), time=f"{result.seconds:.3f}")
    props = ET.SubElement(node, "properties")
    for key, value in (("runtime", result.runtime), ("mode", result.mode), ("steps", result.steps),
                       ("edges judged", result.edges)):
        ET.SubElement(props, "property", name=key, value=str(value))
    for k in range(result.sequences):
        name = names[k] if names is not None and k < len(names) else f"sequence {k + 1}"
        case = ET.SubElement(node, "testcase", classname=suite, name=name)
        if d is not None and k == result.sequences - 1:  # the run stops at the sequence it diverged on
            failure = ET.SubElement(case, "failure", type=d.kind,
                                    message=f"step {d.step} ({d.kind}): {d.message}")
            failure.text = "\n".join(
                [f"clauses: {' '.join(d.clauses) or '-'}"]
                + ([f"property: {d.property}"] if d.property else [])
                + ([f"trace: {trace} (pausecheck replay {trace})"] if trace else []))
    for item in missed:
        case = ET.SubElement(node, "testcase", classname=suite,
                             name="not exercised: " + ", ".join(list(item.clauses) + list(item.witnesses)))
        ET.SubElement(case, "skipped", message=f"to exercise: {item.need}")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
