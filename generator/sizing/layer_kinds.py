"""The kinds of layer the sizing knows, as data. Pure.

Like vLLM's one spec class per kind (vllm/v1/kv_cache_interface.py: FullAttentionSpec,
SlidingWindowSpec, MLAAttentionSpec, MambaSpec), each record says what one layer of its kind keeps
per sequence besides the weights, how tensor parallelism splits it and how an engine allocates it:

- `values_on_gpu(tensor)`: values cached per token (`per_sequence` False) or held once per sequence
  (`per_sequence` True: a recurrent state), on one of `tensor` GPUs;
- `window`: the tokens a sliding-window layer keeps (None: every token);
- `llama_cpp_rows`: the rows llama.cpp's cache stores per token (each quantized in blocks of the
  cache type), or () where llama.cpp keeps no per-token cache.

The weights of one layer of each kind of attention are here too (`attention_tensors`,
`linear_attention_tensors`): the checkpoint's tensors (weights.py) and the GGUF file's (gguf.py)
are both read from them. The KV cache (kv_cache.py), the planner, llama.cpp and the plan tables read
the records: the formula of a kind exists here once. A new kind is one record, its line in
`layer_kinds` and its tensors.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from generator.catalog.records import Architecture, Attention


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
        # llama.cpp caches the latent and the rope key as K only (no V cache); DeepSeek sparse
        # attention's indexer key in a second cache of one 128-value K head, at the same cache type
        # (src/llama-kv-cache-dsa.cpp at 4df29be4: "indexer uses MQA with single key head", is_mla: no V).
        return (self.latent, self.indexer) if self.indexer else (self.latent,)


@dataclass(frozen=True)
class RecurrentStateLayers:
    """Linear attention (gated delta rule) or Mamba2: a key_dim × value_dim matrix per value head,
    plus the last (conv_kernel - 1) inputs of its short convolution over q, k and v (Mamba2: x, B
    and C), once per sequence."""

    layers: int
    value_heads: int
    key_head_dim: int
    value_head_dim: int
    conv_width: int  # 2 × key_dim + value_dim: the channels the convolution runs over
    conv_kernel: int
    # Mamba2's B and C groups: vLLM copies them to every GPU when they do not split evenly
    # (vllm/model_executor/layers/mamba/mamba_mixer2.py: extra_groups_for_head_shards); 0: none
    groups: int = 0
    matrix_bytes_per_value: int = 2  # 4 where the config asks for an FP32 SSM state (mamba_ssm_cache_dtype)
    window = None
    per_sequence = True
    llama_cpp_rows = ()

    def _matrix_values(self, tensor: int) -> int:
        return self.value_heads // tensor * self.key_head_dim * self.value_head_dim  # value heads split

    def _conv_values(self, tensor: int) -> int:
        # convolution channels split over the GPUs
        if not self.groups or self.groups % tensor == 0:
            return (self.conv_kernel - 1) * self.conv_width // tensor
        # groups copied up to one per GPU: x splits, each GPU keeps the B and C of its group
        group_channels = 2 * self.groups * self.key_head_dim
        per_gpu = (self.conv_width - group_channels) // tensor + 2 * self.key_head_dim * -(-self.groups // tensor)
        return (self.conv_kernel - 1) * per_gpu

    def values_on_gpu(self, tensor: int) -> int:
        return self._matrix_values(tensor) + self._conv_values(tensor)

    def state_bytes_on_gpu(self, tensor: int) -> int:
        """One sequence's state on one of `tensor` GPUs as vLLM and SGLang keep it: the convolution's
        in the model's 16 bits, the matrix in 16 bits or FP32 (vllm/model_executor/layers/mamba/
        mamba_utils.py: mamba_cache_dtype and mamba_ssm_cache_dtype, "auto" the model's dtype, and
        models/config.py NemotronHForCausalLMConfig: the HF config's mamba_ssm_cache_dtype, else FP32)."""
        return self._matrix_values(tensor) * self.matrix_bytes_per_value + self._conv_values(tensor) * STATE_BYTES_PER_VALUE


