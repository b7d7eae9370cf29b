"""The engines the planner follows, one record each (engine.py). Adding an engine is one module
with its record and rules, its line here, and its strings in the templates and locales."""

from __future__ import annotations

from generator.catalog.records import Gpu
from generator.sizing.engine import Engine
from generator.sizing.engine_sglang import SGLANG
from generator.sizing.engine_vllm import VLLM
from generator.sizing.llama_cpp import LLAMA_CPP

# Engines whose plans lay a KV cache out in GPU memory from a share of it (planner.py).
SERVING_ENGINES: dict[str, Engine] = {engine.key: engine for engine in (VLLM, SGLANG)}
# Every engine `plan --engine` takes: llama.cpp runs a GGUF file with its own planner (llama_cpp.py).
ENGINES: dict[str, Engine] = {**SERVING_ENGINES, LLAMA_CPP.key: LLAMA_CPP}


def engines_planned_on(gpu: Gpu) -> tuple[Engine, ...]:
    """The engines planned on this GPU: all, or on a machine whose GPU shares the CPU's memory,
    those that plan unified memory (Engine.gpu_reason)."""
    return tuple(engine for engine in ENGINES.values() if engine.plans_machine(gpu))
