"""`python -m generator`: the command line (generator/cli/main.py).

Ctrl-C gives one line and exit code 130, never a traceback: while the code loads, here; during a
build, main() names the folder it left as it was. Once the command is done, Ctrl-C is ignored so
that it cannot kill Python's exit half-way.
"""

import os
import signal
import sys

INTERRUPTED = 130


def _run() -> int:
    try:
        from generator.cli.main import main

        return main()
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return INTERRUPTED


if __name__ == "__main__":
    code = _run()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if code == INTERRUPTED:
        # NOTE: CPython 3.11 kills itself with SIGINT at exit if the interrupt went through an
        # exec() of a string (dataclasses, namedtuple), even though it was caught: exit now instead.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)
