"""The weights one GPU holds once an engine has loaded the model with tensor and pipeline parallelism.

Pure arithmetic over the tensors of weights.py in the checkpoint's own formats (formats.py).
Tensor parallelism cuts a tensor into its `shards` (heads, channels, vocabulary rows) and gives
each GPU ceil(shards / T) of them, so KV heads fewer than the GPUs are copied and a tensor of one
shard (norms, MLA's down projections, the router) is whole on every GPU. Pipeline parallelism
gives each stage a run of consecutive layers; the embeddings sit on the first stage, the head on
the last.
"""

from __future__ import annotations

from typing import NamedTuple

from generator.catalog.records import Architecture, Model
from generator.sizing.engine import cdiv, round_up
from generator.sizing.formats import StoredFormats, stored_tensors, tensor_bytes
from generator.sizing.layer_kinds import attention_tensors
from generator.sizing.weights import Tensors, value_slot_copies

# NOTE: vLLM pads the vocabulary of VocabParallelEmbedding and ParallelLMHead to a multiple of 64
# before splitting it over the GPUs (vllm/model_executor/layers/vocab_parallel_embedding.py:
# DEFAULT_VOCAB_PADDING_SIZE = 64, pad_vocab_size); SGLang does the same.
VOCAB_PADDING = 64
VOCAB_COMPONENTS = ("embeddings", "output_head")


def _shard_bytes(tensor: Tensors, format_key: str, tensor_parallel: int, mxfp4_padding: tuple[int, int] | None) -> int:
    """Bytes of `tensor` on one of `tensor_parallel` GPUs."""
    if mxfp4_padding and format_key == "mxfp4" and tensor.component == "routed_experts" and tensor.cols > 1:
        # The engine's MXFP4 MoE kernels pad each expert's intermediate slice and its hidden width.
        intermediate, hidden = mxfp4_padding
        padded = Tensors(tensor.component, round_up(tensor.rows, hidden),
                         round_up(cdiv(tensor.shards, tensor_parallel), intermediate), tensor.count)
        return tensor_bytes(padded, format_key)
    whole = tensor_bytes(tensor, format_key)
    slices = tensor.shards
    if tensor.component in VOCAB_COMPONENTS:
        slices = round_up(tensor.shards, VOCAB_PADDING)  # padded rows, of which shards are real
    return cdiv(whole * cdiv(slices, tensor_parallel), tensor.shards)


def pipeline_layers(layers: int, pipeline: int) -> list[int]:
    """Layers per pipeline stage as vLLM splits them: equal runs, the remainder one each to the
    stages before the last (vllm/distributed/utils.py: get_pp_indices)."""
    stages = [layers // pipeline] * pipeline
    for index in range(2, layers % pipeline + 2):
        stages[-index] += 1
    return stages


class TensorShares(NamedTuple):
    """One GPU's share of the weights under tensor parallelism, before pipeline stages split them."""

    layers: int  # every block's tensors (and the final norm, a few KB)
    embeddings: int  # on the first stage
    output_head: int  # on the last stage
    vision: int  # the vision tower, on the first stage (vLLM runs encoders there), where loaded
    draft: int  # the multi-token-prediction layers, on the last stage, where they draft tokens


def tensor_shares(model: Model, stored: StoredFormats, tensor_parallel: int,
                  mxfp4_padding: tuple[int, int] | None = None) -> TensorShares:
    """One GPU's share of each tensor, in the checkpoint's formats. `mxfp4_padding`: (intermediate,
    hidden) multiples the engine pads MXFP4 experts to.

    The multi-token-prediction layers are loaded only to draft tokens (vLLM's DeepseekV2ForCausalLM
    skips layers past num_hidden_layers), split like the target's (speculative.py
    _verify_and_get_draft_tp), and without their own embeddings and head, which the draft shares with
    the target once loaded (vLLM 0.33.0 llm_base_proposer.py: "Detected MTP model. Sharing target
    model embedding weights with the draft model"; SGLang's set_embed_and_head)."""
    shares = {"layers": 0, "embeddings": 0, "output_head": 0, "vision": 0, "draft": 0}
    for tensor, fmt in stored_tensors(model, stored):
        if tensor.prediction and tensor.component in VOCAB_COMPONENTS:
            continue
        part = ("draft" if tensor.prediction else tensor.component if tensor.component in (*VOCAB_COMPONENTS, "vision")
                else "layers")
        shares[part] += _shard_bytes(tensor, fmt, tensor_parallel, mxfp4_padding)
    for tensor in value_slot_copies(model.architecture):  # only vLLM runs such layers (engine.global_attention_heads)
        shares["layers"] += _shard_bytes(tensor, stored.format_of("attention"), tensor_parallel, mxfp4_padding)
    return TensorShares(**shares)


def layer_sizes(arch: Architecture) -> tuple[int, ...]:
    """Each layer's parameters where layers differ (Nemotron-NAS: its own MLP, attention or none);
    () where they are alike. Pipeline stages split the layer bytes in these proportions."""
    if not arch.layers_differ:
        return ()
    attention = sum(t.row * t.rows * len(t.names) for t in attention_tensors(arch))
    return tuple((attention if arch.has_attention(layer) else 0) + arch.mlp_matrices * arch.hidden_size * arch.ffn_width(layer)
                 for layer in range(arch.layers))


def stage_ranges(layers: int, pipeline: int) -> list[range]:
    """The layers of each pipeline stage (pipeline_layers), in order."""
    ranges, start = [], 0
    for count in pipeline_layers(layers, pipeline):
        ranges.append(range(start, start + count))
        start += count
    return ranges


def fullest_stage_attention_layers(arch: Architecture, pipeline: int) -> int | None:
    """The attention layers of the stage that has most, where some layers have none (Nemotron-NAS:
    vLLM caches a stage's own attention layers); None where every stage has its even share."""
    if not arch.attention_free_layers:
        return None
    return max(sum(arch.has_attention(layer) for layer in stage) for stage in stage_ranges(arch.layers, pipeline))


def fullest_stage_bytes(shares: TensorShares, layers: int, pipeline: int, vision: bool = True, draft: bool = False,
                        sizes: tuple[int, ...] = ()) -> int:
    """The weights on the fullest GPU once `pipeline` stages split the layers; `vision` False: the
    engine does not load the vision tower (engine.py Engine.text_only_flags); `draft`: the MTP
    layers draft tokens, on the last stage (vLLM's draft runs with one pipeline stage, on the last:
    speculative.py create_draft_parallel_config); `sizes`: layer_sizes, where layers differ."""
    first = shares.embeddings + (shares.vision if vision else 0)
    last = shares.output_head + (shares.draft if draft else 0)
    if pipeline == 1:
        return shares.layers + first + last
    # a stage holds its layers' share of the layer bytes (alike layers: its share of the count)
    sizes = sizes or (1,) * layers
    return max(
        cdiv(shares.layers * sum(sizes[layer] for layer in stage), sum(sizes))
        + (first if index == 0 else 0) + (last if index == pipeline - 1 else 0)
        for index, stage in enumerate(stage_ranges(layers, pipeline))
    )


def loaded_bytes_per_gpu(model: Model, stored: StoredFormats, tensor_parallel: int, pipeline: int = 1,
                         mxfp4_padding: tuple[int, int] | None = None, speculative: bool = False, vision: bool = True) -> int:
    """The weights on the fullest GPU: its share of each tensor, in the checkpoint's formats."""
    shares = tensor_shares(model, stored, tensor_parallel, mxfp4_padding)
    return fullest_stage_bytes(shares, model.architecture.layers, pipeline, vision, speculative, layer_sizes(model.architecture))
