"""The `plan` command's output: one JSON object (bytes as integers), or a table for a terminal."""

from __future__ import annotations

from generator.sizing.engine import (
    CONTEXT_BEYOND_WINDOW, CONTEXT_DOES_NOT_FIT, DRAFT_WITH_PIPELINE, ENGINE_DOES_NOT_RUN, GIB, GPU_NOT_PLANNED, GPU_WITHOUT_KERNELS, MEMORY_IN_USE, NO_CHECKPOINT, NO_KV_MEMORY,
    UNIFIED_MEMORY, WEIGHTS_DO_NOT_FIT,
)
from generator.sizing.llama_cpp import LLAMA_CPP, LlamaCppPlan
from generator.sizing.plan_speed import llama_cpp_throughput, serving_throughput
from generator.sizing.planner import Answer, Plan
from generator.sizing.throughput import Throughput, Workload, workload_at

REASONS = {
    MEMORY_IN_USE: "the memory fraction asks for more than is free once CUDA and NCCL are up",
    WEIGHTS_DO_NOT_FIT: "the weights do not fit in the memory the engine may use on each GPU",
    NO_KV_MEMORY: "the weights load, but the runtime's own memory leaves nothing for the KV cache",
    CONTEXT_DOES_NOT_FIT: "the KV cache cannot hold one sequence of the context",
    CONTEXT_BEYOND_WINDOW: "the context is longer than the model's context window",
    NO_CHECKPOINT: "no checkpoint of the model at that precision is listed for this engine",
    ENGINE_DOES_NOT_RUN: "this version of the engine does not run this model (its kind of layers or its model class)",
    GPU_NOT_PLANNED: "this engine runs this model's attention on this GPU with kernels whose memory is not modelled here",
    GPU_WITHOUT_KERNELS: "this version of the engine has no kernels for this model's attention on this GPU",
    DRAFT_WITH_PIPELINE: "drafting with the MTP layers does not run with pipeline parallelism (more than one machine)",
    UNIFIED_MEMORY: "this machine's GPU shares the CPU's memory: it is planned with llama.cpp only (--engine llama.cpp)",
}
NOT_PLANNED = (GPU_NOT_PLANNED, UNIFIED_MEMORY)  # it may start there: the figures do not follow its accounting


def verdict(plan: Plan) -> str:
    """It starts for the users asked, starts for fewer of them, or does not start."""
    return "does_not_start" if not plan.starts else "starts" if plan.users_fit else "starts_for_fewer_users"


def throughput_json(speed: Throughput | None, workload: Workload) -> dict:
    """The workload asked and how fast the plan serves it (null figures: it does not start there, or
    the GPU's compute or bandwidth is not in the catalog)."""
    figures = {
        "output_tokens_per_second": speed and round(speed.output_tokens_per_second, 2),  # all users together
        "output_tokens_per_second_per_user": speed and round(speed.output_tokens_per_second_per_user, 2),
        "ttft_seconds": speed and round(speed.ttft_seconds, 4),
        "tpot_seconds": speed and round(speed.tpot_seconds, 5),
        "users_decoding_at_once": speed and speed.batch,  # the others wait for a place in the KV cache
    }
    return {"input_tokens": workload.input_tokens, "output_tokens": workload.output_tokens, **figures}


def plan_json(plan: Plan, workload: Workload | None = None) -> dict:
    """`workload`: the one timed (default: workload_at the plan's context, for its users)."""
    workload = workload or workload_at(plan.context, plan.request.users)
    return {
        "model": plan.model.id,
        "gpu": plan.gpu.slug,
        "count": plan.setup.total_gpus,
        "machines": plan.setup.machines,
        "engine": plan.engine,
        "engine_version": plan.engine_version,
        "tp": plan.split.tensor,
        "pp": plan.split.pipeline,
        "context": plan.context,
        "users": plan.request.users,
        "precision": plan.request.precision,
        "checkpoint": plan.weights and plan.weights.repo,  # the repo the command serves
        "speculative": plan.request.speculative,
        "kv_dtype": plan.request.kv_dtype,
        "kv_cache_dtype": plan.cache_dtype,  # what the engine keeps: "auto" takes a checkpoint's own (vLLM)
        "memory_fraction": float(plan.memory_fraction),
        "total_memory_bytes_per_gpu": plan.total_memory_bytes,
        "weights_bytes_per_gpu": plan.weights_bytes,
        "kv_bytes_per_token_per_gpu": plan.kv_bytes_per_token,
        "non_kv_bytes_per_gpu": plan.non_kv_bytes,
        "available_kv_bytes_per_gpu": max(plan.available_kv_bytes, 0),
        "short_bytes_per_gpu": max(-plan.available_kv_bytes, 0),  # what the engine would lack
        "kv_tokens": plan.kv_tokens,
        "max_concurrency": round(plan.max_concurrency, 4),
        "starts": plan.starts,
        "reason": plan.reason,
        "reason_text": REASONS.get(plan.reason),
        "max_context": plan.max_context,
        "max_users": plan.max_users,
        "users_fit": plan.users_fit,
        "verdict": verdict(plan),
        "decode_tokens_per_second": plan.decode_tokens_per_second,
        "price_per_hour": None if plan.price_per_hour is None else float(plan.price_per_hour),
        **throughput_json(serving_throughput(plan, workload), workload),
        "command": plan.command,
    }


