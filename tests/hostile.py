"""Helpers of the hostile-input tests: write one hostile value into a copy of the fixture catalog,
run `check` on it in-process, and read back its exit code and problem lines."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

from generator.cli.main import main


def edit(content: Path, file: str, old: str, new: str) -> None:
    """Replace the one occurrence of `old` in content/`file` with `new`."""
    path = content / file
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} is not once in {file}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def run_cli(*args: str) -> tuple[int, list[str]]:
    """`python -m generator ARGS`, in-process: its exit code and its stderr lines."""
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(io.StringIO()):
        code = main(list(args))
    return code, stderr.getvalue().splitlines()


def check(content: Path) -> tuple[int, list[str]]:
    """`generator check --content content`: its exit code and its stderr lines, paths made relative."""
    code, lines = run_cli("check", "--content", str(content))
    prefix = content.as_posix() + "/"
    return code, [line.removeprefix(prefix) for line in lines]
