"""The weights one GPU holds once an engine has loaded the model with tensor and pipeline parallelism.

Pure arithmetic over the tensors of weights.py in the checkpoint's own formats (formats.py).
Tensor parallelism cuts a tensor into its `shards` (heads, channels, vocabulary rows) and gives
each GPU ceil(shards / T) of them, so KV heads fewer than the GPUs are copied and a tensor of one
shard (norms, MLA's down projections, the router) is whole on every GPU. Pipeline parallelism
gives each stage a run of consecutive layers; the embeddings sit on the first stage, the head on
the last.
"""

from __future__ import annotations

from typing import Mapping

from generator.catalog.records import Model
from generator.sizing.engines import cdiv, round_up
from generator.sizing.formats import tensor_bytes
from generator.sizing.weights import Tensors, tensors

# NOTE: vLLM pads the vocabulary of VocabParallelEmbedding and ParallelLMHead to a multiple of 64
# before splitting it over the GPUs (vllm/model_executor/layers/vocab_parallel_embedding.py:
# DEFAULT_VOCAB_PADDING_SIZE = 64, pad_vocab_size); SGLang does the same.
VOCAB_PADDING = 64
# Tensors an engine does not load to serve: the multi-token-prediction modules are read only for
# speculative decoding (vLLM's DeepseekV2ForCausalLM skips layers past num_hidden_layers).
NOT_LOADED = ("extra_layers",)
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


def loaded_bytes_per_gpu(model: Model, formats: Mapping[str, str], default: str, tensor_parallel: int,
                         pipeline: int = 1, mxfp4_padding: tuple[int, int] | None = None) -> int:
    """The weights on the fullest GPU: its share of each tensor, in the given formats.
    `mxfp4_padding`: (intermediate, hidden) multiples the engine pads MXFP4 experts to."""
    layer_bytes = vocab_in = vocab_out = 0
    for tensor in tensors(model):
        if tensor.component in NOT_LOADED:
            continue
        shard = _shard_bytes(tensor, formats.get(tensor.component, default), tensor_parallel, mxfp4_padding)
        if tensor.component == "embeddings":
            vocab_in += shard
        elif tensor.component == "output_head":
            vocab_out += shard
        else:
            layer_bytes += shard
    if pipeline == 1:
        return layer_bytes + vocab_in + vocab_out
    # NOTE: layers are assumed alike, so a stage holds its share of the layer bytes; the vision
    # tower and the final norm count with the layers (a few MB on any stage).
    layers = model.architecture.layers
    stages = pipeline_layers(layers, pipeline)
    return max(
        cdiv(layer_bytes * count, layers) + (vocab_in if index == 0 else 0) + (vocab_out if index == pipeline - 1 else 0)
        for index, count in enumerate(stages)
    )
