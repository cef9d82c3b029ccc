"""The engines over the model: exhaustive search, reports, mutants, and the command line."""
