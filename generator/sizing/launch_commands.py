"""Launch commands for a model on a setup: vLLM and SGLang (llama.cpp's: llama_cpp.py). Pure string building.

The published checkpoint's quantization (FP8 blocks, MXFP4) is read by vLLM and SGLang from its
config.json, so the native setup needs no quantization flag.
"""

from __future__ import annotations

from dataclasses import dataclass

from generator.sizing.setups import ParallelSplit
from generator.catalog.records import Model



@dataclass(frozen=True)
class LaunchCommands:
    vllm: str
    sglang: str
    llama_cpp: str | None  # the page's GGUF quant on the smallest card that holds it (own_gpu.py)
    llama_cpp_offload: str | None  # MoE models: on the smallest card that runs it with experts in RAM


def serve_command(model: Model, split: ParallelSplit, machines: int, engine: str, context: int,
                  extra: tuple[tuple[str, str], ...] = ()) -> str:
    """The vLLM or SGLang command for the split, with `extra` flags (name, value) at the end."""
    tensor, pipeline = split
    if engine == "vllm":
        command = f"vllm serve {model.id} \\\n  --tensor-parallel-size {tensor}"
        if pipeline > 1:
            command += f" \\\n  --pipeline-parallel-size {pipeline}"
        command += f" \\\n  --max-model-len {context}"
    else:
        # NOTE: SGLang takes the same split as vLLM: --tp over the GPUs of a layer, --pp-size stages
        # (sglang/srt/server_args.py: "--pipeline-parallel-size", alias "--pp-size").
        command = f"python -m sglang.launch_server \\\n  --model-path {model.id} \\\n  --tp {tensor}"
        if pipeline > 1:
            command += f" \\\n  --pp-size {pipeline}"
        if machines > 1:
            command += f" \\\n  --nnodes {machines} --node-rank 0 --dist-init-addr HEAD_NODE_IP:5000"
        command += f" \\\n  --context-length {context}"
    for name, value in extra:
        command += f" \\\n  {name} {value}"
    return command