@dataclass(frozen=True)
class CompressedLayers:
    """DeepSeek-V4's layers of one compression ratio r > 0: one KV row of `row` values per r tokens
    of the whole context, and at ratio 4 the indexer's key of `indexer` values per 4 tokens; whole
    on every GPU (vLLM 0.33.0 models/deepseek_v4/attention.py: num_kv_heads 1, max_tp_shards 1)."""

    layers: int
    ratio: int
    row: int  # head_dim
    indexer: int = 0  # indexer_head_dim, at ratio 4
    window = None
    per_sequence = False
    llama_cpp_rows = ()

    def values_on_gpu(self, tensor: int) -> int:
        return (self.row + self.indexer) // self.ratio  # the schema has head_dim a multiple of every ratio


@dataclass(frozen=True)
class CompressorStateLayers:
    """DeepSeek-V4's compressors in the layers of one ratio: the FP32 inputs of the rows a layer is
    still compressing (a kv and a score value per channel; two overlapping rows at ratio 4), over
    the last `tokens` tokens, once per sequence; at ratio 4 the indexer's compressor besides (vLLM
    0.33.0 models/deepseek_v4/compressor.py CompressorStateCache: state_dim 2 × coff × head_dim in
    FP32, sliding_window coff × ratio, coff 2 at ratio 4)."""

    of: CompressedLayers  # the layers whose compressors these are
    window = None
    per_sequence = True
    llama_cpp_rows = ()

    @property
    def layers(self) -> int:
        return self.of.layers

    @property
    def ratio(self) -> int:
        return self.of.ratio

    @property
    def overlap(self) -> int:
        return 2 if self.ratio == 4 else 1

    @property
    def tokens(self) -> int:
        return self.overlap * self.ratio

    @property
    def row_values(self) -> int:
        """A token's state values for the layer's own compressor."""
        return 2 * self.overlap * self.of.row

    @property
    def indexer_values(self) -> int:
        """A token's state values for the indexer's compressor (always two overlapping rows)."""
        return 2 * 2 * self.of.indexer

    def values_on_gpu(self, tensor: int) -> int:
        return (self.row_values + self.indexer_values) * self.tokens

    def state_bytes_on_gpu(self, tensor: int) -> int:
        return self.values_on_gpu(tensor) * FP32_STATE_BYTES_PER_VALUE


LayerKind = AttentionLayers | LatentLayers | RecurrentStateLayers | CompressedLayers | CompressorStateLayers


def _compressed_kinds(arch: Architecture, drafting: int) -> list[LayerKind]:
    """DeepSeek-V4: the window's rows in every layer (and a drafting layer), the compressed rows of
    each ratio, the compressors' state."""
    a = arch.attention
    ratios = a.compress_ratios
    compressed = [CompressedLayers(ratios.count(ratio), ratio, a.head_dim, a.indexer_head_dim if ratio == 4 else 0)
                  for ratio in sorted(set(ratios) - {0})]
    window = LatentLayers(arch.layers + drafting, a.head_dim, window=a.sliding_window)
    return [*compressed, window, *(CompressorStateLayers(kind) for kind in compressed)]


def _softmax_layers(arch: Architecture, layers: int, window: int | None) -> AttentionLayers | LatentLayers:
    attention = arch.attention if window is not None else arch.attention.global_layers
    if attention.kind == "mla":
        return LatentLayers(layers, attention.kv_lora_rank + attention.qk_rope_head_dim, attention.indexer_head_dim or 0, window)
    return AttentionLayers(layers, attention.kv_heads, attention.head_dim, window)


