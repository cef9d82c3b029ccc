"""The explicit search: one breadth-first search of the model's states, and what it stands on.

- `explore.py` the search; `limits.py` when it stops early; `budget.py` a command's seconds and memory;
- how visited states are kept: `compact.py`, `packed.py` (and `codec.py`, the bytes a state travels as);
- `checkpoint.py`, `sealing.py`, `restore.py`: a search saved to disk, sealed, and resumed;
- `spread.py`, `partition.py`, `cluster.py`: one search over many processes or Ray actors; `parallel.py`
  many independent searches at once;
- `liveness.py` and `graph.py`: the state graph, for the liveness properties and for export;
  `reference.py`: a search held to answer others' questions (mutants searched against it).

It may import `pausecheck.model` and the standard library (and Ray, in `cluster.py` only); never the
mutants, the report, the oracle, the symbolic engines or the command line, which build on it.
"""
