"""llama.cpp on N GPUs of one type with a GGUF file: what each GPU and the system RAM hold. Pure.

Rules of llama.cpp (ggml-org/llama.cpp, read at commit 82bb48500a9a6b3374da2cf5811695369278e4d3,
2026-08-07, and common/common.h at d32676d77426540327835040d5d3279728f0b4c8):
- src/llama-model.cpp (load_tensors): the input embeddings always stay on the CPU; `-ngl N`
  offloads the last N of the n_layer + 1 "layers", the output layer first; offloaded layers are
  split over the GPUs in proportion to their memory (equal GPUs: equal shares, the output layer on
  the last); a tied output head is copied to the GPU that holds the output layer;
- src/llama-model.cpp (load_tensors, GLM4_MOE): the NextN blocks a file keeps past n_layer are
  created with TENSOR_SKIP ("NextN/MTP layers are preserved in GGUF but are not executed yet"): not
  loaded, and given no KV cache; yet `-ngl` counts them among the file's blocks (n_layer_all, since
  PR 24060), so they are empty layers here, between the last real block and the output layer
  (PR 26177: "--fit doesn't count the nextn blocks, so it offloads one layer too few");
- src/llama-model.cpp (create_memory) and llama-memory-hybrid.cpp: a hybrid's attention layers get
  the KV cache, its recurrent layers (a Mamba2 layer: n_head_kv 0) a state per sequence, F32
  whatever --cache-type says, max(1, n_seq_max) of them; llama-hparams.cpp: (d_conv - 1) ×
  (d_inner + 2 × n_group × d_state) convolution values and d_state × d_inner SSM values a layer
  (read at commits 00342301 and 01b77b57);
- src/models/qwen35.cpp, qwen3next.cpp and llama-hparams.cpp (read at 4df29be4, 2026-08-16, the same
  rules as at 82bb485): Gated DeltaNet layers hold the same F32 state (d_inner = value heads × head,
  n_group × d_state = the key heads' width), the other layers of each four the KV cache;
  src/llama-kv-cache-dsa.cpp (4df29be4): DeepSeek sparse attention caches the indexer's one key head
  beside the latent, at the cache type (layer_kinds.LatentLayers.llama_cpp_rows);
- common/arg.cpp: `--n-cpu-moe N` keeps the routed experts (ffn_*_exps) of blocks 0..N-1 in RAM;
- src/llama-kv-cache.cpp, llama-kv-cache-iswa.cpp, llama-context.cpp: each layer's K and V rows
  (the latent only for MLA) for n_ctx cells, n_ctx padded to 256; sliding-window layers hold
  PAD(min(n_ctx, n_swa * (unified ? n_seq_max : 1) + n_ubatch), 256) cells a stream (window_cells);
  each layer's rows at its own width (n_embd_k_gqa(il): Gemma 4's global layers); the cache sits
  with its layer;
- common/common.h: `--fit` (on by default) keeps a margin of 1 GiB free on every GPU.
The compute buffer has no formula in llama.cpp (it measures a worst-case graph); compute_buffer_bytes
states the estimate used here and tests/data/llama_cpp_compute_buffers.yaml the logs it is checked against.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import NamedTuple
from decimal import Decimal

from generator.catalog.records import Gpu, Model, RopeScaling
from generator.sizing.engine import GIB, Engine, engine_memory_bytes, largest, plain_number, round_up, rope_scaling_at
from generator.sizing.gguf import GGML_TYPES, GgufFile, GgufTensor, gguf_blocks, gguf_file, tensor_bytes
from generator.sizing.kv_cache import SHORT_CONTEXT, default_context
from generator.sizing.layer_kinds import (
    LatentLayers, RecurrentStateLayers, layer_attention, layer_kinds, pattern_letter, recurrent_layer_indices,
    windowed_layer_indices,
)
from generator.sizing.llama_cpp_compressed import layer_letters, layer_stores, letter_bytes
from generator.sizing.memo import per_record
from generator.sizing.llama_cpp_context import AUTO_SLOTS, CONTEXT_PADDING, N_UBATCH
from generator.sizing.speed import OFFLOAD_BANDWIDTHS

def rope_override(rope: RopeScaling) -> tuple[tuple[str, str], ...]:
    """The model card's YaRN for llama-server (Qwen3's card: `llama-server ... --rope-scaling yarn
    --rope-scale 4 --yarn-orig-ctx 32768`)."""
    return (("--rope-scaling", rope.rope_type), ("--rope-scale", plain_number(rope.factor.normalize())),
            ("--yarn-orig-ctx", str(rope.original_max_position_embeddings)))


# the commit the rules above were read at; llama.cpp prints its own command (llama_server_command)
# llama.cpp plans unified memory: its Metal backend's budget is the wired limit, and on Linux it
# reads a unified device's free memory from /proc/meminfo (ggml-org/llama.cpp#17368)
LLAMA_CPP = Engine(key="llama.cpp", name="llama.cpp", version="82bb485", context_flag="--ctx-size",
                   rope_override=rope_override, unified_memory=True)
FIT_MARGIN = GIB  # common/common.h fit_params_target: 1024 MiB per device
CACHE_TYPES = ("f16", "q8_0", "q4_0")
STATE_BYTES_PER_VALUE = 4  # create_memory: recurrent_type_r and recurrent_type_s are GGML_TYPE_F32
# System RAM read by the CPU for the layers and experts kept there: the upper end of seed 000's
# 30 to 60 GB/s (speed.py OFFLOAD_BANDWIDTHS), a bound, as the pages' offload figures are.
RAM_BANDWIDTH = OFFLOAD_BANDWIDTHS["ram"][1]
EXPERT_NAMES = ("ffn_gate_exps", "ffn_up_exps", "ffn_down_exps")


def cache_row_bytes(values: int, cache_type: str) -> int:
    kind = GGML_TYPES[cache_type.upper()]
    return values // kind.values * kind.bytes


@dataclass(frozen=True)
class LlamaCppRequest:
    quant: str = "Q4_K_M"
    context: int | None = None  # tokens per user; None: the model's window, at most SHORT_CONTEXT
    users: int = 1  # --parallel: every user gets `context` cells of one shared cache
    n_gpu_layers: int | None = None  # None: the most that fit
    n_cpu_moe: int | None = None  # None: with MoE, the fewest that fit
    cache_type: str = "f16"  # --cache-type-k and --cache-type-v
    imatrix: bool = False  # the file was quantized with an importance matrix (llama-quantize --imatrix)


@dataclass(frozen=True)
class LlamaCppPlan:
    model: Model
    gpu: Gpu
    count: int
    request: LlamaCppRequest
    file: GgufFile
    context: int
    n_gpu_layers: int
    n_cpu_moe: int
    weights_bytes_per_gpu: int  # the fullest GPU
    weights_bytes_in_ram: int
    kv_bytes_per_gpu: int
    kv_bytes_in_ram: int
    kv_bytes_per_token: int  # every attention layer, this cache type (sliding-window layers up to their window)
    state_bytes_per_user: int  # every recurrent layer's state (constant, whatever the context)
    compute_buffer_bytes: int
    total_memory_bytes: int  # one GPU, as CUDA reports it
    gpu_read_bytes: int  # one generated token
    ram_read_bytes: int
    decode_tokens_per_second: float | None
    placement: Placement | None = None  # the split's bytes on each side (throughput: a batch touches more experts)

    @property
    def vram_bytes(self) -> int:
        """What the fullest GPU holds: its weights, its layers' KV cache and the compute buffer."""
        return self.weights_bytes_per_gpu + self.kv_bytes_per_gpu + self.compute_buffer_bytes

    @property
    def starts(self) -> bool:
        """Whether the fullest GPU holds its share with the margin --fit keeps free."""
        return self.vram_bytes <= self.total_memory_bytes - FIT_MARGIN

    @property
    def cells(self) -> int:
        """--ctx-size: the cache's cells, every user's context, padded as llama.cpp pads it."""
        return round_up(self.context * self.request.users, CONTEXT_PADDING)

    @property
    def price_per_hour(self) -> Decimal | None:
        price = self.gpu.price_per_gpu_hour
        return None if price is None else price * self.count

    @property
    def command(self) -> str:
        return llama_server_command(self)


