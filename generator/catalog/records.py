"""The catalog's typed, immutable records. Nothing here reads files or formats text."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from decimal import Decimal
from types import MappingProxyType
from typing import Mapping


class LocalizedText(str):
    """Catalog text that pages show (a remark, a published format, a GPU's name): English, and the
    same text in other site languages where the catalog gives it. It is the English string itself
    (code that sorts, compares or prints it in the terminal reads the English); the pages' renderer
    writes it in the page's language (render.py)."""

    translations: tuple[tuple[str, str], ...]  # (language, text), sorted by language

    def __new__(cls, english: str, translations: tuple[tuple[str, str], ...] = ()) -> "LocalizedText":
        text = super().__new__(cls, english)
        text.translations = tuple(translations)
        return text

    def __reduce__(self):  # copied and pickled with its translations
        return (LocalizedText, (self.english, self.translations))

    @property
    def english(self) -> str:
        return str.__str__(self)

    def in_language(self, lang: str) -> str:
        """The text in `lang`, or the English where the catalog has no translation."""
        return dict(self.translations).get(lang, self.english)

    def __repr__(self) -> str:  # cache keys compare records by repr: a translation is part of the text
        return f"LocalizedText({self.english!r}, {self.translations!r})"


@dataclass(frozen=True)
class Source:
    """Where a fact comes from: a URL or a precise citation, and an optional remark."""

    citation: str  # one or more citations separated by " ; "
    note: LocalizedText | None = None

    @property
    def parts(self) -> tuple[tuple[str, bool], ...]:
        """Each citation, and whether it is a plain https URL (pages show those as links)."""
        pieces = (piece.strip() for piece in self.citation.split(" ; "))
        return tuple((p, p.startswith("https://") and " " not in p) for p in pieces if p)


def _no_sources() -> Mapping[str, Source]:
    return MappingProxyType({})


# The parts a checkpoint's weights are counted in (see weights.py), and the formats a published
# checkpoint stores them in (see formats.py).
COMPONENTS = (
    "embeddings",
    "attention",
    "dense_mlp",
    "routed_experts",
    "shared_experts",
    "router_and_norms",  # with the latent projections of a latent MoE
    "output_head",
    "extra_layers",
    "vision",
)
TENSOR_KINDS = ("bf16", "fp8", "fp4")  # the compute types a GPU's tensor-core peak is given for
CHECKPOINT_FORMATS = ("bf16", "f32", "fp8_block128", "fp8_block128_e8m0", "mxfp4")
# How a quantized checkpoint stores its matrices (formats.py gives each one's bits and scales).
CHECKPOINT_SCHEMES = ("bf16", "fp8_block128", "fp8_channel", "fp8_tensor", "int8_channel", "int8_g128_zp", "int4_g128",
                      "int4_g128_zp", "nvfp4", "mxfp4")


@dataclass(frozen=True)
class Attention:
    """The softmax-attention layers: grouped-query (GQA/MHA) or multi-head latent (MLA)."""

    kind: str  # "gqa", "mla" or "compressed" (DeepSeek-V4)
    heads: int
    kv_heads: int | None = None  # gqa
    head_dim: int | None = None  # gqa
    qkv_bias: bool = False
    output_bias: bool = False
    qk_norm: str | None = None  # "head": one norm of head_dim for q and k; "layer": over all heads
    output_gate: bool = False  # a sigmoid gate on the attention output (Qwen3-Next, Kimi-K3)
    fused_qkv: bool = False  # q, k and v stored as one tensor (Phi-3's qkv_proj); llama.cpp: attn_qkv
    sinks: bool = False  # one learned sink logit per head (gpt-oss)
    q_lora_rank: int | None = None  # mla
    kv_lora_rank: int | None = None  # mla
    qk_nope_head_dim: int | None = None  # mla
    qk_rope_head_dim: int | None = None  # mla
    v_head_dim: int | None = None  # mla
    sliding_window: int | None = None  # tokens a windowed (or chunked) layer attends to
    sliding_window_layers: int = 0  # how many attention layers use that window
    indexer_heads: int | None = None  # DeepSeek sparse attention indexer (GLM-5)
    indexer_head_dim: int | None = None
    indexer_top_k: int | None = None  # index_topk: the compressed rows each query attends to (DeepSeek-V4)
    # GLM-5.2's IndexShare (config.json indexer_types "shared"): layers that reuse the previous full
    # layer's top-k, with no indexer of their own: no weights, no indexer key cached (vLLM 0.33.0
    # models/deepseek_v32/attention.py builds the indexer and its DeepseekV32IndexerCache only
    # `if not skip_topk or is_mtp_layer`)
    shared_indexer_layers: tuple[int, ...] = ()
    # Gemma 4: the full-attention (global) layers' own KV heads and head width, where they differ
    # from the sliding-window layers' (num_global_key_value_heads, global_head_dim); and
    # attention_k_eq_v: those layers have no value projection, their key serves as the value
    global_kv_heads: int | None = None
    global_head_dim: int | None = None
    global_key_is_value: bool = False
    key_is_value: bool = False  # no v_proj: the key projection gives the value too (both are cached)
    # DeepSeek-V4's compressed attention (config.json compress_ratios, o_groups, o_lora_rank): every
    # layer keeps one KV row of head_dim per token within its sliding window; a layer of ratio r > 0
    # also keeps one compressed row per r tokens of the whole context (ratio 4 with the indexer's
    # key); the output goes through output_groups low-rank projections of output_rank
    compress_ratios: tuple[int, ...] = ()  # one per layer: 0, 4 or 128
    output_groups: int | None = None
    output_rank: int | None = None
    # the ratio of the layers a record derived by with_ratio stands for (None: the catalog's record)
    layer_ratio: int | None = None

    @property
    def global_layers(self) -> Attention:
        """The attention of the layers that attend to every token (Gemma 4: wider heads, fewer KV
        heads, the key as the value); the sliding-window layers use this record itself."""
        if self.global_kv_heads is None and self.global_head_dim is None and not self.global_key_is_value:
            return self
        return replace(self, kv_heads=self.global_kv_heads or self.kv_heads, head_dim=self.global_head_dim or self.head_dim,
                       key_is_value=self.global_key_is_value, global_kv_heads=None, global_head_dim=None,
                       global_key_is_value=False)

    @property
    def without_indexer(self) -> Attention:
        """The attention of IndexShare's shared layers: MLA without an indexer of their own."""
        return replace(self, indexer_heads=None, indexer_head_dim=None, shared_indexer_layers=())

    def with_ratio(self, ratio: int) -> Attention:
        """The attention of the compressed-attention layers of one ratio (0: the window alone)."""
        return replace(self, layer_ratio=ratio)

    @property
    def global_differs(self) -> bool:
        """Whether the global layers' attention differs from the sliding-window layers' (Gemma 4)."""
        return self.global_layers is not self

    @property
    def query_dim(self) -> int:  # gqa: the width of all query heads
        return self.heads * self.head_dim

    @property
    def kv_dim(self) -> int:  # gqa: the width of the key (or the value) heads
        return self.kv_heads * self.head_dim


@dataclass(frozen=True)
class LinearAttention:
    """Layers with a fixed recurrent state per sequence instead of a KV cache.

    A Mamba2 layer ("mamba2": Granite 4.0-H, Nemotron-H) reads the same way: its groups are the
    key heads (mamba_n_groups) of width d_state (mamba_d_state), its heads the value heads
    (mamba_n_heads) of width mamba_d_head; its state is n_heads × d_head × d_state, the same form
    as a gated delta rule's."""

    kind: str  # "gated_deltanet" (Qwen3-Next), "kimi_delta" (Kimi-K3) or "mamba2"
    layers: int
    key_heads: int
    value_heads: int
    key_head_dim: int
    value_head_dim: int
    conv_kernel: int
    ssm_state_float32: bool = False  # the state matrix in FP32 (config mamba_ssm_cache_dtype), the convolution's in 16 bits

    @property
    def key_dim(self) -> int:  # the width of all key heads
        return self.key_heads * self.key_head_dim

    @property
    def value_dim(self) -> int:  # the width of all value heads
        return self.value_heads * self.value_head_dim


@dataclass(frozen=True)
class MixtureOfExperts:
    """The MoE block's shapes; how many routed experts, and how many per token, are the model's
    `experts` and `experts_per_token` facts."""

    expert_intermediate_size: int
    shared_experts: int = 0
    shared_expert_intermediate_size: int | None = None  # default: expert_intermediate_size
    shared_expert_gate: bool = False  # Qwen3-Next: a scalar gate on the shared expert
    latent_size: int | None = None  # experts work in a smaller latent width (Kimi-K3, Nemotron 3 Super)
    latent_norm: bool = False  # a norm on the latent (Kimi-K3; Nemotron-H's fc1/fc2_latent_proj have none)
    expert_bias: bool = False  # biases inside every expert (gpt-oss)
    router_bias: bool = False  # a bias per expert in the router (DeepSeek-V3 style or gpt-oss)
    # Gemma 4: the router's input scaled per channel (a hidden-size vector) and its output per expert
    router_scales: bool = False


@dataclass(frozen=True)
class VisionTower:
    layers: int
    hidden_size: int
    intermediate_size: int
    patch_size: int
    # Qwen3-VL's and Qwen3.5's tower (modeling_qwen3_vl.py Qwen3VLVisionModel): patches of
    # temporal_patch_size frames, learned position embeddings, and patch mergers that join
    # merge_size² patches into one token of output_size, one more for each deepstack layer; a tower
    # without merge_size is sized by the generic ViT approximation (weights.py _vision)
    merge_size: int | None = None
    temporal_patch_size: int = 1
    output_size: int | None = None
    position_embeddings: int = 0
    deepstack_mergers: int = 0
    gated_mlp: bool = False  # Gemma 4's tower: gate, up and down projections (Gemma4VisionMLP)
    # "pixtral": Mistral 3's Pixtral tower and projector (weights.py _pixtral_vision), whose patch
    # merger joins merge_size² patches before two layers to the text width; "vit" any other
    layout: str = "vit"


@dataclass(frozen=True)
class Architecture:
    layers: int
    hidden_size: int
    vocab_size: int
    tied_embeddings: bool
    attention: Attention
    intermediate_size: int | None = None  # dense MLP width
    dense_layers: int | None = None  # leading dense-MLP layers; None: every layer (no MoE)
    norms_per_layer: int = 2
    linear_attention: LinearAttention | None = None
    moe: MixtureOfExperts | None = None
    extra_layers: int = 0  # multi-token-prediction modules the checkpoint ships
    extra_layers_embeddings: bool = False  # they carry their own copy of embeddings and head
    extra_layers_in_gguf: bool = False  # llama.cpp's converter keeps them (GLM-4.5's Glm4MoeModel)
    # NemotronH's hybrid_override_pattern: each layer one block, M a Mamba2 mixer, * attention, - an
    # MLP, E a MoE (None: every layer a mixer then a feed-forward)
    layer_pattern: str | None = None
    gated_mlp: bool = True  # False: MLP and experts are up and down projections only (relu2)
    # Nemotron-NAS (DeciLM) block_configs: each layer's FFN width (0: no FFN), and the layers whose
    # attention is a no-op (no attention, no norm, no cache); () every layer alike
    ffn_widths: tuple[int, ...] = ()
    attention_free_layers: tuple[int, ...] = ()
    vision: VisionTower | None = None
    # DeepSeek-V4: hyper-connections (hc_mult copies of the hidden state, mixed by small FP32
    # matrices around each sublayer) and the leading layers that route by a hash of the token id
    # (num_hash_layers: no router bias there)
    hyper_connections: int = 0
    hash_layers: int = 0
    config_class: str | None = None  # config.json's architectures[0] (None: not recorded, not checked)
    formats: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))  # component -> format
    default_format: str = "bf16"

    @property
    def attention_layers(self) -> int:
        """Softmax-attention layers: every layer but the linear-attention ones (a pattern's `*`)."""
        if self.layer_pattern:
            return self.layer_pattern.count("*")
        free = len(self.attention_free_layers) + (self.linear_attention.layers if self.linear_attention else 0)
        return self.layers - free

    @property
    def dense_mlp_layers(self) -> int:
        """Layers with a dense MLP: all of them without MoE, else the leading dense ones (a pattern's `-`)."""
        if self.layer_pattern:
            return self.layer_pattern.count("-")
        if self.ffn_widths:
            return sum(1 for width in self.ffn_widths if width)
        return self.layers if self.moe is None else (self.dense_layers or 0)

    @property
    def moe_layers(self) -> int:
        if self.layer_pattern:
            return self.layer_pattern.count("E")
        return self.layers - self.dense_mlp_layers

    @property
    def layers_differ(self) -> bool:
        """Nemotron-NAS: layers with an MLP of their own width, some without attention."""
        return bool(self.ffn_widths or self.attention_free_layers)

    def has_attention(self, layer: int) -> bool:
        """Whether a layer that is not a linear-attention one has softmax attention (Nemotron-NAS: not
        where its attention is a no-op)."""
        return layer not in self.attention_free_layers

    def ffn_width(self, layer: int) -> int:
        """The dense MLP's width in `layer` (0: none)."""
        return self.ffn_widths[layer] if self.ffn_widths else self.intermediate_size or 0

    @property
    def widest_ffn(self) -> int | None:
        return max(self.ffn_widths) if self.ffn_widths else self.intermediate_size

    @property
    def narrowest_ffn(self) -> int | None:
        """The narrowest MLP a layer has (layers without one left out)."""
        return min(width for width in self.ffn_widths if width) if self.ffn_widths else self.intermediate_size

    def norms_in(self, layer: int) -> int:
        """A layer's norms: `norms_per_layer`, or (layers that differ) one before its attention and one
        before its MLP, where it has them."""
        if not self.layers_differ:
            return self.norms_per_layer
        return self.has_attention(layer) + (self.ffn_width(layer) > 0)

    @property
    def norm_vectors(self) -> int:
        """Every layer's norms."""
        return sum(self.norms_in(layer) for layer in range(self.layers))

    @property
    def mlp_matrices(self) -> int:
        """Matrices of one MLP or expert: gate, up and down, or up and down (relu2)."""
        return 3 if self.gated_mlp else 2


