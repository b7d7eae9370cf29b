"""Command line: `python -m generator build|check|size|add-model` (see --help)."""

from __future__ import annotations

import argparse
import contextlib
import errno
import datetime
import json
import re
import tempfile
import sys
import time
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from pathlib import Path

from generator.catalog.add_model import add_model
from generator.catalog.loader import CatalogError, load_catalog, load_gpus, stale_price_lines, stale_stock_lines
from generator.catalog.parsed_files import ParsedFiles
from generator.catalog.checkpoint import CheckpointError
from generator.languages import LANGUAGES
from generator.sizing.setups import RUNTIME_OVERHEAD
from generator.sizing.size_report import PRECISIONS, size_report
from generator.cli.size_output import report_text
from generator.cli.plan_output import answer_text, llama_cpp_text
from generator.sizing.engine import (
    GLOBAL_ATTENTION_LAYERS, KV_DTYPES, MODEL_CLASS, RECURRENT_LAYERS, SPECULATIVE_METHODS, NotRun,
)
from generator.sizing.engine_vllm import VLLM_UTILIZATION
from generator.sizing.catalog_rules import model_problems
from generator.sizing.checkpoints import served_weights
from generator.sizing.engines import ENGINES, SERVING_ENGINES
from generator.sizing.planner import PlanRequest, answer
from generator.sizing.throughput import WORKLOAD_TOKENS, Workload, workload_at
from generator.sizing.cheapest import OPTIONS_SHOWN, Question, cheapest_options, market_gpus
from generator.sizing.kv_cache import default_context
from generator.sizing.stock import stock_gpus
from generator.cli.cheapest_output import cheapest_text
from generator.site.figures import answer_json, cheapest_json, llama_cpp_json, report_json
from generator.catalog.fields import BATCH, CONTEXT, GPU_COUNT, LAYERS
from generator.sizing.gguf import PRESETS, gguf_sizable
from generator.sizing.llama_cpp import CACHE_TYPES, LLAMA_CPP, LlamaCppRequest, llama_cpp_plan
from generator.catalog.schema import NOT_TEXT, whole_number
from generator.site.build import build_site, parsed_catalog_folder
from generator.site.errors import BuildError
from generator.site.search_index import PART_PAGES
from generator.site.progress import Progress
from generator.catalog.file_writes import LOCK_NAME, catalog_lock, replace_file
from generator.catalog.feed_rows import FeedError, report
from generator.catalog.price_feed import read_price_feed, rewrite_prices
from generator.cli.inventory_command import DESCRIPTION as INVENTORY_DESCRIPTION, import_inventory
from generator.catalog.price_offers import FEED_URL
from generator.catalog.price_age import STALE_AFTER_DAYS

DESCRIPTION = """\
VRAM Guide: a static site of the GPU memory open-weight LLMs need, in Portuguese and English.

  build   validate content/ and write the site (default: site/); the previous site is replaced
          only when the whole build succeeded
  check   validate content/ only; one line per problem, exit code 2 if there is any
  size    the sizing engine for one model: weights by component, KV cache, setup, speed
  plan    what vLLM or SGLang does with one model on N GPUs: memory per GPU, KV tokens, whether
          it starts, the longest context, users at once, the launch command, its speed at a workload
  cheapest
          the cheapest GPUs, engine and checkpoint that serve a workload (users, context, speed),
          in the operator's stock and on the market
  add-model
          write content/models/<slug>.yaml from a Hugging Face checkpoint folder's small files
  prices import
          new GPU prices from a CSV or JSON feed, written into gpus.yaml in place
  inventory import
          the operator's own stock (machine shapes, prices) from its feed, into inventory.yaml
"""


