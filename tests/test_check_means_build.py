"""What `check` accepts, `build` builds (issue "Nothing gets in, nothing is lost, round 3"): optional
facts left out still build, and what could not build is refused by `check` in one line.

Each case runs the CLI on a copy of the fixture catalog, as a deployer would.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_build


def check(content: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "generator", "check", "--content", str(content)],
                          capture_output=True, text=True, cwd=ROOT)


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, 1))


def drop_block(path: Path, key: str) -> None:
    """Remove a top-level `key:` and its indented lines."""
    lines = path.read_text().splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.startswith(f"{key}:"))
    end = next((i for i in range(start + 1, len(lines)) if lines[i][:1] not in (" ", "\n")), len(lines))
    path.write_text("".join(lines[:start] + lines[end:]))


def test_a_gpu_without_bandwidth_builds_without_speed_figures(content_copy, tmp_path):
    gpus = content_copy / "gpus.yaml"
    text = gpus.read_text()
    start = text.index("  - slug: rtx-4090")
    line = re.compile(r"\n    bandwidth_gb_s: [^\n]*").search(text, start)
    gpus.write_text(text[:line.start()] + text[line.end():])
    assert check(content_copy).returncode == 0
    built = run_build(content_copy, tmp_path / "site")
    assert built.returncode == 0, built.stderr
    page = (tmp_path / "site" / "en" / "gpus" / "rtx-4090.html.md").read_text()
    assert "None" not in page and "| Bandwidth | not published |" in page


def test_a_model_without_architecture_builds_with_the_headline_only(content_copy, tmp_path):
    drop_block(content_copy / "models" / "mistral-7b-v0-1.yaml", "architecture")
    assert check(content_copy).returncode == 0
    built = run_build(content_copy, tmp_path / "site")
    assert built.returncode == 0, built.stderr
    page = (tmp_path / "site" / "en" / "models" / "mistral-7b-v0-1.html.md").read_text()
    assert "## What it takes to serve it" in page and "## Checkpoints to serve" not in page
    assert 'data-model="mistral-7b-v0-1"' not in (tmp_path / "site" / "en" / "fit.html").read_text()
    assert not (tmp_path / "site" / "assets" / "plan" / "models" / "mistral-7b-v0-1.json").exists()


@pytest.mark.parametrize("old, new, line_key, message", [
    ("\n  layers: 32\n", "\n  layers: 1000000\n", "  layers: 1000000",
     "architecture.layers: must be an integer from 1 to 1000 (got 1000000)"),
    # per layer: attention 4,096 × (4,096 + 1,024 + 1,024) + 4,096 × 4,096 = 41,943,040, MLP 3 × 4,096 × 14,336
    # = 176,160,768, two norms 8,192: 218,112,000 × 320 = 69,795,840,000; embeddings and head
    # 2 × 128,256 × 4,096 = 1,050,673,152; final norm 4,096: 70,846,517,248, 782.2 % over 8,030,261,248
    ("\n  layers: 32\n", "\n  layers: 320\n", "architecture:",
     "architecture: adds up to 70,846,517,248 parameters, 782.2% from params (8,030,261,248); it must be within 0.5%"),
])
def test_what_could_not_build_is_refused_by_check_in_one_line(content_copy, old, new, line_key, message):
    path = content_copy / "models" / "llama-3-1-8b-instruct.yaml"
    edit(path, old, new)
    result = check(content_copy)
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if text.startswith(line_key))
    assert result.returncode == 2
    assert result.stderr.splitlines()[0] == f"{path}:{line}: {message}"
