"""Read one YAML file into plain data plus the line of every key, for error messages."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml


# libyaml's parser when PyYAML was built with it (much faster on large catalogs), same results.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class YamlFile:
    path: str
    data: Any
    # "params.value" -> 1-based line of that key; "" -> line 1 (the document).
    lines: dict[str, int]
    duplicate_keys: tuple[tuple[str, int], ...]

    def line(self, key_path: str) -> int:
        while key_path and key_path not in self.lines:
            key_path = key_path.rpartition(".")[0]
        return self.lines.get(key_path, 1)


class YamlSyntaxError(Exception):
    def __init__(self, path: str, line: int, problem: str):
        super().__init__(f"{path}:{line}: (yaml): malformed YAML: {problem}")


def read_yaml(path: Path, display_path: str) -> YamlFile:
    """Parse `path`; raise YamlSyntaxError (one line, with the line number) when it is not YAML."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise YamlSyntaxError(display_path, 1, f"not UTF-8 text ({error.reason})") from None
    try:
        node = yaml.compose(text, Loader=_LOADER)
        data = _LOADER("").construct_document(node) if node is not None else None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 1
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise YamlSyntaxError(display_path, line, problem) from None
    lines: dict[str, int] = {"": 1}
    duplicates: list[tuple[str, int]] = []
    if node is not None:
        _collect_lines(node, "", lines, duplicates)
    return YamlFile(display_path, data, lines, tuple(duplicates))


def _collect_lines(node: yaml.Node, prefix: str, lines: dict[str, int], duplicates: list) -> None:
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key_node, value_node in node.value:
            key = f"{prefix}{key_node.value}"
            if key in seen:
                duplicates.append((key, key_node.start_mark.line + 1))
            seen.add(key)
            lines[key] = key_node.start_mark.line + 1
            _collect_lines(value_node, key + ".", lines, duplicates)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            key = f"{prefix}{index}"
            lines[key] = item.start_mark.line + 1
            _collect_lines(item, key + ".", lines, duplicates)
