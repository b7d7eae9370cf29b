"""The JSON Schemas (draft 2020-12) of the API's files (api.py), published at api/v1/schema/.

Each figure's unit is in its description and in a `unit` annotation (a keyword validators ignore).
A version adds fields without a new number; removing or changing one makes api/v2.
"""

from __future__ import annotations

API_VERSION = "v1"
DRAFT = "https://json-schema.org/draft/2020-12/schema"


def _number(unit: str, description: str, nullable: bool = False, integer: bool = False) -> dict:
    kind = "integer" if integer else "number"
    return {"type": [kind, "null"] if nullable else kind, "unit": unit, "description": f"{description} ({unit})"}


def _bytes(description: str, nullable: bool = False) -> dict:
    return _number("bytes", description, nullable, integer=True)


TEXT = {"type": "string"}
TEXT_OR_NULL = {"type": ["string", "null"]}
DATE = {"type": ["string", "null"], "pattern": r"^\d{4}-\d{2}-\d{2}$", "description": "ISO 8601 date"}
PAGES = {"type": "object", "description": "the page in each site language, by language code",
         "additionalProperties": {"type": "string", "format": "uri"}}
SOURCED = {
    "type": "object", "description": "a catalog fact: its value, unit, where it comes from and a remark",
    "required": ["value", "unit", "source", "note"], "additionalProperties": False,
    "properties": {"value": {"description": "a number, text or a list of numbers"},
                   "unit": {"type": ["string", "null"], "description": "null for text and dates"},
                   "source": {"type": ["string", "null"], "description": "URLs or citations, separated by ' ; '"},
                   "note": TEXT_OR_NULL},
}
SETUP = {
    "type": ["object", "null"], "description": "GPUs of one type in machines; null: no setup of the catalog holds it",
    "required": ["gpu", "count", "gpus_per_machine", "machines", "memory_bytes", "price_per_hour"],
    "properties": {"gpu": TEXT, "count": {"type": "integer"}, "gpus_per_machine": {"type": "integer"},
                   "machines": {"type": "integer"}, "memory_bytes": _bytes("the setup's memory"),
                   "price_per_hour": _number("currency per hour", "the whole setup", nullable=True)},
}
REQUIREMENT = {
    "type": ["object", "null"], "required": ["key", "memory_bytes", "setup"],
    "properties": {"key": {"type": "string", "description": "bits (16, 8, 4) or a fine-tuning method (qlora, lora, full)"},
                   "memory_bytes": _bytes("memory the rule asks for"), "setup": {"$ref": "#/$defs/setup"},
                   "from_stock": {"type": "boolean"}, "market_setup": {"$ref": "#/$defs/setup"}},
}
THROUGHPUT = {
    "output_tokens_per_second": _number("tokens per second", "all users together", nullable=True),
    "output_tokens_per_second_per_user": _number("tokens per second", "each user", nullable=True),
    "ttft_seconds": _number("seconds", "time to the first token", nullable=True),
    "tpot_seconds": _number("seconds", "time per output token", nullable=True),
    "input_tokens": _number("tokens", "each user's prompt", integer=True),
    "output_tokens": _number("tokens", "each user's answer", integer=True),
}
PLAN = {
    "type": ["object", "null"],
    "description": "a vLLM or SGLang plan, as `python -m generator plan --json` prints it",
    "required": ["model", "gpu", "count", "engine", "engine_version", "context", "starts", "weights_bytes_per_gpu", "command"],
    "properties": {
        "model": TEXT, "gpu": TEXT, "count": {"type": "integer"}, "engine": TEXT, "engine_version": TEXT,
        "context": _number("tokens", "each sequence's context", integer=True), "starts": {"type": "boolean"},
        "weights_bytes_per_gpu": _bytes("weights each GPU loads"),
        "available_kv_bytes_per_gpu": _bytes("memory left for the KV cache on each GPU"),
        "kv_tokens": _number("tokens", "what the KV cache holds", integer=True),
        "max_context": _number("tokens", "the longest context that starts", integer=True),
        "max_users": _number("users", "sequences of this context at once", integer=True),
        "decode_tokens_per_second": _number("tokens per second", "one sequence, an upper bound", nullable=True),
        "price_per_hour": _number("currency per hour", "the setup", nullable=True),
        "command": TEXT_OR_NULL, **THROUGHPUT,
    },
}
LLAMA_CPP_PLAN = {
    "type": ["object", "null"],
    "description": "a llama.cpp plan, as `python -m generator plan --engine llama.cpp --json` prints it",
    "required": ["model", "gpu", "count", "quant", "gguf_file_bytes", "n_gpu_layers", "n_cpu_moe", "starts", "command"],
    "properties": {
        "model": TEXT, "gpu": TEXT, "count": {"type": "integer"}, "quant": TEXT,
        "gguf_file_bytes": _bytes("the file on disk"), "bits_per_weight": _number("bits", "the file's average per weight"),
        "n_gpu_layers": {"type": "integer"}, "n_cpu_moe": {"type": "integer"}, "starts": {"type": "boolean"},
        "weights_bytes_per_gpu": _bytes("weights on the fullest GPU"), "weights_bytes_in_ram": _bytes("weights in system RAM"),
        "decode_tokens_per_second": _number("tokens per second", "one user, an upper bound", nullable=True),
        "command": TEXT, **THROUGHPUT,
    },
}
OPTION = {
    "type": ["object", "null"], "description": "the cheapest setup that serves a workload (`cheapest --json`)",
    "required": ["gpu", "count", "engine", "price_per_hour", "command"],
    "properties": {"gpu": TEXT, "count": {"type": "integer"}, "engine": TEXT, "checkpoint": TEXT_OR_NULL, "quant": TEXT_OR_NULL,
                   "price_per_hour": _number("currency per hour", "the setup", nullable=True), "price_date": DATE,
                   "command": TEXT, **THROUGHPUT},
}
BY_COMPONENT = {"type": "object", "additionalProperties": {"type": "integer"},
                "description": "by part of the model (embeddings, attention, experts...)"}