def _layer_of(tensor: GgufTensor, layers: int) -> int | None:
    """The offload layer of a tensor: its block, `layers` for the output layer, None for the input."""
    if tensor.layer is not None:
        return tensor.layer
    return None if tensor.name == "token_embd" else layers


class LayerBytes(NamedTuple):
    """One offload layer of a GGUF file: its tensors' bytes, and what one generated token reads."""

    weights: int  # every tensor but the routed experts
    experts: int  # the routed experts (ffn_*_exps), which --n-cpu-moe keeps in RAM
    read: int
    experts_read: int  # of the routed experts, the router's share


@dataclass(frozen=True)
class LlamaCppLayers:
    """A GGUF file as llama.cpp places it: the plan tables of one quant (plan_data.py exports them)."""

    file: GgufFile  # its sizes; its `types` left empty (llama_cpp_layers)
    embeddings: int  # token_embd: always in RAM (a tied head is copied to the GPU of the output layer)
    layers: tuple[LayerBytes, ...]  # the blocks in order, then the output layer
    tied: bool  # the output head is the embedding table


@per_record
def llama_cpp_layers(model: Model, quant: str, imatrix: bool = False) -> LlamaCppLayers:
    file = gguf_file(model, quant, imatrix)
    layers = gguf_blocks(model)
    totals = [[0, 0, 0, 0] for _ in range(layers + 1)]
    embeddings = 0
    for tensor, kind in file.types:
        if tensor.layer is not None and tensor.layer >= model.architecture.layers:
            continue  # a NextN block: in the file, never loaded
        size = tensor_bytes(tensor, kind)
        layer = _layer_of(tensor, layers)
        if layer is None:
            embeddings += size
            continue
        # one token reads every weight it passes through; of the routed experts, its share
        read = size * model.experts_per_token // model.experts if tensor.experts else size
        expert = 1 if tensor.name in EXPERT_NAMES else 0
        totals[layer][expert] += size
        totals[layer][2 + expert] += read
    # the file's totals without its list of tensors: a few thousand records a model, which the plans
    # never read, remembered for every model the GPU pages plan (about 0.5 MB a model, memo.py)
    return LlamaCppLayers(replace(file, types=()), embeddings, tuple(LayerBytes(*row) for row in totals),
                          model.architecture.tied_embeddings)