def layer_kinds(arch: Architecture, drafting: int = 0) -> tuple[LayerKind, ...]:
    """The model's layers by kind: full attention, sliding window, recurrent state (those it has).
    `drafting`: multi-token-prediction layers that draft tokens, each one more full-attention layer
    in the same cache (vLLM 0.33.0: the draft's attention layers join the target's KV cache group,
    kv_cache_interface.py is_draft; SGLang 0.5.3rc2 gives the draft a pool of as many tokens,
    engine_sglang.account)."""
    attention, linear = arch.attention, arch.linear_attention
    if attention.kind == "compressed":
        return tuple(kind for kind in _compressed_kinds(arch, drafting) if kind.layers)
    windowed, shared = attention.sliding_window_layers, len(attention.shared_indexer_layers)
    kinds = [_softmax_layers(arch, arch.attention_layers - windowed - shared + drafting, None)]
    if shared:  # IndexShare: the latent alone (a drafting MTP layer keeps an indexer of its own)
        kinds.append(LatentLayers(shared, attention.kv_lora_rank + attention.qk_rope_head_dim))
    if windowed:
        kinds.append(_softmax_layers(arch, windowed, attention.sliding_window))
    if linear:
        kinds.append(RecurrentStateLayers(linear.layers, linear.value_heads, linear.key_head_dim, linear.value_head_dim,
                                          2 * linear.key_dim + linear.value_dim, linear.conv_kernel,
                                          linear.key_heads if linear.kind == "mamba2" else 0,
                                          FP32_STATE_BYTES_PER_VALUE if linear.ssm_state_float32 else STATE_BYTES_PER_VALUE))
    return tuple(kind for kind in kinds if kind.layers)


def windowed_layer_indices(arch: Architecture) -> frozenset[int]:
    """Which layers attend within the sliding window: the first `sliding_window_layers` of every
    period, the last layer of each period global (llama.cpp's set_swa_pattern; Gemma 3 and 4's
    layer_types: five sliding, then one full)."""
    windowed, layers = arch.attention.sliding_window_layers, arch.layers
    if not windowed:
        return frozenset()
    if windowed >= layers:
        return frozenset(range(layers))
    period = layers // (layers - windowed)
    return frozenset(layer for layer in range(layers) if layer % period < period - 1)


def pattern_letter(arch: Architecture, layer: int) -> str | None:
    """The layer's letter in a NemotronH pattern (M, *, - or E); None without a pattern, or past the
    model's layers (a GGUF file's NextN blocks)."""
    return arch.layer_pattern[layer] if arch.layer_pattern and layer < arch.layers else None


def recurrent_layer_indices(arch: Architecture) -> frozenset[int]:
    """Which layers hold a recurrent state: the attention layers evenly spaced among them, each in
    the middle of its period (Granite-4.0-H-Small: "Full attention layers 4 (positions 5, 15, 25, 35)"
    on huggingface.co/deucebucket/Granite-4.0-H-Small-Cerebellum-GGUF; the head_count_kv of IBM's GGUF
    begins [0, 0, 0, 0, 0, 8, ...], ollama/ollama issue 12982). Only the order in which llama.cpp
    offloads layers reads it; every total is the same whatever the order."""
    linear = arch.linear_attention
    if linear is None:
        return frozenset()
    if arch.layer_pattern:  # NemotronH names each layer
        return frozenset(layer for layer in range(arch.layers) if pattern_letter(arch, layer) == "M")
    period = arch.layers // arch.attention_layers
    # Gated DeltaNet: the last layer of each period (llama.cpp models/qwen35.cpp: recurrent where
    # "(i + 1) % full_attn_interval != 0"; Qwen3-Next's layer_types end each four with full_attention)
    offset = period - 1 if linear.kind == "gated_deltanet" else period // 2
    attention = {layer for layer in range(arch.layers) if layer % period == offset}
    attention = set(sorted(attention)[:arch.attention_layers])
    return frozenset(layer for layer in range(arch.layers) if layer not in attention)


class KindBytes(NamedTuple):
    """A kind's layers as an engine on one of several GPUs holds them: what the plan tables export."""

    layers: int
    bytes: int  # per token of one layer, or per sequence of one layer for a state
    window: int | None
    per_sequence: bool


# NOTE: recurrent states stay in the model's 16-bit type with an FP8 KV cache (vLLM's MambaSpec
# takes the model dtype, SGLang's mamba pool too).
STATE_BYTES_PER_VALUE = 2
FP32_STATE_BYTES_PER_VALUE = 4  # an SSM matrix the config keeps in FP32 (mamba_ssm_cache_dtype float32)


