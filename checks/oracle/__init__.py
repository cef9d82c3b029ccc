"""The golden oracle: test any FlowDrop runtime against the model, in any language.

A runtime speaks the adapter protocol (`protocol.py`, docs/oracle.md) as a subprocess or in
process (`adapters.py`); `conform` drives it through covering sequences of the model's reachable
graph (`cover.py`) and compares its observations with the model's (strict) or judges black-box
properties on them alone (`blackbox.py`).
"""

from .adapters import Adapter, InProcess, RuntimeFault, Subprocess
from .blackbox import BLACK_BOX, BlackBox, History
from .conform import PROPERTIES, STRICT, ConformError, ConformResult, Divergence, conform, divergence_document
from .cover import Sequence, covering_sequences
from .protocol import OBSERVATION, PROTOCOL, REQUESTS, SCHEMAS, validate

__all__ = [
    "Adapter", "InProcess", "RuntimeFault", "Subprocess", "BLACK_BOX", "BlackBox", "History", "PROPERTIES", "STRICT",
    "ConformError", "ConformResult", "Divergence", "conform", "divergence_document", "Sequence",
    "covering_sequences", "OBSERVATION", "PROTOCOL", "REQUESTS", "SCHEMAS", "validate",
]