def _parser(prog: str = "python -m generator") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog, description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    content = argparse.ArgumentParser(add_help=False)
    content.add_argument("--content", type=Path, default=Path("content"), help="catalog folder (default: content)")
    jobs = argparse.ArgumentParser(add_help=False)
    jobs.add_argument("--jobs", type=_whole_number(whole_number(1, 256)), metavar="N",
                      help="processes that build pages and languages at once (default: the cores this machine gives it)")
    build = commands.add_parser("build", parents=[content, jobs], help="validate the catalog and build the site")
    build.add_argument("--out", type=Path, default=Path("site"), help="output folder (default: site)")
    build.add_argument(
        "--base-url",
        help="absolute https:// URL the site is served from (http:// for a preview on localhost), "
        "overriding site.yaml's base_url",
    )
    build.add_argument("--search-part-pages", type=_whole_number(whole_number(1, 1_000_000)), default=PART_PAGES, metavar="N",
                       help=f"pages of one language the search index takes at once; a larger site is indexed in parts the "
                       f"search page merges (default: {PART_PAGES:,}; a one-model rebuild indexes again one part, and each "
                       f"part costs a first search a few KB)")
    serve = commands.add_parser(
        "serve", parents=[content, jobs], help="build, serve on localhost and remake the pages an edit changes",
        description="A live preview: build the site for http://127.0.0.1:PORT/, serve it there, and on every "
        "change to the catalog remake what it changes (a model's own pages first, in about a second, then the "
        "pages that list every model that show what changed); the browser reloads by itself. Not for publishing: build does that.")
    serve.add_argument("--out", type=Path, default=Path("site-preview"), help="output folder (default: site-preview)")
    serve.add_argument("--port", type=_whole_number(whole_number(1024, 65535)), default=8000,
                       help="port on 127.0.0.1 (default: 8000)")
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
    plan = commands.add_parser(
        "plan",
        parents=[content],
        help="plan one model on N GPUs for vLLM or SGLang",
        description="What the engine does at start-up with MODEL on COUNT GPUs of one type, per GPU: "
        "the weights as loaded (tensor-parallel shards), the memory kept for activations, CUDA graphs "
        "and the CUDA context, the memory left for the KV cache and how many tokens it holds; whether "
        "it starts at the context, the longest context that starts, the users it serves at once, an "
        "upper bound on decode speed, how fast it serves a workload (--users, --input-tokens, --output-tokens: "
        "tokens/s in all and per user, time to the first token and per token; README \"Throughput at a "
        "workload\") and the price. When the flags asked for do not start, the command "
        "printed carries flags that do (a higher memory fraction, an FP8 KV cache, a shorter context). "
        "Bytes are exact; GiB = 2^30 bytes.",
    )
    plan.add_argument("model", metavar="MODEL", help="catalog id (openai/gpt-oss-120b) or slug (gpt-oss-120b)")
    plan.add_argument("--gpu", required=True, metavar="GPU", help="catalog GPU slug (h100-sxm)")
    plan.add_argument("--count", type=_whole_number(GPU_COUNT), default=1, metavar="N", help="GPUs (default: 1)")
    plan.add_argument("--engine", choices=list(ENGINES), default="vllm", help="serving engine (default: vllm)")
    plan.add_argument("--context", type=_whole_number(CONTEXT), metavar="TOKENS",
                      help="--max-model-len (vLLM) or --context-length (SGLang) (default: the model's context window)")
    plan.add_argument("--users", type=_whole_number(BATCH), default=1, metavar="N",
                      help="concurrent users at that context (default: 1)")
    plan.add_argument("--input-tokens", type=_whole_number(CONTEXT), metavar="TOKENS",
                      help=f"the workload's prompt, each user (default: {WORKLOAD_TOKENS:,}, or less to fit the context): the "
                      "throughput figures (tokens/s in all and per user, time to the first token, time per output token)")
    plan.add_argument("--output-tokens", type=_whole_number(CONTEXT), metavar="TOKENS",
                      help=f"the workload's answer, each user (default: {WORKLOAD_TOKENS:,}, or half the context if shorter); "
                      "prompt and answer together at most the context")
    plan.add_argument("--gpu-memory-utilization", "--mem-fraction-static", dest="memory_fraction",
                      type=_memory_fraction, metavar="U",
                      help="share of each GPU's memory the engine may use, above 0 and at most 1 "
                      f"(default: vLLM {float(VLLM_UTILIZATION):g}; SGLang's own rule by GPU size)")
    plan.add_argument("--kv-dtype", choices=list(KV_DTYPES), default="auto", help="KV cache type (default: auto, 16-bit unless the checkpoint asks for FP8, as vLLM reads it)")
    plan.add_argument("--precision", choices=list(PRECISIONS), default="native",
                      help="weights at 16 bits, 8 bits or 4 bits, or as published (default: native): the published "
                      "checkpoint when it is of that precision, else the first quantized checkpoint the catalog lists "
                      "for the model, else at 8 bits vLLM's on-the-fly FP8 (--quantization fp8)")
    plan.add_argument("--checkpoint", metavar="REPO",
                      help="serve this one of the model's checkpoints (a repo id its catalog file lists) instead")
    plan.add_argument("--speculative", choices=list(SPECULATIVE_METHODS),
                      help="mtp: draft tokens with the multi-token-prediction layers the checkpoint ships (DeepSeek, "
                      "GLM, Qwen3-Next): they are loaded and cached too, and the command gains the engine's own flags")
    gguf = plan.add_argument_group("llama.cpp (--engine llama.cpp: a GGUF file, layers on the GPUs, the rest in RAM)")
    gguf.add_argument("--quant", choices=list(PRESETS), default="Q4_K_M", help="llama-quantize preset of the file (default: Q4_K_M)")
    gguf.add_argument("--n-gpu-layers", type=_whole_number(LAYERS), metavar="N",
                      help="layers on the GPUs, the output layer first (default: the most that fit)")
    gguf.add_argument("--n-cpu-moe", type=_whole_number(LAYERS), metavar="N",
                      help="keep the routed experts of the first N layers in RAM (default: with MoE, the fewest that fit)")
    gguf.add_argument("--cache-type", choices=list(CACHE_TYPES), default="f16", help="KV cache type, K and V (default: f16)")
    gguf.add_argument("--imatrix", action="store_true",
                      help="the file was quantized with an importance matrix (llama-quantize --imatrix, as bartowski's "
                      "files are): IQ4_XS then keeps its first ffn_down layers at IQ4_XS instead of Q5_K")
    plan.add_argument("--json", action="store_true", help="print one JSON object")
    cheapest = commands.add_parser(
        "cheapest",
        parents=[content],
        help="the cheapest setup that serves a workload",
        description="The cheapest GPU type × count × engine × checkpoint that starts at the context, holds "
        "every user at once and gives each at least --min-tokens-per-second: vLLM and SGLang with every "
        "checkpoint a plan serves (most bits first), llama.cpp with Q8_0 and Q4_K_M files (and MXFP4_MOE "
        "where the experts are published in MXFP4) with every layer on the GPUs; one machine first, joined "
        "machines only where no single machine of any type answers. Speeds are those of `plan` (see its "
        f"--input-tokens). It lists the cheapest setup of up to {OPTIONS_SHOWN} GPU types, cheapest first, in the "
        "operator's stock (inventory.yaml, at its prices), then on the market (gpus.yaml; GPUs without a "
        "market price are left out), with the cheapest's command.",
    )
    cheapest.add_argument("model", metavar="MODEL", help="catalog id (openai/gpt-oss-120b) or slug (gpt-oss-120b)")
    cheapest.add_argument("--users", type=_whole_number(BATCH), default=1, metavar="N",
                          help="users served at once, each with the whole context (default: 1)")
    cheapest.add_argument("--context", type=_whole_number(CONTEXT), metavar="TOKENS",
                          help="each user's context (default: the model's context window)")
    cheapest.add_argument("--input-tokens", type=_whole_number(CONTEXT), metavar="TOKENS",
                          help=f"each user's prompt (default: {WORKLOAD_TOKENS:,}, or less to fit the context)")
    cheapest.add_argument("--output-tokens", type=_whole_number(CONTEXT), metavar="TOKENS",
                          help=f"each user's answer (default: {WORKLOAD_TOKENS:,}, or half the context if shorter)")
    cheapest.add_argument("--min-tokens-per-second", type=_positive_number, metavar="T",
                          help="the least output tokens per second each user must get (default: any)")
    cheapest.add_argument("--json", action="store_true", help="print one JSON object")
    prices = commands.add_parser("prices", help="update GPU prices from a feed")
    price_commands = prices.add_subparsers(dest="prices_command", required=True, metavar="ACTION")
    feed = price_commands.add_parser(
        "import",
        parents=[content],
        help="read a price feed (CSV, JSON, or a daily offer snapshot) and write the prices into gpus.yaml",
        description="Read a price feed, a CSV with the header gpu,price_per_gpu_hour,provider,date,source "
        "or a JSON list of objects with those keys (a .json file), and check every row: a GPU slug of "
        "gpus.yaml, a positive price (USD per GPU-hour), an ISO date not after today, a provider and a "
        "source. Only if every row is valid, rewrite those GPUs' prices in gpus.yaml in place (comments, "
        "order and every other line kept) and print what changed. Any bad row: one line per problem "
        "with its line in the feed, exit code 2, nothing written. A .json file that is one object with an "
        "\"offers\" list is a daily snapshot of the public GPU price feed (gpurentalprices.com, "
        f"{FEED_URL}): each catalog GPU gets its cheapest firm on-demand offer of the last "
        f"{STALE_AFTER_DAYS} days, with its provider, day and source page; rows that break the feed's "
        "schema, other cards and other tiers are skipped and said on stderr; the operator's own prices "
        "(provider = site.yaml's brand) and prices read later than the feed's are kept. The newest "
        "price moves site.yaml's prices_date, from which pages count a price's age.",
    )
    feed.add_argument("feed", metavar="FILE", type=Path, help="the feed: .csv, .json, or a daily snapshot (.json)")
    inventory = commands.add_parser("inventory", help="update the operator's own stock from its feed")
    inventory_commands = inventory.add_subparsers(dest="inventory_command", required=True, metavar="ACTION")
    stock = inventory_commands.add_parser(
        "import", parents=[content], description=INVENTORY_DESCRIPTION,
        help="read the operator's stock feed (CSV or JSON) and write content/inventory.yaml",
    )
    stock.add_argument("feed", metavar="FILE", type=Path, help="the feed: .csv or .json")
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