@dataclass(frozen=True)
class ApiPrice:
    """The model maker's API price, in the site's currency per million tokens."""

    input: Decimal
    output: Decimal
    cached_input: Decimal | None = None
    date: str | None = None  # ISO 8601: the day the price was read


@dataclass(frozen=True)
class RopeScaling:
    """The model card's recipe for contexts past the length its config.json declares: the engines
    derive their longest context from the config (`native_context`), and serve the published
    window only with this rope scaling passed as an override."""

    native_context: int  # config.json max_position_embeddings
    rope_type: str  # "yarn"
    factor: Decimal
    original_max_position_embeddings: int
    rope_theta: Decimal  # config.json rope_theta: an override of the rope parameters restates it


@dataclass(frozen=True)
class Checkpoint:
    """A checkpoint of the model other than the published one (a quantization readers serve): the
    repo, how it stores the matrices of the parts it quantizes, and where that is read. Everything
    else (embeddings, head, norms, the parts not listed) stays at 16 bits."""

    id: str  # Hugging Face repo id
    scheme: str  # one of CHECKPOINT_SCHEMES
    quantized: tuple[str, ...]  # COMPONENTS whose matrices are stored in `scheme`
    source: Source
    layers_kept: tuple[int, ...] = ()  # layers whose quantized parts stay at 16 bits (Meta's FP8)
    kv_cache_dtype: str | None = None  # "fp8": its quantization_config asks for an FP8 KV cache (kv_cache_scheme)


