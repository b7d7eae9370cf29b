"""The `architecture` block of a model file: checked field by field, built, then checked whole."""

from __future__ import annotations

from types import MappingProxyType

from generator.catalog.fields import (
    ARCHITECTURE_FIELDS,
    ATTENTION_FIELDS,
    FORMAT_FIELDS,
    LINEAR_ATTENTION_FIELDS,
    MOE_FIELDS,
    REQUIRED_BY_KIND,
    VISION_FIELDS,
)
from generator.catalog.records import Architecture, Attention, LinearAttention, MixtureOfExperts, VisionTower
from generator.catalog.schema import Problems, read_record
from generator.catalog.yaml_file import YamlFile

PARTS = {
    "attention": ATTENTION_FIELDS,
    "linear_attention": LINEAR_ATTENTION_FIELDS,
    "moe": MOE_FIELDS,
    "vision": VISION_FIELDS,
    "formats": FORMAT_FIELDS,
}


def _build(values: dict, parts: dict) -> Architecture:
    linear, moe, vision = parts.get("linear_attention"), parts.get("moe"), parts.get("vision")
    formats = dict(parts.get("formats") or {})
    return Architecture(
        layers=values["layers"],
        hidden_size=values["hidden_size"],
        vocab_size=values["vocab_size"],
        tied_embeddings=values["tied_embeddings"],
        attention=Attention(**parts["attention"]),
        intermediate_size=values.get("intermediate_size"),
        dense_layers=values.get("dense_layers"),
        norms_per_layer=values.get("norms_per_layer", 2),
        linear_attention=LinearAttention(**linear) if linear else None,
        moe=MixtureOfExperts(**moe) if moe else None,
        extra_layers=values.get("extra_layers", 0),
        extra_layers_embeddings=values.get("extra_layers_embeddings", False),
        extra_layers_in_gguf=values.get("extra_layers_in_gguf", False),
        layer_pattern=values.get("layer_pattern"),
        config_class=values.get("config_class"),
        gated_mlp=values.get("gated_mlp", True),
        ffn_widths=values.get("ffn_widths", ()),
        attention_free_layers=tuple(sorted(values.get("attention_free_layers", ()))),
        vision=VisionTower(**vision) if vision else None,
        hyper_connections=values.get("hyper_connections", 0),
        hash_layers=values.get("hash_layers", 0),
        formats=MappingProxyType({k: v for k, v in formats.items() if k != "default"}),
        default_format=formats.get("default", "bf16"),
    )


