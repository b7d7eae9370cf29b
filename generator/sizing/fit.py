"""What fits a reader's GPUs: for each model, the largest format that starts and serves the users. Pure.

The "What fits my GPUs" page lists every model for one question (a GPU, how many, a context, users
and an engine). A model fits when a plan (planner.py, with the flag changes plan_that_starts may
add, but never a shorter context) starts at that context and holds that many users at once. Formats
are tried largest first, so the first that fits is the one that loses least.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from generator.catalog.records import Gpu, Model
from generator.sizing.checkpoints import published_weights, served_precisions
from generator.sizing.engines import SERVING_ENGINES
from generator.sizing.planner import CONTEXT_BEYOND_WINDOW, Plan, PlanRequest, plan_that_starts


@dataclass(frozen=True)
class FitRow:
    model: Model
    fits: bool
    plan: Plan  # the largest format that fits; when none does, the smallest format's plan

    @property
    def beyond_window(self) -> bool:
        """It does not fit because the context asked passes the model's window."""
        return self.plan.reason == CONTEXT_BEYOND_WINDOW


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