def kind_bytes(arch: Architecture, tensor: int, bytes_per_value: int, drafting: int = 0) -> tuple[KindBytes, ...]:
    """Each kind on one of `tensor` GPUs, its cached values at `bytes_per_value` bytes (`drafting`:
    layer_kinds)."""
    return tuple(
        KindBytes(kind.layers, kind.state_bytes_on_gpu(tensor) if kind.per_sequence else kind.values_on_gpu(tensor) * bytes_per_value,
                  kind.window, kind.per_sequence)
        for kind in layer_kinds(arch, drafting)
    )


# ---- the weights of one layer ---------------------------------------------------------------


@dataclass(frozen=True)
class LayerTensor:
    """Weight tensors of one layer that share a shape, one per name (llama.cpp's, without `blk.N.`):
    `row` values per row (the input width) and `rows` rows (1: a vector). Tensor parallelism cuts
    each into `shards` equal slices (its heads or channels; 1: whole on every GPU)."""

    names: tuple[str, ...]
    row: int
    rows: int
    shards: int = 1
    stored: str | None = None  # the format the checkpoint keeps it in whatever the plan (weights.Tensors.stored)


def _gqa_tensors(arch: Architecture, a: Attention) -> list[LayerTensor]:
    hidden = arch.hidden_size
    q_dim, kv_dim = a.query_dim, a.kv_dim
    # NOTE: a gated attention output (Qwen3-Next) doubles the query projection: query and gate;
    # a layer whose key is its value (Gemma 4's global layers) has no value projection.
    tensors = [
        LayerTensor(("attn_q",), hidden, q_dim * (2 if a.output_gate else 1), a.heads),
        LayerTensor(("attn_k",) if a.key_is_value else ("attn_k", "attn_v"), hidden, kv_dim, a.kv_heads),
        LayerTensor(("attn_output",), q_dim, hidden, a.heads),
    ]
    if a.qkv_bias:
        tensors.append(LayerTensor(("attn_qkv_bias",), q_dim + 2 * kv_dim, 1))
    if a.output_bias:
        tensors.append(LayerTensor(("attn_output_bias",), hidden, 1))
    if a.qk_norm == "head":
        tensors.append(LayerTensor(("attn_q_norm", "attn_k_norm"), a.head_dim, 1))
    elif a.qk_norm == "layer":
        tensors.append(LayerTensor(("attn_qk_norm",), q_dim + kv_dim, 1))
    if a.sinks:
        tensors.append(LayerTensor(("attn_sinks",), a.heads, 1))
    return tensors


def _mla_tensors(arch: Architecture, a: Attention) -> list[LayerTensor]:
    # NOTE: DeepSeek-V2/V3 multi-head latent attention (modeling_deepseek.py): queries through an
    # optional low-rank q_a/q_b pair, keys and values through one shared latent of kv_lora_rank
    # plus a decoupled rope key of qk_rope_head_dim.
    hidden, heads = arch.hidden_size, a.heads
    qk_head = a.qk_nope_head_dim + a.qk_rope_head_dim
    if a.q_lora_rank:
        tensors = [LayerTensor(("attn_q_a",), hidden, a.q_lora_rank), LayerTensor(("attn_q_a_norm",), a.q_lora_rank, 1),
                   LayerTensor(("attn_q_b",), a.q_lora_rank, heads * qk_head, heads)]
    else:
        tensors = [LayerTensor(("attn_q",), hidden, heads * qk_head, heads)]
    tensors += [
        LayerTensor(("attn_kv_a_mqa",), hidden, a.kv_lora_rank + a.qk_rope_head_dim),
        LayerTensor(("attn_kv_a_norm",), a.kv_lora_rank, 1),
        LayerTensor(("attn_kv_b",), a.kv_lora_rank, heads * (a.qk_nope_head_dim + a.v_head_dim), heads),
        LayerTensor(("attn_output",), heads * a.v_head_dim, hidden, heads),
    ]
    if a.output_gate:
        tensors.append(LayerTensor(("attn_gate",), hidden, heads * a.v_head_dim, heads))
    if a.indexer_heads:
        # NOTE: DeepSeek sparse attention's indexer (GLM-5): its own queries from the q latent,
        # one shared key head with a norm, and a per-head weight from the hidden state.
        dim = a.indexer_head_dim
        tensors += [
            LayerTensor(("indexer_attn_q_b",), a.q_lora_rank, a.indexer_heads * dim),
            LayerTensor(("indexer_attn_k",), hidden, dim),
            LayerTensor(("indexer_k_norm", "indexer_k_norm_bias"), dim, 1),
            LayerTensor(("indexer_proj",), hidden, a.indexer_heads),
        ]
    return tensors


