"""The `size` command's answer for one model, precision, context and batch. Pure numbers."""

from __future__ import annotations

from dataclasses import dataclass

from generator.sizing.formats import FormatSize, bytes_by_component, format_plan, format_table
from generator.sizing.kv_cache import default_context, kv_cache
from generator.sizing.setups import USABLE_SHARE, Setup, cheapest_setup
from generator.catalog.records import Gpu, Inventory, Model
from generator.sizing.headline import SERVING_OVERHEAD, headline_sizing, serving_bytes
from generator.sizing.speed import token_read
from generator.sizing.stock import in_stock_setup, largest_node

# `--precision` values and the formats-table row each one reads.
PRECISIONS = {"16": "bf16", "8": "fp8", "4": "4bit", "native": "native"}
KV_BITS = 16  # the KV cache's precision


@dataclass(frozen=True)
class SizeReport:
    model: Model
    precision: str
    weights: FormatSize
    kv_bytes_per_token: int  # layers that see the whole context, 16-bit KV
    kv_window_bytes_per_token: int
    kv_window_tokens: int
    kv_state_bytes_per_sequence: int
    context: int
    batch: int
    kv_bytes: int
    serving_bytes: int  # the headline rule
    qlora_bytes: int
    lora_bytes: int
    full_fine_tuning_bytes: int
    required_bytes: int  # weights + KV cache, what the setup must hold after the runtime overhead
    smallest_setup: Setup | None
    # the operator's own platform (inventory.yaml; both None without one): the cheapest setup in
    # stock that holds the requirement, and the machine in stock with the most memory
    in_stock_setup: Setup | None
    largest_node: Setup | None
    decode_tokens_per_second: float | None  # per sequence, upper bound
    decode_tokens_per_second_total: float | None  # all `batch` sequences together


def size_report(model: Model, gpus: tuple[Gpu, ...], precision: str, context: int | None, batch: int,
                inventory: Inventory | None = None) -> SizeReport:
    context = context or default_context(model)
    weights = next(row for row in format_table(model) if row.key == PRECISIONS[precision])
    cache = kv_cache(model.architecture, KV_BITS)
    kv_bytes = cache.bytes(context, batch)
    headline = headline_sizing(model.params)
    if precision == "native":
        serving = round(weights.bytes * SERVING_OVERHEAD)
    else:
        serving = serving_bytes(model.params, int(precision))
    required = weights.bytes + kv_bytes
    setup = cheapest_setup(required, gpus, USABLE_SHARE, multi_node=True)
    per_sequence = total = None
    if setup is not None and setup.bandwidth_per_machine is not None:
        read = token_read(model, bytes_by_component(model, format_plan(model, weights.key), prediction=False), cache, context)
        # NOTE: one decoding step reads the active weights once for the whole batch and every
        # sequence's own KV cache (an upper bound: the experts of a batch overlap only partly).
        step_bytes = read.weights_bytes + batch * read.kv_bytes
        per_sequence = setup.bandwidth_per_machine / step_bytes
        total = per_sequence * batch
    return SizeReport(
        model=model,
        precision=precision,
        weights=weights,
        kv_bytes_per_token=cache.bytes_per_token,
        kv_window_bytes_per_token=cache.window_bytes_per_token,
        kv_window_tokens=cache.window_tokens,
        kv_state_bytes_per_sequence=cache.state_bytes,
        context=context,
        batch=batch,
        kv_bytes=kv_bytes,
        serving_bytes=serving,
        qlora_bytes=headline.qlora_bytes,
        lora_bytes=headline.lora_bytes,
        full_fine_tuning_bytes=headline.full_fine_tuning_bytes,
        required_bytes=required,
        smallest_setup=setup,
        in_stock_setup=in_stock_setup(required, gpus, inventory, USABLE_SHARE) if inventory else None,
        largest_node=largest_node(gpus, inventory) if inventory else None,
        decode_tokens_per_second=per_sequence,
        decode_tokens_per_second_total=total,
    )

