"""Parameters by component, computed from a model's architecture: every weight tensor it has.

Pure arithmetic over records; no text, no files. Tensors are listed with their shape so that a
checkpoint format can add its per-block scales (see formats.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from generator.catalog.records import COMPONENTS, Architecture, Attention, LinearAttention, Model


@dataclass(frozen=True)
class Tensors:
    """`count` tensors of `rows` × `cols` values (cols = 1 for vectors) in one component.

    `shards` is how many equal slices tensor parallelism can cut the tensor into (its heads or
    channels): with T GPUs each holds ceil(shards / T) of them, so a tensor with fewer slices than
    GPUs is copied (KV heads). 1: every GPU holds it whole (norms, replicated projections).
    """

    component: str
    rows: int
    cols: int
    count: int = 1
    shards: int = 1

    @property
    def params(self) -> int:
        return self.rows * self.cols * self.count


def _gqa(arch: Architecture, attention: Attention, layers: int, component: str) -> list[Tensors]:
    hidden, heads = arch.hidden_size, attention.heads
    q_dim, kv_dim = attention.query_dim, attention.kv_dim
    # NOTE: a gated attention output (Qwen3-Next) doubles the query projection: query and gate.
    q_out = q_dim * (2 if attention.output_gate else 1)
    tensors = [
        Tensors(component, hidden, q_out, layers, heads),
        Tensors(component, hidden, kv_dim, 2 * layers, attention.kv_heads),  # k and v
        Tensors(component, q_dim, hidden, layers, heads),  # o
    ]
    if attention.qkv_bias:
        tensors.append(Tensors(component, q_dim + 2 * kv_dim, 1, layers))
    if attention.output_bias:
        tensors.append(Tensors(component, hidden, 1, layers))
    if attention.qk_norm == "head":
        tensors.append(Tensors(component, attention.head_dim, 1, 2 * layers))
    elif attention.qk_norm == "layer":
        tensors.append(Tensors(component, q_dim + kv_dim, 1, layers))
    if attention.sinks:
        tensors.append(Tensors(component, heads, 1, layers))
    return tensors


def _mla(arch: Architecture, attention: Attention, layers: int, component: str) -> list[Tensors]:
    # NOTE: DeepSeek-V2/V3 multi-head latent attention (modeling_deepseek.py): queries through an
    # optional low-rank q_a/q_b pair, keys and values through one shared latent of kv_lora_rank
    # plus a decoupled rope key of qk_rope_head_dim.
    hidden, heads = arch.hidden_size, attention.heads
    qk_head = attention.qk_nope_head_dim + attention.qk_rope_head_dim
    tensors = []
    if attention.q_lora_rank:
        tensors += [
            Tensors(component, hidden, attention.q_lora_rank, layers),
            Tensors(component, attention.q_lora_rank, 1, layers),  # q_a_layernorm
            Tensors(component, attention.q_lora_rank, heads * qk_head, layers, heads),
        ]
    else:
        tensors.append(Tensors(component, hidden, heads * qk_head, layers, heads))
    tensors += [
        Tensors(component, hidden, attention.kv_lora_rank + attention.qk_rope_head_dim, layers),
        Tensors(component, attention.kv_lora_rank, 1, layers),  # kv_a_layernorm
        Tensors(
            component,
            attention.kv_lora_rank,
            heads * (attention.qk_nope_head_dim + attention.v_head_dim),
            layers,
            heads,
        ),
        Tensors(component, heads * attention.v_head_dim, hidden, layers, heads),  # o
    ]
    if attention.output_gate:
        tensors.append(Tensors(component, hidden, heads * attention.v_head_dim, layers, heads))
    if attention.indexer_heads:
        # NOTE: DeepSeek sparse attention's indexer (GLM-5): its own queries from the q latent,
        # one shared key head with a norm, and a per-head weight from the hidden state.
        dim = attention.indexer_head_dim
        tensors += [
            Tensors(component, attention.q_lora_rank, attention.indexer_heads * dim, layers),
            Tensors(component, hidden, dim, layers),
            Tensors(component, dim, 1, 2 * layers),  # k_norm weight and bias
            Tensors(component, hidden, attention.indexer_heads, layers),
        ]
    return tensors


def _linear(arch: Architecture, linear: LinearAttention) -> list[Tensors]:
    hidden, layers = arch.hidden_size, linear.layers
    key_dim, value_dim = linear.key_dim, linear.value_dim
    if linear.kind == "gated_deltanet":
        # NOTE: Qwen3-Next Gated DeltaNet (modeling_qwen3_next.py): fused q, k, v, z projection,
        # b and a gates per value head, a short causal convolution over q, k, v.
        heads = linear.key_heads
        return [
            Tensors("attention", hidden, 2 * key_dim + 2 * value_dim, layers, heads),
            Tensors("attention", hidden, 2 * linear.value_heads, layers, heads),
            Tensors("attention", 2 * key_dim + value_dim, linear.conv_kernel, layers, heads),
            Tensors("attention", linear.value_heads, 1, 2 * layers),  # dt_bias, A_log
            Tensors("attention", linear.value_head_dim, 1, layers),  # gated norm
            Tensors("attention", value_dim, hidden, layers, heads),
        ]
    # NOTE: Kimi Delta Attention (Kimi Linear, modeling_kimi_linear.py): q, k, v projections with
    # short convolutions, a full-rank output gate, a low-rank forget gate (rank = head_dim), a beta
    # gate per head, and per-head A_log and per-channel dt_bias.
    heads = linear.key_heads
    return [
        Tensors("attention", hidden, key_dim, 2 * layers, heads),  # q, k
        Tensors("attention", hidden, value_dim, 2 * layers, heads),  # v, output gate
        Tensors("attention", 2 * key_dim + value_dim, linear.conv_kernel, layers, heads),
        Tensors("attention", hidden, linear.key_head_dim, layers),  # forget gate, down
        Tensors("attention", linear.key_head_dim, key_dim, layers, heads),  # forget gate, up
        Tensors("attention", hidden, linear.value_heads, layers, heads),  # beta
        Tensors("attention", linear.key_heads, 1, layers),  # A_log
        Tensors("attention", key_dim, 1, layers),  # dt_bias
        Tensors("attention", linear.value_head_dim, 1, layers),  # output norm
        Tensors("attention", value_dim, hidden, layers, heads),  # o
    ]


def _attention(arch: Architecture, layers: int, component: str) -> list[Tensors]:
    build = _mla if arch.attention.kind == "mla" else _gqa
    return build(arch, arch.attention, layers, component)


def _moe_layer(model: Model, layers: int, component: str | None = None) -> list[Tensors]:
    """Router, routed and shared experts of `layers` MoE layers (component overrides all)."""
    arch = model.architecture
    moe, hidden = arch.moe, arch.hidden_size
    width = moe.latent_size or hidden
    experts = model.experts
    shared_width = moe.shared_expert_intermediate_size or moe.expert_intermediate_size
    tensors = [
        Tensors(component or "router_and_norms", hidden, experts, layers),
        # gate, up and down projections of every routed expert; tensor parallelism splits each
        # expert's intermediate channels
        Tensors(component or "routed_experts", width, moe.expert_intermediate_size, 3 * experts * layers,
                moe.expert_intermediate_size),
        Tensors(component or "shared_experts", hidden, shared_width, 3 * moe.shared_experts * layers, shared_width),
    ]
    if moe.router_bias:
        tensors.append(Tensors(component or "router_and_norms", experts, 1, layers))
    if moe.expert_bias:
        bias = 2 * moe.expert_intermediate_size + width
        tensors.append(Tensors(component or "routed_experts", bias, 1, experts * layers))
    if moe.shared_expert_gate:
        tensors.append(Tensors(component or "shared_experts", hidden, 1, layers))
    if moe.latent_size:
        # NOTE: latent MoE (Kimi-K3): the token is projected down to the latent width before the
        # routed experts and back up after them, with a norm on the latent.
        tensors += [
            Tensors(component or "router_and_norms", hidden, moe.latent_size, 2 * layers),
            Tensors(component or "router_and_norms", moe.latent_size, 1, layers),
        ]
    return tensors


def tensors(model: Model) -> list[Tensors]:
    """Every weight tensor of the model's checkpoint, by component."""
    arch = model.architecture
    hidden = arch.hidden_size
    result = [Tensors("embeddings", arch.vocab_size, hidden, 1, arch.vocab_size)]  # vocab-parallel
    result += _attention(arch, arch.attention_layers, "attention")
    if arch.linear_attention:
        result += _linear(arch, arch.linear_attention)
    if arch.dense_mlp_layers:
        result.append(Tensors("dense_mlp", hidden, arch.intermediate_size, 3 * arch.dense_mlp_layers, arch.intermediate_size))
    if arch.moe is not None:
        result += _moe_layer(model, arch.moe_layers)
    result.append(Tensors("router_and_norms", hidden, 1, arch.norms_per_layer * arch.layers + 1))
    if not arch.tied_embeddings:
        result.append(Tensors("output_head", hidden, arch.vocab_size, 1, arch.vocab_size))
    if arch.extra_layers:
        result += _extra_layers(model)
    if arch.vision:
        result += _vision(arch)
    return result


