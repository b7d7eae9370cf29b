"""Load content/ into typed records; reject bad input with one line per problem.

This is the only module that reads content/. Every problem found is reported at once, as
`path:line: field: what is wrong (what is expected)`, and no record is returned when any exists.
"""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType

from generator.catalog import schema
from generator.catalog.slugs import slugify
from generator.catalog.records import (
    ApiPrice,
    CHECKPOINT_FORMATS,
    COMPONENTS,
    Architecture,
    Attention,
    Catalog,
    Gpu,
    LinearAttention,
    MixtureOfExperts,
    Model,
    Site,
    Source,
    VisionTower,
)
from generator.catalog.schema import Field, Problems, read_record
from generator.catalog.yaml_file import YamlFile, YamlSyntaxError, read_yaml


class CatalogError(Exception):
    def __init__(self, problems: list[str]):
        super().__init__("\n".join(problems))
        self.problems = problems


MODEL_FIELDS = {
    "id": Field(schema.repo_id, required=True),
    "name": Field(schema.plain_text, required=True),
    "weights": Field(schema.https_url, required=True),
    "params": Field(schema.positive_int, required=True, sourced=True),
    "active_params": Field(schema.positive_int, sourced=True),
    "experts": Field(schema.positive_int, sourced=True),
    "experts_per_token": Field(schema.positive_int, sourced=True),
    "context_window": Field(schema.positive_int, sourced=True),
    "precision": Field(schema.plain_text, sourced=True),
    "license": Field(schema.plain_text, sourced=True),
    "release_date": Field(schema.iso_date, sourced=True),
    "api_price": Field(schema.api_price, sourced=True),  # per million tokens, in USD
    "architecture": Field(schema.mapping),
}

_int, _count, _flag = schema.positive_int, schema.non_negative_int, schema.boolean
ARCHITECTURE_FIELDS = {
    "source": Field(schema.plain_text, required=True),  # where every value of the block comes from
    "note": Field(schema.plain_text),
    "layers": Field(_int, required=True),
    "hidden_size": Field(_int, required=True),
    "vocab_size": Field(_int, required=True),
    "tied_embeddings": Field(_flag, required=True),
    "intermediate_size": Field(_int),
    "dense_layers": Field(_count),
    "norms_per_layer": Field(_int),
    "attention": Field(schema.mapping, required=True),
    "linear_attention": Field(schema.mapping),
    "moe": Field(schema.mapping),
    "extra_layers": Field(_count),
    "extra_layers_embeddings": Field(_flag),
    "vision": Field(schema.mapping),
    "formats": Field(schema.mapping),
}
ATTENTION_FIELDS = {
    "kind": Field(schema.one_of("gqa", "mla"), required=True),
    "heads": Field(_int, required=True),
    "kv_heads": Field(_int),
    "head_dim": Field(_int),
    "qkv_bias": Field(_flag),
    "output_bias": Field(_flag),
    "qk_norm": Field(schema.one_of("head", "layer")),
    "output_gate": Field(_flag),
    "sinks": Field(_flag),
    "q_lora_rank": Field(_int),
    "kv_lora_rank": Field(_int),
    "qk_nope_head_dim": Field(_int),
    "qk_rope_head_dim": Field(_int),
    "v_head_dim": Field(_int),
    "sliding_window": Field(_int),
    "sliding_window_layers": Field(_int),
    "indexer_heads": Field(_int),
    "indexer_head_dim": Field(_int),
}
LINEAR_ATTENTION_FIELDS = {
    "kind": Field(schema.one_of("gated_deltanet", "kimi_delta"), required=True),
    "layers": Field(_int, required=True),
    "key_heads": Field(_int, required=True),
    "value_heads": Field(_int, required=True),
    "key_head_dim": Field(_int, required=True),
    "value_head_dim": Field(_int, required=True),
    "conv_kernel": Field(_int, required=True),
}
MOE_FIELDS = {
    "expert_intermediate_size": Field(_int, required=True),
    "shared_experts": Field(_count),
    "shared_expert_intermediate_size": Field(_int),
    "shared_expert_gate": Field(_flag),
    "latent_size": Field(_int),
    "expert_bias": Field(_flag),
    "router_bias": Field(_flag),
}
VISION_FIELDS = {
    "layers": Field(_int, required=True),
    "hidden_size": Field(_int, required=True),
    "intermediate_size": Field(_int, required=True),
    "patch_size": Field(_int, required=True),
}
FORMAT_FIELDS = {name: Field(schema.one_of(*CHECKPOINT_FORMATS)) for name in ("default", *COMPONENTS)}
# What each attention kind needs, to size its weights and its KV cache.
REQUIRED_BY_KIND = {
    "gqa": ("kv_heads", "head_dim"),
    "mla": ("kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"),
}