def _compressed_tensors(arch: Architecture, ratio: int) -> list[LayerTensor]:
    # NOTE: DeepSeek-V4's attention (vLLM 0.33.0 models/deepseek_v4/attention.py, compressor.py;
    # dtypes as the published safetensors store them): queries through a latent (wq_a, q_norm,
    # wq_b), one shared KV row of head_dim (wkv, kv_norm), the output through `output_groups`
    # low-rank projections (wo_a, then wo_b), an FP32 sink per head. A layer of ratio r > 0 adds a
    # compressor over r tokens (FP32 position biases, BF16 kv and gate projections, a norm), two
    # overlapping rows wide at ratio 4; ratio 4 adds the Lightning indexer: its queries from the
    # latent, a BF16 weight per head, and a compressor of its own at indexer_head_dim.
    a, hidden = arch.attention, arch.hidden_size
    heads, dim, groups = a.heads, a.head_dim, a.output_groups
    tensors = [
        LayerTensor(("attn_q_a",), hidden, a.q_lora_rank), LayerTensor(("attn_q_a_norm",), a.q_lora_rank, 1),
        LayerTensor(("attn_q_b",), a.q_lora_rank, heads * dim, heads),
        LayerTensor(("attn_kv",), hidden, dim), LayerTensor(("attn_kv_norm",), dim, 1),
        LayerTensor(("attn_output_a",), heads * dim // groups, groups * a.output_rank, groups),
        LayerTensor(("attn_output_b",), groups * a.output_rank, hidden, groups),
        LayerTensor(("attn_sinks",), heads, 1, stored="f32"),
    ]

    def compressor(prefix: str, width: int, overlap: int) -> list[LayerTensor]:
        return [LayerTensor((f"{prefix}_ape",), overlap * width, ratio, stored="f32"),
                LayerTensor((f"{prefix}_kv", f"{prefix}_gate"), hidden, overlap * width, stored="bf16"),
                LayerTensor((f"{prefix}_norm",), width, 1)]

    if ratio:
        tensors += compressor("attn_compressor", dim, 2 if ratio == 4 else 1)
    if ratio == 4:
        tensors += [LayerTensor(("indexer_attn_q_b",), a.q_lora_rank, a.indexer_heads * a.indexer_head_dim),
                    LayerTensor(("indexer_proj",), hidden, a.indexer_heads, stored="bf16"),
                    *compressor("indexer_compressor", a.indexer_head_dim, 2)]
    return tensors


def attention_tensors(arch: Architecture, attention: Attention | None = None) -> list[LayerTensor]:
    """The weights of one softmax-attention layer (GQA, MLA or compressed); `attention`: the layer's
    own where the layers differ (attention_layer_groups, layer_attention)."""
    if arch.attention.kind == "compressed":
        return _compressed_tensors(arch, (attention or arch.attention).layer_ratio or 0)
    return (_mla_tensors if arch.attention.kind == "mla" else _gqa_tensors)(arch, attention or arch.attention)


def attention_layer_groups(arch: Architecture) -> tuple[tuple[Attention, int], ...]:
    """The softmax-attention layers as (their attention, how many): the global layers, then the
    sliding-window ones where their attention differs (Gemma 4); the layers of each compression
    ratio (DeepSeek-V4); one pair for every other model."""
    a = arch.attention
    if a.kind == "compressed":
        return tuple((a.with_ratio(ratio), a.compress_ratios.count(ratio)) for ratio in sorted(set(a.compress_ratios)))
    if a.shared_indexer_layers:  # GLM-5.2: the layers with an indexer, then those that share one
        shared = len(a.shared_indexer_layers)
        return ((a, arch.attention_layers - shared), (a.without_indexer, shared))
    if not a.global_differs:
        return ((a, arch.attention_layers),)
    return ((a.global_layers, arch.attention_layers - a.sliding_window_layers), (a, a.sliding_window_layers))


def layer_attention(arch: Architecture, layer: int) -> Attention:
    """The attention of one layer: a sliding-window layer's, or a global one's (Gemma 4); its ratio's
    (DeepSeek-V4: a prediction layer past the model's compresses nothing, vLLM's
    transformers_utils/deepseek_v4_utils.py)."""
    a = arch.attention
    if a.kind == "compressed":
        return a.with_ratio(a.compress_ratios[layer] if layer < arch.layers else 0)
    if layer in a.shared_indexer_layers:  # a prediction layer past the model's has its own indexer
        return a.without_indexer
    return a if layer in windowed_layer_indices(arch) else a.global_layers


def linear_attention_tensors(arch: Architecture) -> list[LayerTensor]:
    """The weights of one linear-attention layer."""
    linear, hidden = arch.linear_attention, arch.hidden_size
    key_dim, value_dim, heads = linear.key_dim, linear.value_dim, linear.key_heads
    conv = LayerTensor(("ssm_conv1d",), 2 * key_dim + value_dim, linear.conv_kernel, heads)
    if linear.kind == "gated_deltanet":
        # NOTE: Qwen3-Next Gated DeltaNet (modeling_qwen3_next.py): fused q, k, v, z projection,
        # b and a gates per value head, a short causal convolution over q, k, v.
        return [
            LayerTensor(("ssm_in",), hidden, 2 * key_dim + 2 * value_dim, heads),
            LayerTensor(("ssm_ba",), hidden, 2 * linear.value_heads, heads),
            conv,
            LayerTensor(("ssm_dt", "ssm_a"), linear.value_heads, 1),
            LayerTensor(("ssm_norm",), linear.value_head_dim, 1),
            LayerTensor(("ssm_out",), value_dim, hidden, heads),
        ]
    if linear.kind == "mamba2":
        # NOTE: Mamba2 (transformers modeling_granitemoehybrid.py, GraniteMoeHybridMambaLayer): one
        # input projection to z, x, B, C and dt (2·d_inner + 2·groups·d_state + heads), a short
        # convolution over x, B and C with its bias, dt_bias, A_log and D per head, a gated norm
        # over d_inner, and the output projection.
        return [
            LayerTensor(("ssm_in",), hidden, 2 * value_dim + 2 * key_dim + linear.value_heads, linear.value_heads),
            LayerTensor(("ssm_conv1d",), 2 * key_dim + value_dim, linear.conv_kernel, linear.value_heads),
            LayerTensor(("ssm_conv1d_b",), 2 * key_dim + value_dim, 1),
            LayerTensor(("ssm_dt", "ssm_a", "ssm_d"), linear.value_heads, 1),
            LayerTensor(("ssm_norm",), value_dim, 1),
            LayerTensor(("ssm_out",), value_dim, hidden, linear.value_heads),
        ]
    # NOTE: Kimi Delta Attention (Kimi Linear, modeling_kimi_linear.py): q, k, v projections with
    # short convolutions, a full-rank output gate, a low-rank forget gate (rank = head_dim), a beta
    # gate per head, and per-head A_log and per-channel dt_bias.
    return [
        LayerTensor(("attn_q", "attn_k"), hidden, key_dim, heads),
        LayerTensor(("attn_v", "attn_gate"), hidden, value_dim, heads),
        conv,
        LayerTensor(("ssm_f_a",), hidden, linear.key_head_dim),
        LayerTensor(("ssm_f_b",), linear.key_head_dim, key_dim, heads),
        LayerTensor(("ssm_beta",), hidden, linear.value_heads, heads),
        LayerTensor(("ssm_a",), linear.key_heads, 1),
        LayerTensor(("ssm_dt",), key_dim, 1),
        LayerTensor(("ssm_norm",), linear.value_head_dim, 1),
        LayerTensor(("attn_output",), value_dim, hidden, heads),
    ]
