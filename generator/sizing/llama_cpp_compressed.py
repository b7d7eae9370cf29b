"""llama.cpp's cache for DeepSeek-V4's compressed attention (llama_kv_cache_dsv4). Pure.

Read at commit 82bb48500a9a6b3374da2cf5811695369278e4d3 (2026-08-07), src/llama-kv-cache-dsv4.cpp:
- every layer keeps its raw rows in a sliding-window store of PAD(min(C, n_swa + n_ubatch), 256) cells
  (the constructor calls the iswa cache with unified false, L1189-1206; llama-kv-cache-iswa.cpp L73);
- a layer of ratio 4 keeps PAD(ceil(C / 4), 256) compressed rows (CSA, L1240-1243) and as many keys of
  the lightning indexer (L1256-1259); a layer of ratio 128 PAD(ceil(C / 128), 256) (HCA, L1248-1251);
  each store holds K only (dsv4_make_k_only), in --cache-type-k, rows of head_dim (the indexer's of
  indexer_head_dim);
- the compressors' state is F32 whatever the cache type (L912-914): layer_kinds.CompressorStateLayers;
- every store keeps one stream per sequence, each of the whole context, unified or not
  (GGML_UNUSED(unified), L1189-1192, L1235): llama-server's 4 default slots would hold 4 of them, so
  the commands here always pass --parallel (1 for one user), without a unified cache. C is n_ctx_seq
  (llama-context.cpp L285-300): PAD(--ctx-size / n_seq_max, 256).
A public log at 131,072 tokens, f16, one sequence: "SWA 32.25 MiB, CSA 672 MiB, HCA 20 MiB,
lightning-indexer 168 MiB" (ggml-org/llama.cpp issue 25468), which
tests/test_formulas_compressed_attention.py reproduces.
"""

from __future__ import annotations

from dataclasses import dataclass

from generator.catalog.records import Architecture
from generator.sizing.engine import cdiv, round_up
from generator.sizing.layer_kinds import CompressedLayers, CompressorStateLayers, layer_kinds
from generator.sizing.llama_cpp_context import CONTEXT_PADDING, N_UBATCH
LETTERS = {0: "w", 4: "c", 128: "h"}  # llama_cpp.layer_caches: a layer by its compression ratio


@dataclass(frozen=True)
class Store:
    """One of a layer's caches: `values` a cell (K only), one cell per `ratio` tokens (None: the window's)."""

    values: int
    ratio: int | None


@dataclass(frozen=True)
class LayerStores:
    """What a layer of one ratio keeps for one sequence: its stores and its compressors' FP32 state."""

    stores: tuple[Store, ...]
    state_bytes: int


def layer_stores(arch: Architecture) -> dict[str, LayerStores]:
    """The stores of a layer of each ratio, by its llama_cpp.layer_caches letter."""
    window = Store(arch.attention.head_dim, None)
    result = {LETTERS[0]: LayerStores((window,), 0)}
    kinds = layer_kinds(arch)
    for kind in kinds:
        if isinstance(kind, CompressedLayers):
            compressed = [Store(kind.row, kind.ratio)] + ([Store(kind.indexer, kind.ratio)] if kind.indexer else [])
            state = next(s for s in kinds if isinstance(s, CompressorStateLayers) and s.of == kind)
            result[LETTERS[kind.ratio]] = LayerStores((window, *compressed), state.state_bytes_on_gpu(1))
    return result


def layer_letters(arch: Architecture) -> str:
    return "".join(LETTERS[ratio] for ratio in arch.attention.compress_ratios)


def streams(cells: int, users: int) -> tuple[int, int]:
    """(streams, cells of each) with --parallel `users`: a stream per sequence, each its share of
    --ctx-size, padded."""
    return users, round_up(cells // users, CONTEXT_PADDING)


def store_cells(store: Store, context: int, window: int) -> int:
    if store.ratio is None:
        return round_up(min(context, window + N_UBATCH), CONTEXT_PADDING)
    return round_up(max(1, cdiv(context, store.ratio)), CONTEXT_PADDING)


def letter_bytes(stores: LayerStores, rows: list[int], cells: int, users: int, window: int) -> int:
    """What one layer of these stores holds for every slot: each store's cells at its row's bytes in
    the cache type (`rows`, one per store), and the state, in each stream."""
    count, context = streams(cells, users)
    per_stream = sum(store_cells(store, context, window) * row for store, row in zip(stores.stores, rows))
    return count * (per_stream + stores.state_bytes)