def _memory_fraction(text: str) -> Fraction:
    try:
        value = Fraction(Decimal(text)) if len(text) <= 12 else None
    except (InvalidOperation, ValueError):
        value = None
    if value is None or not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"must be a number above 0 and at most 1 (got {text[:40]!r})")
    return value


def _positive_number(text: str) -> float:
    try:
        value = float(Decimal(text)) if len(text) <= 20 else None
    except (InvalidOperation, ValueError):
        value = None
    if value is None or not 0 < value <= 10**6:
        raise argparse.ArgumentTypeError(f"must be a number above 0 and at most 10^6 (got {text[:40]!r})")
    return value


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


def _serve(catalog, args, parsed: ParsedFiles) -> int:
    from dataclasses import replace

    from generator.site.preview import Preview, serve_forever

    base_url = f"http://127.0.0.1:{args.port}/"  # the pages' absolute links lead to the preview

    def at_preview(found):
        return None if found is None else replace(found, site=replace(found.site, base_url=base_url))

    preview = Preview(args.content, args.out, at_preview(catalog), args.jobs, lambda line: print(line, file=sys.stderr))
    try:
        serve_forever(preview, args.port, lambda: at_preview(_load(args.content, parsed)))
    except BuildError as error:
        print(_one_line(f"serve: {error}"), file=sys.stderr)
        return 1
    except OSError as error:  # the port is taken, or the folder cannot be written
        print(_one_line(f"serve: {error.strerror or error}{f': {error.filename}' if error.filename else ''}"
                        + (f" (port {args.port}: choose another with --port)" if error.errno == errno.EADDRINUSE else "")),
              file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"stopped: {args.out}/ holds the last preview", file=sys.stderr)
    return 0