def cell_bytes(model: Model, cache_type: str) -> dict[str, int]:
    """One layer's cache for one cell, by `layer_caches` letter ("0" every token, "1" a window, "x" every
    token and a sparse-attention indexer's key): the rows llama.cpp caches per token (layer_kinds.py),
    each in blocks of the cache type. "0" and "1" differ where the global layers have their own KV
    heads and width (Gemma 4: llama-hparams.cpp n_embd_k_gqa(il) per layer; a global layer without
    v_proj caches its key as the value too, models/gemma4-iswa.cpp "use Kcur as Vcur")."""
    cells = {"0": 0, "1": 0, INDEXED: 0}
    for kind in layer_kinds(model.architecture):
        if not kind.per_sequence:
            letter = "1" if kind.window is not None else INDEXED if isinstance(kind, LatentLayers) and kind.indexer else "0"
            cells[letter] = sum(cache_row_bytes(values, cache_type) for values in kind.llama_cpp_rows)
    return cells


def sliding_window(model: Model) -> int | None:
    """The tokens a sliding-window layer attends to (hparams.n_swa); None: no such layer."""
    return next((kind.window for kind in layer_kinds(model.architecture) if kind.window is not None), None)


def window_cells(window: int | None, cells: int, users: int) -> int:
    """The cells every sliding-window layer holds (llama-kv-cache-iswa.cpp: PAD(min(size, n_swa ×
    (unified ? n_seq_max : 1) + n_ubatch), 256) a stream; `cells`: the --ctx-size). Without --parallel,
    llama-server's 4 slots share one unified stream (AUTO_SLOTS): 4 windows and a micro-batch; with
    --parallel U (kv_unified off), U streams of --ctx-size / U cells, each of one window and a micro-batch."""
    if window is None:
        return cells
    if users == 1:
        return round_up(min(cells, window * AUTO_SLOTS + N_UBATCH), CONTEXT_PADDING)
    return users * round_up(min(cells // users, window + N_UBATCH), CONTEXT_PADDING)


def state_bytes(model: Model) -> int:
    """One recurrent layer's state for one sequence (0: no such layer)."""
    kind = next((kind for kind in layer_kinds(model.architecture) if isinstance(kind, RecurrentStateLayers)), None)
    return 0 if kind is None else kind.values_on_gpu(1) * STATE_BYTES_PER_VALUE


# a layer that caches every token and its sparse-attention indexer's key: every MLA layer of DeepSeek-V3.2
# and GLM-5; GLM-5.2's 21 layers with an indexer of their own (llama-model.cpp at 4df29be4: filter_lid
# is_indexer_full), its 57 others "0"
INDEXED = "x"


def layer_caches(model: Model) -> str:
    """What each layer caches: "r" a recurrent state per sequence, "1" a sliding window, "0" every
    token, "x" every token and an indexer's key, "-" nothing (an MLP or MoE layer of a pattern: llama-model.cpp create_memory gives
    NemotronH's KV to attention layers with n_ff 0 and states to Mamba layers with n_ff 0; a
    Nemotron-NAS layer without attention: n_head_kv 0, so K and V rows of 0 values,
    llama-hparams.cpp n_embd_k_gqa).
    Windowed layers as layer_kinds.windowed_layer_indices lays them. DeepSeek-V4: "w", "c" and "h", a
    layer of ratio 0, 4 or 128 (llama_cpp_compressed.py)."""
    arch = model.architecture
    if arch.attention.kind == "compressed":
        return layer_letters(arch)  # the MTP layer goes to a file of its own
    recurrent, windowed = recurrent_layer_indices(arch), windowed_layer_indices(arch)
    caches = "".join("-" if pattern_letter(arch, layer) in ("-", "E") or not arch.has_attention(layer) else "r" if layer in recurrent
                     else "1" if layer in windowed else INDEXED if layer_attention(arch, layer).indexer_heads else "0"
                     for layer in range(arch.layers))
    return caches + "-" * (gguf_blocks(model) - arch.layers)  # the NextN blocks the file keeps


def every_layer(model: Model) -> int:
    """`--n-gpu-layers` that puts every layer on the GPUs: the file's blocks (NextN ones included)
    and the output layer."""
    return gguf_blocks(model) + 1


def default_llama_cpp_context(model: Model) -> int:
    """The context a plan asks for unless told: the model's window, at most SHORT_CONTEXT (32,768)."""
    return min(default_context(model), SHORT_CONTEXT)


def compute_buffer_bytes(vocab_size: int, hidden_size: int) -> int:
    """The GPU's compute buffer with every layer offloaded (an estimate; llama.cpp measures a worst-case
    graph): the F32 logits of one micro-batch over the vocabulary and one hidden state per token.
    Public logs (tests/data/llama_cpp_compute_buffers.yaml) show exactly this with flash attention on,
    or a short context; without flash attention long contexts add the attention scores."""
    return N_UBATCH * 4 * (vocab_size + hidden_size)


class Placement(NamedTuple):
    """Where a split puts a GGUF file: bytes per GPU and in RAM, and what one token reads on each side."""

    weights: list[int]  # per GPU
    kv: list[int]  # per GPU
    ram_weights: int
    ram_kv: int
    gpu_read: int
    ram_read: int
    gpu_experts: int  # the routed experts on the GPUs, all of them
    ram_experts: int  # in RAM


def _placement(tables: LlamaCppLayers, caches: str, gpus: int, ngl: int, cpu_moe: int, cache_bytes: dict[str, int]) -> Placement:
    """Bytes per GPU (weights, KV) and in RAM for this split; and the bytes one token reads on each side.
    `cache_bytes`: what a layer of each `layer_caches` letter holds for every user."""
    layers = len(caches)
    first_gpu_layer = max(layers + 1 - ngl, 0)
    count = layers + 1 - first_gpu_layer
    weights, kv = [0] * gpus, [0] * gpus
    ram_weights, ram_kv, gpu_read, ram_read, gpu_experts, ram_experts = tables.embeddings, 0, 0, 0, 0, 0
    for layer, part in enumerate(tables.layers):
        if layer < first_gpu_layer:
            ram_weights += part.weights + part.experts
            ram_read += part.read + part.experts_read
            ram_experts += part.experts
            continue
        gpu = (layer - first_gpu_layer) * gpus // count
        weights[gpu] += part.weights
        gpu_read += part.read
        if layer < cpu_moe:
            ram_weights += part.experts
            ram_read += part.experts_read
            ram_experts += part.experts
        else:
            weights[gpu] += part.experts
            gpu_read += part.experts_read
            gpu_experts += part.experts
        if layer == layers and tables.tied:  # the head is the embedding table, copied to the GPU
            weights[gpu] += tables.embeddings
            gpu_read += tables.embeddings
    for layer, cache in enumerate(caches):
        size = cache_bytes[cache]
        if layer >= first_gpu_layer:
            kv[(layer - first_gpu_layer) * gpus // count] += size
        else:
            ram_kv += size
    return Placement(weights, kv, ram_weights, ram_kv, gpu_read, ram_read, gpu_experts, ram_experts)


class LayerCaches(NamedTuple):
    """What a layer of each `layer_caches` letter holds for every user, and the plan's figures of it."""

    by_letter: dict[str, int]
    per_token: int  # one token of context in every layer that keeps it (windows up to their window)
    state_per_user: int  # the constant part: recurrent states, compressors' states


def _layer_caches_bytes(model: Model, request: LlamaCppRequest, cells: int) -> LayerCaches:
    caches = layer_caches(model)
    if model.architecture.attention.kind == "compressed":
        stores = layer_stores(model.architecture)
        window = sliding_window(model)
        rows = {letter: [cache_row_bytes(store.values, request.cache_type) for store in s.stores] for letter, s in stores.items()}
        return LayerCaches(
            {letter: letter_bytes(s, rows[letter], cells, request.users, window) for letter, s in stores.items()},
            sum(row // store.ratio for letter in caches for store, row in zip(stores[letter].stores, rows[letter]) if store.ratio),
            sum(stores[letter].state_bytes for letter in caches),
        )
    per_cell = cell_bytes(model, request.cache_type)
    window_kv = per_cell["1"] * window_cells(sliding_window(model), cells, request.users)
    # a state per slot (--parallel, or llama-server's 4 without it); nothing for a feed-forward layer
    slots = request.users if request.users > 1 else AUTO_SLOTS
    return LayerCaches({"0": per_cell["0"] * cells, "1": window_kv, INDEXED: per_cell[INDEXED] * cells,
                        "r": state_bytes(model) * slots, "-": 0},
                       sum(per_cell[letter] * caches.count(letter) for letter in ("0", "1", INDEXED)),  # one cell of every attention layer
                       state_bytes(model) * caches.count("r"))


def llama_cpp_plan(model: Model, gpu: Gpu, count: int, request: LlamaCppRequest = LlamaCppRequest(),
                   tables: LlamaCppLayers | None = None) -> LlamaCppPlan:
    """`tables`: llama_cpp_layers of the request's quant, where the caller has them already."""
    arch = model.architecture
    tables = tables or llama_cpp_layers(model, request.quant, request.imatrix)
    caches = layer_caches(model)
    context = request.context or default_llama_cpp_context(model)
    cells = round_up(context * request.users, CONTEXT_PADDING)
    total = engine_memory_bytes(gpu)
    compute = compute_buffer_bytes(arch.vocab_size, arch.hidden_size)
    room = total - FIT_MARGIN
    experts = arch.moe is not None
    layer_cache = _layer_caches_bytes(model, request, cells)
    cache_bytes = layer_cache.by_letter

    def fits(ngl: int, cpu_moe: int) -> bool:
        weights, kv, *_ = _placement(tables, caches, count, ngl, cpu_moe, cache_bytes)
        return ngl == 0 or max(w + k for w, k in zip(weights, kv)) + compute <= room

    blocks = len(caches)  # the file's, NextN blocks included: what -ngl and --n-cpu-moe count
    all_layers = every_layer(model)
    ngl, cpu_moe = request.n_gpu_layers, request.n_cpu_moe
    if gpu.unified_memory and ngl is None and cpu_moe is None:
        # the CPU's memory is the GPU's: layers left to the CPU free none of it, so every layer goes to
        # the GPU, and what does not fit in its share does not start (raise the share instead)
        ngl = all_layers
    elif ngl is None and cpu_moe is None and experts and not fits(all_layers, 0) and fits(all_layers, blocks):
        # keep every layer on the GPUs, and the experts of as many of them as fit (the last ones:
        # --n-cpu-moe moves the first layers' experts to RAM)
        ngl = all_layers
        cpu_moe = blocks - largest(lambda kept: fits(all_layers, blocks - kept), blocks)
    cpu_moe = cpu_moe or 0
    if ngl is None:  # the most layers that fit (fewer layers never need more memory)
        ngl = largest(lambda layers: fits(layers, cpu_moe), all_layers)
    ngl = min(ngl, all_layers)
    placed = _placement(tables, caches, count, ngl, cpu_moe, cache_bytes)
    weights, kv, ram_weights, ram_kv, gpu_read, ram_read = placed[:6]
    # one token also reads its sequence's cache: on the GPUs for offloaded layers
    kv_read = sum(kv) // max(request.users, 1)
    speed = None
    if gpu.bandwidth_bytes_per_second:
        # on unified memory the CPU reads its layers from the same memory: at most the machine's bandwidth
        ram_bandwidth = gpu.bandwidth_bytes_per_second if gpu.unified_memory else RAM_BANDWIDTH
        seconds = (gpu_read + kv_read) / gpu.bandwidth_bytes_per_second + (ram_read + ram_kv // max(request.users, 1)) / ram_bandwidth
        speed = 1 / seconds
    fullest = max(range(count), key=lambda index: weights[index] + kv[index])
    return LlamaCppPlan(
        model=model, gpu=gpu, count=count, request=request, file=tables.file, context=context, n_gpu_layers=ngl,
        n_cpu_moe=cpu_moe, weights_bytes_per_gpu=weights[fullest], weights_bytes_in_ram=ram_weights,
        kv_bytes_per_gpu=kv[fullest], kv_bytes_in_ram=ram_kv, kv_bytes_per_token=layer_cache.per_token,
        state_bytes_per_user=layer_cache.state_per_user,
        compute_buffer_bytes=compute, total_memory_bytes=total,
        gpu_read_bytes=gpu_read + kv_read, ram_read_bytes=ram_read, decode_tokens_per_second=speed,
        placement=placed,
    )


def gguf_file_name(model: Model, quant: str) -> str:
    return f"{model.slug}-{quant}.gguf"


def llama_server_command(plan: LlamaCppPlan) -> str:
    request = plan.request
    command = (f"llama-server \\\n  -m {gguf_file_name(plan.model, request.quant)} \\\n"
               f"  --n-gpu-layers {plan.n_gpu_layers}")
    if plan.n_cpu_moe:
        command += f" \\\n  --n-cpu-moe {plan.n_cpu_moe}"
    command += f" \\\n  --ctx-size {plan.cells}"
    rope = rope_scaling_at(plan.model, plan.context)  # each user's context (a slot of --parallel)
    if rope is not None:
        command += " \\\n  " + " ".join(f"{name} {value}" for name, value in rope_override(rope))
    if request.users > 1 or plan.model.architecture.attention.kind == "compressed":  # llama_cpp_compressed.py
        command += f" \\\n  --parallel {request.users}"
    if request.cache_type != "f16":
        command += f" \\\n  --cache-type-k {request.cache_type} --cache-type-v {request.cache_type}"
    return command
