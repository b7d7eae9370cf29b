"""The mutant generator of benchmarks/mutation_score.py, on snippets (no pytest run of mutants)."""

from __future__ import annotations

import ast
from pathlib import Path

from benchmarks.mutation_score import core_files, mutants_of, repository_files

ROOT = Path(__file__).resolve().parent.parent


def test_arithmetic_and_constant_mutants_of_a_small_expression():
    mutants = mutants_of("a * b + 1\n")
    assert [(m.line, m.col, m.operator, m.source) for m in mutants] == [
        (1, 4, "arith-div", "a / b + 1\n"),
        (1, 8, "arith-sub", "a * b - 1\n"),
        (1, 8, "int-plus1", "a * b + 2\n"),
        (1, 8, "int-zero", "a * b + 0\n"),
    ]
    assert str(mutants[1]) == "<snippet>:1: arithmetic + → - (a * b + 1 → a * b - 1)"


def test_docstrings_annotations_imports_and_f_string_text_are_left_alone():
    source = '''"""Module 1 + 1 "key"."""
from __future__ import annotations
from typing import TYPE_CHECKING
if TYPE_CHECKING:
    x = 1 + 1


class A:
    """Class 2 * 2."""
    size: int


def f(n: Literal[1] = 2) -> Literal[3]:
    """Function 3 < 4."""
    return f"{n} and 5 - 5"
'''
    assert [(m.line, m.operator, m.original, m.mutated) for m in mutants_of(source)] == [(13, "int-plus1", "2", "3")]


def test_ceil_floor_swap_imports_floor_and_ids_are_unique():
    mutants = mutants_of("from math import ceil\n\ndef f(x):\n    return ceil(x / 2) if x else min(x, 1)\n")
    swap = next(m for m in mutants if m.operator == "swap-ceil-floor")
    namespace: dict = {}
    exec(swap.source, namespace)
    assert namespace["f"](3) == 1
    assert len({m.id for m in mutants}) == len(mutants)
    assert {"if-true", "if-false", "swap-min-max", "arith-mul", "arith-floordiv"} <= {m.operator for m in mutants}


def test_statements_and_string_elements_are_dropped():
    source = 'NAMES = ("a", "b")\ntotal = []\ntotal.append(1)\ntotal += [2]\n'
    sources = {m.source for m in mutants_of(source) if m.operator in ("drop-element", "drop-statement")}
    assert "NAMES = ('a',)\ntotal = []\ntotal.append(1)\ntotal += [2]\n" in sources
    assert "NAMES = ('a', 'b')\ntotal = []\npass\ntotal += [2]\n" in sources
    assert "NAMES = ('a', 'b')\ntotal = []\ntotal.append(1)\npass\n" in sources
    assert not any(m.operator == "arith-sub" for m in mutants_of(source))  # list += list is not arithmetic


def test_the_sizing_core_round_trips_through_unparse_and_every_mutant_parses():
    files = core_files(repository_files(ROOT))
    assert files and all(f.startswith("generator/sizing/") for f in files)
    for path in files:
        source = (ROOT / path).read_text()
        tree = ast.parse(source)
        assert ast.dump(ast.parse(ast.unparse(tree))) == ast.dump(tree), path
    mutants = mutants_of((ROOT / "generator/sizing/kv_cache.py").read_text(), "generator/sizing/kv_cache.py")
    assert mutants == mutants_of((ROOT / "generator/sizing/kv_cache.py").read_text(), "generator/sizing/kv_cache.py")
    for mutant in mutants:
        ast.parse(mutant.source)
