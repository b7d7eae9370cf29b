"""The throughput model against public measurements (tests/data/throughput_points.yaml): each point's
plan, the model's figures beside the measured ones, and their errors. `python -m tests.throughput_points`
prints the table the README shows."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from pathlib import Path

import yaml

from generator.catalog.loader import load_catalog
from generator.sizing.llama_cpp import LlamaCppRequest, llama_cpp_plan
from generator.sizing.plan_speed import llama_cpp_throughput, serving_throughput
from generator.sizing.planner import PlanRequest, answer
from generator.sizing.throughput import Throughput, Workload

POINTS = Path(__file__).parent / "data" / "throughput_points.yaml"
CONTENT = Path(__file__).parent.parent / "content"
TOLERANCE = 0.35  # a figure within 35 % of the measured one holds; a point with one beyond it is a miss


@dataclass(frozen=True)
class Comparison:
    point: dict
    modelled: dict[str, float]  # metric -> the model's figure (empty: not computed)

    @property
    def errors(self) -> dict[str, float]:
        """Metric -> (model − measured) / measured."""
        return {metric: self.modelled[metric] / value - 1 for metric, value in self.point["measured"].items()
                if metric in self.modelled}

    @property
    def holds(self) -> bool:
        return bool(self.modelled) and all(abs(error) <= TOLERANCE for error in self.errors.values())


def _figures(speed: Throughput, input_tokens: int) -> dict[str, float]:
    return {
        "output_tokens_per_second": speed.output_tokens_per_second,
        "tpot_ms": speed.tpot_seconds * 1000,
        "ttft_ms": speed.ttft_seconds * 1000,
        "decode_tokens_per_second": 1 / speed.tpot_seconds,
        "prefill_tokens_per_second": input_tokens / speed.prefill_seconds,
    }


def compare(point: dict, catalog) -> Comparison:
    model = next(m for m in catalog.models if m.id == point["model"])
    gpu = next(g for g in catalog.gpus if g.slug == point["gpu"])
    workload = Workload(point["users"], point["input_tokens"], point["output_tokens"])
    if point["engine"] == "llama.cpp":
        request = LlamaCppRequest(quant=point["quant"], context=point.get("context", 4096), users=point["users"])
        speed = llama_cpp_throughput(llama_cpp_plan(model, gpu, point["count"], request), workload)
    else:
        request = PlanRequest(engine=point["engine"], context=point.get("context"), users=point["users"],
                              checkpoint=point.get("checkpoint"), kv_dtype=point.get("kv_dtype", "auto"),
                              precision=point.get("precision", "native"))
        result = answer(model, gpu, point["count"], request)  # with the flags the planner adds where it must
        speed = serving_throughput(result.remedy or result.asked, workload)
    return Comparison(point, {} if speed is None else _figures(speed, point["input_tokens"]))


def comparisons() -> list[Comparison]:
    catalog = load_catalog(CONTENT)
    return [compare(point, catalog) for point in yaml.safe_load(POINTS.read_text())["points"]]


def median_error(results: list[Comparison], metrics: tuple[str, ...] | None = None) -> float:
    """The median absolute error of every figure computed (of `metrics` only, if given)."""
    return statistics.median(abs(error) for result in results for metric, error in result.errors.items()
                             if metrics is None or metric in metrics)


METRICS = {"output_tokens_per_second": "output tok/s", "tpot_ms": "TPOT ms", "ttft_ms": "TTFT ms",
           "decode_tokens_per_second": "decode tok/s", "prefill_tokens_per_second": "prompt tok/s"}


def table(results: list[Comparison]) -> str:
    lines = ["| point | users | in / out | measured | model | error |", "|---|---|---|---|---|---|"]
    for result in results:
        point = result.point
        for metric, value in point["measured"].items():
            modelled = result.modelled.get(metric)
            shown = "—" if modelled is None else f"{modelled:,.1f}"
            error = "not computed" if modelled is None else f"{modelled / value - 1:+.0%}"
            lines.append(f"| [{point['id']}]({point['url']}) | {point['users']} | {point['input_tokens']:,} / "
                         f"{point['output_tokens']:,} | {METRICS[metric]} {value:,} | {shown} | {error} |")
    return "\n".join(lines)


if __name__ == "__main__":
    results = comparisons()
    print(table(results))
    computed = [result for result in results if result.modelled]
    print(f"\n{len(computed)} of {len(results)} points computed, {sum(r.holds for r in computed)} within "
          f"{TOLERANCE:.0%}; median absolute error {median_error(computed):.1%} over "
          f"{sum(len(r.errors) for r in computed)} figures (throughput and decode "
          f"{median_error(computed, ('output_tokens_per_second', 'tpot_ms', 'decode_tokens_per_second')):.1%}, "
          f"first token and prompt {median_error(computed, ('ttft_ms', 'prefill_tokens_per_second')):.1%})")
