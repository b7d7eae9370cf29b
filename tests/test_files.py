"""Site files are written whole: a reader holding the old file reads all of it, never a half."""

import os
import stat

import pytest

from generator.site.files import write_if_changed


def test_a_reader_of_the_old_file_reads_it_whole_while_it_is_replaced(tmp_path):
    page = tmp_path / "page.json"
    page.write_bytes(b"old " * 1000)
    with page.open("rb") as reader:  # the preview's server, between its stat and its read
        assert write_if_changed(page, b"new")
        assert reader.read() == b"old " * 1000
    assert page.read_bytes() == b"new"
    assert [p.name for p in tmp_path.iterdir()] == ["page.json"]  # no temporary file left behind


def test_an_unchanged_file_keeps_its_mtime_and_a_changed_one_its_mode(tmp_path):
    page = tmp_path / "deep" / "page.html"
    assert write_if_changed(page, "same")
    opened = tmp_path / "opened"
    opened.write_text("")  # the mode open() gives a new file, under this process's umask
    assert stat.S_IMODE(page.stat().st_mode) == stat.S_IMODE(opened.stat().st_mode)
    os.utime(page, ns=(1, 1))
    assert not write_if_changed(page, "same")
    assert page.stat().st_mtime_ns == 1
    page.chmod(0o640)
    assert write_if_changed(page, "other")
    assert stat.S_IMODE(page.stat().st_mode) == 0o640


def test_a_failed_write_leaves_the_old_file_and_no_temporary_one(tmp_path):
    page = tmp_path / "page.html"
    page.write_text("old")
    with pytest.raises(TypeError):
        write_if_changed(page, ["not", "bytes"])
    assert page.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["page.html"]
