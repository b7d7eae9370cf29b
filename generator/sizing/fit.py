"""What fits a reader's GPUs: for each model, a verdict in three states. Pure.

The "What fits my GPUs" page and the GPU pages list every model for one question (a GPU, how many,
a context, users and an engine), with one of three verdicts:
- ON_GPUS: it starts with every layer on the GPUs and serves the users asked;
- PART_IN_RAM: llama.cpp starts it with some layers or experts kept in system RAM (the speed then
  falls to what the CPU reads from RAM: llama_cpp.py);
- DOES_NOT_RUN: it does not start, the context passes the model's window, or the engine does not run it.
vLLM and SGLang keep every layer on the GPUs, so their verdict is one of the two ends: a model fits
when a plan (planner.py, with the flag changes plan_that_starts may add, but never a shorter
context) starts at that context and holds that many users at once. Formats are tried largest
first, so the first that fits is the one that loses least.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from generator.catalog.records import Gpu, Model
from generator.sizing.checkpoints import published_weights, served_precisions
from generator.sizing.engine import ENGINE_DOES_NOT_RUN, NO_CHECKPOINT
from generator.sizing.engines import SERVING_ENGINES
from generator.sizing.gguf import PAGE_QUANTS, gguf_sizable, page_quants
from generator.sizing.llama_cpp import LlamaCppLayers, LlamaCppPlan, LlamaCppRequest, every_layer, llama_cpp_plan
from generator.sizing.planner import CONTEXT_BEYOND_WINDOW, Plan, PlanRequest, plan_that_starts

ON_GPUS, PART_IN_RAM, DOES_NOT_RUN = "on_gpus", "part_in_ram", "does_not_run"
VERDICTS = (ON_GPUS, PART_IN_RAM, DOES_NOT_RUN)  # best first: the order the pages sort and list them in
# The GGUF files the fit page offers: every page's quants, and MXFP4_MOE for the models that have it.
FIT_QUANTS = PAGE_QUANTS + ("MXFP4_MOE",)
# llama.cpp's verdict when its plan does not start: even the compute buffer leaves no room (-ngl 0),
# or on unified memory the whole file does not fit the GPU's share
DOES_NOT_START = "does_not_start"


@dataclass(frozen=True)
class FitRow:
    model: Model
    fits: bool
    plan: Plan  # the largest format that fits; when none does, the smallest format's plan

    @property
    def verdict(self) -> str:
        return ON_GPUS if self.fits else DOES_NOT_RUN

    @property
    def reason(self) -> str | None:
        """Why it does not run: the plan's reason (None where it starts, but for fewer users)."""
        return None if self.fits else self.plan.reason

    @property
    def beyond_window(self) -> bool:
        """It does not fit because the context asked passes the model's window."""
        return self.plan.reason == CONTEXT_BEYOND_WINDOW


class Verdict:
    """What a row with a `verdict` (VERDICTS) and a `reason` (why not, or None) says of itself."""

    verdict: str
    reason: str | None

    @property
    def fits(self) -> bool:
        return self.verdict == ON_GPUS

    @property
    def beyond_window(self) -> bool:
        """It does not fit because the context asked passes the model's window."""
        return self.reason == CONTEXT_BEYOND_WINDOW


@dataclass(frozen=True)
class LlamaCppFitRow(Verdict):
    model: Model
    verdict: str  # ON_GPUS, PART_IN_RAM or DOES_NOT_RUN
    plan: LlamaCppPlan | None  # None where llama.cpp is not planned: the window, or a layout it does not run
    reason: str | None = None  # why not: CONTEXT_BEYOND_WINDOW, ENGINE_DOES_NOT_RUN, NO_CHECKPOINT (no file at that
    # quant among the page's: MXFP4_MOE is for MXFP4 experts) or DOES_NOT_START

    @property
    def ram_bytes(self) -> int:
        """What system RAM holds: the layers and experts kept there, the input embeddings, their cache."""
        return 0 if self.plan is None else self.plan.weights_bytes_in_ram + self.plan.kv_bytes_in_ram


def precisions_largest_first(model: Model, engine: str) -> tuple[str, ...]:
    """The precisions a plan with `engine` serves weights for (checkpoints.py), most bits first; the
    published checkpoint as "native", in the place of its bits. An engine that does not run the
    model: the published one alone, whose plan says so."""
    if not SERVING_ENGINES[engine].runs(model):
        return ("native",)  # one plan, which says the engine does not run the model
    published = published_weights(model).precision
    return tuple("native" if key == published else key for key in served_precisions(model, SERVING_ENGINES[engine]))


def fit_row(model: Model, gpu: Gpu, count: int, request: PlanRequest) -> FitRow:
    plan = None
    for precision in precisions_largest_first(model, request.engine):
        plan = plan_that_starts(model, gpu, count, replace(request, precision=precision), shorter=False)
        if plan.users_fit:
            return FitRow(model, True, plan)
    return FitRow(model, False, plan)


def llama_cpp_fit_row(model: Model, gpu: Gpu, count: int, request: LlamaCppRequest,
                      tables: LlamaCppLayers | None = None) -> LlamaCppFitRow:
    """llama.cpp's verdict for a GGUF file at `request` (its quant, cache type, context and users):
    every layer on the GPUs (-ngl all, no --n-cpu-moe), part in RAM, or not at all. `tables`:
    llama_cpp_layers of the request's quant, where the caller has them."""
    window = model.context_window
    if not gguf_sizable(model):
        return LlamaCppFitRow(model, DOES_NOT_RUN, None, ENGINE_DOES_NOT_RUN)
    if window is not None and request.context is not None and request.context > window:
        return LlamaCppFitRow(model, DOES_NOT_RUN, None, CONTEXT_BEYOND_WINDOW)
    if request.quant not in page_quants(model):
        return LlamaCppFitRow(model, DOES_NOT_RUN, None, NO_CHECKPOINT)
    plan = llama_cpp_plan(model, gpu, count, request, tables)
    if not plan.starts:
        return LlamaCppFitRow(model, DOES_NOT_RUN, plan, DOES_NOT_START)
    on_gpus = plan.n_gpu_layers == every_layer(model) and plan.n_cpu_moe == 0
    return LlamaCppFitRow(model, ON_GPUS if on_gpus else PART_IN_RAM, plan)
