"""GGUF files as llama.cpp writes them: every tensor under its llama.cpp name, the type `llama-quantize`
gives it for a preset, and the bytes of its blocks. Pure.

Sources (llama.cpp at commit c392e5094deaf2d1a7c18683214f007fad3fe42b, 2025-02-20):
- ggml/src/ggml-common.h: the block of each type (values per block, and the struct's bytes);
- convert_hf_to_gguf.py (prepare_tensors): 1-D tensors, `*_norm.weight`, biases and the MoE router
  (`ffn_gate_inp`) are written as F32, every other matrix as F16 or BF16; the multi-token-prediction
  layers are skipped (DeepseekV2Model.modify_tensors) but for GLM-4.5's Glm4MoeModel, whose
  block_count is num_hidden_layers + num_nextn_predict_layers (read at commit
  0024aa7417efd50a7c2a79e049dfbbbceb0beaaf): its NextN block is a decoder layer plus
  `nextn.eh_proj`, three norms and, where the checkpoint has them, its own `nextn.embed_tokens` and
  `nextn.shared_head_head` (`extra_layers_in_gguf`); the vision tower goes to a separate mmproj file;
- src/llama-quant.cpp (llama_model_quantize_impl, llama_tensor_get_type): which tensors are
  quantized (2-D `.weight` tensors but norms and the router), the preset's default type, the tensors
  given more bits, and the fallback when a row's width is not a multiple of the type's block.
DeepSeek-V4 (`deepseek4`, read at commit 82bb48500a9a6b3374da2cf5811695369278e4d3, 2026-08-07):
- conversion/deepseek.py DeepseekV4Model: the FP8 weights dequantized and written as Q8_0
  (tensor_force_quant), the routed experts kept as MXFP4 (repacked bit for bit), BF16 and F32
  tensors as the checkpoint has them, every 1-D tensor and norm in F32, the hash layers'
  token-to-expert table as I32; the MTP layer goes to a file of its own (`--mtp`), not this one;
- src/llama-quant.cpp tensor_allows_quantization: every 2-D weight is quantized but norms, the
  router (`ffn_gate_inp`, kept BF16) and `ffn_gate_tid2eid`, F32 and MXFP4 ones included (with
  --allow-requantize); MXFP4_MOE (L459-481): the experts MXFP4, every other matrix Q8_0.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterator, NamedTuple

from generator.catalog.records import Model
from generator.sizing.weights import hyper_connections
from generator.sizing.layer_kinds import (
    attention_tensors, layer_attention, linear_attention_tensors, pattern_letter, recurrent_layer_indices,
)


class GgmlType(NamedTuple):
    values: int  # per block
    bytes: int  # per block


QK_K = 256
# ggml-common.h: sizeof(block_*) and the QK constants (QK_K 256, QK4_0/QK5_0/QK8_0/QK4_NL 32);
# MXFP4 (added with gpt-oss, ggml-common.h block_mxfp4): an E8M0 scale and 16 bytes of 4-bit values.
GGML_TYPES = {
    "F32": GgmlType(1, 4),
    "I32": GgmlType(1, 4),
    "F16": GgmlType(1, 2),
    "BF16": GgmlType(1, 2),
    "Q8_0": GgmlType(32, 34),  # half scale + 32 int8
    "Q5_1": GgmlType(32, 24),
    "Q5_0": GgmlType(32, 22),
    "Q4_1": GgmlType(32, 20),
    "Q4_0": GgmlType(32, 18),
    "IQ4_NL": GgmlType(32, 18),
    "MXFP4": GgmlType(32, 17),
    "Q6_K": GgmlType(QK_K, 210),  # half + QK_K/16 scales + 3*QK_K/4
    "Q5_K": GgmlType(QK_K, 176),  # 2 halves + 12 scale bytes + QK_K/2 + QK_K/8
    "Q4_K": GgmlType(QK_K, 144),  # 2 halves + 12 scale bytes + QK_K/2
    "Q3_K": GgmlType(QK_K, 110),  # half + QK_K/4 + QK_K/8 + 12
    "Q2_K": GgmlType(QK_K, 84),  # 2 halves + QK_K/16 + QK_K/4
    "IQ4_XS": GgmlType(QK_K, 136),  # half + uint16 + QK_K/64 + QK_K/2
    "IQ3_S": GgmlType(QK_K, 110),
    "IQ3_XXS": GgmlType(QK_K, 98),  # half + 3*(QK_K/8)
    "IQ2_XXS": GgmlType(QK_K, 66),  # half + QK_K/8 uint16
}
# llama-quant.cpp: the default type of each preset (LLAMA_FTYPE_MOSTLY_*).
PRESETS = {
    "BF16": "BF16", "F16": "F16", "Q8_0": "Q8_0", "Q6_K": "Q6_K", "Q5_K_M": "Q5_K", "Q4_K_M": "Q4_K",
    "Q3_K_M": "Q3_K", "Q2_K": "Q2_K", "IQ4_XS": "IQ4_XS", "MXFP4_MOE": "Q8_0",
}
# The quants a page lists, largest first.
PAGE_QUANTS = ("Q8_0", "Q6_K", "Q5_K_M", "Q4_K_M", "Q3_K_M", "Q2_K", "IQ4_XS")


def page_quants(model: Model) -> tuple[str, ...]:
    """The quants a model's page and calculator offer: PAGE_QUANTS, and MXFP4_MOE where the published
    routed experts are MXFP4 (gpt-oss, DeepSeek-V4: the file that keeps them as they are)."""
    arch = model.architecture
    mxfp4 = arch.moe is not None and arch.formats.get("routed_experts") == "mxfp4"
    return PAGE_QUANTS + (("MXFP4_MOE",) if mxfp4 else ())
# llama-quant.cpp: a row width the type's block does not divide falls back to these.
FALLBACK = {
    "Q2_K": "IQ4_NL", "Q3_K": "IQ4_NL", "IQ4_XS": "IQ4_NL", "IQ3_XXS": "IQ4_NL", "IQ3_S": "IQ4_NL",
    "IQ2_XXS": "IQ4_NL", "Q4_K": "Q5_0", "Q5_K": "Q5_1", "Q6_K": "Q8_0",
}


@dataclass(frozen=True)
class GgufTensor:
    """One tensor of the file: `name` without `blk.N.` and the suffix, its layer, `row` values per
    row (ggml's ne[0], the input width), `rows` rows (ne[1] × ne[2]), its type before quantizing."""

    name: str
    layer: int | None
    row: int
    rows: int
    source: str  # F32 or the conversion's 16-bit type
    experts: bool = False  # a 3-D tensor of every routed expert (ffn_*_exps)
    # llama-quant.cpp's counter for it where one is kept: attn_v counts the attn_v tensors
    # (i_attention_wv), ffn_down of a model without experts the ffn_down ones (i_ffn_down); else the block
    rank: int | None = None
    quantized: bool | None = None  # DeepSeek-V4's rule where it differs from the source type's (module docstring)

    @property
    def values(self) -> int:
        return self.row * self.rows

    @property
    def quantizable(self) -> bool:
        """llama_model_quantize_impl: 2-D weights, but norms and the MoE router; MXFP4 experts (gpt-oss)
        are kept as they are."""
        return self.quantized if self.quantized is not None else self.source not in ("F32", "MXFP4", "I32")


def _matrix(name: str, layer: int | None, row: int, rows: int, experts: bool = False, source: str = "BF16") -> GgufTensor:
    return GgufTensor(name, layer, row, rows, source, experts)


def _vector(name: str, layer: int | None, size: int) -> GgufTensor:
    return GgufTensor(name, layer, size, 1, "F32")


# DeepSeek-V4's converter: the checkpoint's formats (formats.py) as the file's types
COMPRESSED_SOURCES = {"f32": "F32", "bf16": "BF16"}


def _compressed_attention(model: Model, i: int) -> Iterator[GgufTensor]:
    """One DeepSeek-V4 layer's attention (layer_kinds.py) as DeepseekV4Model writes it: FP8 matrices
    as Q8_0, BF16 and F32 ones as stored, vectors F32; llama-quantize requantizes every matrix."""
    for tensor in attention_tensors(model.architecture, layer_attention(model.architecture, i)):
        for name in tensor.names:
            if tensor.rows == 1:
                yield _vector(name, i, tensor.row)
            else:
                yield GgufTensor(name, i, tensor.row, tensor.rows, COMPRESSED_SOURCES.get(tensor.stored, "Q8_0"), quantized=True)


def _hyper_connections(model: Model, i: int | None) -> Iterator[GgufTensor]:
    """DeepSeek-V4's hyper-connection tensors (weights.py): a layer's two mixers, or the output's one,
    F32 in the checkpoint and quantized by llama-quantize; their bases and scales F32."""
    for tensor in hyper_connections(model.architecture, 1 if i is not None else 0, head=i is None):
        if tensor.cols == 1:
            yield _vector("hc_vectors", i, tensor.rows * tensor.count)
        else:
            yield from (GgufTensor("hc_fn", i, tensor.rows, tensor.cols, "F32", quantized=True) for _ in range(tensor.count))


def _attention(model: Model, i: int) -> Iterator[GgufTensor]:
    """One layer's attention tensors (layer_kinds.py), vectors in F32; a checkpoint that stores q, k
    and v as one qkv_proj (Phi-3) keeps it in the GGUF file as attn_qkv."""
    if model.architecture.attention.kind == "compressed":
        yield from _compressed_attention(model, i)
        return
    a = layer_attention(model.architecture, i)  # Gemma 4: a global layer's own heads
    for tensor in attention_tensors(model.architecture, a):
        if a.fused_qkv and tensor.names[0] in ("attn_q", "attn_k"):
            if tensor.names[0] == "attn_q":
                yield _matrix("attn_qkv", i, tensor.row, a.query_dim + 2 * a.kv_dim)
            continue
        for name in tensor.names:
            yield _vector(name, i, tensor.row) if tensor.rows == 1 else _matrix(name, i, tensor.row, tensor.rows)


def _mamba2(model: Model, i: int) -> Iterator[GgufTensor]:
    """One Mamba2 layer (layer_kinds.py): ssm_in and ssm_out follow the preset; the convolution
    (convert_hf_to_gguf.py lists SSM_CONV1D among the tensors kept F32, llama-quant.cpp never
    quantizes `ssm_conv1d`), its bias, dt's bias, A, D (no `.weight` suffix) and the norm are F32."""
    for tensor in linear_attention_tensors(model.architecture):
        quantized = tensor.rows > 1 and tensor.names[0] != "ssm_conv1d"
        for name in tensor.names:
            yield _matrix(name, i, tensor.row, tensor.rows) if quantized else GgufTensor(name, i, tensor.row, tensor.rows, "F32")


def _gated_deltanet(model: Model, i: int) -> Iterator[GgufTensor]:
    """One Gated DeltaNet layer (Qwen3-Next, Qwen3.5): the converter splits in_proj_qkvz into attn_qkv
    (q, k and v) and attn_gate (z) (conversion/qwen.py Qwen3NextModel.modify_tensors); the b and a
    gates are one ssm_beta_alpha (qwen3next) or ssm_beta and ssm_alpha (qwen35), the same values and
    type either way (models/qwen35.cpp load_arch_tensors). These and ssm_out follow the preset; the
    convolution (never quantized), dt's bias, A (no `.weight` suffix) and the norm are F32."""
    linear, hidden = model.architecture.linear_attention, model.architecture.hidden_size
    yield _matrix("attn_qkv", i, hidden, 2 * linear.key_dim + linear.value_dim)
    yield _matrix("attn_gate", i, hidden, linear.value_dim)
    yield _matrix("ssm_ba", i, hidden, 2 * linear.value_heads)
    yield GgufTensor("ssm_conv1d", i, linear.conv_kernel, 2 * linear.key_dim + linear.value_dim, "F32")
    yield _vector("ssm_dt_a", i, 2 * linear.value_heads)
    yield _vector("ssm_norm", i, linear.value_head_dim)
    yield _matrix("ssm_out", i, linear.value_dim, hidden)


def _recurrent(model: Model, i: int) -> Iterator[GgufTensor]:
    """A linear-attention layer in the file: Mamba2 or Gated DeltaNet (gguf_sizable)."""
    return _gated_deltanet(model, i) if model.architecture.linear_attention.kind == "gated_deltanet" else _mamba2(model, i)


def _feed_forward(model: Model, i: int) -> Iterator[GgufTensor]:
    """One layer's MLP or MoE block; without a gate where the model has none (relu2: NemotronH), and
    none where the layer has no FFN (Nemotron-NAS: n_ff 0, convert_hf_to_gguf.py DeciModel)."""
    arch = model.architecture
    hidden, gated = arch.hidden_size, arch.gated_mlp
    letter = pattern_letter(arch, i)
    dense = letter == "-" if letter else i < (arch.dense_layers or 0)
    if arch.moe is None or dense:
        width = arch.ffn_width(min(i, arch.layers - 1))  # a NextN block is as wide as the layers
        if not width:
            return
        if gated:
            yield _matrix("ffn_gate", i, hidden, width)
        yield _matrix("ffn_up", i, hidden, width)
        yield _matrix("ffn_down", i, width, hidden)
        return
    moe, experts = arch.moe, model.experts
    compressed = arch.attention.kind == "compressed"  # DeepSeek-V4's converter (module docstring)
    if compressed:  # the router BF16 and never quantized
        yield GgufTensor("ffn_gate_inp", i, hidden, experts, "BF16", quantized=False)
    else:
        yield _vector("ffn_gate_inp", i, hidden * experts)  # the router: F32 (convert_hf_to_gguf.py)
    width = moe.expert_intermediate_size
    source = "MXFP4" if arch.formats.get("routed_experts") == "mxfp4" else "BF16"
    expert_rule = True if compressed else None
    # latent MoE: the experts work in the latent width, between two projections
    # (llama.cpp models/nemotron-h.cpp: ffn_latent_down and ffn_latent_up, moe_n_embd)
    expert_width = moe.latent_size or hidden
    if moe.latent_size:
        yield _matrix("ffn_latent_down", i, hidden, moe.latent_size)
        yield _matrix("ffn_latent_up", i, moe.latent_size, hidden)
        if moe.latent_norm:
            yield _vector("ffn_latent_norm", i, moe.latent_size)
    for name, row, rows in (("ffn_gate_exps", expert_width, width * experts), ("ffn_up_exps", expert_width, width * experts),
                            ("ffn_down_exps", width, expert_width * experts)):
        if gated or name != "ffn_gate_exps":
            yield GgufTensor(name, i, row, rows, source, True, quantized=expert_rule)
    if moe.shared_experts:
        shared = (moe.shared_expert_intermediate_size or width) * moe.shared_experts
        shared_source = "Q8_0" if compressed else "BF16"
        if gated:
            yield _matrix("ffn_gate_shexp", i, hidden, shared, source=shared_source)
        yield _matrix("ffn_up_shexp", i, hidden, shared, source=shared_source)
        yield _matrix("ffn_down_shexp", i, shared, hidden, source=shared_source)
    if compressed and i < arch.hash_layers:  # the token-to-expert table, no router bias
        yield GgufTensor("ffn_gate_tid2eid", i, model.experts_per_token, arch.vocab_size, "I32")
    elif moe.router_bias:
        yield _vector("exp_probs_b", i, experts)
    if moe.expert_bias:
        yield _vector("ffn_exps_bias", i, (2 * width + hidden) * experts)
    if moe.shared_expert_gate:
        yield _vector("ffn_gate_inp_shexp", i, hidden)
    if moe.router_scales:  # Gemma 4 (models/gemma4-iswa.cpp): ffn_gate_inp_s and ffn_down_exps_s
        yield _vector("ffn_gate_inp.scale", i, hidden)
        yield _vector("ffn_down_exps.scale", i, experts)


# The linear-attention layers laid out here: Mamba2 (llama.cpp's granitehybrid and nemotron_h) and
# Gated DeltaNet (qwen3next, qwen35, qwen35moe); not Kimi's delta attention.
LLAMA_CPP_RECURRENT_KINDS = ("mamba2", "gated_deltanet")


def gguf_sizable(model: Model) -> bool:
    """Whether the file can be laid out here: softmax attention, or a linear attention of
    LLAMA_CPP_RECURRENT_KINDS, in every layer, or DeepSeek-V4's compressed attention (deepseek4), or
    MLA with a sparse-attention indexer (deepseek32, glm-dsa; GLM-5.2's shared ones too), and a latent
    MoE of Nemotron-H's kind (nemotron_h_moe)."""
    arch = model.architecture
    return arch is not None and (arch.linear_attention is None or arch.linear_attention.kind in LLAMA_CPP_RECURRENT_KINDS)


def gguf_blocks(model: Model) -> int:
    """The file's blocks (`block_count`): the layers, and the prediction layers the converter keeps."""
    arch = model.architecture
    return arch.layers + (arch.extra_layers if arch.extra_layers_in_gguf else 0)


def _prediction_inputs(model: Model, i: int) -> Iterator[GgufTensor]:
    """A NextN block's own tensors beside its decoder layer: the projection of [embedding; hidden]
    (2H -> H), enorm, hnorm and shared_head_norm, and the embeddings and head it may carry."""
    arch = model.architecture
    hidden = arch.hidden_size
    yield _matrix("nextn.eh_proj", i, 2 * hidden, hidden)
    yield _vector("nextn_norms", i, 3 * hidden)
    if arch.extra_layers_embeddings:
        yield _matrix("nextn.embed_tokens", i, hidden, arch.vocab_size)
        yield _matrix("nextn.shared_head_head", i, hidden, arch.vocab_size)


def gguf_tensors(model: Model) -> list[GgufTensor]:
    """The tensors of the model's GGUF file, in file order (layer by layer)."""
    arch = model.architecture
    hidden = arch.hidden_size
    result = [_matrix("token_embd", None, hidden, arch.vocab_size)]
    recurrent = recurrent_layer_indices(arch)
    for i in range(gguf_blocks(model)):
        letter = pattern_letter(arch, i)
        block = []
        if i in recurrent:
            block += _recurrent(model, i)
        elif (letter is None or letter == "*") and arch.has_attention(i):  # a pattern's layer is its mixer or its feed-forward alone
            block += _attention(model, i)
        if letter is None or letter in "-E":
            block += _feed_forward(model, i)
        if i >= arch.layers:
            block += _prediction_inputs(model, i)
        norms = arch.norms_in(i) if i < arch.layers else arch.norms_per_layer  # a NextN block: a layer's
        result += [_vector("layer_norms", i, norms * hidden), *block]
        if arch.hyper_connections:
            result += _hyper_connections(model, i)
    result.append(_vector("output_norm", None, hidden))
    if arch.hyper_connections:
        result += _hyper_connections(model, None)
    if not arch.tied_embeddings:
        result.append(_matrix("output", None, hidden, arch.vocab_size))
    return _ranked(result, model.experts is None)


def _ranked(tensors: list[GgufTensor], dense: bool) -> list[GgufTensor]:
    """The tensors with llama-quant.cpp's counters (GgufTensor.rank), in file order."""
    counters: dict[str, int] = {}

    def ranked(tensor: GgufTensor) -> GgufTensor:
        counter = "attn_v" if tensor.name in ("attn_v", "attn_qkv") else "ffn_down" if dense and tensor.name == "ffn_down" else None
        if counter is None:
            return tensor
        counters[counter] = counters.get(counter, -1) + 1
        return replace(tensor, rank=counters[counter])

    return [ranked(tensor) for tensor in tensors]


# ---- llama-quant.cpp llama_tensor_get_type, for the presets of PRESETS ----------------------------

def _use_more_bits(i_layer: int, n_layers: int) -> bool:
    return i_layer < n_layers // 8 or i_layer >= 7 * n_layers // 8 or (i_layer - n_layers // 8) % 3 == 2


@dataclass(frozen=True)
class QuantizeFacts:
    """What llama_tensor_get_type reads of the model."""

    layers: int  # the file's blocks, as llama-quant counts them (n_ffn_down)
    attention_layers: int  # n_attention_wv: the blocks with attention (a hybrid's, Nemotron-NAS's fewer)
    n_expert: int
    n_gqa: int
    is_70b: bool  # LLM_TYPE_70B: 80 layers of Llama or Qwen2 (llama-model.cpp)
    has_output: bool


def gguf_facts(model: Model) -> QuantizeFacts:
    arch = model.architecture
    a = arch.attention
    gqa = a.heads // a.kv_heads if a.kind == "gqa" else 1
    dense_gqa = arch.moe is None and a.kind == "gqa" and gqa > 1
    # n_attention_wv counts the attn_v (or attn_qkv) tensors: none in a layer whose key is its value
    without_value = arch.attention_layers - a.sliding_window_layers if a.global_key_is_value else 0
    attention_layers = arch.attention_layers - without_value + (arch.extra_layers if arch.extra_layers_in_gguf else 0)
    if arch.linear_attention is not None and arch.linear_attention.kind == "gated_deltanet":
        attention_layers += arch.linear_attention.layers  # their attn_qkv (llama-quant.cpp counts it as n_attention_wv)
    return QuantizeFacts(gguf_blocks(model), attention_layers, model.experts or 0, gqa, dense_gqa and arch.layers == 80,
                         not arch.tied_embeddings)


def _chosen_type(preset: str, tensor: GgufTensor, facts: QuantizeFacts, imatrix: bool) -> str:
    """The type before the row-width check (llama_tensor_get_type's branches for these presets)."""
    new = PRESETS[preset]
    name, i = tensor.name, tensor.layer if tensor.rank is None else tensor.rank
    if preset == "MXFP4_MOE":  # the experts MXFP4, every other matrix Q8_0, the output head too
        return "MXFP4" if tensor.experts else new
    if name == "output" or (name == "token_embd" and not facts.has_output):
        if tensor.row % GGML_TYPES[new].values:
            return "Q8_0"
        return new if new == "Q8_0" else "Q6_K"
    if name == "token_embd":
        return new
    if name == "attn_v":
        if preset == "Q2_K":
            new = "Q4_K" if facts.n_gqa >= 4 else "Q3_K"
        elif preset == "Q3_K_M":
            new = "Q5_K" if i < 2 else "Q4_K"
        elif preset == "IQ4_XS" and facts.n_gqa >= 4:
            new = "Q5_K"
        elif preset in ("Q4_K_M", "Q5_K_M") and _use_more_bits(i, facts.attention_layers):
            new = "Q6_K"
        if facts.is_70b and new in ("Q3_K", "Q4_K"):
            new = "Q5_K"
        if facts.n_expert == 8:  # "for the 8-expert model, bumping this to Q8_0 trades just ~128MB"
            new = "Q8_0"
        return new
    if name == "attn_k":
        return "Q8_0" if facts.n_expert == 8 else new
    if name.startswith("ffn_down"):
        if preset == "Q2_K":
            return "Q3_K"
        if preset == "Q3_K_M":
            return "Q5_K" if i < facts.layers // 16 else "Q4_K"  # arch != FALCON: always Q4_K past the first
        if preset in ("Q4_K_M", "Q5_K_M") and _use_more_bits(i, facts.layers):
            return "Q6_K"
        if preset == "IQ4_XS" and i < facts.layers // 8 and not imatrix:
            return "Q5_K"
        return new
    if name == "attn_qkv":
        return {"Q3_K_M": "Q4_K", "Q4_K_M": "Q5_K", "Q5_K_M": "Q6_K"}.get(preset, new)
    if name == "attn_output":
        if facts.n_expert == 8:
            return "Q5_K" if preset in ("Q2_K", "Q3_K_M", "Q4_K_M", "IQ4_XS") else new
        return {"Q2_K": "Q3_K", "Q3_K_M": "Q4_K"}.get(preset, new)
    return new


def tensor_type(preset: str, tensor: GgufTensor, facts: QuantizeFacts, imatrix: bool = False) -> str:
    """The type of `tensor` in a file quantized with `preset` (`llama-quantize [--imatrix F] model.gguf
    PRESET`; an importance matrix only changes IQ4_XS's first ffn_down layers here)."""
    if not tensor.quantizable:
        return tensor.source
    default = PRESETS[preset]
    if default in ("F16", "BF16"):
        return default
    new = _chosen_type(preset, tensor, facts, imatrix)
    if tensor.row % GGML_TYPES[new].values:
        new = FALLBACK.get(new, "F16")
        if tensor.row % GGML_TYPES[new].values:
            new = "F16"
    return new


def tensor_bytes(tensor: GgufTensor, type_name: str) -> int:
    ggml = GGML_TYPES[type_name]
    return tensor.rows * (tensor.row // ggml.values) * ggml.bytes


# The file's metadata beside its tensors: the vocabulary (each token a length-prefixed string and a
# type, with a merge string for BPE or a score for SentencePiece), the chat template and the tensor
# index. The strings' lengths are the tokenizer's own, so this is a measured average, not a formula:
# published file bytes minus computed tensor bytes (tests/data/gguf_sizes.yaml, `file_bytes` rows)
# is 25 (Gemma 3, SentencePiece) to 62 (Llama 3, GLM-4.5: twice as many merges as tokens) bytes per
# vocabulary entry, 39 for Qwen2.5 and 35 for Phi-4; the median is 39.
METADATA_BYTES_PER_VOCAB_ENTRY = 39


@dataclass(frozen=True)
class GgufFile:
    preset: str
    tensor_bytes: int  # the tensors' data (llama.cpp's "file size"; what the GPUs and RAM hold)
    values: int
    types: tuple[tuple[GgufTensor, str], ...]
    metadata_bytes: int  # an estimate (METADATA_BYTES_PER_VOCAB_ENTRY): read, never placed on a GPU

    @property
    def file_bytes(self) -> int:
        """The .gguf file on disk: the tensors and the metadata."""
        return self.tensor_bytes + self.metadata_bytes

    @property
    def bits_per_weight(self) -> float:
        """llama-model-loader.cpp: "file size = %.2f GiB (%.2f BPW)" with BPW = bytes × 8 / elements."""
        return self.tensor_bytes * 8 / self.values


def gguf_file(model: Model, preset: str, imatrix: bool = False) -> GgufFile:
    facts = gguf_facts(model)
    typed = tuple((tensor, tensor_type(preset, tensor, facts, imatrix)) for tensor in gguf_tensors(model))
    return GgufFile(
        preset=preset,
        tensor_bytes=sum(tensor_bytes(tensor, kind) for tensor, kind in typed),
        values=sum(tensor.values for tensor, _ in typed),
        types=typed,
        metadata_bytes=model.architecture.vocab_size * METADATA_BYTES_PER_VOCAB_ENTRY,
    )
