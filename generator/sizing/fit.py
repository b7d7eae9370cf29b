"""What fits a reader's GPUs: for each model, the largest format that starts and serves the users. Pure.

The "What fits my GPUs" page lists every model for one question (a GPU, how many, a context, users
and an engine). A model fits when a plan (planner.py, with the flag changes plan_that_starts may
add, but never a shorter context) starts at that context and holds that many users at once. Formats
are tried largest first, so the first that fits is the one that loses least.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from generator.catalog.records import Gpu, Model
from generator.sizing.formats import format_table
from generator.sizing.planner import CONTEXT_BEYOND_WINDOW, Plan, PlanRequest, plan_that_starts
from generator.sizing.size_report import PRECISIONS


@dataclass(frozen=True)
class FitRow:
    model: Model
    fits: bool
    plan: Plan  # the largest format that fits; when none does, the smallest format's plan

    @property
    def beyond_window(self) -> bool:
        """It does not fit because the context asked passes the model's window."""
        return self.plan.reason == CONTEXT_BEYOND_WINDOW


def precisions_largest_first(model: Model) -> tuple[str, ...]:
    """The formats rows of `plan --precision`, largest weights first (ties: the published one first)."""
    offered = set(PRECISIONS.values())
    rows = [row for row in format_table(model) if row.key in offered]
    return tuple(row.key for row in sorted(rows, key=lambda row: (-row.bytes, row.key != "native")))


def fit_row(model: Model, gpu: Gpu, count: int, request: PlanRequest) -> FitRow:
    plan = None
    for precision in precisions_largest_first(model):
        plan = plan_that_starts(model, gpu, count, replace(request, precision=precision), shorter=False)
        if plan.users_fit:
            return FitRow(model, True, plan)
    return FitRow(model, False, plan)
