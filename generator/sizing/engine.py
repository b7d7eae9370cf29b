"""What every serving engine is made of: its record (name, version, flags, command), the flags a
reader asks a plan for, what an engine's memory accounting answers, and the integer helpers they
share. Pure values; no I/O. Each engine is one module (engine_vllm.py, engine_sglang.py,
llama_cpp.py) holding its record, its constants and its rules; engines.py lists them.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Callable, NamedTuple

from generator.catalog.records import Gpu, Model, RopeScaling

GIB = 2**30
MIB = 2**20
KV_DTYPES = ("auto", "fp8")
# The highest share of GPU memory a plan suggests to any engine: above it the CUDA context and
# NCCL buffers, made before vLLM measures free memory, may not fit ("Free memory on device ... is
# less than desired GPU memory utilization", vllm/v1/worker/utils.py request_memory).
MAX_MEMORY_FRACTION = Fraction(95, 100)

# Why a plan does not start (the pages and the CLI say each in words).
MEMORY_IN_USE = "memory_in_use"  # the fraction asks for more than is free once CUDA is up
WEIGHTS_DO_NOT_FIT = "weights_do_not_fit"
NO_KV_MEMORY = "no_kv_memory"  # the weights load, nothing is left for the KV cache
CONTEXT_DOES_NOT_FIT = "context_does_not_fit"  # KV memory, but not for one sequence of the context
# The engine's version does not run the model: its kind of layers (engine record `recurrent_kinds`,
# `global_attention_heads`) or its model class (`config_classes`).
ENGINE_DOES_NOT_RUN = "engine_does_not_run"
# The engine runs the model, but on this GPU with other kernels than the ones its accounting here
# follows (engine record `attention_gpus`): DeepSeek-V4's attention in vLLM 0.33.0 is FlashMLA's on
# compute capability 9.x and 10.x; GeForce and RTX PRO Blackwell (12.x) take FlashInfer's SM120 class
# and AMD GPUs a ROCm implementation of their own, whose memory is not modelled.
GPU_NOT_PLANNED = "gpu_not_planned"
UNIFIED_MEMORY = "unified_memory"  # a machine whose GPU shares the CPU's memory: llama.cpp only here
# The engine has no kernels for the model's attention on this GPU: DeepSeek-V4 in vLLM 0.33.0 on
# NVIDIA GPUs below 9.x (models/deepseek_v4/nvidia/model.py _select_dsv4_attn_cls takes FlashMLA's
# class there, whose backend supports 9.x and 10.x only, sparse_mla.py supports_compute_capability).
GPU_WITHOUT_KERNELS = "gpu_without_kernels"
# No checkpoint of the precision asked that the engine serves (checkpoints.py): no command loads
# other weights than the verdict is for.
NO_CHECKPOINT = "no_checkpoint"
# A context past the model's window: vLLM refuses it before loading anything (vllm/config/model.py
# _get_and_verify_max_len: "User-specified max_model_len (65536) is greater than the derived
# max_model_len (max_position_embeddings=32768 ...)"), SGLang likewise (model_config.py,
# "User-specified context_length ... is greater than the derived context_length").
CONTEXT_BEYOND_WINDOW = "context_beyond_window"
# Drafting with MTP layers on more than one pipeline stage, where the engine refuses it (SGLang
# 0.5.3rc2 server_args.py: "Pipeline parallelism is not compatible with overlap schedule,
# speculative decoding, mixed chunked prefill."; engine record `speculative_with_pipeline`).
DRAFT_WITH_PIPELINE = "draft_with_pipeline"


# What of a model an engine's version does not run (Engine.what_it_does_not_run).
MODEL_CLASS = "model_class"  # its config.json class is not among those the version registers
RECURRENT_LAYERS = "recurrent_layers"  # a kind of linear-attention layer (records.LinearAttention.kind)
GLOBAL_ATTENTION_LAYERS = "global_attention_layers"  # global layers with KV heads of their own (Gemma 4)


class NotRun(NamedTuple):
    part: str  # MODEL_CLASS, RECURRENT_LAYERS or GLOBAL_ATTENTION_LAYERS
    name: str | None = None  # the class, or the kind of layer


@dataclass(frozen=True)
class CommandTemplate:
    """The launch command, one flag per line. Fields are filled from {model}, {tensor}, {pipeline},
    {machines} and {context}; `pipeline` and `machines` lines only when above 1 (and given)."""

    start: tuple[str, ...]
    tensor: str
    pipeline: str
    context: str
    machines: str | None = None

    def command(self, model_id: str, tensor: int, pipeline: int, machines: int, context: int,
                extra: tuple[tuple[str, str], ...] = (), env: tuple[str, ...] = ()) -> str:
        """`env`: NAME=value settings the command needs, before the program."""
        lines = list(self.start) + [self.tensor]
        if pipeline > 1:
            lines.append(self.pipeline)
        if machines > 1 and self.machines:
            lines.append(self.machines)
        lines.append(self.context)
        values = {"model": model_id, "tensor": tensor, "pipeline": pipeline, "machines": machines, "context": context}
        lines = [line.format(**values) for line in lines] + [f"{name} {value}" if value else name for name, value in extra]
        return " ".join([*env, lines[0]]) + "".join(f" \\\n  {line}" for line in lines[1:])

    def as_data(self) -> dict:
        return {"start": list(self.start), "tensor": self.tensor, "pipeline": self.pipeline, "context": self.context,
                "machines": self.machines}


@dataclass(frozen=True)
class PlanRequest:
    """The flags a reader asks a plan for."""

    engine: str = "vllm"
    context: int | None = None  # vLLM --max-model-len, SGLang --context-length; None: the model's window
    users: int = 1
    memory_fraction: Fraction | None = None  # --gpu-memory-utilization / --mem-fraction-static; None: default
    kv_dtype: str = "auto"  # or "fp8"
    precision: str = "native"  # native, or the bits of checkpoints.PRECISION_BITS: bf16, fp8, 4bit
    checkpoint: str | None = None  # a repo id of the model's checkpoints, instead of the first of `precision`
    max_num_batched_tokens: int | None = None  # vLLM; None: its default for the GPU
    max_num_seqs: int | None = None
    speculative: str | None = None  # "mtp": the checkpoint's multi-token-prediction layers draft tokens


SPECULATIVE_METHODS = ("mtp",)


def drafting_layers(model: Model, request: PlanRequest) -> int:
    """The prediction layers a plan loads and caches: all the checkpoint ships when it drafts with
    them (vLLM reuses one MTP layer for every draft step, deepseek_mtp.py: spec_step_idx %
    num_mtp_layers), none otherwise."""
    return model.architecture.extra_layers if request.speculative == "mtp" else 0


class Accounting(NamedTuple):
    """One engine's memory accounting on one GPU."""

    memory_fraction: Fraction
    non_kv_bytes: dict[str, int]
    available_kv_bytes: int
    kv_bytes_per_token: int
    kv_tokens: int
    max_concurrency: float
    reason: str | None
    max_context: int
    max_users: int