def _extra_layers(model: Model) -> list[Tensors]:
    # NOTE: a multi-token-prediction module (DeepSeek-V3 README_WEIGHTS.md): one more decoder
    # layer, a projection of [embedding; hidden] (2H -> H) and three norms; some checkpoints also
    # store their own copy of the embeddings and the output head.
    arch = model.architecture
    count, hidden = arch.extra_layers, arch.hidden_size
    result = [
        *(t for t in _attention(arch, count, "extra_layers")),
        Tensors("extra_layers", 2 * hidden, hidden, count),
        Tensors("extra_layers", hidden, 1, (3 + arch.norms_per_layer) * count),
    ]
    if arch.moe is not None:
        result += _moe_layer(model, count, "extra_layers")
    else:
        result.append(Tensors("extra_layers", hidden, arch.intermediate_size, 3 * count))
    if arch.extra_layers_embeddings:
        result.append(Tensors("embeddings", arch.vocab_size, hidden, count, arch.vocab_size))
        result.append(Tensors("output_head", hidden, arch.vocab_size, count, arch.vocab_size))
    return result


def _vision(arch: Architecture) -> list[Tensors]:
    # NOTE: a ViT encoder (approximate): per layer q, k, v, o (h × h, with biases), an MLP of
    # h × i twice (with biases) and two layer norms; a patch embedding; a projector to the text
    # width. Position embeddings and small extras are left out (well under 1 % of the tower).
    vision, layers = arch.vision, arch.vision.layers
    h, i = vision.hidden_size, vision.intermediate_size
    return [
        Tensors("vision", h, h, 4 * layers, h),
        Tensors("vision", h, i, 2 * layers, i),
        Tensors("vision", 4 * h + i + h + 4 * h, 1, layers),
        Tensors("vision", 3 * vision.patch_size**2, h),
        Tensors("vision", h, arch.hidden_size),
    ]


def params_by_component(model: Model) -> dict[str, int]:
    totals = dict.fromkeys(COMPONENTS, 0)
    for tensor in tensors(model):
        totals[tensor.component] += tensor.params
    return totals
