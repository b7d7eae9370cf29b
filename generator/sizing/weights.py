"""Parameters by component, computed from a model's architecture: every weight tensor it has.

Pure arithmetic over records; no text, no files. Tensors are listed with their shape so that a
checkpoint format can add its per-block scales (see formats.py).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from generator.sizing.memo import per_record
from generator.catalog.records import COMPONENTS, Architecture, Model
from generator.sizing.layer_kinds import (
    LayerTensor, attention_layer_groups, attention_tensors, layer_attention, linear_attention_tensors,
)


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
    prediction: bool = False  # of the multi-token-prediction layers (loaded for MTP speculation only)
    stored: str | None = None  # the format every plan keeps it in, as the checkpoint does (DeepSeek-V4's FP32 parts)
    role: str | None = None  # a prediction layer's tensor: the component it is in the main layers

    @property
    def params(self) -> int:
        return self.rows * self.cols * self.count


def _attention(arch: Architecture, layers: int, component: str) -> list[Tensors]:
    """The attention of the prediction layers (after the model's own: layer_attention)."""
    return _of_layers(attention_tensors(arch, layer_attention(arch, arch.layers)), layers, component)


def _target_attention(arch: Architecture) -> list[Tensors]:
    """The model's softmax-attention layers, by kind where its global layers differ from its
    sliding-window ones (Gemma 4)."""
    return [tensor for attention, layers in attention_layer_groups(arch)
            for tensor in _of_layers(attention_tensors(arch, attention), layers, "attention")]


def _of_layers(layer: list[LayerTensor], layers: int, component: str) -> list[Tensors]:
    """One layer's tensors (layer_kinds.py) over `layers` layers."""
    return [Tensors(component, t.row, t.rows, len(t.names) * layers, t.shards, stored=t.stored) for t in layer]


def _moe_layer(model: Model, layers: int, hashed: int = 0) -> list[Tensors]:
    """Router, routed and shared experts of `layers` MoE layers (`hashed`: of them, the layers routed
    by token hash, without a router bias)."""
    arch = model.architecture
    moe, hidden = arch.moe, arch.hidden_size
    width = moe.latent_size or hidden
    experts = model.experts
    shared_width = moe.shared_expert_intermediate_size or moe.expert_intermediate_size
    tensors = [
        Tensors("router_and_norms", hidden, experts, layers),
        # gate, up and down projections of every routed expert; tensor parallelism splits each
        # expert's intermediate channels
        Tensors("routed_experts", width, moe.expert_intermediate_size, arch.mlp_matrices * experts * layers,
                moe.expert_intermediate_size),
        Tensors("shared_experts", hidden, shared_width, arch.mlp_matrices * moe.shared_experts * layers,
                shared_width),
    ]
    if moe.router_bias:
        tensors.append(Tensors("router_and_norms", experts, 1, layers - hashed))
    if moe.expert_bias:
        bias = 2 * moe.expert_intermediate_size + width
        tensors.append(Tensors("routed_experts", bias, 1, experts * layers))
    if moe.shared_expert_gate:
        tensors.append(Tensors("shared_experts", hidden, 1, layers))
    if moe.router_scales:
        # NOTE: Gemma 4's router (vLLM gemma4.py Gemma4Router): `scale` per hidden channel, `per_expert_scale`
        tensors += [Tensors("router_and_norms", hidden, 1, layers),
                    Tensors("router_and_norms", experts, 1, layers)]
    if moe.latent_size:
        # NOTE: latent MoE (Kimi-K3, Nemotron 3 Super): the token is projected down to the latent width
        # before the routed experts and back up after them (Nemotron-H's fc1_latent_proj and
        # fc2_latent_proj), with a norm on the latent in Kimi-K3.
        tensors.append(Tensors("router_and_norms", hidden, moe.latent_size, 2 * layers))
        if moe.latent_norm:
            tensors.append(Tensors("router_and_norms", moe.latent_size, 1, layers))
    return tensors


@per_record
def tensors(model: Model) -> tuple[Tensors, ...]:
    """Every weight tensor of the model's checkpoint, by component (remembered per model: memo.py)."""
    arch = model.architecture
    hidden = arch.hidden_size
    result = [Tensors("embeddings", arch.vocab_size, hidden, 1, arch.vocab_size)]  # vocab-parallel
    result += _target_attention(arch)
    if arch.linear_attention:
        result += _of_layers(linear_attention_tensors(arch), arch.linear_attention.layers, "attention")
    result += _dense_mlp(arch)
    if arch.moe is not None:
        result += _moe_layer(model, arch.moe_layers, hashed=arch.hash_layers)
    result.append(Tensors("router_and_norms", hidden, 1, arch.norm_vectors + 1))
    result += hyper_connections(arch, arch.layers, head=True)
    if not arch.tied_embeddings:
        result.append(Tensors("output_head", hidden, arch.vocab_size, 1, arch.vocab_size))
    if arch.extra_layers:
        result += _extra_layers(model)
    if arch.vision:
        result += _vision(arch)
    return tuple(result)


def hyper_connections(arch: Architecture, layers: int, head: bool) -> list[Tensors]:
    """`layers` layers' hyper-connections, and the head's where `head`."""
    # NOTE: DeepSeek-V4's hyper-connections (vLLM 0.33.0 models/deepseek_v4/nvidia/model.py): around
    # attention and around the MLP of each layer, a mixing matrix of (2 + hc) × hc rows over the hc
    # copies of the hidden state, its base and 3 scales; after the last layer, the head's hc × hc·H
    # matrix, base and scale. All FP32 in the checkpoint.
    hc = arch.hyper_connections
    if not hc:
        return []
    mix, wide = (2 + hc) * hc, hc * arch.hidden_size
    tensors = [Tensors("router_and_norms", wide, mix, 2 * layers, stored="f32"),
               Tensors("router_and_norms", mix + 3, 1, 2 * layers, stored="f32")] if layers else []
    if head:
        tensors += [Tensors("router_and_norms", wide, hc, stored="f32"), Tensors("router_and_norms", hc + 1, 1, stored="f32")]
    return tensors


def value_slot_copies(arch: Architecture) -> list[Tensors]:
    """What vLLM loads beyond the checkpoint where a layer's key is its value: Gemma 4's global layers
    build one QKVParallelLinear and load the key's weights into its value slot too (vLLM 0.33.0
    models/gemma4.py: "k_eq_v layers load K weights into both K and V slots")."""
    return [Tensors("attention", arch.hidden_size, a.kv_dim, layers, a.kv_heads)
            for a, layers in attention_layer_groups(arch) if a.key_is_value]


def _dense_mlp(arch: Architecture) -> list[Tensors]:
    """The dense MLP layers, by width (Nemotron-NAS: one width per layer); tensor parallelism splits
    each one's intermediate channels."""
    if arch.ffn_widths:
        widths = sorted(set(width for width in arch.ffn_widths if width))
        counts = {width: arch.ffn_widths.count(width) for width in widths}
    else:
        counts = {arch.intermediate_size: arch.dense_mlp_layers} if arch.dense_mlp_layers else {}
    return [Tensors("dense_mlp", arch.hidden_size, width, arch.mlp_matrices * layers, width) for width, layers in counts.items()]


def _extra_layers(model: Model) -> list[Tensors]:
    # NOTE: a multi-token-prediction module (DeepSeek-V3 README_WEIGHTS.md): one more decoder
    # layer, a projection of [embedding; hidden] (2H -> H) and three norms; some checkpoints also
    # store their own copy of the embeddings and the output head.
    # DeepSeek-V4's MTP layer splits the projection in two (e_proj, h_proj: the same values) and
    # has hyper-connections with a head of its own.
    arch = model.architecture
    count, hidden = arch.extra_layers, arch.hidden_size
    main = [
        *_attention(arch, count, "attention"),
        Tensors("attention", 2 * hidden, hidden, count),
        Tensors("router_and_norms", hidden, 1, (3 + arch.norms_per_layer) * count),
    ]
    if arch.moe is not None:
        main += _moe_layer(model, count)
    else:
        main.append(Tensors("dense_mlp", hidden, arch.intermediate_size, arch.mlp_matrices * count))
    for _ in range(count):
        main += hyper_connections(arch, 1, head=True)
    result = [replace(tensor, component="extra_layers", role=tensor.component) for tensor in main]
    if arch.extra_layers_embeddings:
        result.append(Tensors("embeddings", arch.vocab_size, hidden, count, arch.vocab_size))
        result.append(Tensors("output_head", hidden, arch.vocab_size, count, arch.vocab_size))
    return [replace(tensor, prediction=True) for tensor in result]


def _vision(arch: Architecture) -> list[Tensors]:
    # NOTE: a ViT encoder (approximate): per layer q, k, v, o (h × h, with biases), an MLP of
    # h × i twice (three times when gated, Gemma 4) with biases, and two layer norms; a patch
    # embedding; learned position embeddings where the config gives their table; a projector to the
    # text width. Small extras are left out (well under 1 % of the tower).
    vision, layers = arch.vision, arch.vision.layers
    if vision.layout == "pixtral":
        return _pixtral_vision(vision, arch.hidden_size)
    if vision.merge_size:
        return _patch_merging_vision(vision)
    h, i = vision.hidden_size, vision.intermediate_size
    return [
        Tensors("vision", h, h, 4 * layers, h),
        Tensors("vision", h, i, (3 if vision.gated_mlp else 2) * layers, i),
        Tensors("vision", 4 * h + i + h + 4 * h, 1, layers),
        Tensors("vision", 3 * vision.patch_size**2, h),
        Tensors("vision", h, arch.hidden_size),
    ] + ([Tensors("vision", vision.position_embeddings * h, 1)] if vision.position_embeddings else [])


def _patch_merging_vision(vision) -> list[Tensors]:
    """Qwen3-VL's and Qwen3.5's tower, every tensor (transformers' modeling_qwen3_vl.py): per layer
    a fused qkv (h × 3h) and a projection (h × h), an MLP h × i and i × h, all with biases, and two
    LayerNorms (weight and bias); a Conv3d patch embedding (3 × frames × p × p × h, with a bias);
    learned position embeddings; a merger (LayerNorm, fc1 of m = h × merge² on both sides, fc2
    m × out, with biases), and one more per deepstack layer whose norm is over m."""
    h, i, layers = vision.hidden_size, vision.intermediate_size, vision.layers
    merged = h * vision.merge_size**2
    return [
        Tensors("vision", h, 3 * h, layers, 3 * h),
        Tensors("vision", h, h, layers, h),
        Tensors("vision", h, i, layers, i),
        Tensors("vision", i, h, layers, h),
        Tensors("vision", 9 * h + i, 1, layers),  # biases (qkv, projection, fc1, fc2) and two LayerNorms
        Tensors("vision", 3 * vision.temporal_patch_size * vision.patch_size**2, h, 1, h),
        Tensors("vision", vision.position_embeddings * h + h + 2 * h, 1),  # positions, the patch bias, the merger's norm
        Tensors("vision", merged, merged, 1 + vision.deepstack_mergers, merged),
        Tensors("vision", merged, vision.output_size, 1 + vision.deepstack_mergers, vision.output_size),
        Tensors("vision", (merged + vision.output_size) * (1 + vision.deepstack_mergers), 1),  # the mergers' biases
        Tensors("vision", 2 * merged, 1, vision.deepstack_mergers),  # the deepstack mergers' norms over m
    ]


def _pixtral_vision(vision, text_hidden: int) -> list[Tensors]:
    """Mistral 3's Pixtral tower and projector, every tensor (transformers' modeling_pixtral.py and
    modeling_mistral3.py, multimodal_projector_bias false): per layer q, k, v, o (h × h) and a gated
    MLP (gate, up, down: h × i), no biases, two RMSNorms; a Conv2d patch embedding without bias and
    the ln_pre RMSNorm; the projector's RMSNorm, its patch merger joining merge² patches (h × merge²
    to h), and two linear layers to the text width t (h × t, t × t)."""
    h, i, layers, t = vision.hidden_size, vision.intermediate_size, vision.layers, text_hidden
    return [
        Tensors("vision", h, h, 4 * layers, h),
        Tensors("vision", h, i, 3 * layers, i),
        Tensors("vision", 2 * h, 1, layers),
        Tensors("vision", 3 * vision.patch_size**2, h, 1, h),
        Tensors("vision", 2 * h, 1),  # ln_pre and the projector's norm
        Tensors("vision", h * vision.merge_size**2, h, 1, h),
        Tensors("vision", h, t, 1, t),
        Tensors("vision", t, t, 1, t),
    ]


def published_scope_params(model: Model, by_component: dict[str, int]) -> int:
    """The computed parameters the published count covers: all, or without the vision tower or the
    prediction layers where the catalog says the count leaves them out."""
    left_out = (("vision", model.params_without_vision), ("extra_layers", model.params_without_prediction))
    return sum(by_component.values()) - sum(by_component[part] for part, out in left_out if out)


def params_by_component(model: Model) -> dict[str, int]:
    totals = dict.fromkeys(COMPONENTS, 0)
    for tensor in tensors(model):
        totals[tensor.component] += tensor.params
    return totals
