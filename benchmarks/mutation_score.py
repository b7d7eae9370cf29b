"""Mutation score of the pure sizing core: the share of small code changes the tests notice.

    .venv/bin/python benchmarks/mutation_score.py                      # every mutant, 2 jobs
    .venv/bin/python benchmarks/mutation_score.py --sample 30 --seed 1 # a quick look
    .venv/bin/python benchmarks/mutation_score.py --list               # the mutants, no test run

What it measures. Every .py file under generator/sizing/ (found, not listed here) is parsed with
`ast`; each mutant changes one spot of one file: an arithmetic operator (+ <-> -, * <-> /,
// <-> /, % -> //, in `x op y` and `x op= y`), a comparison (< <-> <=, > <-> >=, == <-> !=), an
integer constant, Fraction(...) arguments included (n -> n+1, 1 -> 0), min <-> max, ceil <-> floor,
and <-> or, `not x` -> `x`, one string dropped from a tuple/list of strings, a key-like string
("native", "routed_experts", "16") replaced by "X", True <-> False, an `if` (or `x if c else y`,
or comprehension `if`) condition forced to True or to False, and the deletion of an augmented
assignment or of an append/extend to a list. Docstrings, annotations, imports (__future__ too),
f-string text, decorators (`@dataclass(frozen=True)`: declarations, not sizing behaviour) and
`if TYPE_CHECKING:` blocks are left alone. A mutant is killed when the tests fail with it in
place; a run over --timeout counts as killed but is reported apart; the score is (killed + timed
out) / total. Survivors are either behaviour no test checks or equivalent mutants that no test
could tell apart from the original.

Which tests: the non-golden, non-site-building ones (EXCLUDED below, plus any test file found
to use the `built_site` fixture or to run `generator build`): the files that import
generator.sizing first, each group fastest first (timed in the unmutated run), so that `-x` stops
early. `--tests` replaces that selection (and its order).

How. The repository (git ls-files, untracked files included, ignored ones not) is copied once per
job into a temporary folder; the working tree is never written. For each mutant the mutated file
(`ast.unparse`) is written into a copy, `python -m pytest -x -q -p no:cacheprovider` runs there
with cwd and PYTHONPATH set to the copy (checked first: `generator.__file__` must be the copy's,
not the editable install's), and the file is restored. The unmutated tests run first and must
pass. Mutant order and ids (file:line:col:operator) are deterministic; Hypothesis runs with a
fixed seed and no example database.
"""

from __future__ import annotations

import argparse
import ast
import copy
import json
import os
import queue
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree import ElementTree

ROOT = Path(__file__).resolve().parent.parent
CORE = "generator/sizing/"

# Left out of the default selection (read from tests/; a file or one test, with the reason).
EXCLUDED = {
    "tests/test_pages_golden.py": "golden: compares rendered pages to stored files",
    "tests/test_browser.py": "browser: Playwright on a built site",
    "tests/test_site_build.py": "builds the whole site with MkDocs (built_site fixture, `generator build`)",
    "tests/test_site_integrity.py": "builds the whole site with MkDocs (built_site fixture)",
    "tests/test_escaping.py": "builds a whole site with MkDocs (`generator build` of a hostile catalog)",
    "tests/test_incremental.py": "builds whole sites with MkDocs (`generator build`, repeatedly)",
    "tests/test_add_model.py::test_a_new_model_from_real_tensors_appears_on_the_site":
        "builds a whole site (main(['build', ...])); the rest of the file is kept",
    "tests/test_mutation_score.py": "tests this script, not the sizing core",
}
# Kept although it names `build`: test_catalog.py's build case stops at the catalog check (exit 2).
# A test file not listed above that matches this is left out too (reported as "auto").
SITE_BUILD = re.compile(r"\bbuilt_site\b|\bshipped_site\b|\brun_build\(|\bbuild_site\(|\"-m\", \"generator\", \"build\"|main\(\[\"build\"")

SIZING_FIRST = re.compile(r"\bgenerator\.sizing\b")

KEY_LIKE = re.compile(r"[A-Za-z0-9_]+")
ARITH = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%"}
ARITH_SWAPS = {ast.Add: [ast.Sub], ast.Sub: [ast.Add], ast.Mult: [ast.Div], ast.Div: [ast.Mult, ast.FloorDiv],
               ast.FloorDiv: [ast.Div], ast.Mod: [ast.FloorDiv]}