@dataclass(frozen=True)
class Model:
    id: str  # Hugging Face repo id, e.g. "moonshotai/Kimi-K3"
    name: str
    slug: str
    weights_url: str
    params: int  # total parameters, exact where published
    active_params: int | None = None  # mixture-of-experts only
    experts: int | None = None  # routed experts
    experts_per_token: int | None = None
    context_window: int | None = None  # tokens
    precision: LocalizedText | None = None  # format of the published checkpoint
    license: str | None = None
    release_date: str | None = None  # ISO 8601
    architecture: Architecture | None = None
    api_price: ApiPrice | None = None
    rope_scaling: RopeScaling | None = None  # needed past the config's length to serve the window
    checkpoints: tuple[Checkpoint, ...] = ()  # quantized checkpoints readers serve, preferred first
    params_without_vision: bool = False  # `params` is the language model's: the vision tower is not in it
    params_without_prediction: bool = False  # `params` leaves the multi-token-prediction layers out (DeepSeek-V4)
    sources: Mapping[str, Source] = field(default_factory=_no_sources)  # field -> provenance

    @property
    def family(self) -> str:
        """The organisation of the Hugging Face repo id (Qwen, meta-llama): how the pages group models."""
        return self.id.split("/")[0]

    @property
    def is_mixture_of_experts(self) -> bool:
        return self.experts is not None


