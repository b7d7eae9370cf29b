"""Read one YAML file into plain data plus the line of every key, for error messages.

Parsing is defensive, because the catalog comes from pull requests and front matter from
downloaded checkpoints: the file size is capped before reading, and the parser's event stream is
checked for anchors and aliases (a few lines of nested aliases expand to billions of nodes), for
explicit tags (!!binary, !!set: the catalog needs none) and for nesting depth before any node is
composed. Every failure is one YamlSyntaxError line.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from generator.catalog.bounded_read import FileRefused, read_regular_file
from generator.catalog.parsed_files import ParsedFiles


# libyaml's parser when PyYAML was built with it (much faster on large catalogs), same results.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

MAX_FILE_BYTES = 2**20  # the largest shipped catalog file is a few dozen KB
MAX_DEPTH = 32  # levels of nested mappings and lists; the catalog uses 4


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
        super().__init__(f"{path}:{line}: (yaml): {problem}")


def read_yaml(path: Path, display_path: str, parsed: ParsedFiles | None = None) -> YamlFile:
    """Parse `path`; raise YamlSyntaxError (one line, with the line number) when it is not YAML.
    `parsed`: what earlier runs made of files with the same bytes (parsed_files.py)."""
    try:
        raw = read_regular_file(path, MAX_FILE_BYTES, "the most a catalog file may hold")
    except FileRefused as error:
        raise YamlSyntaxError(display_path, 1, str(error)) from None
    except OSError as error:
        raise YamlSyntaxError(display_path, 1, f"cannot read the file ({error.strerror})") from None
    key = ParsedFiles.key(raw)
    kept = parsed.get(key) if parsed is not None else None
    if kept is not None:
        return YamlFile(display_path, *kept)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise YamlSyntaxError(display_path, 1, f"not UTF-8 text ({error.reason})") from None
    node, data = parse_yaml(text, display_path)
    lines: dict[str, int] = {"": 1}
    duplicates: list[tuple[str, int]] = []
    if node is not None:
        _collect_lines(node, "", lines, duplicates)
    if parsed is not None:
        parsed.put(key, data, lines, tuple(duplicates))
    return YamlFile(display_path, data, lines, tuple(duplicates))


def parse_yaml(text: str, display_path: str) -> tuple[yaml.Node | None, Any]:
    """The composed document and its data; YamlSyntaxError for anything the parser refuses."""
    try:
        _check_events(text, display_path)
        node = yaml.compose(text, Loader=_LOADER)
        data = _Constructor("").construct_document(node) if node is not None else None
    except _UnreadableValue as error:
        raise YamlSyntaxError(display_path, error.line, f"value out of range ({error.reason})") from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 1
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise YamlSyntaxError(display_path, line, f"malformed YAML: {problem}") from None
    except (RecursionError, MemoryError) as error:  # a last resort: the checks above bound both
        raise YamlSyntaxError(display_path, 1, f"too large to read ({type(error).__name__})") from None
    return node, data


def _check_events(text: str, display_path: str) -> None:
    """Refuse anchors, aliases, tags and deep nesting from the event stream, before anything is composed.

    Events are produced one at a time, so the refusal comes at the first anchor or the 33rd level
    however large the rest of the file.
    """
    depth = 0
    for event in yaml.parse(text, Loader=_LOADER):
        line = event.start_mark.line + 1
        if getattr(event, "anchor", None) is not None:
            raise YamlSyntaxError(
                display_path, line, "anchors (&name) and aliases (*name) are not accepted: write the value out"
            )
        if getattr(event, "tag", None) is not None:
            raise YamlSyntaxError(display_path, line, f"tags ({event.tag}) are not accepted: write a plain value")
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                raise YamlSyntaxError(display_path, line, f"nested more than {MAX_DEPTH} levels deep")
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


class _UnreadableValue(Exception):
    def __init__(self, line: int, reason: str):
        super().__init__(reason)
        self.line, self.reason = line, reason


class _Constructor(_LOADER):
    """Builds Python values; a value Python refuses (a 5,000-digit integer, 2025-02-30) gets its line."""

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep)
        except (ValueError, OverflowError) as error:
            raise _UnreadableValue(node.start_mark.line + 1, str(error).split(";")[0]) from None


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