def answer_json(result: Answer, workload: Workload | None = None) -> dict:
    """The plan for the flags asked; `remedy`: the flags that make it start (`changes`) and that
    plan's figures, or null (it starts as asked, or no change of flags or context starts it). Both
    timed at `workload` (default: workload_at the asked plan's context)."""
    workload = workload or workload_at(result.asked.context, result.asked.request.users)
    remedy = result.remedy
    return dict(plan_json(result.asked, workload), remedy=None if remedy is None else
                dict(plan_json(remedy, workload), changes=[" ".join(flag) for flag in remedy.changes]))


def _gib(byte_count: int) -> str:
    return f"{byte_count / GIB:,.2f} GiB"


def throughput_text(speed: Throughput | None, workload: Workload) -> list[str]:
    if speed is None:
        return []
    users = workload.users
    waiting = (f"; {speed.batch:,} of the {users:,} users decode at once, the others wait for room in the KV cache"
               if speed.batch < users else "")
    return [
        f"  at {users:,} user{'s' if users != 1 else ''}, {workload.input_tokens:,} tokens in and "
        f"{workload.output_tokens:,} out each{waiting}:",
        f"    output                {speed.output_tokens_per_second:,.1f} tokens/s in all, "
        f"{speed.output_tokens_per_second_per_user:,.1f} per user",
        f"    first token           {speed.ttft_seconds:,.3f} s; then one every {speed.tpot_seconds * 1000:,.1f} ms",
    ]


def plan_text(plan: Plan, workload: Workload) -> str:
    setup, split = plan.setup, plan.split
    machines = "" if setup.machines == 1 else f" in {setup.machines} machines"
    fraction = plan.engine_record.memory_fraction_name
    lines = [
        f"{plan.model.name} on {setup.total_gpus} × {plan.gpu.name}{machines}, "
        f"{plan.engine_record.name} {plan.engine_version}",
        f"tensor parallel {split.tensor}, pipeline {split.pipeline}; context {plan.context:,} tokens, "
        f"{plan.request.users} user{'s' if plan.request.users != 1 else ''}, weights {plan.request.precision}"
        + (f" ({plan.weights.repo})" if plan.weights else "") + f", KV {plan.request.kv_dtype}"
        + (f" ({plan.cache_dtype}, what auto is for these weights)" if plan.cache_dtype != plan.request.kv_dtype else "") + f", {fraction} {float(plan.memory_fraction):g}"
        + (f", drafting with its {plan.model.architecture.extra_layers} MTP layer"
           f"{'s' if plan.model.architecture.extra_layers != 1 else ''}" if plan.request.speculative else ""),
        "",
        "  per GPU",
        f"    memory the engine sees  {_gib(plan.total_memory_bytes):>14}",
        f"    weights as loaded       {_gib(plan.weights_bytes):>14}",
    ]
    lines += [f"    {name.replace('_', ' '):<23} {_gib(value):>14}" for name, value in plan.non_kv_bytes.items()]
    lines += [
        f"    available for KV cache  {_gib(plan.available_kv_bytes):>14}",
        f"    KV per token            {plan.kv_bytes_per_token:>10,} B",
        "",
        f"  KV cache holds          {plan.kv_tokens:,} tokens: {plan.max_concurrency:,.2f} sequences of {plan.context:,}",
    ]
    if plan.starts and not plan.users_fit:
        lines.append(f"  starts                  yes, for {plan.max_users:,} of the {plan.request.users:,} users asked "
                     "at this context")
    elif plan.starts:
        users = f"{plan.max_users:,} user{'s' if plan.max_users != 1 else ''}"
        lines.append(f"  starts                  yes; up to {users} at once at this context")
    elif plan.reason in NOT_PLANNED:
        lines.append(f"  starts                  not planned: {REASONS[plan.reason]}")
    else:
        lines.append(f"  starts                  no: {REASONS[plan.reason]}")
    if plan.max_context:
        lines.append(f"  longest context         {plan.max_context:,} tokens")
    if plan.starts and plan.decode_tokens_per_second is not None:
        lines.append(f"  decode (upper bound)    {plan.decode_tokens_per_second:,.1f} tokens/s per sequence")
    lines += throughput_text(serving_throughput(plan, workload), workload)
    if plan.starts and plan.price_per_hour is not None:
        lines.append(f"  price                   ${plan.price_per_hour:,.2f}/hour")
    if plan.command is not None:
        mark = "# not planned here" if plan.reason in NOT_PLANNED else "# does not start as printed"
        lines += ["", plan.command if plan.starts else f"{mark}\n{plan.command}"]
    return "\n".join(lines)