KV = {
    "type": "object", "required": ["bytes_per_token", "window_bytes_per_token", "window_tokens", "state_bytes_per_sequence"],
    "properties": {"bytes_per_token": _bytes("per token, layers that see the whole context"),
                   "window_bytes_per_token": _bytes("per token, window layers up to their window"),
                   "window_tokens": _number("tokens", "the window", integer=True),
                   "state_bytes_per_sequence": _bytes("constant state per sequence (linear attention, Mamba)"),
                   "full_context_bytes": _bytes("one sequence at the full context")},
}
HEADER = {"api_version": {"const": API_VERSION}, "schema": {"type": "string", "format": "uri"},
          "prices_date": DATE}
DEFS = {"setup": SETUP, "requirement": REQUIREMENT, "plan": PLAN, "llama_cpp_plan": LLAMA_CPP_PLAN,
        "option": OPTION, "sourced": SOURCED}


def _schema(name: str, title: str, required: list[str], properties: dict) -> dict:
    return {"$schema": DRAFT, "$id": f"{name}.json", "title": title, "type": "object", "required": required,
            "properties": {**HEADER, **properties}, "$defs": DEFS}


MODEL = _schema("model", "A model: every figure of its page", [
    "api_version", "schema", "currency", "prices_date", "id", "slug", "name", "pages", "facts", "sizing_rule",
    "architecture", "llama_cpp", "commands"], {
    "currency": {"type": "string", "description": "ISO 4217: every price's currency"},
    "id": {"type": "string", "description": "the Hugging Face repo id"}, "slug": TEXT, "name": TEXT, "family": TEXT,
    "pages": PAGES, "weights_url": TEXT,
    "facts": {"type": "object", "additionalProperties": {"$ref": "#/$defs/sourced"},
              "description": "params, active_params, experts, experts_per_token, context_window, release_date, license, precision"},
    "api_price": {"type": ["object", "null"], "properties": {
        "input_per_million_tokens": _number("currency per million tokens", "the maker's API, input"),
        "output_per_million_tokens": _number("currency per million tokens", "the maker's API, output"),
        "cached_input_per_million_tokens": _number("currency per million tokens", "cached input", nullable=True),
        "date": DATE, "source": TEXT_OR_NULL}},
    "sizing_rule": {"type": "object", "required": ["serving", "fine_tuning"], "properties": {
        "serving_overhead": _number("fraction", "added for the KV cache and activations"),
        "serving": {"type": "array", "items": {"$ref": "#/$defs/requirement"}, "description": "at 16, 8 and 4 bits"},
        "fine_tuning": {"type": "array", "items": {"$ref": "#/$defs/requirement"}},
        "single_gpu": {"$ref": "#/$defs/requirement"}}},
    "architecture": {"type": ["object", "null"], "description": "null: the catalog has no architecture for it", "properties": {
        "params_by_component": BY_COMPONENT, "native_bytes_by_component": BY_COMPONENT,
        "formats": {"type": "array", "items": {"type": "object", "required": ["format", "bytes"],
                                               "properties": {"format": TEXT, "bytes": _bytes("the weights in this format"),
                                                              "bytes_by_component": BY_COMPONENT}}},
        "checkpoints": {"type": "array", "items": {"type": "object", "properties": {
            "repo": TEXT, "precision": TEXT, "bytes": _bytes("the checkpoint's weights")}}},
        "kv_cache": {"type": "object", "properties": {"16": KV, "8": KV}, "description": "at 16- and 8-bit KV"},
        "serving": {"type": ["object", "null"], "properties": {
            "vllm": {"$ref": "#/$defs/plan"}, "sglang": {"$ref": "#/$defs/plan"},
            "vllm_reference_context": {"$ref": "#/$defs/plan"}}},
        "sizing_rule_checks": {"type": "array", "items": {"type": "object", "properties": {
            "bits": {"type": "integer"}, "plan": {"$ref": "#/$defs/plan"}}}},
        "gpu_types": {"type": "array", "items": {"type": "object", "properties": {
            "gpu": TEXT, "gpus_for_weights": {"type": "object", "additionalProperties": {"type": ["integer", "null"]}},
            "vllm": {"$ref": "#/$defs/plan"}, "not_planned": TEXT_OR_NULL}}},
        "speed": {"type": ["object", "null"], "properties": {
            "decode_tokens_per_second": _number("tokens per second", "one sequence, an upper bound"),
            "price_per_million_output_tokens": _number("currency per million tokens", "one sequence at a time", nullable=True)}},
        "workloads": {"type": "array", "items": {"type": "object", "required": ["workload", "users", "market"], "properties": {
            "workload": {"enum": ["chat", "long_context", "local"]}, "users": {"type": "integer"},
            "context_tokens": _number("tokens", "each user's context", integer=True),
            "in_stock": {"$ref": "#/$defs/option"}, "market": {"$ref": "#/$defs/option"},
            "price_per_million_output_tokens": _number("currency per million tokens", "the chosen setup at that load", nullable=True),
            "api_price_per_million_output_tokens": _number("currency per million tokens", "the maker's API, input included",
                                                           nullable=True)}}},
    }},
    "llama_cpp": {"type": ["object", "null"], "description": "null: the GGUF layout is not modelled", "properties": {
        "files": {"type": "array", "items": {"type": "object", "required": ["quant", "file_bytes"], "properties": {
            "quant": TEXT, "file_bytes": _bytes("the GGUF file"), "bits_per_weight": _number("bits", "average per weight"),
            "smallest_card": {"$ref": "#/$defs/llama_cpp_plan"}}}},
        "experts_in_ram": {"$ref": "#/$defs/llama_cpp_plan"}}},
    "commands": {"type": ["object", "null"], "additionalProperties": TEXT_OR_NULL},
})