@dataclass(frozen=True)
class Gpu:
    slug: str
    name: str
    vendor: str
    memory_bytes: int
    machine_shapes: tuple[int, ...]  # GPUs per rentable machine, ascending (e.g. 1, 2, 4, 8)
    reported_memory_bytes: int | None = None  # what CUDA/ROCm report as the total (cudaMemGetInfo); Metal's budget
    gpu_memory_share: Decimal | None = None  # unified memory: the share of the machine's memory the GPU may use
    compute_capability: Decimal | None = None  # NVIDIA only: 9.0 Hopper, 10.0 Blackwell...
    memory_type: str | None = None
    bandwidth_bytes_per_second: int | None = None
    interconnect: str | None = None
    # dense tensor-core peak FLOP/s (not the 2:4-sparse figure) by compute type: "bf16" (FP16 where the
    # GPU has no BF16), "fp8", "fp4" (throughput.py: prefill and large batches are compute-bound)
    tensor_flops: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    peer_link: str | None = None  # between the GPUs of a machine: "nvlink", "pcie" or "infinity_fabric"
    peer_bandwidth_bytes_per_second: int | None = None  # that link, one direction, one GPU to the others
    price_per_gpu_hour: Decimal | None = None  # in the site's currency; None: not known
    price_provider: str | None = None
    price_date: str | None = None
    price_stale: bool = False  # read over STALE_AFTER_DAYS days before site.yaml's prices_date (price_age.py)
    sources: Mapping[str, Source] = field(default_factory=_no_sources)

    @property
    def unified_memory(self) -> bool:
        """A machine whose GPU shares the CPU's memory (the catalog gives the share it may use)."""
        return self.gpu_memory_share is not None

    @property
    def gpu_memory_bytes(self) -> int:
        """The datasheet memory its GPU may use: a card's all; a unified-memory machine's share."""
        share = self.gpu_memory_share
        return self.memory_bytes if share is None else int(self.memory_bytes * share)


