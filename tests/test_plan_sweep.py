"""`plan` answers for every catalog model on every catalog GPU, for both engines."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.catalog.loader import load_catalog
from generator.site.figures import plan_json
from generator.sizing.planner import PlanRequest, plan_that_starts

ROOT = Path(__file__).resolve().parent.parent
CATALOG = load_catalog(ROOT / "content")


def _byte_fields(answer: dict):
    for key, value in answer.items():
        if key.endswith("_bytes_per_gpu") or key.endswith("bytes_per_token_per_gpu"):
            yield from (value.items() if isinstance(value, dict) else [(key, value)])


@pytest.mark.parametrize("engine", ["vllm", "sglang"])
@pytest.mark.parametrize("gpu", CATALOG.gpus, ids=[gpu.slug for gpu in CATALOG.gpus])
def test_every_model_plans_on_every_gpu(gpu, engine):
    for model in CATALOG.models:
        for count in (1, 2, 8, 16):
            for context in (None, 4096):
                result = plan_that_starts(model, gpu, count, PlanRequest(engine=engine, context=context))
                answer = plan_json(result)
                where = f"{model.slug} on {count} × {gpu.slug}, {engine}, context {result.context}"
                for key, value in _byte_fields(answer):
                    assert isinstance(value, int) and value >= 0, (where, key, value)
                assert answer["starts"] == (answer["reason"] is None), where
                if result.kv_tokens < result.context:  # not one sequence of the context
                    assert not result.starts, where
                if result.starts:
                    assert result.max_context >= result.context and result.max_users >= 1, where
                assert answer["tp"] * answer["pp"] == count, where
