"""Page view models: every number a page shows, computed once, with where it comes from.

Pages are language-neutral: they hold records, byte counts, prices and page paths. Words and
number formats are the templates' business.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from decimal import Decimal
from functools import cached_property, partial
from typing import Callable
from urllib.parse import quote

from generator.site import paths
from generator.sizing.own_gpu import OwnGpu, own_gpu
from generator.sizing.detailed import DetailedSizing, HeadlineCheck, detailed_sizing, starts_in_stock
from generator.sizing.setups import MAX_MACHINES, Setup, gpus_needed, machine_plan, machine_shapes, smallest_setup
from generator.catalog.records import Catalog, Gpu, Inventory, Model, Site, Source
from generator.sizing.headline import RULE, SERVING_BITS, HeadlineRule, HeadlineSizing, headline_sizing
from generator.sizing.engine_vllm import VLLM
from generator.sizing.engines import engines_planned_on
from generator.sizing.fit import FIT_QUANTS, VERDICTS, FitRow, LlamaCppFitRow, Verdict, fit_row, llama_cpp_fit_row
from generator.sizing.gguf import gguf_sizable
from generator.sizing.kv_cache import SHORT_CONTEXT
from generator.sizing.llama_cpp import CACHE_TYPES, LLAMA_CPP, LlamaCppLayers, LlamaCppRequest, llama_cpp_layers
from generator.sizing.planner import PlanRequest
from generator.sizing.stock import Offered, closest_first, highest_held, largest_node, offered_setup, stock_gpus
from generator.sizing.weights import published_scope_params
from generator.sizing.workloads import WorkloadCost, reference_context


@dataclass(frozen=True)
class LaunchCommands:
    """The commands a model page prints (each engine's own, from its record in sizing/engines.py)."""

    vllm: str
    sglang: str
    llama_cpp: str | None  # the page's GGUF quant on the smallest card that holds it (own_gpu.py)
    llama_cpp_offload: str | None  # MoE models: on the smallest card that runs it with experts in RAM


@dataclass(frozen=True)
class Requirement:
    """One row of a requirements table: a memory need and the cheapest machine that holds it."""

    key: str  # "16", "8", "4" (bits) or "qlora", "lora", "full"
    memory_bytes: int
    setup: Setup | None  # None: no single machine of the catalog (or, from_stock, no setup in stock) holds it
    from_stock: bool = False  # the setup is the operator's stock's, at its price (stock.py)
    market: Setup | None = None  # from_stock: the market's cheapest single machine that holds it, shown beside
    one_machine_holds: bool = True  # from_stock: one machine of some GPU of the catalog holds it, priced or not


@dataclass(frozen=True)
class StockAnswer:
    """Whether the operator's own stock serves the model today, by the headline rule's memory."""

    requirement: Requirement | None  # the highest precision a setup in stock holds, and that setup
    starts: bool  # vLLM starts on a setup in stock (the headline checks, or the setup to serve it)
    largest: Setup | None  # the machine in stock with the most memory
    # where nothing in stock holds it: machines like the largest, joined, that would hold it at 4 bits
    joined_machines: int | None
    multi_node: bool  # whether some GPU type in stock joins machines into one setup
    sample: bool  # the stock is the sample of the example brand (inventory.yaml's `sample`)
    priced: bool  # some offer in stock has a price (else every one is on request)
    # where nothing in stock holds the model: the models in stock that come closest (its family
    # first, then by size), each with the highest precision held and its setup (seed 000's table)
    instead: tuple[tuple[Model, str, Requirement], ...] = ()


INSTEAD_COUNT = 5  # models a page names in its stead


@dataclass(frozen=True)
class SourcedFact:
    key: str  # the catalog field: "params", "context_window", ...
    source: Source


@dataclass(frozen=True)
class Question:
    """A calculator question (the query string of model pages and of the fit page)."""

    gpu: Gpu
    count: int
    context: int
    users: int = 1
    engine: str = VLLM.key
    kv_dtype: str = "auto"
    precision: str = "native"
    quant: str = LlamaCppRequest.quant  # llama.cpp: the GGUF file and the cache type (llama_cpp.py's defaults)
    cache_type: str = LlamaCppRequest.cache_type

    def query(self, precision: str | None = None) -> str:
        """The question as a query string, with `plan`'s option names (llama.cpp's own for llama.cpp)."""
        asked = f"?gpu={self.gpu.slug}&count={self.count}&context={self.context}&users={self.users}&engine={self.engine}"
        if self.engine == LLAMA_CPP.key:
            return asked + f"&quant={self.quant}&cache-type={self.cache_type}"
        return asked + f"&kv-dtype={self.kv_dtype}&precision={precision or self.precision}"


@dataclass(frozen=True)
class BreakEvenChart:
    """A month's cost against output tokens a month: the maker's API (a line from zero) and the setup
    rented all month (flat, up to what it gives at the workload's load). Coordinates in a
    width × height box, y down."""

    tokens_max: int  # the x axis' end: output tokens a month
    cost_max: Decimal  # the y axis' end
    api_points: str  # SVG polyline points
    rent_points: str
    break_even_x: float | None  # where the lines cross, inside the chart; None: they do not
    width: int = 480
    height: int = 200


def break_even_chart(cost: WorkloadCost) -> BreakEvenChart | None:
    """The chart of one workload's cost; None without an API price or a priced setup."""
    even, rent, capacity = cost.break_even_per_month, cost.rent_per_month, cost.capacity_per_month
    if even is None or rent is None or capacity is None:
        return None
    tokens_max = max(capacity, 2 * even) if cost.renting_pays else even * 5 // 4
    cost_max = max(rent, cost.api_per_million * tokens_max / 10**6) * Decimal("1.1")

    width, height = BreakEvenChart.width, BreakEvenChart.height

    def point(tokens: float, money: Decimal) -> str:
        return f"{width * tokens / tokens_max:.1f},{height * (1 - float(money / cost_max)):.1f}"

    api_end = cost.api_per_million * tokens_max / 10**6
    return BreakEvenChart(
        tokens_max=tokens_max, cost_max=cost_max.quantize(Decimal("1")),
        api_points=f"{point(0, Decimal(0))} {point(tokens_max, api_end)}",
        rent_points=f"{point(0, rent)} {point(min(capacity, tokens_max), rent)}",
        break_even_x=round(width * even / tokens_max, 1) if even <= tokens_max else None,
    )


@dataclass(frozen=True)
class ModelPage:
    path: str
    model: Model
    serving: tuple[Requirement, ...]  # 16, 8 and 4 bits
    fine_tuning: tuple[Requirement, ...]  # QLoRA, LoRA, full
    rule: HeadlineRule  # the headline rule's constants, as the page explains them
    machine_shapes: tuple[int, ...]  # GPUs per machine the smallest setup chooses among
    single_gpu: Requirement | None  # the highest precision one GPU holds and vLLM starts on, if any
    single_gpu_by_rule: Requirement | None  # the highest precision the rule puts on one GPU, if any
    deploy_url: str
    sources: tuple[SourcedFact, ...]
    detail: DetailedSizing | None  # None: the catalog has no architecture for this model
    commands: LaunchCommands | None
    computed_params: int | None  # the architecture's total, to compare with the published count
    scope_params: int | None  # the same without what the published count leaves out (weights.published_scope_params)
    own_prices: bool  # every price is the brand's own (else the page says where prices come from)
    question: Question | None  # the calculator's first question: the planned setup; None: no plan
    gpus: tuple[Gpu, ...]  # the calculator's GPUs
    own_gpu: OwnGpu | None  # llama.cpp with GGUF files; None: the file's layout is not modelled
    stock: StockAnswer | None = None  # None: no inventory (every setup priced by the market)

    @property
    def break_even(self) -> tuple[WorkloadCost, BreakEvenChart] | None:
        """The first page workload with a break-even against the maker's API, and its chart."""
        for cost in self.detail.workloads if self.detail else ():
            chart = break_even_chart(cost)
            if chart is not None:
                return cost, chart
        return None

    def serving_at(self, bits: int) -> Requirement:
        return next(r for r in self.serving if r.key == str(bits))

    @property
    def serving_setup_is_new(self) -> bool:
        """Whether the setup that serves the full context (detail.serving) is neither of the 16- and
        4-bit setups the cost answer names, or needs flags: then the answer names it too."""
        serving = self.detail.serving if self.detail else None
        if serving is None:
            return False
        named = (self.serving_at(16).setup, self.serving_at(4).setup)
        return bool(serving.plan.changes) or serving.setup not in named

    def check_at(self, bits: int | str) -> HeadlineCheck | None:
        """What vLLM does on the headline's setup at `bits` (detailed.HeadlineCheck), if planned."""
        checks = self.detail.headline_checks if self.detail else ()
        return next((c for c in checks if c.bits == int(bits)), None)


@dataclass(frozen=True)
class ModelRow:
    model: IndexedModel
    path: str
    four_bit: Requirement
    serving_bytes: dict[int, int]  # memory at 16, 8 and 4 bits (the headline rule)
    in_stock: Requirement | None = None  # the highest precision a setup in the operator's stock holds, where vLLM starts on one


@dataclass(frozen=True)
class ModelsIndexPage:
    path: str
    families: tuple[tuple[str, tuple[ModelRow, ...]], ...]  # (organisation of the repo id, its models)
    rule: HeadlineRule
    stock: bool = False  # the operator publishes its stock: the index filters by what runs there today

    @property
    def rows(self) -> tuple[ModelRow, ...]:
        """Every row, newest first (the page's one table; the Markdown twin keeps a table per family)."""
        return newest_first(row for _, rows in self.families for row in rows)


@dataclass(frozen=True)
class GpuFit:
    model: ListedModel
    path: str
    counts: tuple[int | None, ...]  # GPUs needed at 16, 8 and 4 bits; None: more than one machine


@dataclass(frozen=True)
class ListedModel:
    """What a GPU page shows of a model, and no more: its view model then says all that the page shows,
    and a rebuild renders the page again only when that changed (language.py)."""

    slug: str
    name: str
    params: int


def listed(model: Model) -> ListedModel:
    return ListedModel(model.slug, model.name, model.params)


@dataclass(frozen=True)
class IndexedModel(ListedModel):
    """What the indexes (the models index, the home page's newest) show of a model: a listed model,
    its family and its release date."""

    family: str
    release_date: str | None


def indexed(model: Model) -> IndexedModel:
    return IndexedModel(model.slug, model.name, model.params, model.family, model.release_date)


@dataclass(frozen=True)
class GpuLlamaRow(Verdict):
    """A model's llama.cpp verdict on one GPU (fit.py's LlamaCppFitRow) as its GPU page and API file show it."""

    model: ListedModel
    verdict: str  # fit.py's VERDICTS
    reason: str | None  # why it does not run (fit.py)
    window: int | None  # the model's context window where it is the reason; else None (not shown)
    planned: bool  # llama.cpp was planned: a context, a placement, the RAM it needs
    context: int | None
    ram_bytes: int | None
    n_gpu_layers: int | None
    n_cpu_moe: int | None
    decode_tokens_per_second: float | None  # None where it does not start, or with no bandwidth to time it

    @classmethod
    def of(cls, row: LlamaCppFitRow) -> GpuLlamaRow:
        plan = row.plan
        return cls(listed(row.model), row.verdict, row.reason, row.model.context_window if row.beyond_window else None,
                   plan is not None,
                   None if plan is None else plan.context, None if plan is None else row.ram_bytes,
                   None if plan is None else plan.n_gpu_layers, None if plan is None else plan.n_cpu_moe,
                   plan.decode_tokens_per_second if plan is not None and plan.starts else None)


@dataclass(frozen=True)
class GpuModelRow:
    """All that a GPU page shows of one model: the GPUs it needs at each headline precision (None:
    more than one machine) and its llama.cpp verdict (None: no architecture to plan)."""

    model: ListedModel
    counts: tuple[int | None, ...]  # at SERVING_BITS
    llama_cpp: GpuLlamaRow | None


@dataclass(frozen=True)
class FitPageRow(Verdict):
    """A model's row on the fit page (fit.py's FitRow) as the page shows it: the page is keyed by what
    it shows, and its rows kept by model between builds (row_store.py)."""

    model: ListedModel
    family: str
    verdict: str  # ON_GPUS or DOES_NOT_RUN
    reason: str | None  # why it does not run (fit.py)
    window: int | None  # the model's context window where it is the reason; else None (not shown)
    precision: str  # the plan's weights: the largest format that fits, else the smallest tried
    repo: str  # the checkpoint of those weights
    max_context: int | None
    decode_tokens_per_second: float | None

    @classmethod
    def of(cls, row: FitRow) -> FitPageRow:
        plan = row.plan
        return cls(listed(row.model), row.model.family, row.verdict, row.reason,
                   row.model.context_window if row.beyond_window else None, plan.request.precision, plan.weights.repo,
                   plan.max_context, plan.decode_tokens_per_second)


@dataclass(frozen=True)
class GpuLlamaCpp:
    """One GPU of this type with llama.cpp: every model's verdict (fit.py), each at its reference
    context (32,768 tokens, or its window where shorter), one user, a GGUF file at `quant`."""

    quant: str
    cache_type: str
    context: int  # the reference context, where a model's window is not shorter
    groups: tuple[tuple[str, tuple[tuple[GpuLlamaRow, str], ...]], ...]  # (verdict, [(row, model page path)]), best first
    fit: Question  # the same question on the fit page, where the reader changes it


@dataclass(frozen=True)
class GpuPage:
    path: str
    gpu: Gpu
    one_card: tuple[GpuFit, ...]  # models one GPU of this type holds at 4 bits at least
    one_machine: tuple[GpuFit, ...]  # the others one machine of this GPU holds at 4 bits at least
    too_large: tuple[tuple[ListedModel, str], ...]  # (model, page path): no single machine holds it
    rule: HeadlineRule
    engines: tuple[str, ...]  # the names of the engines planned on it (engines.engines_planned_on)
    llama_cpp: GpuLlamaCpp


@dataclass(frozen=True)
class GpusIndexPage:
    path: str
    gpus: tuple[tuple[Gpu, str], ...]  # (GPU, page path)

    @property
    def vendors(self) -> tuple[str, ...]:
        """The index's vendor filter: every vendor of the catalog, by name."""
        return tuple(sorted({gpu.vendor for gpu, _ in self.gpus}, key=str.lower))


@dataclass(frozen=True)
class HomePage:
    path: str
    model_count: int
    gpu_count: int
    rule: HeadlineRule
    machine_shapes: tuple[int, ...]
    newest: tuple[ModelRow, ...]  # the latest releases, newest first


NEWEST_ON_HOME = 8  # the releases the landing page lists


def newest_first(rows):
    """Rows (ModelRow, SizedModel: anything with a `model`) by release date, newest first; undated
    ones last; by name within a date."""
    by_name = sorted(rows, key=lambda r: (r.model.name.lower(), r.model.slug))
    return tuple(sorted(by_name, key=lambda r: r.model.release_date or "", reverse=True))  # stable: names stay in order


@dataclass(frozen=True)
class FitPage:
    """What fits my GPUs: every model for one question; the page's JavaScript asks others."""

    path: str
    question: Question
    rows: tuple[tuple[FitPageRow, str], ...]  # (row, model page path)
    gpus: tuple[Gpu, ...]
    families: tuple[str, ...]
    stock: bool = False  # the operator publishes its stock: the page may plan on it (shared.json's stock)
    quants: tuple[str, ...] = FIT_QUANTS  # llama.cpp's GGUF files, largest first
    cache_types: tuple[str, ...] = CACHE_TYPES


Page = ModelPage | ModelsIndexPage | GpuPage | GpusIndexPage | HomePage | FitPage

# Order of the "sources" list on a model page: the catalog fields the page shows.
MODEL_FACTS = (
    "params",
    "active_params",
    "experts",
    "experts_per_token",
    "context_window",
    "rope_scaling",
    "precision",
    "license",
    "release_date",
    "api_price",
    "architecture",
)


def _requirement(key: str, memory_bytes: int, gpus: tuple[Gpu, ...], offered: Offered | None = None) -> Requirement:
    """The market's smallest setup for `memory_bytes`; with the operator's stock (`offered`), the
    stock's, and the market's beside it."""
    market = smallest_setup(memory_bytes, gpus)
    if offered is None:
        return Requirement(key, memory_bytes, market)
    holds = any(gpus_needed(memory_bytes, gpu) is not None for gpu in gpus)
    return Requirement(key, memory_bytes, offered_setup(memory_bytes, offered), True, market, holds)


@dataclass(frozen=True)
class SizedModel:
    """A model with its headline sizing, computed once for every page that shows it."""

    model: Model
    headline: HeadlineSizing

    @cached_property
    def listed_model(self) -> ListedModel:
        """What a row of a page shows of the model: one object for the rows of every page
        (row_store.py restores kept rows with it)."""
        return listed(self.model)


@dataclass(frozen=True)
class Held:
    """A model a setup in stock holds: the highest serving precision held, with that setup
    (stock.highest_held), and whether vLLM starts on a setup in stock (detailed.starts_in_stock;
    unplanned models: the memory rule answers)."""

    model: Model
    requirement: Requirement
    starts: bool


def held_in_stock(sized: SizedModel, gpus: tuple[Gpu, ...], inventory: Inventory) -> Held | None:
    held = highest_held(sized.headline.serving_bytes, gpus, inventory)
    if held is None:
        return None
    model = sized.model
    starts = model.architecture is None or starts_in_stock(model, stock_gpus(gpus, inventory))
    return Held(model, Requirement(str(held[0]), sized.headline.serving_bytes[held[0]], held[1], True), starts)


def stock_answer(sized: SizedModel, gpus: tuple[Gpu, ...], inventory: Inventory,
                 held: dict[str, Held], detail: DetailedSizing | None) -> StockAnswer:
    """What the stock serves of this model; `held`: the models a setup in stock holds (held_in_stock),
    by slug; `detail`: the model's sizing on the stock (None: not planned, the memory rule answers).
    Where nothing in stock holds it, the page names models in stock that start instead."""
    model = sized.model
    requirement = held[model.slug].requirement if model.slug in held else None
    instead: tuple = ()
    if requirement is None:
        candidates = [(h.model.family, h.model.params, (h.model, paths.model_page(slug), h.requirement))
                      for slug, h in held.items() if slug != model.slug and h.starts]
        instead = tuple(closest_first(model.params, model.family, candidates, INSTEAD_COUNT))
    starts = requirement is not None and (detail is None or detail.starts_in_stock)
    largest = largest_node(gpus, inventory)
    joined = None
    if requirement is None and largest is not None:
        machines = machine_plan(sized.headline.serving_bytes[4], largest.gpu).machines
        joined = machines if machines <= MAX_MACHINES else None
    return StockAnswer(requirement, starts, largest, joined, any(offer.multi_node for offer in inventory.offers),
                       inventory.sample, any(offer.price_per_gpu_hour is not None for offer in inventory.offers), instead)


def model_page(sized: SizedModel, site: Site, gpus: tuple[Gpu, ...], inventory: Inventory | None = None,
               held: dict[str, Held] | None = None) -> ModelPage:
    model, sizing = sized.model, sized.headline
    offered = stock_gpus(gpus, inventory) if inventory else None
    serving = tuple(_requirement(str(bits), sizing.serving_bytes[bits], gpus, offered) for bits in SERVING_BITS)
    fine_tuning = (
        _requirement("qlora", sizing.qlora_bytes, gpus, offered),
        _requirement("lora", sizing.lora_bytes, gpus, offered),
        _requirement("full", sizing.full_fine_tuning_bytes, gpus, offered),
    )
    detail = detailed_sizing(model, gpus, offered) if model.architecture else None
    # one GPU is a fact of the hardware, not of the stock: the market's setups answer it
    market_rows = [replace(r, setup=r.market, from_stock=False) if r.from_stock else r for r in serving]
    one_gpu = [r for r in market_rows if r.setup is not None and r.setup.total_gpus == 1]
    # on a page that plans, one GPU answers only where vLLM starts on it (with some context)
    checks = {check.bits: check for check in detail.headline_checks} if detail else {}
    starting = [r for r in one_gpu if int(r.key) not in checks or checks[int(r.key)].plan.max_context > 0]
    own = own_gpu(model, gpus) if model.architecture else None
    commands = None
    if detail is not None and detail.serving is not None:
        engines = detail.serving
        commands = LaunchCommands(
            engines.plan.command, engines.sglang.command,
            own.chosen.plan.command if own and own.chosen.plan else None,
            own.offload.command if own and own.offload else None,
        )
    return ModelPage(
        path=paths.model_page(model.slug),
        model=model,
        serving=serving,
        fine_tuning=fine_tuning,
        rule=RULE,
        machine_shapes=machine_shapes(gpus),
        single_gpu=next(iter(starting), None),
        single_gpu_by_rule=next(iter(one_gpu), None),
        deploy_url=site.console_url.replace("{id}", quote(model.id, safe="/")),
        sources=tuple(SourcedFact(k, model.sources[k]) for k in MODEL_FACTS if k in model.sources),
        detail=detail,
        commands=commands,
        computed_params=sum(detail.params_by_component.values()) if detail else None,
        scope_params=published_scope_params(model, detail.params_by_component) if detail else None,
        own_prices=all(g.price_provider == site.brand for g in gpus if g.price_per_gpu_hour is not None),
        question=_planned_question(detail),
        gpus=gpus,
        own_gpu=own,
        stock=stock_answer(sized, gpus, inventory, held or {}, detail) if inventory else None,
    )


def _planned_question(detail: DetailedSizing | None) -> Question | None:
    if detail is None or detail.serving is None:
        return None
    plan = detail.serving.plan  # asked with the defaults: the calculator then names the flags it needs, as the page does
    return Question(plan.gpu, plan.setup.total_gpus, plan.context)


# The fit page's first question: one 24 GB card readers own, at a 32k context.
FIT_GPU, FIT_CONTEXT = "rtx-4090", SHORT_CONTEXT


def fit_question(gpus: tuple[Gpu, ...]) -> Question:
    """The fit page's first question; every machine: llama.cpp plans the unified-memory ones the
    serving engines are not planned on."""
    return Question(next((g for g in gpus if g.slug == FIT_GPU), gpus[0]), 1, FIT_CONTEXT)


def fit_page_row(question: Question, sized: SizedModel) -> FitPageRow | None:
    """A model's row on the fit page; None for a model without an architecture (nothing to plan)."""
    if sized.model.architecture is None:
        return None
    request = PlanRequest(context=question.context, users=question.users)
    return FitPageRow.of(fit_row(sized.model, question.gpu, question.count, request))


def fit_page(gpus: tuple[Gpu, ...], stock: bool, rows: tuple[FitPageRow | None, ...]) -> FitPage:
    """`rows`: fit_page_row of each model, in the catalog's order."""
    listed_rows = tuple((row, paths.model_page(row.model.slug)) for row in rows if row is not None)
    families = tuple(sorted({row.family for row, _ in listed_rows}, key=lambda name: (name.lower(), name)))
    return FitPage(paths.FIT_PAGE, fit_question(gpus), listed_rows, gpus, families, stock)


# The GPU pages' llama.cpp question: llama_cpp.py's default file (the one most readers run) and its
# 16-bit cache, one user.
GPU_PAGE_QUANT, GPU_PAGE_CACHE_TYPE = LlamaCppRequest.quant, LlamaCppRequest.cache_type


def gpu_llama_row(gpu: Gpu, model: Model, tables: Callable[[Model], LlamaCppLayers | None]) -> GpuLlamaRow:
    request = LlamaCppRequest(quant=GPU_PAGE_QUANT, context=reference_context(model), cache_type=GPU_PAGE_CACHE_TYPE)
    return GpuLlamaRow.of(llama_cpp_fit_row(model, gpu, 1, request, tables(model)))


def gpu_llama_cpp(gpu: Gpu, rows: tuple[GpuLlamaRow, ...]) -> GpuLlamaCpp:
    pairs = [(row, paths.model_page(row.model.slug)) for row in rows]
    # the largest models first where they run (the most a reader gets from the card), by name where not
    largest_first = sorted(pairs, key=lambda pair: -pair[0].model.params if pair[0].planned else 0)
    groups = tuple((verdict, tuple(pair for pair in largest_first if pair[0].verdict == verdict)) for verdict in VERDICTS)
    fit = Question(gpu, 1, SHORT_CONTEXT, engine=LLAMA_CPP.key, quant=GPU_PAGE_QUANT, cache_type=GPU_PAGE_CACHE_TYPE)
    return GpuLlamaCpp(GPU_PAGE_QUANT, GPU_PAGE_CACHE_TYPE, SHORT_CONTEXT, tuple(g for g in groups if g[1]), fit)


def gguf_tables(quant: str) -> Callable[[Model], LlamaCppLayers | None]:
    """llama_cpp_layers of `quant` for each model, computed once for every GPU page that asks."""
    found: dict[str, LlamaCppLayers | None] = {}

    def tables(model: Model) -> LlamaCppLayers | None:
        if model.slug not in found:
            found[model.slug] = llama_cpp_layers(model, quant) if gguf_sizable(model) else None
        return found[model.slug]
    return tables


def gpu_model_row(gpu: Gpu, tables: Callable[[Model], LlamaCppLayers | None], sized: SizedModel) -> GpuModelRow:
    counts = tuple(gpus_needed(sized.headline.serving_bytes[bits], gpu) for bits in SERVING_BITS)
    llama = gpu_llama_row(gpu, sized.model, tables) if sized.model.architecture is not None else None
    return GpuModelRow(sized.listed_model, counts, llama)


def gpu_page(gpu: Gpu, rows: tuple[GpuModelRow, ...]) -> GpuPage:
    """`rows`: gpu_model_row of each model, in the catalog's order."""
    one_card, one_machine, too_large = [], [], []
    for row in rows:
        path = paths.model_page(row.model.slug)
        if row.counts[-1] is None:
            too_large.append((row.model, path))
        else:
            (one_card if row.counts[-1] == 1 else one_machine).append(GpuFit(row.model, path, row.counts))
    engines = tuple(engine.name for engine in engines_planned_on(gpu))
    return GpuPage(paths.gpu_page(gpu.slug), gpu, tuple(one_card), tuple(one_machine), tuple(too_large), RULE, engines,
                   gpu_llama_cpp(gpu, tuple(row.llama_cpp for row in rows if row.llama_cpp is not None)))


def _families(rows: tuple[ModelRow, ...]) -> tuple[tuple[str, tuple[ModelRow, ...]], ...]:
    """The index's sections: one per organisation of the Hugging Face id (Qwen, meta-llama...)."""
    families: dict[str, list[ModelRow]] = {}
    for row in rows:
        families.setdefault(row.model.family, []).append(row)
    return tuple((name, newest_first(families[name])) for name in sorted(families, key=lambda name: (name.lower(), name)))


@dataclass(frozen=True)
class PageRows:
    """A page made of one row per model (a GPU page, the fit page): `row` makes a model's row, all
    that the page shows of it. A row depends on its model alone (the GPUs, the site and the code are
    in the build's key, cache.py): a rebuild keeps each row under its model's content key and makes
    again only an edited model's (row_store.py)."""

    models: tuple[SizedModel, ...]  # in the catalog's order
    row: Callable[[SizedModel], object]
    row_type: type  # what `row` returns (or None, for a model the page leaves out)


@dataclass(frozen=True)
class PageSpec:
    """A page to write: its path, what its content depends on, and how to build its view model.

    `cache_key` is set for model pages, whose content depends only on the model, the GPU catalog
    and the site (all in the build's own key): an unchanged key means an unchanged page. A page of
    `rows` is keyed by its rows (language.py, row_store.py); the other pages by their view model,
    which holds all that they show.
    """

    path: str
    build: Callable[..., Page]  # with `rows`: build(the rows, in the models' order)
    cache_key: str | None = None
    rows: PageRows | None = None

    def page(self, rows: tuple | None = None) -> Page:
        """The view model; a page of rows from `rows`, or from rows made now."""
        if self.rows is None:
            return self.build()
        return self.build(tuple(map(self.rows.row, self.rows.models)) if rows is None else rows)


def _model_row(sized: SizedModel, gpus: tuple[Gpu, ...], held: dict[str, Held]) -> ModelRow:
    four_bit = sized.headline.serving_bytes[4]
    found = held.get(sized.model.slug)
    in_stock = found.requirement if found is not None and found.starts else None
    return ModelRow(indexed(sized.model), paths.model_page(sized.model.slug), _requirement("4", four_bit, gpus),
                    dict(sized.headline.serving_bytes), in_stock)


def site_pages(catalog: Catalog) -> list[PageSpec]:
    """Every page of one language, in a stable order (home, indexes, models, GPUs)."""
    site, gpus = catalog.site, catalog.gpus
    models = tuple(
        SizedModel(m, headline_sizing(m.params)) for m in sorted(catalog.models, key=lambda m: (m.name.lower(), m.slug))
    )
    held = {}  # the models a setup in stock holds: a page names them where its own model is not
    if catalog.inventory is not None:
        held = {m.model.slug: h for m in models if (h := held_in_stock(m, gpus, catalog.inventory)) is not None}

    def rows(models: tuple[SizedModel, ...]) -> tuple[ModelRow, ...]:  # the indexes' rows, made when an index is built
        return tuple(_model_row(m, gpus, held) for m in models)

    newest = tuple(m for m in newest_first(models) if m.model.release_date)[:NEWEST_ON_HOME]
    specs = [
        PageSpec("index", lambda: HomePage("index", len(models), len(gpus), RULE, machine_shapes(gpus), rows(newest))),
        PageSpec("models", lambda: ModelsIndexPage("models", _families(rows(models)), RULE, catalog.inventory is not None)),
        PageSpec("gpus", lambda: GpusIndexPage("gpus", tuple((g, paths.gpu_page(g.slug)) for g in gpus))),
        PageSpec(paths.FIT_PAGE, partial(fit_page, gpus, catalog.inventory is not None),
                 rows=PageRows(models, partial(fit_page_row, fit_question(gpus)), FitPageRow)),
    ]
    # a model page also depends on which models the stock holds (the ones it may name instead)
    stocked = repr(sorted((slug, h.requirement, h.starts) for slug, h in held.items()))
    specs += [
        PageSpec(
            paths.model_page(m.model.slug), partial(model_page, m, site, gpus, catalog.inventory, held),
            hashlib.sha256((repr(m.model) + stocked).encode()).hexdigest()
        )
        for m in models
    ]
    tables = gguf_tables(GPU_PAGE_QUANT)
    specs += [PageSpec(paths.gpu_page(g.slug), partial(gpu_page, g), rows=PageRows(models, partial(gpu_model_row, g, tables), GpuModelRow))
              for g in gpus]
    return specs


def build_pages(catalog: Catalog) -> tuple[Page, ...]:
    return tuple(spec.page() for spec in site_pages(catalog))


def build_page(catalog: Catalog, path: str) -> Page:
    """One page's view model (`models/kimi-k3`), without building the others."""
    spec = next((spec for spec in site_pages(catalog) if spec.path == path), None)
    if spec is None:
        raise KeyError(f"no page {path!r}")
    return spec.page()