GPU_FIELDS = {
    "slug": Field(schema.gpu_slug, required=True),
    "name": Field(schema.plain_text, required=True),
    "vendor": Field(schema.plain_text, required=True),
    "memory_gb": Field(schema.positive_decimal, required=True, sourced=True),
    "memory_type": Field(schema.plain_text, sourced=True),
    "bandwidth_gb_s": Field(schema.positive_decimal, sourced=True),
    "interconnect": Field(schema.plain_text, sourced=True),
    "shapes": Field(schema.machine_shapes, required=True, sourced=True),
    "price_per_gpu_hour": Field(schema.positive_decimal, sourced=True),
}
PRICE_EXTRA_KEYS = ("provider", "date")

SITE_FIELDS = {
    "brand": Field(schema.plain_text, required=True),
    "base_url": Field(schema.base_url, required=True),
    "console_url": Field(schema.console_url, required=True),
    "languages": Field(schema.languages, required=True),
    "currency": Field(schema.currency, required=True),
    "prices_date": Field(schema.iso_date, required=True),
}


def _model(file: YamlFile, stem: str, problems: Problems) -> Model | None:
    todos = schema.todo_paths(file.data)
    for todo in todos:
        message = "to-do left by add-model (fill in a value and its source, or delete an optional field)"
        problems.add(file, todo, todo or "(document)", message)
    if todos:
        return None
    record = read_record(file, file.data, "", MODEL_FIELDS, problems)
    if record is None:
        return None
    values, sources = record
    slug = slugify(values["name"])
    checks = [
        (not slug, "name", "must contain letters or digits (the page's slug is made from it)"),
        (slug and slug != stem, "name", f"gives slug '{slug}', so the file must be named {slug}.yaml"),
        (
            values.get("active_params", 0) > values["params"],
            "active_params",
            f"must not exceed params ({values.get('active_params')} > {values['params']})",
        ),
        (
            values.get("experts_per_token", 0) > values.get("experts", float("inf")),
            "experts_per_token",
            "must not exceed experts",
        ),
        (
            ("experts" in values) != ("experts_per_token" in values),
            "experts",
            "experts and experts_per_token go together (mixture-of-experts models give both)",
        ),
    ]
    failed = False
    for bad, field, message in checks:
        if bad:
            problems.add(file, field, field, message)
            failed = True
    architecture = None
    if "architecture" in values:
        architecture = _architecture(file, values, problems)
        failed = failed or architecture is None
        block = values["architecture"]
        if architecture is not None:
            sources["architecture"] = Source(block["source"], block.get("note"))
    if failed:
        return None
    return Model(
        id=values["id"],
        name=values["name"],
        slug=slug,
        weights_url=values["weights"],
        params=values["params"],
        active_params=values.get("active_params"),
        experts=values.get("experts"),
        experts_per_token=values.get("experts_per_token"),
        context_window=values.get("context_window"),
        precision=values.get("precision"),
        license=values.get("license"),
        release_date=values.get("release_date"),
        architecture=architecture,
        api_price=ApiPrice(**values["api_price"]) if "api_price" in values else None,
        sources=MappingProxyType(sources),
    )


def _architecture(file: YamlFile, model: dict, problems: Problems) -> Architecture | None:
    """The `architecture` block: checked field by field, then for consistency."""
    raw = model["architecture"]
    before = len(problems.lines)
    record = read_record(file, raw, "architecture.", ARCHITECTURE_FIELDS, problems)
    if record is None:
        return None
    values, _ = record
    parts = {}
    for name, fields in (
        ("attention", ATTENTION_FIELDS),
        ("linear_attention", LINEAR_ATTENTION_FIELDS),
        ("moe", MOE_FIELDS),
        ("vision", VISION_FIELDS),
        ("formats", FORMAT_FIELDS),
    ):
        if name in values:
            sub = read_record(file, values[name], f"architecture.{name}.", fields, problems)
            parts[name] = sub[0] if sub else None
    if len(problems.lines) > before:
        return None

    def problem(field: str, message: str) -> None:
        problems.add(file, f"architecture.{field}", f"architecture.{field}", message)

    attention = parts["attention"]
    for needed in REQUIRED_BY_KIND[attention["kind"]]:
        if needed not in attention:
            problem(f"attention.{needed}", f"missing (needed for {attention['kind']} attention)")
    if attention.get("kv_heads") and attention["heads"] % attention["kv_heads"]:
        problem("attention.kv_heads", f"must divide heads ({attention['heads']})")
    if ("sliding_window" in attention) != ("sliding_window_layers" in attention):
        problem("attention.sliding_window", "sliding_window and sliding_window_layers go together")
    linear = parts.get("linear_attention")
    attention_layers = values["layers"] - (linear["layers"] if linear else 0)
    if attention_layers < 1:
        problem("linear_attention.layers", f"must be fewer than layers ({values['layers']})")
    if attention.get("sliding_window_layers", 0) > attention_layers:
        problem("attention.sliding_window_layers", f"must not exceed the {attention_layers} attention layers")
    moe = parts.get("moe")
    if (moe is None) != ("experts" not in model):
        problem("moe", "a model with experts has a moe block, and only such a model")
    dense_layers = values.get("dense_layers")
    if (moe is None or dense_layers) and "intermediate_size" not in values:
        problem("intermediate_size", "missing (the width of the dense MLP layers)")
    if dense_layers is not None and dense_layers > values["layers"]:
        problem("dense_layers", f"must not exceed layers ({values['layers']})")
    if len(problems.lines) > before:
        return None
    formats = dict(parts.get("formats") or {})
    return Architecture(
        layers=values["layers"],
        hidden_size=values["hidden_size"],
        vocab_size=values["vocab_size"],
        tied_embeddings=values["tied_embeddings"],
        attention=Attention(**attention),
        intermediate_size=values.get("intermediate_size"),
        dense_layers=dense_layers,
        norms_per_layer=values.get("norms_per_layer", 2),
        linear_attention=LinearAttention(**linear) if linear else None,
        moe=MixtureOfExperts(**moe) if moe else None,
        extra_layers=values.get("extra_layers", 0),
        extra_layers_embeddings=values.get("extra_layers_embeddings", False),
        vision=VisionTower(**parts["vision"]) if parts.get("vision") else None,
        formats=MappingProxyType({k: v for k, v in formats.items() if k != "default"}),
        default_format=formats.get("default", "bf16"),
    )