def _load(content: Path, parsed: ParsedFiles | None = None):
    try:
        return load_catalog(content, model_problems, parsed)
    except CatalogError as error:
        for problem in error.problems:
            print(_one_line(problem), file=sys.stderr)
        count = len(error.problems)
        print(f"{count} problem{'s' if count != 1 else ''} in {content}.", file=sys.stderr)
        return None


def main(argv: list[str] | None = None, prog: str = "python -m generator") -> int:
    """`prog`: how the command was run, as its usage lines say it (the `vram-guide` script)."""
    args = _parser(prog).parse_args(argv)
    try:
        return _run(args)
    except KeyboardInterrupt:  # Ctrl-C: the build stops; publishing never leaves half a site (publish.py)
        if args.command != "build":
            raise
        print(f"interrupted: {args.out}/ was left as it was", file=sys.stderr)
        return 130


# The commands that write into the catalog: they read it and write it holding its lock, so that a
# second one reads the catalog as the first left it, never a file of it written and another not yet.
WRITERS = ("prices", "inventory")


def _run(args) -> int:
    if args.command == "add-model":
        return _add_model(args)
    with contextlib.ExitStack() as stack:
        if args.command in WRITERS and args.content.is_dir():  # a missing folder: _load says so
            try:
                stack.enter_context(catalog_lock(args.content))
            except OSError as error:
                print(f"{args.command}: {args.content / LOCK_NAME}: {error.strerror or error}; nothing written", file=sys.stderr)
                return 1
        return _run_catalog(args)