GPU = _schema("gpu", "A GPU: every figure of its page", [
    "api_version", "schema", "currency", "prices_date", "slug", "name", "vendor", "pages", "facts", "price", "llama_cpp",
    "sizing_rule"], {
    "currency": TEXT, "slug": TEXT, "name": TEXT, "vendor": TEXT, "pages": PAGES, "unified_memory": {"type": "boolean"},
    "facts": {"type": "object", "required": ["memory_bytes", "machine_shapes"], "additionalProperties": {"$ref": "#/$defs/sourced"}},
    "price": {"type": ["object", "null"], "required": ["per_gpu_hour", "provider", "date", "stale"], "properties": {
        "per_gpu_hour": _number("currency per GPU-hour", "the lowest on-demand price found"), "provider": TEXT_OR_NULL,
        "date": DATE, "stale": {"type": "boolean", "description": "read more than 90 days before prices_date"},
        "source": TEXT_OR_NULL}},
    "engines_planned": {"type": "array", "items": TEXT},
    "llama_cpp": {"type": "object", "required": ["quant", "cache_type", "models"], "properties": {
        "quant": TEXT, "cache_type": TEXT,
        "reference_context_tokens": _number("tokens", "each model's context, or its window where shorter", integer=True),
        "models": {"type": "array", "items": {"type": "object", "required": ["model", "verdict"], "properties": {
            "model": TEXT, "verdict": {"enum": ["on_gpus", "part_in_ram", "does_not_run"]}, "reason": TEXT_OR_NULL,
            "context_tokens": _number("tokens", "the context planned", nullable=True, integer=True),
            "ram_bytes": _bytes("what system RAM holds", nullable=True),
            "n_gpu_layers": {"type": ["integer", "null"]}, "n_cpu_moe": {"type": ["integer", "null"]},
            "decode_tokens_per_second": _number("tokens per second", "one user, an upper bound", nullable=True)}}}}},
    "sizing_rule": {"type": "array", "items": {"type": "object", "required": ["model", "gpus"], "properties": {
        "model": TEXT, "gpus": {"type": "object", "description": "GPUs in one machine at 16, 8 and 4 bits; null: more than one",
                                "additionalProperties": {"type": ["integer", "null"]}}}}},
})

INDEX = _schema("index", "Every model and GPU, with its file and pages", ["api_version", "schema", "models", "gpus"], {
    "models": {"type": "array", "items": {"type": "object", "required": ["slug", "id", "name", "file", "pages"], "properties": {
        "slug": TEXT, "id": TEXT, "name": TEXT, "release_date": DATE, "file": {"type": "string", "format": "uri"}, "pages": PAGES}}},
    "gpus": {"type": "array", "items": {"type": "object", "required": ["slug", "name", "file", "pages"], "properties": {
        "slug": TEXT, "name": TEXT, "file": {"type": "string", "format": "uri"}, "pages": PAGES}}},
})

SCHEMAS = {"model": MODEL, "gpu": GPU, "index": INDEX}