ARITH_NAMES = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div", ast.FloorDiv: "floordiv"}
COMPARE_SWAPS = {ast.Lt: (ast.LtE, "<", "<="), ast.LtE: (ast.Lt, "<=", "<"), ast.Gt: (ast.GtE, ">", ">="),
                 ast.GtE: (ast.Gt, ">=", ">"), ast.Eq: (ast.NotEq, "==", "!="), ast.NotEq: (ast.Eq, "!=", "==")}
SWAPPED_CALLS = {"min": "max", "max": "min", "ceil": "floor", "floor": "ceil"}
LIST_GROWERS = {"append", "extend", "insert"}
SKIPPED_FIELDS = {"annotation", "returns", "decorator_list", "format_spec", "type_comment"}


@dataclass(frozen=True)
class Mutant:
    path: str  # relative to the repository, posix
    line: int
    col: int
    operator: str
    description: str
    original: str
    mutated: str
    source: str = field(repr=False, compare=False)  # the whole mutated file

    @property
    def id(self) -> str:
        return f"{self.path}:{self.line}:{self.col}:{self.operator}"

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.description} ({self.original} → {self.mutated})"


# --- Mutant generation -------------------------------------------------------------------------

def _is_docstring(parent: ast.AST, name: str, index: int | None, node: ast.AST) -> bool:
    return (isinstance(parent, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and name == "body" and index == 0 and isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str))


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _children(node: ast.AST):
    """(field, index, child) of the children that may be mutated (see the module docstring)."""
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return
    for name, value in ast.iter_fields(node):
        if name in SKIPPED_FIELDS:
            continue
        items = list(enumerate(value)) if isinstance(value, list) else [(None, value)]
        for index, child in items:
            if not isinstance(child, ast.AST) or _is_docstring(node, name, index, child):
                continue
            if isinstance(child, ast.If) and _is_type_checking(child.test):
                continue
            if isinstance(node, ast.JoinedStr) and not isinstance(child, ast.FormattedValue):
                continue  # f-string text
            yield name, index, child


def _walk(node: ast.AST, parent=None, name=None, index=None):
    yield node, parent, name, index
    for child_name, child_index, child in _children(node):
        yield from _walk(child, node, child_name, child_index)


def _show(node: ast.AST) -> str:
    text = ast.unparse(node).replace("\n", " ")
    return text if len(text) <= 70 else text[:69] + "…"


def _is_sequence_literal(node: ast.expr) -> bool:
    return isinstance(node, (ast.List, ast.Tuple, ast.JoinedStr)) or (
        isinstance(node, ast.Constant) and isinstance(node.value, str))


def _slot(name: str, index: int | None):
    """An edit that puts `make(old child)` in place of the child `name[index]` of the anchor."""
    def replace(make):
        def edit(anchor, tree):
            old = getattr(anchor, name) if index is None else getattr(anchor, name)[index]
            new = make(old)
            if index is None:
                setattr(anchor, name, new)
            else:
                getattr(anchor, name)[index] = new
        return edit
    return replace


def _import_math_name(tree: ast.Module, name: str) -> None:
    """`from math import <name>` after the docstring and __future__ imports of a mutated module."""
    at = 0
    while at < len(tree.body) and (_is_docstring(tree, "body", at, tree.body[at]) or (
            isinstance(tree.body[at], ast.ImportFrom) and tree.body[at].module == "__future__")):
        at += 1
    tree.body.insert(at, ast.ImportFrom(module="math", names=[ast.alias(name=name)], level=0))


