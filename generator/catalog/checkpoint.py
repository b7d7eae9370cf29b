"""Read the small files of a Hugging Face checkpoint folder (never the tensors).

config.json, model.safetensors.index.json, the JSON header of each .safetensors file (its first
8 bytes give the header's length) and README.md's front matter.
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass, field
from math import prod
from pathlib import Path

import yaml

MAX_HEADER_BYTES = 100 * 2**20  # a safetensors header beyond this is not a header


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


def _json(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise CheckpointError(f"{path}: cannot read ({error})") from None
    except json.JSONDecodeError as error:
        raise CheckpointError(f"{path}:{error.lineno}: not valid JSON ({error.msg})") from None
    if not isinstance(data, dict):
        raise CheckpointError(f"{path}: must hold a JSON object")
    return data


def read_safetensors_header(path: Path) -> dict:
    """The JSON header of a .safetensors file: 8 bytes of little-endian length, then the JSON."""
    try:
        with path.open("rb") as file:
            prefix = file.read(8)
            if len(prefix) < 8:
                raise CheckpointError(f"{path}: too short for a safetensors file")
            (length,) = struct.unpack("<Q", prefix)
            if length > MAX_HEADER_BYTES:
                raise CheckpointError(f"{path}: header length {length} is not plausible")
            raw = file.read(length)
    except OSError as error:
        raise CheckpointError(f"{path}: cannot read ({error.strerror})") from None
    if len(raw) < length:
        raise CheckpointError(f"{path}: header cut short ({len(raw)} of {length} bytes)")
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise CheckpointError(f"{path}: the header is not JSON") from None
    if not isinstance(header, dict):
        raise CheckpointError(f"{path}: the header is not a JSON object")
    return header


def _tensors(path: Path) -> list[TensorInfo]:
    tensors = []
    for name, info in read_safetensors_header(path).items():
        if name == "__metadata__":
            continue
        try:
            shape = tuple(int(n) for n in info["shape"])
            tensors.append(TensorInfo(name, str(info["dtype"]), shape))
        except (KeyError, TypeError, ValueError):
            raise CheckpointError(f"{path}: tensor {name!r} has no dtype and shape") from None
    return tensors


def _front_matter(path: Path) -> dict:
    text = path.read_text(encoding="utf-8", errors="replace")
    if not text.startswith("---"):
        return {}
    end = text.find("\n---", 3)
    if end < 0:
        return {}
    try:
        data = yaml.safe_load(text[3:end])
    except yaml.YAMLError:
        return {}
    return data if isinstance(data, dict) else {}


def read_checkpoint(folder: Path) -> Checkpoint:
    if not folder.is_dir():
        raise CheckpointError(f"{folder}: not a folder")
    config_path = folder / "config.json"
    if not config_path.is_file():
        raise CheckpointError(f"{config_path}: missing (add-model needs the checkpoint's config.json)")
    tensors: list[TensorInfo] = []
    for path in sorted(folder.glob("*.safetensors")):
        tensors += _tensors(path)
    names = [t.name for t in tensors]
    index_path = folder / "model.safetensors.index.json"
    if not names and index_path.is_file():
        weight_map = _json(index_path).get("weight_map")
        if isinstance(weight_map, dict):
            names = sorted(weight_map)
    readme = folder / "README.md"
    return Checkpoint(
        folder=folder,
        config=_json(config_path),
        tensors=tuple(tensors),
        tensor_names=tuple(names),
        readme_front_matter=_front_matter(readme) if readme.is_file() else {},
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