def _run_catalog(args) -> int:
    builds = args.command in ("build", "serve")  # they read the catalog as the last build parsed it
    kept = parsed_catalog_folder(args.out) if builds else None
    parsed = ParsedFiles(kept) if builds else None
    catalog = _load(args.content, parsed)
    if kept is not None and catalog is not None:  # saved now: its memory is let go before the build
        with contextlib.suppress(OSError):  # a cache: the next build parses again
            parsed.save(kept)
    if catalog is None:
        return 2
    missing = [lang for lang in catalog.site.languages if lang not in LANGUAGES]
    if missing:
        print(f"{args.content / 'site.yaml'}: languages: no translations for {', '.join(missing)} "
              f"(available: {', '.join(LANGUAGES)})", file=sys.stderr)
        return 2
    if args.command == "check":
        prices = stale_price_lines(args.content, _utc_today(), catalog.site.brand)
        stock = stale_stock_lines(args.content, _utc_today())
        said = [f"{len(prices)} stale price{'s' if len(prices) != 1 else ''}" if prices else "",
                f"{len(stock)} stale stock reading{'s' if len(stock) != 1 else ''}" if stock else ""]
        said = [part for part in said if part]
        print(f"{args.content}: {len(catalog.models)} models, {len(catalog.gpus)} GPUs, no problems"
              + (f"; {' and '.join(said)}:" if said else "."))
        for line in prices + stock:
            print(line)
        return 0
    if args.command == "size":
        return _size(catalog, args)
    if args.command == "plan":
        return _plan(catalog, args)
    if args.command == "cheapest":
        return _cheapest(catalog, args)
    if args.command == "prices":
        return _import_prices(catalog, args)
    if args.command == "inventory":
        return import_inventory(catalog, args.feed, args.content, _utc_today(), _one_line)
    if args.command == "serve":
        return _serve(catalog, args, parsed)
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
        pages = build_site(catalog, args.out, progress, args.jobs, args.search_part_pages)
        if kept is None and (folder := parsed_catalog_folder(args.out)) is not None:  # a first build made the cache
            with contextlib.suppress(OSError):
                parsed.save(folder)
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
    except OSError as error:  # a full disk, a read-only folder: nothing is left half-written
        print(f"add-model: {_one_line(str(error.filename or args.content))}: {error.strerror or error}; nothing written",
              file=sys.stderr)
        return 1
    print(f"wrote {path}")
    if todos:
        print(f"{len(todos)} to-do{'s' if len(todos) != 1 else ''}: {', '.join(todos)}")
        print(f"fill them in (a value and its source), then run: python -m generator check --content {args.content}")
    return 0


def _find_model(catalog, args):
    """The model MODEL names, with an architecture; None after printing why not."""
    wanted = args.model.lower()
    model = next((m for m in catalog.models if wanted in (m.id.lower(), m.slug)), None)
    if model is None:
        print(f"{args.command}: no model {_one_line(args.model)[:100]!r} in {args.content} (slugs: "
              f"{', '.join(sorted(m.slug for m in catalog.models))})", file=sys.stderr)
        return None
    if model.architecture is None:
        print(f"{args.command}: {model.slug} has no architecture in {args.content}; add one to size it", file=sys.stderr)
        return None
    return model


