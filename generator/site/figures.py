"""The figures as JSON objects: what `plan --json`, `cheapest --json` and `size --json` print and
the API's files hold (api.py). Byte counts are integers; prices are numbers in the site's currency.
A reason a plan does not start is a key, with its English text (pages word it in their language)."""

from __future__ import annotations

from generator.sizing.cheapest import OPTIONS_SHOWN, Option, Question
from generator.sizing.engine import (
    CONTEXT_BEYOND_WINDOW, CONTEXT_DOES_NOT_FIT, DRAFT_WITH_PIPELINE, ENGINE_DOES_NOT_RUN, GPU_NOT_PLANNED, GPU_WITHOUT_KERNELS, MEMORY_IN_USE, NO_CHECKPOINT, NO_KV_MEMORY,
    UNIFIED_MEMORY, WEIGHTS_DO_NOT_FIT,
)
from generator.sizing.llama_cpp import LLAMA_CPP, LlamaCppPlan
from generator.sizing.plan_speed import llama_cpp_throughput, serving_throughput
from generator.sizing.planner import Answer, Plan
from generator.sizing.setups import Setup
from generator.sizing.size_report import SizeReport
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

def setup_json(setup: Setup | None) -> dict | None:
    if setup is None:
        return None
    price = setup.price_per_hour
    return {
        "gpu": setup.gpu.slug,
        "count": setup.total_gpus,
        "gpus_per_machine": setup.gpus_per_machine,
        "machines": setup.machines,
        "memory_bytes": setup.memory_bytes,
        "price_per_hour": None if price is None else float(price),
    }

def report_json(report: SizeReport) -> dict:
    model = report.model
    return {
        "model": model.id,
        "slug": model.slug,
        "params": model.params,
        "precision": report.precision,
        "weights_bytes": report.weights.bytes,
        "weights_by_component": report.weights.by_component,
        "kv_bytes_per_token": report.kv_bytes_per_token,
        "kv_window_bytes_per_token": report.kv_window_bytes_per_token,
        "kv_window_tokens": report.kv_window_tokens,
        "kv_state_bytes_per_sequence": report.kv_state_bytes_per_sequence,
        "context": report.context,
        "batch": report.batch,
        "kv_bytes": report.kv_bytes,
        "serving_bytes": report.serving_bytes,
        "fine_tuning_bytes": {
            "qlora": report.qlora_bytes,
            "lora": report.lora_bytes,
            "full": report.full_fine_tuning_bytes,
        },
        "required_bytes": report.required_bytes,
        "smallest_setup": setup_json(report.smallest_setup),
        # the operator's own stock (inventory.yaml): the cheapest setup in it, and its largest machine
        "in_stock_setup": setup_json(report.in_stock_setup),
        "largest_node_in_stock": setup_json(report.largest_node),
        "decode_tokens_per_second": report.decode_tokens_per_second,
        "decode_tokens_per_second_total": report.decode_tokens_per_second_total,
    }

def option_json(option: Option, question: Question) -> dict:
    plan = option.plan
    llama = isinstance(plan, LlamaCppPlan)
    return {
        "gpu": plan.gpu.slug,
        "count": option.gpus,
        "machines": option.machines,
        "engine": option.engine,
        "engine_version": LLAMA_CPP.version if llama else plan.engine_version,
        "precision": None if llama else plan.request.precision,
        "checkpoint": None if llama else plan.weights.repo,
        "quant": plan.request.quant if llama else None,
        "price_per_hour": None if option.price_per_hour is None else float(option.price_per_hour),
        "price_provider": plan.gpu.price_provider,
        "price_date": plan.gpu.price_date,
        "max_users": question.workload.users if llama else plan.max_users,  # llama.cpp: one slot per user asked
        **throughput_json(option.speed, question.workload),
        "command": plan.command,
    }

def cheapest_json(model_id: str, question: Question, stock: list[Option] | None, market: list[Option]) -> dict:
    """`in_stock`: null without an inventory; each list cheapest first, OPTIONS_SHOWN long at most."""
    workload = question.workload
    return {
        "model": model_id,
        "context": question.context,
        "users": workload.users,
        "input_tokens": workload.input_tokens,
        "output_tokens": workload.output_tokens,
        "min_tokens_per_second": question.min_tokens_per_second,
        "in_stock": None if stock is None else [option_json(o, question) for o in stock[:OPTIONS_SHOWN]],
        "market": [option_json(o, question) for o in market[:OPTIONS_SHOWN]],
    }
