"""Read the small files of a Hugging Face checkpoint folder (never the tensors).

config.json, model.safetensors.index.json, the JSON header of each .safetensors file (its first
8 bytes give the header's length) and README.md's front matter. The folder comes from the internet:
only regular files are opened (a FIFO would block), each file and the headers together have a size
cap, JSON nested deeper than MAX_DEPTH is refused, and every failure is one line naming the file.
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass, field
from math import prod
from pathlib import Path

from generator.catalog.bounded_read import FileRefused, mib, open_regular_file, read_regular_file
from generator.catalog.yaml_file import YamlSyntaxError, parse_yaml

MAX_CONFIG_BYTES = 4 * 2**20  # config.json is a few KB
MAX_INDEX_BYTES = 64 * 2**20  # the largest index (DeepSeek-V3's, 91,000 tensors) is ~9 MB
MAX_README_BYTES = 4 * 2**20  # a model card, read for its front matter
MAX_HEADER_BYTES = 100 * 2**20  # a safetensors header beyond this is not a header (the format's limit)
MAX_HEADERS_TOTAL = 64 * 2**20  # all the headers together; a 163-file checkpoint has ~20 MB
MAX_DEPTH = 32  # levels of nested JSON objects and arrays; a safetensors header has 3
MAX_TENSOR_ELEMENTS = 10**15  # the largest real tensors hold ~10^10 values
MAX_SHAPE_DIMENSIONS = 8


class CheckpointError(Exception):
    """A checkpoint folder that cannot be read; the message is one line naming the file."""


@dataclass(frozen=True)
class TensorInfo:
    name: str
    dtype: str
    shape: tuple[int, ...]


@dataclass(frozen=True)
class Checkpoint:
    folder: Path
    config: dict
    tensors: tuple[TensorInfo, ...] = ()  # from the safetensors headers, when the files are here
    tensor_names: tuple[str, ...] = ()  # from the index or the headers
    readme_front_matter: dict = field(default_factory=dict)


def _read(path: Path, limit: int) -> bytes:
    try:
        return read_regular_file(path, limit, "the most add-model reads from it")
    except FileRefused as error:
        raise CheckpointError(f"{path}: {error}") from None
    except OSError as error:
        raise CheckpointError(f"{path}: cannot read ({error.strerror})") from None


def _parse_json(raw: bytes, path: Path, what: str) -> dict:
    """A JSON object from `raw`; CheckpointError for bad JSON, huge numbers or deep nesting."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise CheckpointError(f"{path}: {what} is not UTF-8 text ({error.reason})") from None
    except json.JSONDecodeError as error:
        raise CheckpointError(f"{path}:{error.lineno}: {what} is not valid JSON ({error.msg})") from None
    except ValueError as error:  # an integer of more than 4,300 digits
        raise CheckpointError(f"{path}: {what} holds a number too long to read ({str(error).split(':')[0]})") from None
    except RecursionError:
        raise CheckpointError(f"{path}: {what} is nested more than {MAX_DEPTH} levels deep") from None
    except MemoryError:
        raise CheckpointError(f"{path}: {what} is too large to read") from None
    if not isinstance(data, dict):
        raise CheckpointError(f"{path}: {what} must be a JSON object")
    if _depth(data) > MAX_DEPTH:
        raise CheckpointError(f"{path}: {what} is nested more than {MAX_DEPTH} levels deep")
    return data


def _depth(data: object) -> int:
    """Levels of nested objects and arrays, counted without recursion."""
    deepest, pending = 0, [(data, 1)]
    while pending:
        value, level = pending.pop()
        if isinstance(value, (dict, list)):
            deepest = max(deepest, level)
            pending.extend((item, level + 1) for item in (value.values() if isinstance(value, dict) else value))
    return deepest


def _json(path: Path, limit: int) -> dict:
    return _parse_json(_read(path, limit), path, "the file")


def _without_nulls(data: dict) -> dict:
    """config.json's null means "not set" (the library's default): such keys are left out."""
    return {key: _without_nulls(value) if isinstance(value, dict) else value
            for key, value in data.items() if value is not None}


