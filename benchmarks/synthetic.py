"""Synthetic catalogs of N models derived from the shipped ones (same architectures, new names)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from generator.catalog.slugs import slugify

ROOT = Path(__file__).resolve().parent.parent


def write_catalog(target: Path, count: int, source: Path = ROOT / "content") -> Path:
    """content/ with `count` models: the real ones cycled, each copy renamed `<name>-s<i>`."""
    if target.exists():
        shutil.rmtree(target)
    (target / "models").mkdir(parents=True)
    shutil.copy(source / "site.yaml", target)
    shutil.copy(source / "gpus.yaml", target)
    originals = sorted((source / "models").glob("*.yaml"))
    texts = [path.read_text(encoding="utf-8") for path in originals]
    for i in range(count):
        text = texts[i % len(texts)]
        name = re.search(r"^name: (.+)$", text, re.M).group(1).strip().strip("'\"")
        repo = re.search(r"^id: (.+)$", text, re.M).group(1).strip()
        new_name = f"{name}-s{i}"
        text = re.sub(r"^name: .+$", f"name: {new_name}", text, count=1, flags=re.M)
        text = re.sub(r"^id: .+$", f"id: {repo}-s{i}", text, count=1, flags=re.M)
        (target / "models" / f"{slugify(new_name)}.yaml").write_text(text, encoding="utf-8")
    return target
