"""Running a build's independent work on the machine's cores: pages, then the languages' MkDocs builds.

Workers are forked (Linux, macOS with fork): they inherit the build's records and the work list,
so only an index goes to a worker and only its small result comes back. With one job, or one item,
the work runs in this process. Results come back in the order of the items, whatever order the
workers finish in, so the output is the same for any number of jobs.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from typing import Callable, Iterable, Iterator, TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")


def available_cores() -> int:
    """The cores this process may run on (a container's or a CI runner's share, not the host's)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _quiet_on_ctrl_c() -> None:
    """A worker ignores Ctrl-C: the build stops it (and says so once), not each worker with a traceback."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def run_all(function: Callable[[Item], Result], items: Iterable[Item], jobs: int, chunk: int = 1) -> Iterator[Result]:
    """`function` on every item, on up to `jobs` forked workers; results in the items' order.
    `function` must be a module-level function (workers find it by name). On an error or Ctrl-C
    here, the workers are stopped at once."""
    items = list(items)
    if jobs <= 1 or len(items) <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        yield from map(function, items)
        return
    pool = multiprocessing.get_context("fork").Pool(min(jobs, len(items)), initializer=_quiet_on_ctrl_c)
    try:
        yield from pool.imap(function, items, chunksize=chunk)
    except BaseException:  # an error, Ctrl-C, or the caller closing this generator: stop the workers, quietly
        _stop(pool, deliver=False)
        raise
    _stop(pool, deliver=True)


def _stop(pool, deliver: bool) -> None:
    """Terminate the pool's workers with Ctrl-C held off until they are gone (a KeyboardInterrupt inside
    the pool's teardown prints a traceback and can leave workers behind); a Ctrl-C held off then goes to
    the handler that was in place (KeyboardInterrupt by default) where `deliver` says so."""
    came: list[int] = []
    try:
        previous = signal.signal(signal.SIGINT, lambda number, frame: came.append(number))
    except ValueError:  # not the main thread, where Ctrl-C is not delivered anyway
        pool.terminate()
        return
    try:
        pool.terminate()
    finally:
        signal.signal(signal.SIGINT, previous)
    if came and deliver and callable(previous):
        previous(signal.SIGINT, None)
