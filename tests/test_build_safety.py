"""A build never deletes what it did not make, and never leaves the output without a complete site.

Real builds of the fixture catalog (tests/fixtures/catalog/) into temporary folders: a cache folder
someone else made, stale staging folders, two builds at once, Ctrl-C at any moment, and a bug in
the middle of a build. Each refusal is one line, written out here.
"""

import fcntl
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import generator.site.build as build_module
from generator.cli.main import main
from generator.site.lock import build_lock
from generator.site.publish import remove_stale_staging, staging_dir
from tests.conftest import FIXTURE, ROOT, run_build

REPORT = "(a bug: please report it with the command you ran)"
INTERRUPTED = "interrupted: {out}/ was left as it was\n"
INTERRUPTED_LATE = "interrupted: {out}/ already holds the new site (Ctrl-C came once it was in place)\n"


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file and folder under `folder` (or `folder` itself if it is a file), with its bytes."""
    if folder.is_file():
        return {".": folder.read_bytes()}
    return {p.relative_to(folder).as_posix(): p.read_bytes() if p.is_file() else b"<dir>" for p in sorted(folder.rglob("*"))}


def built(out: Path, content: Path = FIXTURE) -> dict[str, bytes]:
    result = run_build(content, out)
    assert result.returncode == 0, result.stderr
    return snapshot(out)


@pytest.fixture(scope="module")
def first_build(tmp_path_factory) -> Path:
    """The fixture catalog built once into `site/`, with its cache beside it."""
    out = tmp_path_factory.mktemp("first") / "site"
    built(out)
    return out


@pytest.fixture
def previous(first_build, tmp_path) -> dict[str, bytes]:
    """A copy of `first_build` (the site and its cache) in tmp_path: the site a new build replaces."""
    for name in ("site", ".site.cache"):
        shutil.copytree(first_build.parent / name, tmp_path / name, symlinks=True)
    return snapshot(tmp_path / "site")


def set_brand(content: Path, brand: str) -> None:
    site = content / "site.yaml"
    site.write_text(site.read_text(encoding="utf-8").replace("brand: Arrakis", f"brand: {brand}"), encoding="utf-8")


def lock_is_free(out: Path) -> bool:
    with open(out.parent / f".{out.name}.lock", "a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True


def failing_on_call(monkeypatch, owner, name: str, call: int, error: BaseException) -> None:
    """`owner.name` works, except on its `call`-th call, which raises `error` (Ctrl-C, a full disk)."""
    real = getattr(owner, name)
    calls = []

    def failing(*args, **kwargs):
        calls.append(args)
        if len(calls) == call:
            raise error
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, failing)



def make_foreign_folder(path: Path) -> None:
    path.mkdir()
    (path / "notes.txt").write_text("someone else's")
    (path / "state.json").write_text('{"key": "theirs"}')
    (path / "sub").mkdir()
    (path / "sub" / "data.bin").write_bytes(bytes(range(256)))


def make_foreign_file(path: Path) -> None:
    path.write_text("a file, not a folder")


def make_empty_folder(path: Path) -> None:
    path.mkdir()


# ---- the cache folder ----------------------------------------------------------------------------


@pytest.mark.parametrize("make", [make_foreign_folder, make_foreign_file, make_empty_folder])
def test_a_cache_folder_someone_else_made_is_refused_and_left_intact(tmp_path, make):
    out = tmp_path / "site"
    cache = tmp_path / ".site.cache"
    make(cache)
    before = snapshot(cache)
    result = run_build(FIXTURE, out)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == (f"error: {cache}: exists and was not made by this tool (no .vram-guide-cache); "
                             "move it away or choose another --out\n")
    assert snapshot(cache) == before
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir() if ".building-" in p.name] == []
    assert lock_is_free(out)  # released although the build failed


def test_a_cache_folder_someone_else_made_keeps_the_previous_site(tmp_path, previous):
    out = tmp_path / "site"
    cache = tmp_path / ".site.cache"
    (cache / ".vram-guide-cache").unlink()  # from now on the folder is not this tool's
    before = snapshot(cache)
    result = run_build(FIXTURE, out)
    assert result.returncode == 1 and "no .vram-guide-cache" in result.stderr
    assert snapshot(cache) == before and snapshot(out) == previous


def test_a_build_interrupted_while_emptying_its_cache_leaves_a_cache_the_next_build_accepts(tmp_path, previous, content_copy,
                                                                                           monkeypatch, capsys):
    out = tmp_path / "site"
    set_brand(content_copy, "Giedi")  # a new build key: the cache is emptied
    failing_on_call(monkeypatch, shutil, "rmtree", 1, KeyboardInterrupt())
    assert main(["build", "--content", str(content_copy), "--out", str(out)]) == 130
    assert capsys.readouterr().err == INTERRUPTED.format(out=out)
    assert snapshot(out) == previous and (tmp_path / ".site.cache" / ".vram-guide-cache").is_file()
    monkeypatch.undo()
    assert main(["build", "--content", str(content_copy), "--out", str(out)]) == 0
    assert "Giedi" in (out / "index.html").read_text()


# ---- stale staging folders -----------------------------------------------------------------------


def test_stale_staging_folders_are_cleaned_only_when_they_carry_the_marker(tmp_path):
    out = tmp_path / "site"
    stale = staging_dir(out)  # as a killed build leaves it
    (stale / "site").mkdir()
    (stale / "site" / "index.html").write_text("half a copy")
    unmarked = tmp_path / ".site.building-mine"
    make_foreign_folder(unmarked)
    other_out = staging_dir(tmp_path / "site.building-x")  # .site.building-x.building-…: another output's
    kept = {unmarked: snapshot(unmarked), other_out: snapshot(other_out)}
    built(out)
    assert not stale.exists()
    assert {folder: snapshot(folder) for folder in kept} == kept
    assert sorted(p.name for p in tmp_path.iterdir() if ".building-" in p.name) == sorted(p.name for p in kept)


def test_a_build_killed_between_the_two_renames_gets_its_previous_site_back(tmp_path, previous):
    out = tmp_path / "site"
    stale = staging_dir(out)
    out.rename(stale / "previous")  # killed here: no site/ at all
    remove_stale_staging(out)
    assert snapshot(out) == previous
    assert not stale.exists()


# ---- two builds at once --------------------------------------------------------------------------


class RawFlock:
    """A lock held by some process that wrote no pid in the file."""

    def __init__(self, out: Path):
        self.path = out.parent / f".{out.name}.lock"

    def __enter__(self):
        self.handle = open(self.path, "w")
        fcntl.flock(self.handle, fcntl.LOCK_EX | fcntl.LOCK_NB)

    def __exit__(self, *exc):
        self.handle.close()


@pytest.mark.parametrize("hold, holder", [(build_lock, "pid {pid}"), (RawFlock, "another process")],
                         ids=["our-lock", "foreign-lock"])
def test_a_second_build_into_the_same_folder_is_refused_while_the_first_holds_the_lock(tmp_path, previous, hold, holder):
    out = tmp_path / "site"
    holder = holder.format(pid=os.getpid())
    with hold(out):
        result = run_build(FIXTURE, out)
        assert (result.returncode, result.stdout) == (1, "")
        assert result.stderr == (f"error: {out}: another build is writing it (lock .site.lock held by {holder}); "
                                 "wait for it to finish\n")
        assert snapshot(out) == previous
    built(out)  # once the first is done, the next build runs


def test_a_lock_file_left_behind_does_not_block(tmp_path):
    out = tmp_path / "site"
    (tmp_path / ".site.lock").write_text("vram-guide build lock, held by pid 999999999\n")
    built(out)
    assert (tmp_path / ".site.lock").read_text() != "vram-guide build lock, held by pid 999999999\n"


@pytest.mark.parametrize("content", ["my notes\n", "vram-guide build lock, held by pid 12\nand more\n"])
def test_a_lock_file_someone_else_wrote_is_refused_and_left_intact(tmp_path, content):
    out = tmp_path / "site"
    lock = tmp_path / ".site.lock"
    lock.write_text(content)
    result = run_build(FIXTURE, out)
    assert result.returncode == 1
    assert result.stderr == f"error: {lock}: exists and was not made by this tool; move it away or choose another --out\n"
    assert lock.read_text() == content and not out.exists()


def test_two_real_builds_at_once_one_is_refused_or_they_run_one_after_the_other(tmp_path, previous, content_copy):
    out = tmp_path / "site"
    set_brand(content_copy, "Giedi")
    first = subprocess.Popen([sys.executable, "-m", "generator", "build", "--content", str(content_copy), "--out", str(out)],
                             cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    second = run_build(content_copy, out)
    first_out, first_err = first.communicate(timeout=120)
    results = sorted([(first.returncode, first_err), (second.returncode, second.stderr)])
    assert results[0] == (0, "")
    assert results[1][0] in (0, 1)
    if results[1][0] == 1:
        assert "another build is writing it (lock .site.lock held by pid " in results[1][1]
    assert "Giedi" in (out / "index.html").read_text() and (out / ".vram-guide-site").is_file()


# ---- interrupts and failures while publishing ----------------------------------------------------


@pytest.mark.parametrize(
    "owner, name, call, error, code, message",
    [
        (shutil, "copytree", 1, KeyboardInterrupt(), 130, INTERRUPTED),  # copying the site to the staging folder
        (Path, "rename", 1, KeyboardInterrupt(), 130, INTERRUPTED),  # moving the previous site aside
        (Path, "rename", 2, KeyboardInterrupt(), 130, INTERRUPTED),  # moving the new site in
        (Path, "rename", 2, OSError(18, "Invalid cross-device link"), 1, "error: {out}: Invalid cross-device link\n"),
    ],
)
def test_publishing_puts_the_previous_site_back_on_any_failure(tmp_path, previous, content_copy, monkeypatch, capsys,
                                                               owner, name, call, error, code, message):
    out = tmp_path / "site"
    set_brand(content_copy, "Giedi")
    failing_on_call(monkeypatch, owner, name, call, error)
    assert main(["build", "--content", str(content_copy), "--out", str(out)]) == code
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", message.format(out=out))
    assert snapshot(out) == previous
    assert '"complete": true' in (tmp_path / ".site.cache" / "state.json").read_text()  # it failed while publishing
    assert [p.name for p in tmp_path.iterdir() if ".building-" in p.name] == []


@pytest.mark.parametrize("delay", [1.0, 1.8, 2.6, 3.4])
def test_ctrl_c_at_any_moment_leaves_a_complete_site(tmp_path, previous, content_copy, delay):
    out = tmp_path / "site"
    set_brand(content_copy, "Giedi")
    process = subprocess.Popen([sys.executable, "-m", "generator", "build", "--content", str(content_copy), "--out", str(out)],
                               cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(delay)
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=120)
    assert "Traceback" not in stderr
    if process.returncode == 130 and stderr != INTERRUPTED_LATE.format(out=out):  # stopped: the previous site
        assert stderr in (INTERRUPTED.format(out=out), "interrupted\n") and stdout == ""
        assert snapshot(out) == previous
    else:  # the signal came once the new site was being put in place: it is there, and said so
        assert (process.returncode, stderr) in ((0, ""), (130, INTERRUPTED_LATE.format(out=out))), stderr
        assert "Giedi" in (out / "index.html").read_text() and (out / ".vram-guide-site").is_file()
    assert [p.name for p in tmp_path.iterdir() if ".building-" in p.name] == []


def test_ctrl_c_once_the_new_site_is_in_place_says_so(tmp_path, previous, content_copy, monkeypatch, capsys):
    out = tmp_path / "site"
    set_brand(content_copy, "Giedi")
    failing_on_call(monkeypatch, build_module, "remove_staging", 1, KeyboardInterrupt())  # right after the swap
    assert main(["build", "--content", str(content_copy), "--out", str(out)]) == 130
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", INTERRUPTED_LATE.format(out=out))
    assert "Giedi" in (out / "index.html").read_text() and snapshot(out) != previous


# ---- a bug in the middle of a build --------------------------------------------------------------


def fail(*args, **kwargs):
    raise RuntimeError("boom\n  at the second line")


@pytest.mark.parametrize("function", ["site_pages", "write_llms_txt"])
def test_an_unexpected_exception_is_one_line_and_keeps_the_previous_site(tmp_path, previous, content_copy, monkeypatch, capsys, function):
    out = tmp_path / "site"
    set_brand(content_copy, "Giedi")
    monkeypatch.setattr(f"generator.site.build.{function}", fail)
    assert main(["build", "--content", str(content_copy), "--out", str(out)]) == 1
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", f"error: unexpected RuntimeError: boom at the second line {REPORT}\n")
    assert snapshot(out) == previous
    state = (tmp_path / ".site.cache" / "state.json").read_text()
    assert '"complete": false' in state
    assert lock_is_free(out)
