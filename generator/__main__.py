"""`python -m generator`: the command line (generator/cli/main.py).

Ctrl-C gives one line and exit code 130, never a traceback: while the code loads, here; during a
build, main() names the folder it left as it was. Once the command is done, Ctrl-C is ignored so
that it cannot kill Python's exit half-way.
"""

import signal
import sys


def _run() -> int:
    try:
        from generator.cli.main import main

        return main()
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    code = _run()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sys.exit(code)
