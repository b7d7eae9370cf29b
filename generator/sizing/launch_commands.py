"""Launch commands for a model on a setup: vLLM, SGLang and llama.cpp. Pure string building.

The published checkpoint's quantization (FP8 blocks, MXFP4) is read by vLLM and SGLang from its
config.json, so the native setup needs no quantization flag.
"""

from __future__ import annotations

from dataclasses import dataclass

from generator.sizing.setups import ParallelSplit
from generator.catalog.records import Model

# NOTE: llama.cpp's selective MoE offload (seed 000, step 5): attention on the GPU, the expert
# tensors (ffn_*_exps) in system RAM.
EXPERTS_ON_CPU = r'--override-tensor "\.ffn_.*_exps\.=CPU"'
LLAMA_CPP_CONTEXT = 32_768  # llama.cpp offload is for trying a model, not for long contexts


@dataclass(frozen=True)
class LaunchCommands:
    vllm: str
    sglang: str
    llama_cpp: str
    llama_cpp_offload: str | None  # MoE models only


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


def launch_commands(model: Model, vllm: str, sglang: str, context: int) -> LaunchCommands:
    """A page's commands: vLLM's and SGLang's as their plans made them, and llama.cpp's."""
    gguf = f"{model.slug}-Q4_K_M.gguf"
    llama_context = min(context, LLAMA_CPP_CONTEXT)
    llama = f"llama-server \\\n  -m {gguf} \\\n  --n-gpu-layers 99 \\\n  --ctx-size {llama_context}"
    offload = None
    if model.architecture.moe is not None:
        offload = f"llama-server \\\n  -m {gguf} \\\n  --n-gpu-layers 99 \\\n  {EXPERTS_ON_CPU} \\\n  --ctx-size {llama_context}"
    return LaunchCommands(vllm, sglang, llama, offload)