def _sites(node: ast.AST, parent: ast.AST | None, name: str | None, index: int | None):
    """(anchor, location, operator, description, original, mutated, edit) for one node.

    `edit(anchor, tree)` applies the mutation to the anchor's twin in a copy of the tree."""
    def setter(attr, value):
        return lambda anchor, tree: setattr(anchor, attr, value)

    if isinstance(node, (ast.BinOp, ast.AugAssign)) and type(node.op) in ARITH_SWAPS:
        left, right = (node.target, node.value) if isinstance(node, ast.AugAssign) else (node.left, node.right)
        if not (_is_sequence_literal(left) or _is_sequence_literal(right)):
            for new in ARITH_SWAPS[type(node.op)]:
                twin = copy.copy(node)
                twin.op = new()
                yield (node, right, f"arith-{ARITH_NAMES[new]}", f"arithmetic {ARITH[type(node.op)]} → {ARITH[new]}",
                       _show(node), _show(twin), lambda anchor, tree, new=new: setattr(anchor, "op", new()))
    if isinstance(node, ast.Compare):
        for i, op in enumerate(node.ops):
            if type(op) in COMPARE_SWAPS:
                new, before, after = COMPARE_SWAPS[type(op)]
                twin = copy.copy(node)
                twin.ops = [*node.ops[:i], new(), *node.ops[i + 1:]]
                yield (node, node.comparators[i], f"cmp-{new.__name__.lower()}", f"comparison {before} → {after}",
                       _show(node), _show(twin), setter("ops", twin.ops))
    if isinstance(node, ast.Constant) and type(node.value) is bool:
        yield node, node, "bool-flip", "boolean constant", repr(node.value), repr(not node.value), setter("value", not node.value)
    if isinstance(node, ast.Constant) and type(node.value) is int:
        kind = "Fraction constant" if isinstance(parent, ast.Call) and _show(parent.func) == "Fraction" else "integer constant"
        changes = [("int-plus1", node.value + 1)] + ([("int-zero", 0)] if node.value == 1 else [])
        for operator, value in changes:
            yield node, node, operator, kind, repr(node.value), repr(value), setter("value", value)
    if isinstance(node, ast.Constant) and type(node.value) is str and KEY_LIKE.fullmatch(node.value):
        value = "" if node.value == "X" else "X"
        yield node, node, "string-x", "string constant", repr(node.value), repr(value), setter("value", value)
    if isinstance(node, ast.Call):
        func = node.func
        called = func.id if isinstance(func, ast.Name) else None  # min(...), ceil(...) from math import ceil
        if isinstance(func, ast.Attribute) and func.attr in ("ceil", "floor") and _show(func.value) == "math":
            called = func.attr  # math.ceil(...)
        if called in SWAPPED_CALLS:
            other = SWAPPED_CALLS[called]
            twin_call = copy.copy(node)
            twin_call.func = ast.Name(other) if isinstance(func, ast.Name) else ast.Attribute(func.value, other)

            def edit(anchor, tree, other=other):
                if isinstance(anchor.func, ast.Name):
                    anchor.func = ast.Name(other)
                    if other in ("ceil", "floor"):
                        _import_math_name(tree, other)
                else:
                    anchor.func.attr = other
            yield node, func, f"swap-{called}-{other}", f"{called} → {other}", _show(node), _show(twin_call), edit
    if isinstance(node, ast.BoolOp):
        new = ast.Or if isinstance(node.op, ast.And) else ast.And
        twin = copy.copy(node)
        twin.op = new()
        yield (node, node.values[1], "swap-and-or", "and ↔ or", _show(node), _show(twin),
               lambda anchor, tree, new=new: setattr(anchor, "op", new()))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not) and parent is not None:
        yield (parent, node, "drop-not", "not x → x", _show(node), _show(node.operand),
               _slot(name, index)(lambda old: old.operand))
    if isinstance(node, (ast.Tuple, ast.List)) and isinstance(node.ctx, ast.Load) and node.elts and all(
            isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
        for i, element in enumerate(node.elts):
            yield (node, element, "drop-element", "string dropped from a literal", repr(element.value), "(removed)",
                   lambda anchor, tree, i=i: anchor.elts.pop(i))
    conditions = []
    if isinstance(node, (ast.If, ast.IfExp)):
        conditions.append(("test", None, node.test))
    if isinstance(node, ast.comprehension):
        conditions += [("ifs", i, test) for i, test in enumerate(node.ifs)]
    for attr, i, test in conditions:
        for value in (True, False):
            yield (node, test, f"if-{str(value).lower()}", f"condition forced to {value}", _show(test), repr(value),
                   _slot(attr, i)(lambda old, value=value: ast.Constant(value)))
    grows_list = (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
                  and isinstance(node.value.func, ast.Attribute) and node.value.func.attr in LIST_GROWERS)
    if (isinstance(node, ast.AugAssign) or grows_list) and isinstance(index, int):
        yield (parent, node, "drop-statement", "statement deleted", _show(node), "pass",
               _slot(name, index)(lambda old: ast.Pass()))


def mutants_of(source: str, path: str = "<snippet>") -> list[Mutant]:
    """Every mutant of one module's source, sorted by (line, col, operator)."""
    tree = ast.parse(source)
    order = {id(node): i for i, node in enumerate(ast.walk(tree))}
    plain = ast.unparse(tree)
    found: dict[str, Mutant] = {}
    for node, parent, name, index in _walk(tree):
        for anchor, where, operator, description, original, mutated, edit in _sites(node, parent, name, index):
            twin = copy.deepcopy(tree)
            edit(list(ast.walk(twin))[order[id(anchor)]], twin)
            mutant = Mutant(path, where.lineno, where.col_offset, operator, description, original, mutated,
                            ast.unparse(twin) + "\n")
            if mutant.source.rstrip("\n") == plain:
                continue
            assert mutant.id not in found, f"two mutants share the id {mutant.id}"  # one operator per spot
            found[mutant.id] = mutant
    return sorted(found.values(), key=lambda m: (m.line, m.col, m.operator))


# --- Files and tests ---------------------------------------------------------------------------

def repository_files(root: Path) -> list[str]:
    """Tracked and untracked-but-not-ignored files of the working tree (what a copy needs)."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=root, capture_output=True, text=True, check=True).stdout
    return sorted({p for p in listed.split("\0") if p and (root / p).is_file()})


def core_files(files: list[str]) -> list[str]:
    return [p for p in files if p.startswith(CORE) and p.endswith(".py")]


def default_tests(root: Path) -> tuple[list[str], list[str], dict[str, str]]:
    """(test files, deselected test ids, left out -> reason); files importing generator.sizing first."""
    left_out = {}
    files = []
    for test in sorted((root / "tests").glob("test_*.py")):
        rel = test.relative_to(root).as_posix()
        listed = [k for k in EXCLUDED if k == rel or k.startswith(rel + "::")]
        if rel in EXCLUDED:
            left_out[rel] = EXCLUDED[rel]
        elif not listed and SITE_BUILD.search(test.read_text()):
            left_out[rel] = "auto: builds a site (built_site, shipped_site, run_build or `generator build`)"
        else:
            files.append(rel)
            left_out.update({k: EXCLUDED[k] for k in listed})
    sizing_first = sorted(files, key=lambda rel: not SIZING_FIRST.search((root / rel).read_text()))
    deselected = [k for k in left_out if "::" in k and k.split("::")[0] in files]
    return sizing_first, deselected, left_out


# --- Running -----------------------------------------------------------------------------------

class Copies:
    """One copy of the repository per job, lent to one mutant at a time."""

    def __init__(self, base: Path, files: list[str], jobs: int):
        self.free: queue.Queue[Path] = queue.Queue()
        for n in range(jobs):
            target = base / f"copy{n}"
            for rel in files:
                (target / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(ROOT / rel, target / rel)
            self.free.put(target)

    def all(self) -> list[Path]:
        return list(self.free.queue)


RUNNING: set[subprocess.Popen] = set()  # pytest runs under way, stopped on Ctrl-C or SIGTERM
STOP = threading.Event()


def _env(copy_dir: Path) -> dict[str, str]:
    path = os.pathsep.join(filter(None, [str(copy_dir), os.environ.get("PYTHONPATH")]))
    # No .pyc: two mutants of a file written within one second with the same size would share one.
    return {**os.environ, "PYTHONPATH": path, "PYTHONDONTWRITEBYTECODE": "1"}


def check_imports_copy(copy_dir: Path) -> None:
    done = subprocess.run([sys.executable, "-c", "import generator; print(generator.__file__)"],
                          cwd=copy_dir, env=_env(copy_dir), capture_output=True, text=True)
    where = Path(done.stdout.strip() or "?").resolve()
    if done.returncode or not where.is_relative_to(copy_dir.resolve()):
        sys.exit(f"mutation_score: the copy's tests would import generator from {where}, not from {copy_dir}; "
                 f"stop. {done.stderr.strip()}")


def fastest_first(tests: list[str], junit_xml: Path) -> list[str]:
    """The test files, sizing ones still first, each group by its time in the unmutated run: with -x,
    a killed mutant then costs only the tests up to the first one that fails."""
    seconds = dict.fromkeys(tests, 0.0)
    for case in ElementTree.parse(junit_xml).iter("testcase"):
        for rel in tests:
            module = rel.removesuffix(".py").replace("/", ".")
            if case.get("classname") == module or case.get("classname", "").startswith(module + "."):
                seconds[rel] += float(case.get("time", 0))
    return sorted(tests, key=lambda rel: (not SIZING_FIRST.search((ROOT / rel).read_text()), seconds[rel]))


def run_tests(copy_dir: Path, tests: list[str], deselected: list[str], timeout: float,
              extra: tuple[str, ...] = ()) -> tuple[str, float, str]:
    """("passed" | "failed" | "timeout", seconds, output) of one pytest run in a copy."""
    # -n 0: one process per mutant run (the jobs run side by side), not pytest-xdist's workers
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-n", "0", "-p", "no:cacheprovider",
               f"--basetemp={copy_dir.parent / (copy_dir.name + '-pytest')}", *extra]
    try:
        import hypothesis  # noqa: F401  (its pytest plugin is loaded whenever it is installed)
        command.append("--hypothesis-seed=0")
    except ImportError:
        pass
    command += [f"--deselect={d}" for d in deselected] + tests
    if STOP.is_set():
        return "stopped", 0.0, ""
    start = time.monotonic()
    process = subprocess.Popen(command, cwd=copy_dir, env=_env(copy_dir), stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, start_new_session=True)
    RUNNING.add(process)
    try:
        output, _ = process.communicate(timeout=timeout)
        status = "passed" if process.returncode == 0 else "failed"
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)  # pytest and whatever it started
        output, _ = process.communicate()
        status = "timeout"
    finally:
        RUNNING.discard(process)
        shutil.rmtree(copy_dir / ".hypothesis", ignore_errors=True)  # no example replayed across mutants
    return status, time.monotonic() - start, output


def run_mutants(mutants: list[Mutant], copies: Copies, jobs: int, tests, deselected, timeout) -> dict[str, tuple[str, float]]:
    results: dict[str, tuple[str, float]] = {}
    lock = threading.Lock()
    total = len(mutants)

    def one(mutant: Mutant) -> None:
        copy_dir = copies.free.get()
        target = copy_dir / mutant.path
        original = target.read_text()
        try:
            target.write_text(mutant.source)
            status, seconds, _ = run_tests(copy_dir, tests, deselected, timeout)
        finally:
            target.write_text(original)
            copies.free.put(copy_dir)
        status = {"passed": "survived", "failed": "killed"}.get(status, status)
        with lock:
            results[mutant.id] = (status, seconds)
            print(f"[{len(results)}/{total}] {status:8} {mutant.id} {mutant.original} → {mutant.mutated} ({seconds:.1f} s)",
                  file=sys.stderr, flush=True)

    pool = ThreadPoolExecutor(max_workers=jobs)
    try:
        for future in [pool.submit(one, m) for m in mutants]:
            future.result()
    except BaseException:  # Ctrl-C, SIGTERM, or a bug: stop the runs under way, start no other
        STOP.set()
        pool.shutdown(wait=False, cancel_futures=True)
        for process in list(RUNNING):
            os.killpg(process.pid, signal.SIGKILL)
        raise
    finally:
        pool.shutdown()
    return results


# --- Report ------------------------------------------------------------------------------------

def summary(mutants: list[Mutant], results, seconds: float, baseline: float, tests, left_out, note: str) -> dict:
    def counts(group: list[Mutant]) -> dict:
        statuses = [results[m.id][0] for m in group]
        killed, timeout = statuses.count("killed"), statuses.count("timeout")
        return {"mutants": len(group), "killed": killed, "timed_out": timeout, "survived": statuses.count("survived"),
                "score": round(100 * (killed + timeout) / len(group), 1) if group else None}

    files = sorted({m.path for m in mutants})
    return {
        **counts(mutants),
        "selection": note,
        "seconds": round(seconds, 1),
        "baseline_seconds": round(baseline, 1),
        "tests": tests,
        "left_out": left_out,
        "files": {path: counts([m for m in mutants if m.path == path]) for path in files},
        "survivors": [{"id": m.id, "text": str(m)} for m in mutants if results[m.id][0] == "survived"],
        "results": {m.id: {"status": results[m.id][0], "seconds": round(results[m.id][1], 1)} for m in mutants},
    }


def print_summary(report: dict) -> None:
    minutes, secs = divmod(round(report["seconds"]), 60)
    print(f"Mutation score of {CORE} ({report['selection']})")
    print(f"tests: {' '.join(report['tests'])}")
    print(f"mutants: {report['mutants']}  killed: {report['killed']}  timed out: {report['timed_out']}  "
          f"survived: {report['survived']}  score: {report['score']} %")
    print(f"time: {minutes} min {secs} s (unmutated tests: {report['baseline_seconds']} s)\n")
    width = max([len("file"), *map(len, report["files"])])
    print(f"{'file':{width}}  mutants  killed  timeout  survived   score")
    for path, c in report["files"].items():
        print(f"{path:{width}}  {c['mutants']:7}  {c['killed']:6}  {c['timed_out']:7}  {c['survived']:8}  {c['score']:5.1f} %")
    print(f"\nsurviving mutants ({len(report['survivors'])}):")
    for survivor in report["survivors"]:
        print(f"  {survivor['text']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=int, default=2, help="mutants tested at once, one repository copy each (default 2)")
    parser.add_argument("--timeout", type=float, default=120, help="seconds per pytest run; a timeout counts as killed (default 120)")
    parser.add_argument("--tests", nargs="+", metavar="PATH", help="pytest paths or node ids instead of the default selection")
    parser.add_argument("--files", nargs="+", metavar="FILE", help=f"only these files of {CORE} (path or file name)")
    parser.add_argument("--limit", type=int, metavar="N", help="only the first N mutants")
    parser.add_argument("--sample", type=int, metavar="N", help="N mutants drawn at random (see --seed)")
    parser.add_argument("--seed", type=int, default=0, help="seed of --sample (default 0)")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write the summary as JSON to FILE")
    parser.add_argument("--list", action="store_true", help="list the mutants and stop, without running tests")
    args = parser.parse_args(argv)

    files = repository_files(ROOT)
    core = core_files(files)
    if args.files:
        wanted = set(args.files)
        core = [p for p in core if p in wanted or Path(p).name in wanted]
        if not core:
            parser.error(f"--files: none of {' '.join(args.files)} is a .py file of {CORE}")
    mutants = [m for path in core for m in mutants_of((ROOT / path).read_text(), path)]
    note = f"{len(core)} files, all {len(mutants)} mutants"
    if args.sample is not None:
        picked = set(map(id, random.Random(args.seed).sample(mutants, min(args.sample, len(mutants)))))
        mutants = [m for m in mutants if id(m) in picked]
        note = f"{len(core)} files, sample of {len(mutants)} mutants, seed {args.seed}"
    if args.limit is not None:
        mutants = mutants[:args.limit]
        note = f"{len(core)} files, first {len(mutants)} mutants"
    if args.list:
        for m in mutants:
            print(f"{m.id}  {m.description}: {m.original} → {m.mutated}")
        print(f"{len(mutants)} mutants", file=sys.stderr)
        return 0

    if args.tests:
        tests, deselected, left_out = args.tests, [], {}
    else:
        tests, deselected, left_out = default_tests(ROOT)
        for what, why in left_out.items():
            print(f"left out: {what}: {why}", file=sys.stderr)
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # clean up the copies on kill too
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="mutation-score-", ignore_cleanup_errors=True) as base:
        copies = Copies(Path(base), files, max(1, args.jobs))
        for copy_dir in copies.all():
            check_imports_copy(copy_dir)
        junit = Path(base) / "unmutated.xml"
        status, baseline, output = run_tests(copies.all()[0], tests, deselected, args.timeout, (f"--junit-xml={junit}",))
        if status != "passed":
            print(output[-4000:], file=sys.stderr)
            sys.exit(f"mutation_score: the tests do not pass on the unmutated code ({status}); fix them first.")
        if not args.tests:
            tests = fastest_first(tests, junit)
            print(f"test order: {' '.join(tests)}", file=sys.stderr)
        print(f"unmutated tests pass in {baseline:.1f} s; {len(mutants)} mutants, {args.jobs} jobs", file=sys.stderr)
        results = run_mutants(mutants, copies, max(1, args.jobs), tests, deselected, args.timeout)
    report = summary(mutants, results, time.monotonic() - start, baseline, tests, left_out, note)
    print_summary(report)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit("mutation_score: interrupted; the working tree was not touched.")
