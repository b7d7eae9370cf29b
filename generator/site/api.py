"""The static JSON API: every figure a model or GPU page shows, for programs, versioned.

    api/v1/index.json              every model and GPU, with the address of its file and pages
    api/v1/models/<slug>.json      a model: its sourced facts, the sizing rule's setups, weights,
                                   KV cache, each engine's plan, GGUF files, workloads and costs
    api/v1/gpus/<slug>.json        a GPU: its sourced specifications and price, and every model's
                                   llama.cpp verdict and GPUs needed on it
    api/v1/schema/*.json           the JSON Schema of each (api_schema.py)

Figures are numbers in the unit their name ends with (`_bytes`, `_tokens`, `_per_hour` in the
site's currency, `_tokens_per_second`, `_seconds`); a catalog fact is {value, unit, source, note}.
Text is English (the pages translate it). A page's figures and its file come from one view model.
The files are made from language-neutral view models, once per build, and are written only when
their content changes (a one-model rebuild rewrites that model's file alone).
"""

from __future__ import annotations

from pathlib import Path

from generator.catalog.records import Catalog, Gpu, Model, Source
from generator.site import paths
from generator.site.api_schema import API_VERSION, SCHEMAS
from generator.site.cache import remove_stale
from generator.site.figures import llama_cpp_json, option_json, plan_json, setup_json
from generator.site.files import write_if_changed
from generator.site.structured_data import inert_json
from generator.site.view_models import GpuPage, ModelPage, Page, Requirement

API_DIR = f"api/{API_VERSION}"
# A model's catalog facts and their units (None: text or a date, no unit).
MODEL_FACTS = (("params", "parameters"), ("active_params", "parameters"), ("experts", "experts"),
               ("experts_per_token", "experts"), ("context_window", "tokens"), ("release_date", None),
               ("license", None), ("precision", None))
GPU_FACTS = (("memory_bytes", "memory_gb", "bytes"), ("reported_memory_bytes", "reported_memory_gib", "bytes"),
             ("gpu_memory_share", "gpu_memory_share", "fraction"), ("memory_type", "memory_type", None),
             ("bandwidth_bytes_per_second", "bandwidth_gb_s", "bytes per second"), ("interconnect", "interconnect", None),
             ("peer_link", "peer_link", None), ("peer_bandwidth_bytes_per_second", "peer_gb_s", "bytes per second"))


def api_file(page_path: str) -> str | None:
    """The API file of a page: models/<slug> and gpus/<slug> have one."""
    section, _, slug = page_path.partition("/")
    return f"{API_DIR}/{section}/{slug}.json" if section in ("models", "gpus") and slug else None


def _sourced(value, unit: str | None, source: Source | None) -> dict:
    return {"value": value, "unit": unit, "source": source.citation if source else None,
            "note": str(source.note) if source and source.note is not None else None}


def _number(value):
    """Decimals (prices, shares) as JSON numbers."""
    return None if value is None else float(value)


def _pages(site_url: str, languages: tuple[str, ...], page_path: str) -> dict:
    return {lang: site_url + paths.html_file(lang, page_path) for lang in languages}


def _requirement(requirement: Requirement | None) -> dict | None:
    if requirement is None:
        return None
    return {"key": requirement.key, "memory_bytes": requirement.memory_bytes, "setup": setup_json(requirement.setup),
            "from_stock": requirement.from_stock, "market_setup": setup_json(requirement.market)}


def _model_facts(model: Model) -> dict:
    facts = {}
    for key, unit in MODEL_FACTS:
        value = getattr(model, key)
        if value is not None:
            facts[key] = _sourced(str(value) if key == "precision" else value, unit, model.sources.get(key))
    return facts


