"""`add-model`: write content/models/<slug>.yaml from a checkpoint folder's small files."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import yaml

from generator.catalog.checkpoint import CheckpointError, read_checkpoint
from generator.catalog.hf_config import model_record, model_type, record_slug
from generator.catalog.schema import TODO, todo_paths


def add_model(folder: Path, content_dir: Path, repo_id: str | None, force: bool) -> tuple[Path, list[str]]:
    """Write the model's catalog file; return its path and the fields left as TODO."""
    checkpoint = read_checkpoint(folder)
    try:
        record = model_record(checkpoint, repo_id)
    except KeyError as error:
        raise CheckpointError(f"{folder / 'config.json'}: {error.args[0]}: missing (add-model needs it)") from None
    slug = record_slug(record)
    if not slug:
        raise CheckpointError(f"{folder}: no name to make a slug from; pass --id org/Name")
    target = content_dir / "models" / f"{slug}.yaml"
    if target.exists() and not force:
        raise CheckpointError(f"{target}: already exists (use --force to overwrite it)")
    todos = todo_paths(record)
    if record.get("architecture") == TODO:
        todos[todos.index("architecture")] = f"architecture (model_type {model_type(checkpoint)!r} is not one add-model reads)"
    header = [f"# {record['name']}: written by add-model from {folder.name}/."]
    if todos:
        header.append("# Fill in every TODO (a value and its source) or delete the optional ones; `check` lists them.")
    text = "\n".join(header) + "\n" + yaml.safe_dump(record, sort_keys=False, allow_unicode=True, width=100)
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{slug}.", suffix=".yaml")
    with os.fdopen(handle, "w", encoding="utf-8") as file:
        file.write(text)
    os.replace(temporary, target)
    return target, todos
