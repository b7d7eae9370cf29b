"""The `size` command's output: one JSON object of byte counts, or a table for a terminal."""

from __future__ import annotations

from generator.sizing.headline import RULE
from generator.sizing.setups import RUNTIME_OVERHEAD
from generator.sizing.size_report import KV_BITS, SizeReport


def _percent(share) -> str:
    return f"{float(share) * 100:g} %"


def _gb(byte_count: int) -> str:
    return f"{byte_count / 10**9:,.2f} GB"


def report_text(report: SizeReport) -> str:
    model = report.model
    lines = [
        f"{model.name} ({model.id}): {model.params:,} parameters",
        f"precision {report.precision}, context {report.context:,} tokens, batch {report.batch}",
        "",
        f"  weights                 {_gb(report.weights.bytes):>14}",
    ]
    lines += [f"    {name:<21} {_gb(value):>14}" for name, value in report.weights.by_component.items() if value]
    kv_detail = f"{report.kv_bytes_per_token:,} B/token"
    if report.kv_window_tokens:
        kv_detail += f" + {report.kv_window_bytes_per_token:,} B/token up to {report.kv_window_tokens:,} tokens"
    if report.kv_state_bytes_per_sequence:
        kv_detail += f" + {_gb(report.kv_state_bytes_per_sequence)} state/sequence"
    lines += [
        f"  {f'KV cache ({KV_BITS}-bit)':<23} {_gb(report.kv_bytes):>14}   {kv_detail}",
        f"  weights + KV cache      {_gb(report.required_bytes):>14}",
        f"  {f'headline rule (+{_percent(RULE.serving_overhead)})':<23} {_gb(report.serving_bytes):>14}",
        f"  QLoRA / LoRA / full     {_gb(report.qlora_bytes)} / {_gb(report.lora_bytes)} / {_gb(report.full_fine_tuning_bytes)}",
    ]
    setup = report.smallest_setup
    if setup is None:
        lines.append("  smallest setup          none: no GPU in the catalog has a price")
    else:
        machines = "one machine" if setup.machines == 1 else f"{setup.machines} machines"
        lines.append(
            f"  smallest setup          {setup.gpus_per_machine} × {setup.gpu.name} ({machines}), "
            f"{_gb(setup.memory_bytes)}, ${setup.price_per_hour:,.2f}/hour ({_percent(RUNTIME_OVERHEAD)} kept for the runtime)"
        )
    stock, largest = report.in_stock_setup, report.largest_node
    if stock is not None:
        machines = "one machine" if stock.machines == 1 else f"{stock.machines} machines"
        price = "price on request" if stock.price_per_hour is None else f"${stock.price_per_hour:,.2f}/hour"
        lines.append(f"  in stock                {stock.gpus_per_machine} × {stock.gpu.name} ({machines}), "
                     f"{_gb(stock.memory_bytes)}, {price}")
    elif largest is not None:
        lines.append(f"  in stock                none holds it: the largest machine in stock is {largest.gpus_per_machine} × "
                     f"{largest.gpu.name}, {_gb(largest.memory_bytes)}")
    if report.decode_tokens_per_second is not None:
        lines.append(
            f"  decode (upper bound)    {report.decode_tokens_per_second:,.1f} tokens/s per sequence, "
            f"{report.decode_tokens_per_second_total:,.1f} in all"
        )
    return "\n".join(lines)