def model_json(page: ModelPage, catalog: Catalog) -> dict:
    model, site, detail = page.model, catalog.site, page.detail
    price = model.api_price
    data = {
        "api_version": API_VERSION,
        "schema": site.base_url + f"{API_DIR}/schema/model.json",
        "currency": site.currency,
        "prices_date": site.prices_date,
        "id": model.id, "slug": model.slug, "name": model.name, "family": model.family,
        "pages": _pages(site.base_url, site.languages, page.path),
        "weights_url": model.weights_url,
        "facts": _model_facts(model),
        "api_price": None if price is None else {
            "input_per_million_tokens": _number(price.input), "output_per_million_tokens": _number(price.output),
            "cached_input_per_million_tokens": _number(price.cached_input), "date": price.date,
            "source": _sourced(None, None, model.sources.get("api_price"))["source"]},
        # the seed's rule: parameters × bytes per parameter, and the share for the KV cache and activations
        "sizing_rule": {
            "serving_overhead": _number(page.rule.serving_overhead),
            "serving": [_requirement(r) for r in page.serving],
            "fine_tuning": [_requirement(r) for r in page.fine_tuning],
            "single_gpu": _requirement(page.single_gpu),
        },
        "architecture": None,
    }
    if detail is not None:
        serving = detail.serving
        data["architecture"] = {
            "computed_params": page.computed_params,
            "params_by_component": detail.params_by_component,
            "native_bytes_by_component": detail.native_bytes_by_component,
            "formats": [{"format": f.key, "bytes": f.bytes, "bytes_by_component": f.by_component} for f in detail.formats],
            "checkpoints": [{"repo": row.weights.repo, "precision": row.weights.precision, "bytes": row.bytes}
                            for row in detail.checkpoints],
            "kv_cache": {bits: {"bytes_per_token": kv.bytes_per_token, "window_bytes_per_token": kv.window_bytes_per_token,
                                "window_tokens": kv.window_tokens, "state_bytes_per_sequence": kv.state_bytes,
                                "full_context_bytes": full}
                         for bits, kv, full in (("16", detail.kv16, detail.kv16_full_context_bytes),
                                                ("8", detail.kv8, detail.kv8_full_context_bytes))},
            "context_window_tokens": detail.context,
            "reference_context_tokens": detail.reference_context,
            # vLLM on the setup that serves one sequence at the full context, SGLang on the same, and
            # vLLM there at the reference context
            "serving": None if serving is None else {
                "vllm": plan_json(serving.plan), "sglang": plan_json(serving.sglang), "vllm_reference_context": plan_json(serving.short)},
            "sizing_rule_checks": [{"bits": check.bits, "plan": plan_json(check.plan)} for check in detail.headline_checks],
            "gpu_types": [{"gpu": row.gpu.slug, "gpus_for_weights": row.for_weights,
                           "vllm": None if row.plan is None else plan_json(row.plan), "not_planned": row.gpu_reason}
                          for row in detail.gpu_rows],
            "speed": None if detail.speed is None else {
                "context_tokens": detail.speed.context, "decode_tokens_per_second": detail.speed.tokens_per_second,
                "price_per_hour": _number(detail.speed.price_per_hour),
                "price_per_million_output_tokens": _number(detail.speed.price_per_million_tokens),
                "offload_tokens_per_second": {where: list(pair) for where, pair in detail.speed.offload.items()}},
            "workloads": [{
                "workload": cost.workload.key, "context_tokens": cost.question.context,
                "users": cost.question.workload.users, "input_tokens": cost.question.workload.input_tokens,
                "output_tokens": cost.question.workload.output_tokens,
                "in_stock": None if cost.in_stock is None else option_json(cost.in_stock, cost.question),
                "market": None if cost.market is None else option_json(cost.market, cost.question),
                "price_per_million_output_tokens": _number(cost.price_per_million),
                "api_price_per_million_output_tokens": _number(cost.api_per_million),
            } for cost in detail.workloads],
        }
    own = page.own_gpu
    data["llama_cpp"] = None if own is None else {
        "context_tokens": own.context, "chosen_quant": own.chosen.quant,
        "files": [{"quant": row.quant, "file_bytes": row.file.file_bytes, "bits_per_weight": round(row.file.bits_per_weight, 4),
                   "smallest_card": None if row.plan is None else llama_cpp_json(row.plan)} for row in own.rows],
        "experts_in_ram": None if own.offload is None else llama_cpp_json(own.offload),
    }
    commands = page.commands
    data["commands"] = None if commands is None else {
        "vllm": commands.vllm, "sglang": commands.sglang, "llama_cpp": commands.llama_cpp,
        "llama_cpp_experts_in_ram": commands.llama_cpp_offload}
    return data


