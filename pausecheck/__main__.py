"""`python -m pausecheck`: the same command line as the `pausecheck` script."""

import sys

from pausecheck.checks.cli import main

sys.exit(main())