@dataclass(frozen=True)
class Engine:
    """One serving engine as every part of the code reads it."""

    key: str  # what --engine takes and the address and JSON carry
    name: str
    version: str  # the release (or commit) whose code the rules follow
    context_flag: str
    command: CommandTemplate | None = None  # None: the engine prints its own (llama.cpp)
    memory_fraction_flag: str | None = None
    memory_fraction_name: str | None = None  # the option's name in words (plan's table)
    kv_cache_dtype_flag: str | None = None
    fp8_kv_value: str | None = None
    batch_flags: tuple[tuple[str, str], ...] = ()  # (PlanRequest field, flag)
    # (model, gpu, split, request, weights, context, longest context, draft weights) -> Accounting
    accounting: Callable | None = None
    # (model, gpu, split, request, tokens) -> the KV bytes one sequence of that many tokens takes
    sequence_kv_bytes: Callable | None = None
    pads_mxfp4: bool = False  # loads MXFP4 experts padded for its kernels (engine_vllm.vllm_mxfp4_padding)
    # the accounting planner.js runs for it: an engine's key (its own unless it shares another's)
    browser_accounting: str | None = None
    # the flags that pass a model card's rope scaling past the config's length
    rope_override: Callable[[RopeScaling], tuple[tuple[str, str], ...]] | None = None
    rope_env: tuple[str, ...] = ()  # settings the command needs with that override
    # (total memory, tensor-parallel size, the fraction asked) -> the fraction a remedy tries
    fitting_fraction: Callable[[int, int, Fraction], Fraction] | None = None
    # the flags that quantize a 16-bit checkpoint to FP8 as it loads (checkpoints.py); () when the
    # plans do not offer it for this engine
    on_the_fly_fp8: tuple[tuple[str, str], ...] = ()
    # the recurrent-state layer kinds (records.LinearAttention.kind) its version runs
    recurrent_kinds: tuple[str, ...] = ()
    # it runs global layers whose attention has heads of its own (records.Attention.global_layers: Gemma 4)
    global_attention_heads: bool = False
    # the model classes its version registers (engine_registries.py); empty: not checked
    config_classes: frozenset[str] = frozenset()
    # --kv-cache-dtype auto takes the served checkpoint's own KV cache type (records.Checkpoint.kv_cache_dtype)
    checkpoint_kv_dtype: bool = False
    # the flags that draft tokens with the model's MTP layers, one token ahead
    speculative_flags: tuple[tuple[str, str], ...] = ()
    speculative_with_pipeline: bool = False  # it drafts when the target has several pipeline stages
    # the flags that serve a model with a vision tower as text only, so that the engine neither loads
    # the tower nor profiles its encoder; () when the engine has none (it then loads the tower)
    text_only_flags: tuple[tuple[str, str], ...] = ()
    # (attention kind, the NVIDIA compute capabilities (major) whose kernels the accounting follows,
    # the other NVIDIA ones with kernels of the engine's own): kinds not listed are planned on every
    # GPU; on other NVIDIA GPUs the kind has no kernels; AMD GPUs run it, not planned
    attention_gpus: tuple[tuple[str, tuple[int, ...], tuple[int, ...]], ...] = ()
    # it is planned on machines whose GPU shares the CPU's memory (records.Gpu.gpu_memory_share)
    unified_memory: bool = False

    def plans_machine(self, gpu: Gpu) -> bool:
        """Whether this engine is planned on the machine at all: on unified memory, only if it says so."""
        return self.unified_memory or not gpu.unified_memory

    def gpu_reason(self, model: Model, gpu: Gpu) -> str | None:
        """UNIFIED_MEMORY on a machine whose GPU shares the CPU's memory (its engine's accounting of
        free memory differs there: vllm#35313); GPU_NOT_PLANNED or GPU_WITHOUT_KERNELS where this
        GPU's kernels for the model's attention are not the ones the accounting follows; None where
        they are."""
        if not self.plans_machine(gpu):
            return UNIFIED_MEMORY
        kinds = {kind: (planned, others) for kind, planned, others in self.attention_gpus}
        if model.architecture.attention.kind not in kinds:
            return None
        planned, others = kinds[model.architecture.attention.kind]
        if gpu.vendor != "NVIDIA" or gpu.compute_capability is None:
            return GPU_NOT_PLANNED
        major = int(gpu.compute_capability)
        return None if major in planned else GPU_NOT_PLANNED if major in others else GPU_WITHOUT_KERNELS

    def what_it_does_not_run(self, model: Model) -> NotRun | None:
        """What of the model this engine's version does not run: its model class or a kind of layers;
        None: it runs it."""
        arch = model.architecture
        linear = arch.linear_attention
        if arch.config_class and self.config_classes and arch.config_class not in self.config_classes:
            return NotRun(MODEL_CLASS, arch.config_class)
        if linear is not None and linear.kind not in self.recurrent_kinds:
            return NotRun(RECURRENT_LAYERS, linear.kind)
        if arch.attention.global_differs and not self.global_attention_heads:
            return NotRun(GLOBAL_ATTENTION_LAYERS)
        return None

    def runs(self, model: Model) -> bool:
        """Whether this engine's version runs the model: its class and every kind of layer it has."""
        return self.what_it_does_not_run(model) is None

    def as_data(self) -> dict:
        """The record as the browser reads it (plan_data.py)."""
        return {
            "name": self.name, "version": self.version, "context_flag": self.context_flag,
            "command": self.command.as_data() if self.command else None,
            "memory_fraction_flag": self.memory_fraction_flag, "kv_cache_dtype_flag": self.kv_cache_dtype_flag,
            "fp8_kv_value": self.fp8_kv_value, "pads_mxfp4": self.pads_mxfp4,
            "accounting": self.browser_accounting or self.key, "rope_env": list(self.rope_env),
            "speculative_flags": [list(flag) for flag in self.speculative_flags],
            "speculative_with_pipeline": self.speculative_with_pipeline,
            "text_only_flags": [list(flag) for flag in self.text_only_flags],
            "checkpoint_kv_dtype": self.checkpoint_kv_dtype,
            "attention_gpus": {kind: [list(planned), list(others)] for kind, planned, others in self.attention_gpus},
            "unified_memory": self.unified_memory,
        }