def _gpu_facts(gpu: Gpu) -> dict:
    facts = {}
    for key, source_key, unit in GPU_FACTS:
        value = getattr(gpu, key)
        if value is not None:
            facts[key] = _sourced(_number(value) if key == "gpu_memory_share" else str(value) if unit is None else value,
                                  unit, gpu.sources.get(source_key))
    for kind, flops in gpu.tensor_flops.items():
        facts[f"tensor_flops_{kind}"] = _sourced(flops, "FLOP per second", gpu.sources.get(f"tensor_tflops_{kind}"))
    facts["machine_shapes"] = _sourced(list(gpu.machine_shapes), "GPUs per machine", gpu.sources.get("shapes"))
    return facts


def gpu_json(page: GpuPage, catalog: Catalog) -> dict:
    gpu, site, llama = page.gpu, catalog.site, page.llama_cpp
    return {
        "api_version": API_VERSION,
        "schema": site.base_url + f"{API_DIR}/schema/gpu.json",
        "currency": site.currency,
        "prices_date": site.prices_date,
        "slug": gpu.slug, "name": str(gpu.name), "vendor": gpu.vendor,
        "pages": _pages(site.base_url, site.languages, page.path),
        "unified_memory": gpu.unified_memory,
        "facts": _gpu_facts(gpu),
        "price": None if gpu.price_per_gpu_hour is None else {
            "per_gpu_hour": _number(gpu.price_per_gpu_hour), "provider": gpu.price_provider, "date": gpu.price_date,
            "stale": gpu.price_stale, "source": gpu.sources["price_per_gpu_hour"].citation if "price_per_gpu_hour" in gpu.sources else None},
        "engines_planned": list(page.engines),
        # every model with llama.cpp on one GPU of this type (fit.py's verdicts)
        "llama_cpp": {"quant": llama.quant, "cache_type": llama.cache_type, "reference_context_tokens": llama.context,
                      "models": [{"model": row.model.slug, "verdict": row.verdict, "reason": row.reason,
                                  "context_tokens": row.context, "ram_bytes": row.ram_bytes,
                                  "n_gpu_layers": row.n_gpu_layers, "n_cpu_moe": row.n_cpu_moe,
                                  "decode_tokens_per_second": row.decode_tokens_per_second}
                                 for _, rows in llama.groups for row, _ in rows]},
        # the seed's rule: GPUs of this type in one machine for 16, 8 and 4 bits (null: more than one machine)
        "sizing_rule": [{"model": fit.model.slug, "gpus": dict(zip(("16", "8", "4"), fit.counts))}
                        for fit in page.one_card + page.one_machine]
                       + [{"model": model.slug, "gpus": {"16": None, "8": None, "4": None}} for model, _ in page.too_large],
    }


def index_json(catalog: Catalog) -> dict:
    site = catalog.site
    return {
        "api_version": API_VERSION,
        "schema": site.base_url + f"{API_DIR}/schema/index.json",
        "prices_date": site.prices_date,
        "models": [{"slug": m.slug, "id": m.id, "name": m.name, "release_date": m.release_date,
                    "file": site.base_url + api_file(paths.model_page(m.slug)),
                    "pages": _pages(site.base_url, site.languages, paths.model_page(m.slug))}
                   for m in sorted(catalog.models, key=lambda m: m.slug)],
        "gpus": [{"slug": g.slug, "name": str(g.name), "file": site.base_url + api_file(paths.gpu_page(g.slug)),
                  "pages": _pages(site.base_url, site.languages, paths.gpu_page(g.slug))}
                 for g in sorted(catalog.gpus, key=lambda g: g.slug)],
    }


class ApiWriter:
    """Writes a page's API file as its view model is built (write), then the index and the schemas,
    and removes the files of pages the catalog no longer has (finish)."""

    def __init__(self, site_dir: Path, catalog: Catalog):
        self.site_dir, self.catalog = site_dir, catalog

    def write(self, page: Page) -> None:
        if isinstance(page, ModelPage):
            data = model_json(page, self.catalog)
        elif isinstance(page, GpuPage):
            data = gpu_json(page, self.catalog)
        else:
            return
        write_if_changed(self.site_dir / api_file(page.path), inert_json(data))

    def finish(self, page_paths: list[str]) -> None:
        root = self.site_dir / API_DIR
        files = {self.site_dir / found for found in map(api_file, page_paths) if found}
        remove_stale(root, files, (".json",))  # its models/ and gpus/ folders
        write_if_changed(root / "index.json", inert_json(index_json(self.catalog)))
        for name, schema in SCHEMAS.items():
            write_if_changed(root / "schema" / f"{name}.json", inert_json(schema))
