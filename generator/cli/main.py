"""Command line: `python -m generator build|check|size|add-model` (see --help)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from generator.catalog.add_model import add_model
from generator.catalog.loader import CatalogError, load_catalog
from generator.catalog.checkpoint import CheckpointError
from generator.site.render import BABEL_LOCALES
from generator.sizing.setups import RUNTIME_OVERHEAD
from generator.sizing.size_report import PRECISIONS, size_report
from generator.cli.size_output import report_json, report_text
from generator.catalog.fields import BATCH, CONTEXT
from generator.catalog.schema import NOT_TEXT
from generator.site.build import build_site
from generator.site.errors import BuildError
from generator.site.progress import Progress

DESCRIPTION = """\
VRAM Guide: a static site of the GPU memory open-weight LLMs need, in Portuguese and English.

  build   validate content/ and write the site (default: site/); the previous site is replaced
          only when the whole build succeeded
  check   validate content/ only; one line per problem, exit code 2 if there is any
  size    the sizing engine for one model: weights by component, KV cache, setup, speed
  add-model
          write content/models/<slug>.yaml from a Hugging Face checkpoint folder's small files
"""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m generator", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    content = argparse.ArgumentParser(add_help=False)
    content.add_argument("--content", type=Path, default=Path("content"), help="catalog folder (default: content)")
    build = commands.add_parser("build", parents=[content], help="validate the catalog and build the site")
    build.add_argument("--out", type=Path, default=Path("site"), help="output folder (default: site)")
    build.add_argument(
        "--base-url",
        help="absolute https:// URL the site is served from (http:// for a preview on localhost), "
        "overriding site.yaml's base_url",
    )
    commands.add_parser("check", parents=[content], help="validate the catalog only")
    size = commands.add_parser(
        "size",
        parents=[content],
        help="size one model from its architecture",
        description="Size one model: weights by component at a precision, KV cache at a context and "
        "batch, the headline rule, fine-tuning, the cheapest setup that holds weights + KV cache "
        f"after {float(RUNTIME_OVERHEAD) * 100:g}% runtime overhead, and an upper bound on decode speed. Bytes are exact; "
        "GB = 10^9 bytes.",
    )
    size.add_argument("model", metavar="MODEL", help="catalog id (moonshotai/Kimi-K3) or slug (kimi-k3)")
    size.add_argument("--precision", choices=list(PRECISIONS), default="native",
                      help="weights at 16 bits, 8 bits (FP8), 4 bits, or as published (default: native)")
    size.add_argument("--context", type=_whole_number(CONTEXT), metavar="TOKENS",
                      help="tokens of context per sequence (default: the model's context window)")
    size.add_argument("--batch", type=_whole_number(BATCH), default=1, metavar="N", help="concurrent sequences (default: 1)")
    size.add_argument("--json", action="store_true", help="print one JSON object with byte counts")
    add = commands.add_parser(
        "add-model",
        parents=[content],
        help="add a model from a checkpoint folder",
        description="Read a Hugging Face checkpoint folder's config.json, model.safetensors.index.json, "
        "the JSON headers of its .safetensors files (never the tensors) and "
        "README.md front matter, and write content/models/<slug>.yaml. Facts it cannot read are "
        "written as TODO; `check` lists them until they are filled in.",
    )
    add.add_argument("path", metavar="PATH", type=Path, help="the checkpoint folder")
    add.add_argument("--id", dest="repo_id", metavar="ORG/NAME", help="the Hugging Face repo id (default: _name_or_path)")
    add.add_argument("--force", action="store_true", help="overwrite an existing model file")
    return parser


def _whole_number(check):
    """An argparse type from a catalog checker: the same bounds as the catalog, one line when out."""

    def convert(text: str) -> int:
        try:
            value = int(text) if len(text) <= 30 else None
        except ValueError:
            value = None
        try:
            return check(text if value is None else value)
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from None

    return convert


def _one_line(message: str) -> str:
    """A problem line as printed: a control character from a file name or a key is shown escaped."""
    return NOT_TEXT.sub(lambda found: ascii(found.group())[1:-1], message)


def _load(content: Path):
    try:
        return load_catalog(content)
    except CatalogError as error:
        for problem in error.problems:
            print(_one_line(problem), file=sys.stderr)
        count = len(error.problems)
        print(f"{count} problem{'s' if count != 1 else ''} in {content}.", file=sys.stderr)
        return None


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return _run(args)
    except KeyboardInterrupt:  # Ctrl-C: the build stops; publishing never leaves half a site (publish.py)
        if args.command != "build":
            raise
        print(f"interrupted: {args.out}/ was left as it was", file=sys.stderr)
        return 130


def _run(args) -> int:
    if args.command == "add-model":
        return _add_model(args)
    catalog = _load(args.content)
    if catalog is None:
        return 2
    missing = [lang for lang in catalog.site.languages if lang not in BABEL_LOCALES]
    if missing:
        print(f"{args.content / 'site.yaml'}: languages: no translations for {', '.join(missing)} "
              f"(available: {', '.join(BABEL_LOCALES)})", file=sys.stderr)
        return 2
    if args.command == "check":
        print(f"{args.content}: {len(catalog.models)} models, {len(catalog.gpus)} GPUs, no problems.")
        return 0
    if args.command == "size":
        return _size(catalog, args)
    if args.base_url:
        from dataclasses import replace

        from generator.catalog.schema import preview_base_url

        try:  # site.yaml's rule for base_url; the trailing '/' may be left out here
            base_url = preview_base_url(args.base_url if args.base_url.endswith("/") else args.base_url + "/")
        except ValueError as error:
            print(f"--base-url: {error}", file=sys.stderr)
            return 2
        catalog = replace(catalog, site=replace(catalog.site, base_url=base_url))
    started = time.monotonic()
    progress = Progress()
    try:
        pages = build_site(catalog, args.out, progress)
        languages = len(catalog.site.languages)
        print(f"Built {pages} pages ({languages} language{'s' if languages != 1 else ''}) into {args.out}/ in "
              f"{time.monotonic() - started:.1f} s (open {args.out}/index.html, or run: python -m http.server -d {args.out})")
        return 0
    except KeyboardInterrupt:
        if not progress.published:
            raise  # main(): the previous site was left as it was
        print(f"interrupted: {args.out}/ already holds the new site (Ctrl-C came once it was in place)", file=sys.stderr)
        return 130
    except BuildError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except Exception as error:  # a bug, or a value `check` let through: one line, not a traceback
        detail = " ".join(str(error).split())
        print(f"error: unexpected {type(error).__name__}: {detail} (a bug: please report it with the command you ran)",
              file=sys.stderr)
        return 1


def _add_model(args) -> int:
    try:
        path, todos = add_model(args.path, args.content, args.repo_id, args.force)
    except CheckpointError as error:
        print(f"add-model: {_one_line(str(error))}", file=sys.stderr)
        return 2
    print(f"wrote {path}")
    if todos:
        print(f"{len(todos)} to-do{'s' if len(todos) != 1 else ''}: {', '.join(todos)}")
        print(f"fill them in (a value and its source), then run: python -m generator check --content {args.content}")
    return 0


def _size(catalog, args) -> int:
    wanted = args.model.lower()
    model = next((m for m in catalog.models if wanted in (m.id.lower(), m.slug)), None)
    if model is None:
        print(f"size: no model {args.model!r} in {args.content} (slugs: "
              f"{', '.join(sorted(m.slug for m in catalog.models))})", file=sys.stderr)
        return 2
    if model.architecture is None:
        print(f"size: {model.slug} has no architecture in {args.content}; add one to size it", file=sys.stderr)
        return 2
    report = size_report(model, catalog.gpus, args.precision, args.context, args.batch)
    print(json.dumps(report_json(report), indent=2) if args.json else report_text(report))
    return 0

