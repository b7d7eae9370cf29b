"""`add-model`: write content/models/<slug>.yaml from a checkpoint folder's small files.

It refuses, with one line, what it cannot make sense of: values of the wrong kind in config.json,
a repo id that is not org/Name, and any text it would write (the folder name included) that is not
a single line.
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from generator.catalog.checkpoint import Checkpoint, CheckpointError, read_checkpoint
from generator.catalog.file_writes import catalog_lock, replace_file
from generator.catalog.hf_config import config_problem, model_record, model_type, record_slug
from generator.catalog.schema import NOT_TEXT, TODO, repo_id as checked_repo_id, todo_paths


class _Dumper(yaml.SafeDumper):
    """YAML as the catalog writes it: a list of numbers (a layer pattern's widths) on wrapped lines."""


def _list(dumper: yaml.SafeDumper, data: list) -> yaml.Node:
    numbers = all(isinstance(item, int) and not isinstance(item, bool) for item in data)
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=numbers or None)


_Dumper.add_representer(list, _list)


def add_model(folder: Path, content_dir: Path, repo_id: str | None, force: bool) -> tuple[Path, list[str]]:
    """Write the model's catalog file; return its path and the fields left as TODO."""
    if repo_id is not None:
        repo_id = _repo_id(repo_id, "--id", "")
    if NOT_TEXT.search(folder.name):
        raise CheckpointError(f"{folder}: the folder name must be a single line of text (it goes into the file)")
    checkpoint = read_checkpoint(folder)
    _check_inputs(checkpoint)
    repo_id = repo_id or _repo_id_from_config(checkpoint)
    try:
        record = model_record(checkpoint, repo_id)
    except KeyError as error:
        raise CheckpointError(f"{folder / 'config.json'}: {error.args[0]}: missing (add-model needs it)") from None
    _check_text(record, folder)
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
    text = "\n".join(header) + "\n" + yaml.dump(record, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)
    target.parent.mkdir(parents=True, exist_ok=True)
    with catalog_lock(content_dir):
        replace_file(target, text, content_dir, mode_from=content_dir / "gpus.yaml")  # the catalog's mode, 0644
    return target, todos


def _repo_id(value: str, where: str, hint: str) -> str:
    try:
        return checked_repo_id(value)
    except ValueError as error:
        raise CheckpointError(f"{where}: {error}{hint}") from None


def _repo_id_from_config(checkpoint: Checkpoint) -> str | None:
    """config.json's _name_or_path when it is a repo id; a fine-tune's local path is refused."""
    name = checkpoint.config.get("_name_or_path")
    if not name:
        return None
    where = f"{checkpoint.folder / 'config.json'}: _name_or_path"
    return _repo_id(name, where, "; pass the model's repo id with --id org/Name")


def _check_inputs(checkpoint: Checkpoint) -> None:
    problem = config_problem(checkpoint.config)
    if problem:
        raise CheckpointError(f"{checkpoint.folder / 'config.json'}: {problem}")
    license_name = checkpoint.readme_front_matter.get("license")
    if license_name is not None and not isinstance(license_name, str):
        shown = json.dumps(license_name, default=str)[:40]
        raise CheckpointError(f"{checkpoint.folder / 'README.md'}: license: must be text (got {shown})")


def _check_text(data: object, folder: Path, path: str = "") -> None:
    """Every string the file would hold is one line without control, format, separator or bidi characters."""
    if isinstance(data, dict):
        for key, value in data.items():
            _check_text(value, folder, f"{path}.{key}".lstrip("."))
    elif isinstance(data, str):
        found = NOT_TEXT.search(data)
        if found:
            raise CheckpointError(
                f"{folder}: {path}: must be a single line of text without control, format, separator or bidi "
                f"characters (found U+{ord(found.group()):04X})"
            )
