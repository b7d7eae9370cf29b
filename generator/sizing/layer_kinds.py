"""The kinds of layer the sizing knows, as data. Pure.

Like vLLM's one spec class per kind (vllm/v1/kv_cache_interface.py: FullAttentionSpec,
SlidingWindowSpec, MLAAttentionSpec, MambaSpec), each record says what one layer of its kind keeps
per sequence besides the weights, how tensor parallelism splits it and how an engine allocates it:

- `values_on_gpu(tensor)`: values cached per token (`per_sequence` False) or held once per sequence
  (`per_sequence` True: a recurrent state), on one of `tensor` GPUs;
- `window`: the tokens a sliding-window layer keeps (None: every token);
- `llama_cpp_rows`: the rows llama.cpp's cache stores per token (each quantized in blocks of the
  cache type), or () where llama.cpp keeps no per-token cache.

The KV cache (kv_cache.py), the planner, llama.cpp and the plan tables read these records: the
formula of a kind exists here once. A new kind is one record and its line in `layer_kinds`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from generator.catalog.records import Architecture


@dataclass(frozen=True)
class AttentionLayers:
    """Grouped-query (or multi-head) attention: a key and a value of `head_dim` per KV head."""

    layers: int
    kv_heads: int
    head_dim: int
    window: int | None = None
    per_sequence = False

    def values_on_gpu(self, tensor: int) -> int:
        # KV heads split over the GPUs, one copy each when fewer than the GPUs
        # (vllm/config/model.py get_num_kv_heads: max(1, kv_heads // tp)).
        return 2 * max(1, self.kv_heads // tensor) * self.head_dim

    @property
    def llama_cpp_rows(self) -> tuple[int, ...]:
        return (self.kv_heads * self.head_dim,) * 2  # a K row and a V row


@dataclass(frozen=True)
class LatentLayers:
    """Multi-head latent attention: one compressed latent (kv_lora_rank) plus the shared rope key
    per token, no factor 2 for K and V, no per-head copies; DeepSeek sparse attention adds one
    indexer key. The latent is whole on every GPU (get_num_kv_heads: 1 for MLA)."""

    layers: int
    latent: int  # kv_lora_rank + qk_rope_head_dim
    indexer: int = 0  # indexer_head_dim
    window: int | None = None
    per_sequence = False

    def values_on_gpu(self, tensor: int) -> int:
        return self.latent + self.indexer

    @property
    def llama_cpp_rows(self) -> tuple[int, ...]:
        # llama.cpp caches the latent and the rope key as K only (no V cache), and no indexer key
        # at the commit llama_cpp.py follows.
        return (self.latent,)


@dataclass(frozen=True)
class RecurrentStateLayers:
    """Linear attention (gated delta rule): a key_dim × value_dim matrix per value head, plus the
    last (conv_kernel - 1) inputs of its short convolution over q, k and v, once per sequence."""

    layers: int
    value_heads: int
    key_head_dim: int
    value_head_dim: int
    conv_width: int  # 2 × key_dim + value_dim: the channels the convolution runs over
    conv_kernel: int
    window = None
    per_sequence = True
    llama_cpp_rows = ()

    def values_on_gpu(self, tensor: int) -> int:
        # value heads and convolution channels split over the GPUs
        matrix = self.value_heads // tensor * self.key_head_dim * self.value_head_dim
        return matrix + (self.conv_kernel - 1) * self.conv_width // tensor


LayerKind = AttentionLayers | LatentLayers | RecurrentStateLayers


def _softmax_layers(arch: Architecture, layers: int, window: int | None) -> AttentionLayers | LatentLayers:
    attention = arch.attention
    if attention.kind == "mla":
        return LatentLayers(layers, attention.kv_lora_rank + attention.qk_rope_head_dim, attention.indexer_head_dim or 0, window)
    return AttentionLayers(layers, attention.kv_heads, attention.head_dim, window)


def layer_kinds(arch: Architecture) -> tuple[LayerKind, ...]:
    """The model's layers by kind: full attention, sliding window, recurrent state (those it has)."""
    attention, linear = arch.attention, arch.linear_attention
    windowed = attention.sliding_window_layers
    kinds = [_softmax_layers(arch, arch.attention_layers - windowed, None)]
    if windowed:
        kinds.append(_softmax_layers(arch, windowed, attention.sliding_window))
    if linear:
        kinds.append(RecurrentStateLayers(linear.layers, linear.value_heads, linear.key_head_dim, linear.value_head_dim,
                                          2 * linear.key_dim + linear.value_dim, linear.conv_kernel))
    return tuple(kind for kind in kinds if kind.layers)


class KindBytes(NamedTuple):
    """A kind's layers as an engine on one of several GPUs holds them: what the plan tables export."""

    layers: int
    bytes: int  # per token of one layer, or per sequence of one layer for a state
    window: int | None
    per_sequence: bool


# NOTE: recurrent states stay in the model's 16-bit type with an FP8 KV cache (vLLM's MambaSpec
# takes the model dtype, SGLang's mamba pool too).
STATE_BYTES_PER_VALUE = 2


def kind_bytes(arch: Architecture, tensor: int, bytes_per_value: int) -> tuple[KindBytes, ...]:
    """Each kind on one of `tensor` GPUs, its cached values at `bytes_per_value` bytes."""
    return tuple(
        KindBytes(kind.layers, kind.values_on_gpu(tensor) * (STATE_BYTES_PER_VALUE if kind.per_sequence else bytes_per_value),
                  kind.window, kind.per_sequence)
        for kind in layer_kinds(arch)
    )