def _header_bytes(path: Path, budget: int) -> bytes:
    """The raw JSON header of a .safetensors file (8 bytes of little-endian length, then the JSON);
    `budget` is what is left of MAX_HEADERS_TOTAL for this file."""
    try:
        with open_regular_file(path) as file:
            prefix = file.read(8)
            if len(prefix) < 8:
                raise CheckpointError(f"{path}: too short for a safetensors file")
            (length,) = struct.unpack("<Q", prefix)
            if length > MAX_HEADER_BYTES:
                raise CheckpointError(f"{path}: header length {length} is not plausible")
            if length > budget:
                raise CheckpointError(
                    f"{path}: the .safetensors headers add up to more than {mib(MAX_HEADERS_TOTAL)}, "
                    "the most add-model reads"
                )
            raw = file.read(length)
    except FileRefused as error:
        raise CheckpointError(f"{path}: {error}") from None
    except OSError as error:
        raise CheckpointError(f"{path}: cannot read ({error.strerror})") from None
    if len(raw) < length:
        raise CheckpointError(f"{path}: header cut short ({len(raw)} of {length} bytes)")
    return raw


def _shape(value: object) -> tuple[int, ...] | None:
    """A tensor shape: at most MAX_SHAPE_DIMENSIONS whole numbers, MAX_TENSOR_ELEMENTS values in all."""
    if not isinstance(value, list) or len(value) > MAX_SHAPE_DIMENSIONS:
        return None
    if not all(isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= MAX_TENSOR_ELEMENTS for n in value):
        return None
    return tuple(value) if prod(value) <= MAX_TENSOR_ELEMENTS else None


def _tensors(path: Path, header: dict) -> list[TensorInfo]:
    tensors = []
    for name, info in header.items():
        if name == "__metadata__":
            continue
        shape = _shape(info.get("shape")) if isinstance(info, dict) else None
        if shape is None or not isinstance(info.get("dtype"), str):
            raise CheckpointError(
                f"{path}: tensor {name[:80]!r} needs a dtype and a shape of at most {MAX_SHAPE_DIMENSIONS} "
                f"whole numbers ({MAX_TENSOR_ELEMENTS:.0e} values at most)"
            )
        tensors.append(TensorInfo(name, info["dtype"], shape))
    return tensors


def _front_matter(path: Path) -> dict:
    text = _read(path, MAX_README_BYTES).decode("utf-8", errors="replace")
    if not text.startswith("---"):
        return {}
    end = text.find("\n---", 3)
    if end < 0:
        return {}
    try:  # the front matter's line n is the README's line n: it starts after "---" on line 1
        _, data = parse_yaml(text[3:end], str(path))
    except YamlSyntaxError as error:
        raise CheckpointError(str(error)) from None
    return data if isinstance(data, dict) else {}


def read_checkpoint(folder: Path) -> Checkpoint:
    if not folder.is_dir():
        raise CheckpointError(f"{folder}: not a folder")
    config_path = folder / "config.json"
    if not config_path.exists():
        raise CheckpointError(f"{config_path}: missing (add-model needs the checkpoint's config.json)")
    tensors: list[TensorInfo] = []
    budget = MAX_HEADERS_TOTAL
    for path in sorted(folder.glob("*.safetensors")):
        raw = _header_bytes(path, budget)
        budget -= len(raw)
        tensors += _tensors(path, _parse_json(raw, path, "the header"))
    names = [t.name for t in tensors]
    index_path = folder / "model.safetensors.index.json"
    if not names and index_path.exists():
        weight_map = _json(index_path, MAX_INDEX_BYTES).get("weight_map")
        if isinstance(weight_map, dict):
            names = sorted(weight_map)
    readme = folder / "README.md"
    return Checkpoint(
        folder=folder,
        config=_without_nulls(_json(config_path, MAX_CONFIG_BYTES)),
        tensors=tuple(tensors),
        tensor_names=tuple(names),
        readme_front_matter=_front_matter(readme) if readme.exists() else {},
    )


# Tensors that hold scales of quantized weights, not parameters.
SCALE_SUFFIXES = ("_scales", ".weight_scale", ".weight_scale_inv", ".input_scale", ".weight_global_scale")
# 4-bit values packed two per byte (gpt-oss "_blocks", compressed-tensors "weight_packed").
PACKED_SUFFIXES = ("_blocks", ".weight_packed")


def parameter_count(tensors: tuple[TensorInfo, ...]) -> int:
    """Parameters in the headers: packed 4-bit bytes count twice, scales not at all (as on the Hub)."""
    total = 0
    for tensor in tensors:
        if tensor.name.endswith(SCALE_SUFFIXES):
            continue
        count = prod(tensor.shape)
        total += 2 * count if tensor.name.endswith(PACKED_SUFFIXES) and tensor.dtype == "U8" else count
    return total
