"""`python -m pausecheck`: the same command line as the `pausecheck` script."""

from pausecheck.checks.cli import run

run()
