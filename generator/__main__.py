"""`python -m generator`: the command line (generator/cli/main.py)."""

import sys

from generator.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
