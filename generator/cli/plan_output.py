"""The `plan` command's output: one JSON object (bytes as integers), or a table for a terminal."""

from __future__ import annotations

from generator.sizing.engine import GIB
from generator.site.figures import NOT_PLANNED, REASONS
from generator.sizing.llama_cpp import LLAMA_CPP, LlamaCppPlan
from generator.sizing.plan_speed import llama_cpp_throughput, serving_throughput
from generator.sizing.planner import Answer, Plan
from generator.sizing.throughput import Throughput, Workload


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
