"""The workloads a model page answers: for each, the cheapest setup (in stock first, then on the
market), its speed, what an output token costs at that load, and the volume above which renting costs
less than the maker's API. Pure."""

from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import ROUND_CEILING, Decimal
from fractions import Fraction

from generator.catalog.records import Gpu, Model
from generator.sizing.cheapest import Option, Question, cheapest_options, market_gpus
from generator.sizing.kv_cache import SHORT_CONTEXT, default_context
from generator.sizing.throughput import Workload

HOURS_PER_MONTH = 730  # 8,760 hours a year over 12: a setup rented the whole month


@dataclass(frozen=True)
class NamedWorkload:
    key: str  # "chat", "long_context", "local"
    users: int
    output_tokens: int
    input_tokens: int | None = None  # None: the context less the answer (a prompt that fills it)
    full_context: bool = False  # each user's context: the model's window, else the page's reference context
    one_gpu: bool = False  # one GPU, as a reader's own card or the smallest rental


# A chat service: 16 users at once, 1,024 tokens in and 512 out each; one user who fills the whole
# context window; one user on one GPU. The page states each, with the reference context it uses.
PAGE_WORKLOADS = (
    NamedWorkload("chat", users=16, input_tokens=1024, output_tokens=512),
    NamedWorkload("long_context", users=1, output_tokens=1024, full_context=True),
    NamedWorkload("local", users=1, input_tokens=1024, output_tokens=512, one_gpu=True),
)


def reference_context(model: Model) -> int:
    """The context every speed and price of a page is for unless it says otherwise: 32,768 tokens,
    or the model's window where shorter (the speed section's; detailed.py)."""
    return min(SHORT_CONTEXT, default_context(model))


@dataclass(frozen=True)
class WorkloadCost:
    workload: NamedWorkload
    question: Question
    in_stock: Option | None  # the cheapest setup in the operator's stock that answers
    market: Option | None  # the market's
    # the maker's API for the same tokens: per million output tokens, input at the workload's ratio
    api_per_million: Decimal | None

    @property
    def hours_per_month(self) -> int:
        return HOURS_PER_MONTH

    @property
    def input_per_output(self) -> Fraction:
        """Input tokens per output token."""
        return Fraction(self.question.workload.input_tokens, self.question.workload.output_tokens)

    @property
    def chosen(self) -> Option | None:
        """The setup the page offers: the stock's where it answers, else the market's."""
        return self.in_stock or self.market

    @property
    def price_per_million(self) -> Decimal | None:
        """What a million output tokens cost on the chosen setup at the workload's throughput."""
        option = self.chosen
        if option is None or option.price_per_hour is None or option.speed is None:
            return None
        tokens_per_hour = Decimal(str(option.speed.output_tokens_per_second)) * 3600
        return (option.price_per_hour * 10**6 / tokens_per_hour).quantize(Decimal("0.01"))

    @property
    def rent_per_month(self) -> Decimal | None:
        option = self.chosen
        return None if option is None or option.price_per_hour is None else option.price_per_hour * HOURS_PER_MONTH

    @property
    def capacity_per_month(self) -> int | None:
        """Output tokens the setup gives in a month at this load, flat out."""
        option = self.chosen
        if option is None or option.speed is None:
            return None
        return int(option.speed.output_tokens_per_second * 3600 * HOURS_PER_MONTH)

    @property
    def break_even_per_month(self) -> int | None:
        """Output tokens a month above which renting the setup all month costs less than the API."""
        if self.api_per_million is None or self.rent_per_month is None:
            return None
        return int((self.rent_per_month * 10**6 / self.api_per_million).to_integral_value(ROUND_CEILING))

    @property
    def renting_pays(self) -> bool:
        """Whether the setup can give the break-even volume in a month."""
        even, capacity = self.break_even_per_month, self.capacity_per_month
        return even is not None and capacity is not None and even <= capacity


def question_for(model: Model, workload: NamedWorkload) -> Question:
    context = default_context(model) if workload.full_context else reference_context(model)
    output = min(workload.output_tokens, max(context // 2, 1))  # a token at least, even of a tiny window
    room = max(context - output, 1)
    prompt = room if workload.input_tokens is None else min(workload.input_tokens, room)
    return Question(context, Workload(workload.users, prompt, output))


def api_per_million(model: Model, workload: Workload) -> Decimal | None:
    """The maker's API price of a million output tokens with the workload's input tokens beside them
    (input at the cache-miss price)."""
    price = model.api_price
    if price is None:
        return None
    ratio = Decimal(workload.input_tokens) / Decimal(workload.output_tokens)
    return (price.output + price.input * ratio).quantize(Decimal("0.01"))


def _one_gpu(gpus: tuple[tuple[Gpu, bool], ...]) -> tuple[tuple[Gpu, bool], ...]:
    return tuple((replace(gpu, machine_shapes=(1,)), False) for gpu, _ in gpus if 1 in gpu.machine_shapes)


def workload_costs(model: Model, gpus: tuple[Gpu, ...], offered: tuple[tuple[Gpu, bool], ...] | None) -> tuple[WorkloadCost, ...]:
    """Each page workload's cheapest setup in `offered` (the operator's stock; None: no inventory)
    and on the market."""
    costs = []
    for workload in PAGE_WORKLOADS:
        question = question_for(model, workload)
        market, stock = market_gpus(gpus), offered
        if workload.one_gpu:
            market, stock = _one_gpu(market), None if offered is None else _one_gpu(offered)
        found = cheapest_options(model, market, question, shown=1)
        stocked = cheapest_options(model, stock, question, priced_only=False, shown=1) if stock else []
        costs.append(WorkloadCost(workload, question, stocked[0] if stocked else None, found[0] if found else None,
                                  api_per_million(model, question.workload)))
    return tuple(costs)