def _inconsistencies(arch: Architecture, has_experts: bool) -> list[tuple[str, str]]:
    """(field, problem) for every value that contradicts another."""
    attention = arch.attention
    indexer_given = attention.indexer_heads is not None or attention.indexer_head_dim is not None
    indexer = "attention.indexer_heads" if attention.indexer_heads is not None else "attention.indexer_head_dim"
    found = [
        (f"attention.{needed}", f"missing (needed for {attention.kind} attention)")
        for needed in REQUIRED_BY_KIND[attention.kind]
        if getattr(attention, needed) is None
    ]
    vision = arch.vision
    if vision is not None and vision.layout == "vit" and vision.merge_size and vision.output_size is None:
        found.append(("vision.output_size", "missing (a tower with merge_size merges its patches into tokens of this width)"))
    checks = [
        (attention.kv_heads and attention.heads % attention.kv_heads, "attention.kv_heads", f"must divide heads ({attention.heads})"),
        (
            (attention.sliding_window is None) != (attention.sliding_window_layers == 0),
            "attention.sliding_window",
            "sliding_window and sliding_window_layers go together",
        ),
        (arch.attention_layers < 1, "linear_attention.layers", f"must be fewer than layers ({arch.layers})"),
        (
            attention.sliding_window_layers > arch.attention_layers,
            "attention.sliding_window_layers",
            f"must not exceed the {arch.attention_layers} attention layers",
        ),
        ((arch.moe is None) == has_experts, "moe", "a model with experts has a moe block, and only such a model"),
        (
            arch.dense_mlp_layers and arch.intermediate_size is None and not arch.ffn_widths,
            "intermediate_size",
            "missing (the width of the dense MLP layers)",
        ),
        ((arch.dense_layers or 0) > arch.layers, "dense_layers", f"must not exceed layers ({arch.layers})"),
        (
            bool(attention.shared_indexer_layers) and (attention.kind != "mla" or attention.indexer_heads is None),
            "attention.shared_indexer_layers",
            "needs mla attention with an indexer (the shared layers reuse an earlier layer's)",
        ),
        (
            any(layer >= arch.layers or layer == 0 for layer in attention.shared_indexer_layers),
            "attention.shared_indexer_layers",
            f"must be layers 1 to {arch.layers - 1} (layer 0 has no earlier indexer to share)",
        ),
        (
            (attention.indexer_heads is None) != (attention.indexer_head_dim is None),
            indexer,
            "indexer_heads and indexer_head_dim go together (a sparse-attention indexer has both)",
        ),
        (
            indexer_given and (attention.kind == "gqa" or attention.q_lora_rank is None),
            indexer,
            "needs mla or compressed attention with q_lora_rank (the indexer's queries come from the query latent)",
        ),
        (
            attention.global_differs and (attention.kind != "gqa" or not attention.sliding_window_layers),
            "attention.global_kv_heads" if attention.global_kv_heads else "attention.global_head_dim"
            if attention.global_head_dim else "attention.global_key_is_value",
            "goes only with gqa attention that has sliding-window layers (the global layers' own attention)",
        ),
        (
            attention.global_kv_heads and attention.heads % attention.global_kv_heads,
            "attention.global_kv_heads",
            f"must divide heads ({attention.heads})",
        ),
        *_compressed_problems(arch),
        *_pattern_problems(arch),
        *_block_problems(arch),
        (
            arch.extra_layers_in_gguf and not arch.extra_layers,
            "extra_layers_in_gguf",
            "needs extra_layers (the prediction layers the converter keeps)",
        ),
    ]
    return found + [(field, message) for bad, field, message in checks if bad]


def _compressed_problems(arch: Architecture) -> list[tuple[bool, str, str]]:
    """DeepSeek-V4's compressed attention: a ratio per layer, the window on every layer, the indexer
    where layers compress by 4, the output groups splitting the heads."""
    a = arch.attention
    compressed = a.kind == "compressed"
    given = "attention.compress_ratios" if a.compress_ratios else "attention.output_groups" if a.output_groups \
        else "attention.output_rank" if a.output_rank else "hyper_connections" if arch.hyper_connections else "hash_layers"
    if not compressed:
        return [(bool(a.compress_ratios or a.output_groups or a.output_rank or arch.hyper_connections or arch.hash_layers),
                 given, "goes only with compressed attention (DeepSeek-V4)")]
    return [
        (len(a.compress_ratios) != arch.layers, "attention.compress_ratios",
         f"must give one ratio per layer ({arch.layers}, got {len(a.compress_ratios)})"),
        (a.sliding_window_layers != arch.layers, "attention.sliding_window_layers",
         f"must be every layer ({arch.layers}): each keeps the window"),
        ((4 in a.compress_ratios) != (a.indexer_heads is not None), "attention.indexer_heads",
         "goes with layers of ratio 4, and only with them (the Lightning indexer)"),
        (bool(a.head_dim and a.output_groups) and a.heads * a.head_dim % a.output_groups != 0, "attention.output_groups",
         f"must divide heads × head_dim ({a.heads} × {a.head_dim})"),
        (bool(a.head_dim and a.qk_rope_head_dim) and a.qk_rope_head_dim >= a.head_dim, "attention.qk_rope_head_dim",
         f"must be below head_dim ({a.head_dim})"),
        (bool(a.head_dim) and any(a.head_dim % ratio or a.head_dim % 32 for ratio in a.compress_ratios if ratio)
         or bool(a.indexer_head_dim) and a.indexer_head_dim % 128, "attention.head_dim",
         "must be a multiple of 32 and of every ratio, and indexer_head_dim of 128 (whole rows a token, whole scale groups)"),
        (not any(a.compress_ratios), "attention.compress_ratios", "needs at least one layer that compresses (4 or 128)"),
        (arch.hash_layers > arch.moe_layers, "hash_layers", f"must not exceed the {arch.moe_layers} MoE layers"),
        (arch.extra_layers_in_gguf, "extra_layers_in_gguf",
         "does not go with compressed attention (llama.cpp's converter writes its MTP layer to a file of its own)"),
        (arch.linear_attention is not None or arch.layer_pattern is not None or arch.layers_differ,
         "attention.kind", "compressed attention goes only with every layer alike (no linear_attention, pattern or blocks)"),
    ]


