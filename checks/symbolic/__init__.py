"""The symbolic engine: the model's states, rules and properties as z3 terms over a bounded universe.

The only place z3 is imported. `state` holds the encoding of states, `rules` one function per rule of
the explicit table, `properties` every property by name, `bmc` bounded model checking and
`induction` proofs for behaviours of any length.
"""