STALE_AFTER_DAYS = 90  # a price read longer before than this is stale (price_age.py): rental prices move within a quarter


@dataclass(frozen=True)
class Site:
    brand: str
    base_url: str  # absolute, ends with "/"
    console_url: str  # pattern with "{id}"
    languages: tuple[str, ...]  # first one is the default
    currency: str
    prices_date: str  # ISO 8601: the date the prices were read


@dataclass(frozen=True)
class StockOffer:
    """One GPU type on the operator's own platform (inventory.yaml): the machine shapes in stock,
    whether several machines can be joined into one setup, and the operator's price."""

    gpu: str  # a slug of gpus.yaml
    machines: tuple[int, ...]  # GPUs per machine of each shape in stock, ascending
    multi_node: bool
    price_per_gpu_hour: Decimal | None
    date: str  # ISO 8601: the day the stock and its price were read
    source: str  # the operator's feed it was read from
    stale: bool = False  # read more than STALE_AFTER_DAYS before site.yaml's prices_date


@dataclass(frozen=True)
class Inventory:
    """What the operator has in stock now; `sample`: an example of the example brand, not a stock."""

    sample: bool
    offers: tuple[StockOffer, ...]


@dataclass(frozen=True)
class Catalog:
    site: Site
    gpus: tuple[Gpu, ...]
    models: tuple[Model, ...]
    inventory: Inventory | None = None  # None: no inventory.yaml (every GPU priced by the market)