def _pattern_problems(arch: Architecture) -> list[tuple[bool, str, str]]:
    pattern = arch.layer_pattern
    if pattern is None:
        return []
    mamba = arch.linear_attention.layers if arch.linear_attention else 0
    return [
        (len(pattern) != arch.layers, "layer_pattern", f"must have one letter per layer ({arch.layers}, got {len(pattern)})"),
        (pattern.count("M") != mamba, "layer_pattern", f"has {pattern.count('M')} M layers but linear_attention.layers is {mamba}"),
        ("M" in pattern and (arch.linear_attention is None or arch.linear_attention.kind != "mamba2"), "layer_pattern",
         "M layers need a mamba2 linear_attention block"),
        ("*" not in pattern, "layer_pattern", "needs at least one attention layer (*)"),
        (("E" in pattern) != (arch.moe is not None), "layer_pattern", "has E layers exactly when there is a moe block"),
        ("-" in pattern and arch.intermediate_size is None, "intermediate_size", "missing (the width of the - layers' MLP)"),
        (arch.dense_layers is not None, "dense_layers", "does not go with layer_pattern (the letters say which layers are dense)"),
    ]


def _block_problems(arch: Architecture) -> list[tuple[bool, str, str]]:
    """Nemotron-NAS's per-layer blocks: on a dense model of softmax attention only."""
    if not arch.layers_differ:
        return []
    field = "ffn_widths" if arch.ffn_widths else "attention_free_layers"
    other = (arch.moe is not None or arch.linear_attention is not None or arch.layer_pattern is not None
             or arch.extra_layers or arch.attention.sliding_window_layers or arch.dense_layers is not None)
    return [
        (bool(arch.ffn_widths) and len(arch.ffn_widths) != arch.layers, "ffn_widths",
         f"must give one width per layer ({arch.layers}, got {len(arch.ffn_widths)})"),
        (any(layer >= arch.layers for layer in arch.attention_free_layers), "attention_free_layers",
         f"must list layers below {arch.layers}"),
        (len(arch.attention_free_layers) >= arch.layers, "attention_free_layers", "must leave at least one layer with attention"),
        (bool(arch.ffn_widths) and not any(arch.ffn_widths), "ffn_widths", "needs at least one layer with an MLP (a width above 0)"),
        (bool(other), field, "goes only with a dense model of full softmax attention (no moe, linear_attention, "
         "layer_pattern, extra_layers, sliding window or dense_layers)"),
    ]


def read_architecture(file: YamlFile, raw: object, has_experts: bool, problems: Problems) -> Architecture | None:
    before = len(problems.lines)
    record = read_record(file, raw, "architecture.", ARCHITECTURE_FIELDS, problems)
    if record is None:
        return None
    values, _ = record
    parts = {}
    for name, fields in PARTS.items():
        if name in values:
            part = read_record(file, values[name], f"architecture.{name}.", fields, problems)
            parts[name] = part[0] if part else None
    if len(problems.lines) > before:
        return None
    arch = _build(values, parts)
    for field, message in _inconsistencies(arch, has_experts):
        problems.add(file, f"architecture.{field}", f"architecture.{field}", message)
    return None if len(problems.lines) > before else arch
