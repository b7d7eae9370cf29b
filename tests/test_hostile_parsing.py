"""Hostile YAML refused by `check` with one line naming the file, before it can cost time or memory.

Each case writes one catalog file into a copy of the fixture catalog and runs the real CLI in a
subprocess; the timeout is a hang guard (an alias bomb or 100,000 brackets used to hang or crash).
"""

import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT

# Nine levels of nine aliases each: 9^9 (387 million) strings once expanded, in under 1 KB.
ALIAS_BOMB = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n' + "".join(
    f"{new}: &{new} [{', '.join([f'*{old}'] * 9)}]\n" for old, new in zip("abcdefghi", "bcdefghij")
)
DEEP_BLOCK = "".join(f"{'  ' * level}k{level}:\n" for level in range(40)) + "  " * 40 + "end: 1\n"

CASES = [
    # (file, its text, the one problem line)
    ("models/hostile.yaml", ALIAS_BOMB,
     "content/models/hostile.yaml:1: (yaml): anchors (&name) and aliases (*name) are not accepted: write the value out"),
    ("models/hostile.yaml", "id: &id org/Name\nname: *id\n",
     "content/models/hostile.yaml:1: (yaml): anchors (&name) and aliases (*name) are not accepted: write the value out"),
    ("site.yaml", "brand: VRAM\nbase: &base {a: 1}\nother: {<<: *base}\n",
     "content/site.yaml:2: (yaml): anchors (&name) and aliases (*name) are not accepted: write the value out"),
    ("models/hostile.yaml", "id: " + "[" * 100_000 + "]" * 100_000 + "\n",
     "content/models/hostile.yaml:1: (yaml): nested more than 32 levels deep"),
    ("models/hostile.yaml", "id: " + "{a: " * 2_000 + "}" * 2_000 + "\n",
     "content/models/hostile.yaml:1: (yaml): nested more than 32 levels deep"),
    ("gpus.yaml", "gpus:\n  - " + "[" * 1_000_000,  # never closed: refused at level 33, not scanned to the end
     "content/gpus.yaml:2: (yaml): nested more than 32 levels deep"),
    ("models/hostile.yaml", DEEP_BLOCK, "content/models/hostile.yaml:33: (yaml): nested more than 32 levels deep"),
    ("models/hostile.yaml", "id: org/Name\n# padding\n" + "#" * 2**20 + "\n",
     "content/models/hostile.yaml:1: (yaml): larger than 1 MiB, the most a catalog file may hold"),
    ("models/hostile.yaml", "id: org/Name\nname: Name\nparams: {value: " + "7" * 5_000 + ", source: x}\n",
     "content/models/hostile.yaml:3: (yaml): value out of range (Exceeds the limit (4300 digits) for integer "
     "string conversion: value has 5000 digits)"),
    ("models/hostile.yaml", "id: org/Name\nrelease_date: {value: 2025-02-30, source: x}\n",
     "content/models/hostile.yaml:2: (yaml): value out of range (day is out of range for month)"),
    ("models/hostile.yaml", b"id: org/\xff\n",
     "content/models/hostile.yaml:1: (yaml): not UTF-8 text (invalid start byte)"),
    ("models/hostile.yaml", "id: org/Name\nname: !!python/object/apply:os.system [echo]\n",
     "content/models/hostile.yaml:2: (yaml): tags (tag:yaml.org,2002:python/object/apply:os.system) are not "
     "accepted: write a plain value"),
    ("models/hostile.yaml", "id: org/Name\nname: !!binary aGVsbG8=\n",
     "content/models/hostile.yaml:2: (yaml): tags (tag:yaml.org,2002:binary) are not accepted: write a plain value"),
    ("models/hostile.yaml", "id: org/Name\n---\nid: org/Other\n",
     "content/models/hostile.yaml:2: (yaml): malformed YAML: but found another document"),
]


def run_check(content, timeout=60):
    return subprocess.run(
        [sys.executable, "-m", "generator", "check", "--content", "content"],
        capture_output=True, text=True, cwd=content.parent, timeout=timeout,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


@pytest.mark.parametrize("file, text, expected", CASES, ids=[f"{c[0]}:{c[2].split(': ', 2)[-1][:40]}" for c in CASES])
def test_hostile_yaml_is_refused_with_one_line(content_copy, file, text, expected):
    path = content_copy / file
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    result = run_check(content_copy)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stderr.splitlines() == [expected, "1 problem in content."]


def test_a_fifo_in_the_catalog_is_refused_without_blocking(content_copy):
    os.mkfifo(content_copy / "models" / "hostile.yaml")
    result = run_check(content_copy)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.splitlines() == ["content/models/hostile.yaml:1: (yaml): not a regular file", "1 problem in content."]


def test_a_control_character_in_a_file_name_is_printed_escaped(content_copy):
    (content_copy / "models" / "hostile\nname: x.yaml").write_text("id: [unclosed\n")
    result = run_check(content_copy)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.splitlines()[0].startswith("content/models/hostile\\nname: x.yaml:2: (yaml): malformed YAML")
    assert len(result.stderr.splitlines()) == 2