def _plan(catalog, args) -> int:
    model = _find_model(catalog, args)
    if model is None or _beyond_window(model, args):
        return 2
    gpu = next((g for g in catalog.gpus if g.slug == args.gpu.lower()), None)
    if gpu is None:
        print(f"plan: --gpu: no GPU {_one_line(args.gpu)[:100]!r} in {args.content} (slugs: "
              f"{', '.join(g.slug for g in catalog.gpus)})", file=sys.stderr)
        return 2
    largest = gpu.machine_shapes[-1]
    if args.count > largest and args.count % largest:
        print(f"plan: --count: more than one machine of {gpu.name} ({largest} GPUs each) must be a multiple "
              f"of {largest} (got {args.count})", file=sys.stderr)
        return 2
    if args.engine == LLAMA_CPP.key:
        return _plan_llama_cpp(model, gpu, args)
    llama_only = [flag for flag, given in (("--quant", args.quant != "Q4_K_M"), ("--n-gpu-layers", args.n_gpu_layers is not None),
                                           ("--n-cpu-moe", args.n_cpu_moe is not None), ("--cache-type", args.cache_type != "f16"),
                                           ("--imatrix", args.imatrix)) if given]
    if llama_only:
        print(f"plan: {llama_only[0]}: only with --engine llama.cpp", file=sys.stderr)
        return 2
    if args.speculative and not model.architecture.extra_layers:
        print(f"plan: --speculative {args.speculative}: {model.slug} ships no multi-token-prediction layers "
              "to draft with", file=sys.stderr)
        return 2
    request = PlanRequest(engine=args.engine, context=args.context, users=args.users,
                          memory_fraction=args.memory_fraction, kv_dtype=args.kv_dtype,
                          precision=PRECISIONS[args.precision], checkpoint=args.checkpoint, speculative=args.speculative)
    if _no_checkpoint(model, request, args):
        return 2
    result = answer(model, gpu, args.count, request)
    workload = _workload(args, result.asked.context)
    if workload is None:
        return 2
    print(json.dumps(answer_json(result, workload), indent=2) if args.json else answer_text(result, workload))
    return 0


def _workload(args, context: int) -> Workload | None:
    """The users, prompt and answer `plan` times; None after saying why they do not fit the context."""
    workload = workload_at(context, args.users, args.input_tokens, args.output_tokens)
    prompt, output = workload.input_tokens, workload.output_tokens
    if prompt + output > context:
        print(f"{args.command}: --input-tokens {prompt:,} and --output-tokens {output:,} are {prompt + output:,} tokens, "
              f"more than the context of {context:,} (--context)", file=sys.stderr)
        return None
    return workload


def _cheapest(catalog, args) -> int:
    model = _find_model(catalog, args)
    if model is None or _beyond_window(model, args):
        return 2
    context = args.context or default_context(model)
    workload = _workload(args, context)
    if workload is None:
        return 2
    question = Question(context, workload, args.min_tokens_per_second)
    stock = None
    if catalog.inventory is not None:
        stock = cheapest_options(model, stock_gpus(catalog.gpus, catalog.inventory), question, priced_only=False)
    market = cheapest_options(model, market_gpus(catalog.gpus), question)
    print(json.dumps(cheapest_json(model.id, question, stock, market), indent=2) if args.json
          else cheapest_text(model.name, catalog.site.brand, question, stock, market))
    return 0


def _plan_llama_cpp(model, gpu, args) -> int:
    others = [flag for flag, given in (("--gpu-memory-utilization", args.memory_fraction is not None),
                                       ("--kv-dtype", args.kv_dtype != "auto"), ("--precision", args.precision != "native"),
                                       ("--speculative", args.speculative is not None)) if given]
    if others:
        print(f"plan: {others[0]}: not a llama.cpp option (use --quant and --cache-type)", file=sys.stderr)
        return 2
    if args.count > gpu.machine_shapes[-1]:
        print(f"plan: --count: llama.cpp runs on one machine, at most {gpu.machine_shapes[-1]} × {gpu.name} "
              f"(got {args.count})", file=sys.stderr)
        return 2
    if not gguf_sizable(model):
        print(f"plan: {model.slug}: its GGUF layout (Kimi delta attention) "
              "is not modelled for llama.cpp", file=sys.stderr)
        return 2
    request = LlamaCppRequest(quant=args.quant, context=args.context, users=args.users, n_gpu_layers=args.n_gpu_layers,
                              n_cpu_moe=args.n_cpu_moe, cache_type=args.cache_type, imatrix=args.imatrix)
    result = llama_cpp_plan(model, gpu, args.count, request)
    workload = _workload(args, result.context)
    if workload is None:
        return 2
    print(json.dumps(llama_cpp_json(result, workload), indent=2) if args.json else llama_cpp_text(result, workload))
    return 0