def answer_text(result: Answer, workload: Workload) -> str:
    """The plan for the flags asked; below it, when it does not start, the one with the flags that do."""
    text = plan_text(result.asked, workload)
    remedy = result.remedy
    if remedy is None:
        return text
    flags = ", ".join(" ".join(flag) for flag in remedy.changes)
    return f"{text}\n\nWith {flags} it starts:\n\n{plan_text(remedy, workload)}"


def llama_cpp_json(plan: LlamaCppPlan, workload: Workload | None = None) -> dict:
    workload = workload or workload_at(plan.context, plan.request.users)
    return {
        "model": plan.model.id,
        "gpu": plan.gpu.slug,
        "count": plan.count,
        "engine": LLAMA_CPP.key,
        "engine_version": LLAMA_CPP.version,
        "quant": plan.request.quant,
        "imatrix": plan.request.imatrix,
        "gguf_file_bytes": plan.file.file_bytes,  # on disk: the tensors and the metadata (an estimate)
        "gguf_tensor_bytes": plan.file.tensor_bytes,  # what the GPUs and the RAM hold
        "bits_per_weight": round(plan.file.bits_per_weight, 4),
        "context": plan.context,
        "users": plan.request.users,
        "cache_type": plan.request.cache_type,
        "n_gpu_layers": plan.n_gpu_layers,
        "n_cpu_moe": plan.n_cpu_moe,
        "total_memory_bytes_per_gpu": plan.total_memory_bytes,
        "weights_bytes_per_gpu": plan.weights_bytes_per_gpu,
        "weights_bytes_in_ram": plan.weights_bytes_in_ram,
        "kv_bytes_per_token": plan.kv_bytes_per_token,
        "state_bytes_per_user": plan.state_bytes_per_user,
        "kv_bytes_per_gpu": plan.kv_bytes_per_gpu,
        "kv_bytes_in_ram": plan.kv_bytes_in_ram,
        "compute_buffer_bytes": plan.compute_buffer_bytes,
        "starts": plan.starts,
        "gpu_read_bytes_per_token": plan.gpu_read_bytes,
        "ram_read_bytes_per_token": plan.ram_read_bytes,
        "decode_tokens_per_second": plan.decode_tokens_per_second,
        "price_per_hour": None if plan.price_per_hour is None else float(plan.price_per_hour),
        **throughput_json(llama_cpp_throughput(plan, workload), workload),
        "command": plan.command,
    }


def llama_cpp_text(plan: LlamaCppPlan, workload: Workload) -> str:
    cache = "KV cache and states" if plan.state_bytes_per_user else "KV cache"
    lines = [
        f"{plan.model.name} {plan.request.quant} on {plan.count} × {plan.gpu.name}, {LLAMA_CPP.name} ({LLAMA_CPP.version})",
        f"GGUF file {_gib(plan.file.file_bytes)} ({plan.file.bits_per_weight:.2f} bits per weight); "
        f"context {plan.context:,} tokens, {plan.request.users} user{'s' if plan.request.users != 1 else ''}, "
        f"cache {plan.request.cache_type}",
        "",
        f"  --n-gpu-layers {plan.n_gpu_layers}" + (f", --n-cpu-moe {plan.n_cpu_moe}" if plan.n_cpu_moe else ""),
        "  per GPU (the fullest)",
        # a unified-memory machine: the share of its memory the GPU may use (records.Gpu.gpu_memory_share)
        f"    {'memory its GPU may use' if plan.gpu.unified_memory else 'memory CUDA reports':<23} "
        f"{_gib(plan.total_memory_bytes):>14}",
        f"    weights                 {_gib(plan.weights_bytes_per_gpu):>14}",
        f"    {cache:<23} {_gib(plan.kv_bytes_per_gpu):>14}",
        f"    compute buffer          {_gib(plan.compute_buffer_bytes):>14}",
        "  system RAM",
        f"    weights                 {_gib(plan.weights_bytes_in_ram):>14}",
        f"    {cache:<23} {_gib(plan.kv_bytes_in_ram):>14}",
        "",
        f"  starts                  {'yes' if plan.starts else 'no: more than the GPU holds once llama.cpp keeps 1 GiB free'}",
    ]
    if plan.decode_tokens_per_second is not None:
        lines.append(f"  decode (upper bound)    {plan.decode_tokens_per_second:,.1f} tokens/s per sequence")
    lines += throughput_text(llama_cpp_throughput(plan, workload), workload)
    lines += ["", plan.command]
    return "\n".join(lines)