def plain_number(value: Decimal) -> str:
    """4.0 -> "4.0", 1000000 -> "1000000": a catalog decimal as JSON writes it (no exponent)."""
    return str(int(value)) if value == int(value) and "." not in str(value) else str(value)


def rope_scaling_at(model: Model, context: int) -> RopeScaling | None:
    """The card's rope scaling, when `context` passes the length the model's config declares."""
    rope = model.rope_scaling
    return rope if rope is not None and context > rope.native_context else None


def engine_memory_bytes(gpu: Gpu) -> int:
    """The total an engine sees (cudaMemGetInfo; Metal's budget on a Mac); the datasheet figure (a
    unified-memory machine's share of it) when the catalog lacks it."""
    return gpu.reported_memory_bytes or gpu.gpu_memory_bytes


def per_tensor_parallel(table: dict[int, int], tensor: int) -> int:
    """A measured figure for one GPU or for several (the key 2 stands for any TP > 1)."""
    return table[1] if tensor == 1 else table[2]


def kv_dtype_bytes(kv_dtype: str) -> int:
    """Bytes per cached value: the model's 16 bits, or 1 with --kv-cache-dtype fp8."""
    return 1 if kv_dtype == "fp8" else 2


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def round_up(value: int, multiple: int) -> int:
    return cdiv(value, multiple) * multiple


def largest(fits: Callable[[int], bool], high: int) -> int:
    """The largest n in [0, high] with fits(n) (fits is monotone); 0 when even 1 does not fit."""
    low = 0
    while low < high:
        middle = (low + high + 1) // 2
        if fits(middle):
            low = middle
        else:
            high = middle - 1
    return low
