"""Run it on your own GPU: each common GGUF quant, its file, and the smallest single card that holds
it with llama.cpp at a 32k context; for MoE models, one card with the experts in RAM. Pure.

Every figure is a llama.cpp plan (llama_cpp.py): "holds it" means every layer on the GPU, the KV
cache of one 32,768-token sequence (or the model's window, when shorter) and the compute buffer
within the card's memory less llama.cpp's 1 GiB margin. Catalog cards without a price count too:
readers own them; so do unified-memory machines, with the share of their memory the GPU may use.
"""

from __future__ import annotations

from dataclasses import dataclass

from generator.catalog.records import Gpu, Model
from generator.sizing.engine import engine_memory_bytes
from generator.sizing.gguf import GgufFile, gguf_file, gguf_sizable, page_quants
from generator.sizing.llama_cpp import (
    FIT_MARGIN, LlamaCppPlan, LlamaCppRequest, default_llama_cpp_context, every_layer, llama_cpp_plan,
)

CHOSEN_QUANT = "Q4_K_M"  # the page's commands: the quant most readers download


@dataclass(frozen=True)
class QuantFit:
    quant: str
    file: GgufFile
    plan: LlamaCppPlan | None  # on the smallest card that holds every layer; None: no single card does


@dataclass(frozen=True)
class OwnGpu:
    context: int
    rows: tuple[QuantFit, ...]
    chosen: QuantFit  # the commands' quant
    offload: LlamaCppPlan | None  # MoE: the chosen quant on the smallest card that runs it with experts in RAM


def _by_memory(gpus: tuple[Gpu, ...]) -> list[Gpu]:
    return sorted(gpus, key=lambda gpu: (engine_memory_bytes(gpu), gpu.slug))


def _smallest_holding(model: Model, cards: list[Gpu], quant: str, context: int) -> LlamaCppPlan | None:
    """The plan on the card with the least memory that holds every layer (what the layers, their KV
    cache and the compute buffer take is the same on any card)."""
    whole = LlamaCppRequest(quant, context, n_gpu_layers=every_layer(model), n_cpu_moe=0)
    need = llama_cpp_plan(model, cards[-1], 1, whole).vram_bytes
    card = next((gpu for gpu in cards if engine_memory_bytes(gpu) - FIT_MARGIN >= need), None)
    return None if card is None else llama_cpp_plan(model, card, 1, whole)


def own_gpu(model: Model, gpus: tuple[Gpu, ...]) -> OwnGpu | None:
    if not gguf_sizable(model):
        return None
    cards = _by_memory(gpus)
    context = default_llama_cpp_context(model)
    rows = tuple(
        QuantFit(quant, gguf_file(model, quant), _smallest_holding(model, cards, quant, context))
        for quant in page_quants(model)
    )
    chosen = next(row for row in rows if row.quant == CHOSEN_QUANT)
    offload = None
    if model.architecture.moe is not None:
        for gpu in (card for card in cards if not card.unified_memory):  # unified memory has no RAM apart
            plan = llama_cpp_plan(model, gpu, 1, LlamaCppRequest(CHOSEN_QUANT, context))
            if plan.starts and plan.n_gpu_layers == every_layer(model):
                offload = plan
                break
    return OwnGpu(context, rows, chosen, offload)