def _import_prices(catalog, args) -> int:
    try:
        reading = read_price_feed(args.feed, catalog.gpus, _utc_today())
    except FeedError as error:
        return report(error, args.feed, _one_line)
    for note in reading.notes:  # rows of a daily snapshot that do not count, and why
        print(_one_line(note), file=sys.stderr)
    rows = reading.rows
    if reading.snapshot:
        rows, kept = _prices_to_keep(catalog, rows)
        for line in kept:
            print(line, file=sys.stderr)
        if not rows:
            print(f"prices: {args.feed}: no price to change; nothing written", file=sys.stderr)
            return 0
    target = args.content / "gpus.yaml"
    try:  # under the catalog's lock (_run): a second import waits, then reads this one's prices
        return _rewrite_prices(target, rows)
    except OSError as error:
        print(f"prices: {target}: {error.strerror or error}; nothing written", file=sys.stderr)
        return 1


def _utc_today() -> datetime.date:
    """Today in UTC: the feeds date their rows in UTC."""
    return datetime.datetime.now(datetime.timezone.utc).date()


def _prices_to_keep(catalog, rows):
    """A daily snapshot's rows without those that would replace the operator's own price (its
    provider is site.yaml's brand) or a price read later, or that change nothing; and one line for
    each of the first two left out."""
    by_slug = {gpu.slug: gpu for gpu in catalog.gpus}
    kept, lines = [], []
    for row in rows:
        gpu = by_slug[row.gpu]
        if (gpu.price_per_gpu_hour, gpu.price_provider, gpu.price_date) == (row.price, row.provider, row.date):
            continue  # the same price as the catalog has: nothing to write
        if gpu.price_provider == catalog.site.brand:
            lines.append(f"  {row.gpu}: keeps {catalog.site.brand}'s own price ({gpu.price_per_gpu_hour}, {gpu.price_date})")
        elif gpu.price_date is not None and gpu.price_date > row.date:
            lines.append(f"  {row.gpu}: keeps its price read {gpu.price_date}, later than the feed's {row.date}")
        else:
            kept.append(row)
    return kept, lines


