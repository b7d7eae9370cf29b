"""vLLM 0.33.0's KV cache and workspace for DeepSeek-V4's compressed attention. Pure.

Read in the released wheel (vllm-0.33.0, CUDA's default FlashMLA path on Hopper and Blackwell):
- models/deepseek_v4/attention.py: "auto" and "fp8" KV caches both become fp8_ds_mla, 584 bytes a
  stored row ("448B NoPE + 128B RoPE + 8B fp8 scale"), pages padded to a multiple of 576 bytes;
  each layer of ratio r > 0 keeps an MLAAttentionSpec of one row per r tokens in blocks of 256
  tokens, and at ratio 4 the indexer's keys (DeepseekV4IndexerCache: 128 FP8 values and a 4-byte
  scale a row, V3.2's layout);
- v1/attention/backends/mla/sparse_swa.py DeepseekV4SWACache: every layer's window of rows, a
  SlidingWindowMLASpec of 64-token blocks;
- models/deepseek_v4/compressor.py CompressorStateCache: the compressors' FP32 state, blocks of 4
  tokens at ratio 4 and 8 at ratio 128, window coff × ratio;
- v1/core/kv_cache_planning.py _get_packed_kv_cache_groups and _get_kv_cache_bytes_per_block: specs
  of one block size and window share a bucket; buckets with as many layers of each page size repeat
  a pattern and split into groups of `_approximate_gcd` repeats; every group takes one block of the
  widest group's bytes per block id;
- models/deepseek_v4/nvidia/flashmla.py, model.py and model_executor/layers/sparse_attn_indexer.py:
  what the profile run reserves besides (attention_workspace).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Container, Sequence

from generator.catalog.records import Architecture
from generator.sizing.engine import GIB, cdiv, round_up
from generator.sizing.layer_kinds import CompressedLayers, CompressorStateLayers, LatentLayers, layer_kinds

ROW_SCALE_BYTES = 8  # fp8_ds_mla: the UE8M0 scales of a row's FP8 part
PAGE_ALIGNMENT = 576
COMPRESSED_BLOCK_SIZE = 256  # the FlashMLA and indexer backends' only kernel block size
WINDOW_BLOCK_SIZE = 64  # DeepseekV4SWACache's block_size
COMPRESSOR_BLOCK_SIZES = {4: 4, 128: 8}  # CompressorStateCache, by ratio
INDEXER_SCALE_GROUP = 128  # the indexer's FP8 keys: a 4-byte scale per 128 values
FP32_BYTES = 4


@dataclass(frozen=True)
class CacheSpec:
    """The caches of one kind in these `layers` (their indexes; a drafting layer past the model's):
    `page_bytes` a block of `block_size` tokens; `window`: a sliding-window spec's (None: every token)."""

    layers: tuple[int, ...]
    page_bytes: int
    block_size: int
    window: int | None


def _page(block_tokens: int, row_bytes: int) -> int:
    return round_up(block_tokens * row_bytes, PAGE_ALIGNMENT)


def row_bytes(arch: Architecture) -> int:
    """One stored row in fp8_ds_mla: FP8 values without rope, BF16 rope values, the scales."""
    a = arch.attention
    return (a.head_dim - a.qk_rope_head_dim) + 2 * a.qk_rope_head_dim + ROW_SCALE_BYTES


def cache_specs(arch: Architecture, drafting: int = 0) -> tuple[CacheSpec, ...]:
    """Every cache the model's layers (and `drafting` prediction layers, after them, which compress
    nothing) keep, as vLLM specs them, layer by layer as the model registers them."""
    row, ratios = row_bytes(arch), arch.attention.compress_ratios
    specs = []
    for kind in layer_kinds(arch, drafting):
        if isinstance(kind, LatentLayers):
            specs.append(CacheSpec(tuple(range(kind.layers)), _page(WINDOW_BLOCK_SIZE, row), WINDOW_BLOCK_SIZE, kind.window))
            continue
        layers = tuple(layer for layer, ratio in enumerate(ratios) if ratio == kind.ratio)
        if isinstance(kind, CompressedLayers):
            specs.append(CacheSpec(layers, _page(COMPRESSED_BLOCK_SIZE // kind.ratio, row), COMPRESSED_BLOCK_SIZE, None))
            if kind.indexer:
                indexer_row = kind.indexer + kind.indexer // INDEXER_SCALE_GROUP * FP32_BYTES
                specs.append(CacheSpec(layers, _page(COMPRESSED_BLOCK_SIZE // kind.ratio, indexer_row), COMPRESSED_BLOCK_SIZE, None))
        elif isinstance(kind, CompressorStateLayers):
            block = COMPRESSOR_BLOCK_SIZES[kind.ratio]
            for values in (kind.row_values, kind.indexer_values):
                if values:
                    specs.append(CacheSpec(layers, _page(block, values * FP32_BYTES), block, kind.tokens))
    return tuple(specs)


@dataclass(frozen=True)
class PackedGroups:
    """vLLM's KV cache groups over specs of several page sizes: `groups` groups of each spec's
    bucket, and the (layer, page bytes) of each group."""

    buckets: tuple[tuple[int, int, int | None], ...]  # (groups, block_size, window), one per bucket
    groups: tuple[tuple[tuple[int, int], ...], ...]

    def bytes_per_block(self, layers: Container[int]) -> int:
        """What one block id costs a worker holding these layers: the widest group's pages among
        them (vLLM groups the whole model, then each pipeline stage keeps its own layers of every
        group: kv_cache_planning.py _project_kv_cache_groups_to_worker, _get_kv_cache_bytes_per_block)."""
        return max(sum(page for layer, page in group if layer in layers) for group in self.groups)


def approximate_gcd(values: Sequence[int], lower_bound: int) -> int:
    """The chunk size in [lower_bound, max(values)] that pads the values up the least, the larger
    on a tie (kv_cache_planning.py _approximate_gcd)."""
    best, best_pad = lower_bound, None
    for size in range(lower_bound, max(values) + 1):
        pad = sum(-value % size for value in values)
        if best_pad is None or pad <= best_pad:
            best, best_pad = size, pad
    return best


def packed_groups(specs: Sequence[CacheSpec]) -> PackedGroups:
    """_get_packed_kv_cache_groups: specs of one block size and window share a bucket; a bucket with
    as many layers of each page size is a repeating pattern (one layer of each page size a repeat,
    in layer order), its repeats dealt round into groups of `repeats` of them (at least the largest
    such bucket of several page sizes, which stays whole); the others stay one group."""
    buckets: dict[tuple[int, int | None], dict[int, list[int]]] = {}
    for spec in specs:
        buckets.setdefault((spec.block_size, spec.window), {}).setdefault(spec.page_bytes, []).extend(spec.layers)
    balanced = {key: len({len(layers) for layers in pages.values()}) == 1 for key, pages in buckets.items()}
    longest = {key: max(len(layers) for layers in pages.values()) for key, pages in buckets.items()}
    floor = max((longest[key] for key, pages in buckets.items() if balanced[key] and len(pages) > 1), default=0)
    repeats = approximate_gcd([longest[key] for key in buckets if balanced[key]], floor) if floor else None
    rows, groups = [], []
    for key, pages in buckets.items():
        count = cdiv(longest[key], repeats) if balanced[key] and repeats else 1
        rows.append((count, *key))
        pattern = list(zip(*([(layer, page) for layer in layers] for page, layers in pages.items())))
        if count == 1:
            groups.append(tuple((layer, page) for page, layers in pages.items() for layer in layers))
        else:
            groups += [tuple(pair for repeat in pattern[index::count] for pair in repeat) for index in range(count)]
    return PackedGroups(tuple(rows), tuple(groups))


# The indexer's logits in the profile's forward pass: VLLM_SPARSE_INDEXER_MAX_LOGITS_MB = 512 (envs.py),
# a transient freed before the sampler runs (sparse_attn_indexer.py: "simulate for peak logits tensor
# memory"), so engine_vllm.activation_peak adds it to the forward pass, not to the sampler's peak.
INDEXER_LOGITS_BYTES = GIB // 2
PREFILL_CHUNK = 4  # DeepseekV4FlashMLAAttention.PREFILL_CHUNK_SIZE
WORKSPACE_ALIGNMENT = 256
INT32_BYTES = 4
BF16_BYTES = 2


@dataclass(frozen=True)
class AttentionWorkspace:
    """What the profile run keeps for the compressed attention: `per_row` bytes for each of the
    ceil(context / ratio) compressed rows FlashMLA's prefill workspace gathers, and `constant`
    bytes besides."""

    per_row: int
    ratio: int
    constant: int

    def bytes(self, context: int) -> int:
        return self.per_row * cdiv(context, self.ratio) + self.constant


def attention_workspace(arch: Architecture, batch_tokens: int, drafting: bool = False) -> AttentionWorkspace:
    """FlashMLA's prefill workspace (flashmla.py: PREFILL_CHUNK × (ceil(context / ratio) + window +
    batch) BF16 rows of head_dim at the smallest ratio, and the batch's combined top-k and lengths in
    int32, each part rounded to 256 bytes: the rows' part is a multiple of 256 already, head_dim
    being one of 32), and the shared top-k indices buffer (model.py: batch × index_topk int32); with
    MTP drafting, the hidden states the draft reads (model.py _mtp_hidden_buffer: batch × hc × hidden
    in BF16)."""
    a = arch.attention
    per_row = PREFILL_CHUNK * a.head_dim * BF16_BYTES
    constant = (per_row * (a.sliding_window + batch_tokens)
                + round_up(batch_tokens * round_up(a.indexer_top_k + a.sliding_window, 128) * INT32_BYTES, WORKSPACE_ALIGNMENT)
                + round_up(batch_tokens * INT32_BYTES, WORKSPACE_ALIGNMENT)
                + batch_tokens * a.indexer_top_k * INT32_BYTES
                + (batch_tokens * arch.hyper_connections * arch.hidden_size * BF16_BYTES if drafting else 0))
    return AttentionWorkspace(per_row, min(ratio for ratio in a.compress_ratios if ratio), constant)