def _gpus(file: YamlFile, problems: Problems) -> list[Gpu]:
    entries = file.data.get("gpus") if isinstance(file.data, dict) else None
    if not isinstance(entries, list) or not entries:
        problems.add(file, "gpus", "gpus", "must be a non-empty list of GPUs")
        return []
    gpus = []
    for index, entry in enumerate(entries):
        prefix = f"gpus.{index}."
        extra = {"price_per_gpu_hour": PRICE_EXTRA_KEYS}
        record = read_record(file, entry, prefix, GPU_FIELDS, problems, extra)
        if record is None:
            continue
        values, sources = record
        price_info = entry["price_per_gpu_hour"] if "price_per_gpu_hour" in values else {}
        price_date = None
        if "date" in price_info:
            try:
                price_date = schema.iso_date(price_info["date"])
            except ValueError as error:
                problems.add(file, f"{prefix}price_per_gpu_hour.date", f"{prefix}price_per_gpu_hour.date", str(error))
                continue
        bandwidth = values.get("bandwidth_gb_s")
        gpus.append(
            Gpu(
                slug=values["slug"],
                name=values["name"],
                vendor=values["vendor"],
                memory_bytes=int(values["memory_gb"] * 10**9),
                machine_shapes=values["shapes"],
                memory_type=values.get("memory_type"),
                bandwidth_bytes_per_second=int(bandwidth * 10**9) if bandwidth else None,
                interconnect=values.get("interconnect"),
                price_per_gpu_hour=values.get("price_per_gpu_hour"),
                price_provider=price_info.get("provider"),
                price_date=price_date,
                sources=MappingProxyType(sources),
            )
        )
    return gpus


def _site(file: YamlFile, problems: Problems) -> Site | None:
    record = read_record(file, file.data, "", SITE_FIELDS, problems)
    if record is None:
        return None
    values, _ = record
    return Site(**values)


def _read(path: Path, problems: Problems) -> YamlFile | None:
    cwd = Path.cwd()
    display = (path.relative_to(cwd) if path.is_relative_to(cwd) else path).as_posix()
    if not path.is_file():
        problems.lines.append(f"{display}:1: (file): missing file")
        return None
    try:
        return read_yaml(path, display)
    except YamlSyntaxError as error:
        problems.lines.append(str(error))
        return None


def load_catalog(content_dir: Path) -> Catalog:
    """Read site.yaml, gpus.yaml and models/*.yaml; raise CatalogError listing every problem."""
    content_dir = Path(content_dir).absolute()
    problems = Problems()
    site_file = _read(content_dir / "site.yaml", problems)
    site = _site(site_file, problems) if site_file else None
    gpus_file = _read(content_dir / "gpus.yaml", problems)
    gpus = _gpus(gpus_file, problems) if gpus_file else []
    _check_unique(gpus_file, [(g.slug, i) for i, g in enumerate(gpus)], "gpus.{}.slug", "GPU slug", problems)

    model_paths = sorted((content_dir / "models").glob("*.yaml"))
    if not model_paths:
        problems.lines.append(f"{(content_dir / 'models').as_posix()}:1: (folder): no models/*.yaml files")
    models: list[Model] = []
    seen_ids: dict[str, str] = {}
    for path in model_paths:
        file = _read(path, problems)
        if file is None:
            continue
        model = _model(file, path.stem, problems)
        if model is None:
            continue
        key = model.id.lower()
        if key in seen_ids:
            problems.add(file, "id", "id", f"duplicate id '{model.id}' (already in {seen_ids[key]})")
            continue
        seen_ids[key] = file.path
        models.append(model)

    if problems.lines:
        raise CatalogError(problems.lines)
    assert site is not None
    return Catalog(site=site, gpus=tuple(gpus), models=tuple(models))


def _check_unique(file, keyed, path_pattern, what, problems):
    seen: set[str] = set()
    for key, index in keyed:
        if key in seen:
            problems.add(file, path_pattern.format(index), path_pattern.format(index), f"duplicate {what} '{key}'")
        seen.add(key)