def _rewrite_prices(target: Path, rows) -> int:
    text = target.read_bytes().decode("utf-8")  # as stored: CRLF lines stay CRLF
    before = {gpu.slug: gpu for gpu in load_gpus(target)}
    try:
        rewritten = rewrite_prices(text, rows)
    except FeedError as error:
        print(f"prices: {error.problems[0]}; nothing written", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as scratch:  # the rewrite must still load, with these prices
        trial = Path(scratch) / "gpus.yaml"
        trial.write_bytes(rewritten.encode("utf-8"))
        try:
            updated = {gpu.slug: gpu for gpu in load_gpus(trial)}
        except CatalogError as error:
            print(f"prices: the rewritten gpus.yaml would not load ({_one_line(error.problems[0])}); nothing written",
                  file=sys.stderr)
            return 1
    wrong = [row.gpu for row in rows if (updated[row.gpu].price_per_gpu_hour, updated[row.gpu].price_date) != (row.price, row.date)]
    if wrong:
        print(f"prices: the rewritten gpus.yaml does not read back the new prices of {', '.join(wrong)}; nothing written",
              file=sys.stderr)
        return 1
    # site.yaml first: a catalog whose prices_date is later than every price stays valid in between
    try:
        moved = _move_prices_date(target.parent / "site.yaml", max(row.date for row in rows))
    except FeedError as error:
        print(f"prices: {error.problems[0]}; nothing written", file=sys.stderr)
        return 2
    replace_file(target, rewritten, target.parent)
    print(f"{target}: {len(rows)} price{'s' if len(rows) != 1 else ''} imported")
    for row in rows:
        old = before[row.gpu]
        was = "no price" if old.price_per_gpu_hour is None else f"{old.price_per_gpu_hour} ({old.price_provider}, {old.price_date})"
        print(f"  {row.gpu}: {was} → {row.price} ({row.provider}, {row.date})")
    if moved:
        print(moved)
    return 0


# site.yaml's prices_date line: the key and its date, quoted or not, then maybe a comment (group 1 is
# what is rewritten, group 2 the date)
PRICES_DATE_LINE = re.compile(r"^(prices_date: *['\"]?(\d{4}-\d{2}-\d{2})['\"]?) *(?:#[^\r\n]*)?(?=\r?$)", re.MULTILINE)


def _move_prices_date(site_file: Path, newest: str) -> str | None:
    """site.yaml's prices_date (the day the prices were read, from which the pages count their age)
    moved to `newest` when that is later, every other line as it was; the line that says so."""
    text = site_file.read_bytes().decode("utf-8")
    match = PRICES_DATE_LINE.search(text)
    if match is None:  # the pages would count the new prices' age from a date before them
        raise FeedError([f"{site_file}: no line 'prices_date: YYYY-MM-DD' to move to {newest}"])
    if match.group(2) >= newest:
        return None
    replace_file(site_file, text[:match.start(1)] + f"prices_date: {newest}" + text[match.end(1):], site_file.parent)
    return f"{site_file}: prices_date {match.group(2)} → {newest} (the day the newest price was read)"


def _not_run_words(not_run: NotRun) -> str:
    """What an engine does not run of a model, as the plan's refusal says it."""
    return {
        MODEL_CLASS: f"model class {not_run.name} (not among the classes its version registers)",
        RECURRENT_LAYERS: f"{not_run.name} layers",
        GLOBAL_ATTENTION_LAYERS: "global attention layers with KV heads of their own (Gemma 4)",
    }[not_run.part]


def _no_checkpoint(model, request, args) -> bool:
    """No weights of the precision (or repo) asked that the engine serves: one line saying which
    checkpoints there are and where 4 bits are (a GGUF file, with llama.cpp); or the engine's
    version does not run the model at all."""
    engine = SERVING_ENGINES[request.engine]
    if not engine.runs(model):
        others = [e.key for e in SERVING_ENGINES.values() if e.runs(model)]
        print(f"plan: --engine {engine.key}: {engine.name} {engine.version} does not run {_one_line(model.name)[:100]}'s "
              f"{_not_run_words(engine.what_it_does_not_run(model))}" + (f" (--engine {' or '.join(others)} does)" if others else ""),
              file=sys.stderr)
        return True
    if served_weights(model, request.precision, engine, request.checkpoint) is not None:
        return False
    listed = ", ".join([model.id, *(c.id for c in model.checkpoints)])
    if request.checkpoint is not None:
        print(f"plan: --checkpoint: {_one_line(request.checkpoint)[:100]!r} is not a checkpoint of {model.slug} in the "
              f"catalog (its checkpoints: {listed})", file=sys.stderr)
        return True
    print(f"plan: --precision {args.precision}: no {args.precision}-bit checkpoint of {_one_line(model.name)[:100]} that "
          f"{engine.name} serves is in the catalog (its checkpoints: {listed}); "
          f"`plan {model.slug} --gpu {args.gpu} --engine {LLAMA_CPP.key}` sizes a GGUF file", file=sys.stderr)
    return True


def _beyond_window(model, args) -> bool:
    """A context past the model's window: one line naming the window (the engines refuse it too)."""
    window = model.context_window
    if args.context is None or window is None or args.context <= window:
        return False
    print(f"{args.command}: --context: {_one_line(model.name)[:100]}'s context window is {window:,} tokens "
          f"(got {args.context:,})", file=sys.stderr)
    return True


def _size(catalog, args) -> int:
    model = _find_model(catalog, args)
    if model is None or _beyond_window(model, args):
        return 2
    report = size_report(model, catalog.gpus, args.precision, args.context, args.batch, catalog.inventory)
    print(json.dumps(report_json(report), indent=2) if args.json else report_text(report))
    return 0

