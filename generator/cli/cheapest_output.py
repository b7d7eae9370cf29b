"""The `cheapest` command's output: one JSON object, or lists for a terminal."""

from __future__ import annotations

from generator.sizing.cheapest import OPTIONS_SHOWN, Option, Question
from generator.sizing.llama_cpp import LLAMA_CPP, LlamaCppPlan


def _engine_name(option: Option) -> str:
    """As the pages name it: "vLLM 0.33.0", "llama.cpp"."""
    if isinstance(option.plan, LlamaCppPlan):
        return LLAMA_CPP.name
    return f"{option.plan.engine_record.name} {option.plan.engine_version}"


def _served(option: Option) -> str:
    """What the command serves: a checkpoint and its precision, or a GGUF file's quant."""
    if isinstance(option.plan, LlamaCppPlan):
        return f"GGUF {option.plan.request.quant}"
    return f"{option.plan.weights.repo} ({option.plan.request.precision})"


def _price(option: Option) -> str:
    gpu = option.plan.gpu
    if option.price_per_hour is None:
        return "price on request"
    said = ", ".join(part for part in (gpu.price_provider, gpu.price_date and f"read {gpu.price_date}") if part)
    return f"${option.price_per_hour:,.2f}/hour" + (f" ({said})" if said else "")


def _seconds(seconds: float) -> str:
    return f"{seconds:,.2f} s" if seconds >= 1 else f"{seconds * 1000:,.0f} ms"


def _option_lines(option: Option, question: Question) -> list[str]:
    plan, speed = option.plan, option.speed
    machines = f" in {option.machines} machines" if option.machines > 1 else ""
    said = ("      speed not known: the catalog has no tensor FLOPS for this GPU" if speed is None else
            f"      each user {speed.output_tokens_per_second_per_user:,.1f} tokens/s "
            f"({speed.output_tokens_per_second:,.1f} in all), first token in {_seconds(speed.ttft_seconds)}")
    return [f"  {_price(option)}: {option.gpus} × {plan.gpu.name}{machines}, {_engine_name(option)}, {_served(option)}", said]


def _section(title: str, options: list[Option], question: Question) -> list[str]:
    if not options:
        return [f"{title}: nothing answers"]
    lines = [f"{title}:"]
    for option in options[:OPTIONS_SHOWN]:
        lines += _option_lines(option, question)
    command = options[0].plan.command
    return lines + ["", "  the cheapest, as a command:", *("    " + line for line in command.splitlines())]


def cheapest_text(model_name: str, brand: str, question: Question, stock: list[Option] | None,
                  market: list[Option]) -> str:
    workload = question.workload
    floor = question.min_tokens_per_second
    lines = [
        f"{model_name}: {workload.users:,} user{'s' if workload.users != 1 else ''} at once, context "
        f"{question.context:,} tokens, {workload.input_tokens:,} in and {workload.output_tokens:,} out each"
        + (f", at least {floor:g} tokens/s each" if floor else ""),
        "",
    ]
    if stock is not None:
        lines += _section(f"In stock on {brand}", stock, question) + [""]
    lines += _section("On the market", market, question)
    return "\n".join(lines)
