"""`python -m generator`: the command line (generator/cli/main.py).

Ctrl-C gives one line and exit code 130, never a traceback: while the code loads, here; during a
build, main() names the folder it left as it was. Once the command is done, Ctrl-C is ignored so
that it cannot kill Python's exit half-way. A reader that stops reading the output (`plan ... |
head`) ends the command quietly, as other command-line tools do.
"""

import os
import select
import signal
import sys

INTERRUPTED = 130
BROKEN_PIPE = 141  # 128 + SIGPIPE, what a shell reports for a program killed by it


def _run(prog: str) -> int:
    try:
        from generator.cli.main import main

        return main(prog=prog)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return INTERRUPTED
    except BrokenPipeError:
        if not _stdout_closed():
            raise  # another pipe than the reader's: not a reader that stopped
        # NOTE: Python flushes stdout again at exit; point it at /dev/null so that flush cannot fail
        # (docs.python.org/3/library/signal.html, "Note on SIGPIPE").
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return BROKEN_PIPE


def _stdout_closed() -> bool:
    """Whether the reader of the standard output has gone: a pipe whose reading end is closed
    polls as an error (poll(2): POLLERR)."""
    poller = select.poll()
    poller.register(sys.stdout.fileno(), select.POLLOUT)
    return any(event & (select.POLLERR | select.POLLHUP) for _, event in poller.poll(0))


def console(prog: str = "vram-guide") -> None:
    """The command line, and how it ends (the `vram-guide` script, and `python -m generator`)."""
    code = _run(prog)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if code == INTERRUPTED:
        # NOTE: CPython 3.11 kills itself with SIGINT at exit if the interrupt went through an
        # exec() of a string (dataclasses, namedtuple), even though it was caught: exit now instead.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)


if __name__ == "__main__":
    console("python -m generator")
