"""KV cache from the kind of every layer: bytes per token, per window, per sequence. Pure math."""

from __future__ import annotations

from dataclasses import dataclass

from generator.catalog.records import Architecture, Model
from generator.sizing.layer_kinds import layer_kinds

# NOTE: the "32k tokens" of the concurrency figures, and the context a model is sized at when
# its context window is not published.
SHORT_CONTEXT = 32_768


def default_context(model: Model) -> int:
    """The context a model is sized at unless asked otherwise: its whole context window."""
    return model.context_window or SHORT_CONTEXT


@dataclass(frozen=True)
class KvCache:
    """What one sequence keeps in memory besides the weights, at one KV precision."""

    bytes_per_token: int  # layers that attend to the whole context: grows with every token
    window_bytes_per_token: int  # sliding-window (or chunked) layers: grows up to their window
    window_tokens: int
    state_bytes: int  # linear-attention layers: a fixed state per sequence

    def sequence_bytes(self, tokens: int) -> int:
        windowed = self.window_bytes_per_token * min(tokens, self.window_tokens)
        return self.bytes_per_token * tokens + windowed + self.state_bytes

    def bytes(self, tokens: int, sequences: int) -> int:
        return sequences * self.sequence_bytes(tokens)


def kv_cache(arch: Architecture, bits: int = 16) -> KvCache:
    """One sequence on one GPU, every cached value at `bits` bits; recurrent states as the engines keep
    them whatever the KV cache's type (layer_kinds.RecurrentStateLayers.state_bytes_on_gpu)."""
    kinds = layer_kinds(arch)

    def total(selected) -> int:
        return sum(kind.layers * kind.values_on_gpu(1) for kind in selected) * bits // 8

    windows = [kind for kind in kinds if kind.window is not None]
    return KvCache(
        bytes_per_token=total(k for k in kinds if k.window is None and not k.per_sequence),
        window_bytes_per_token=total(windows),
        window_tokens=windows[0].window if windows else 0,
        state_bytes=sum(kind.layers * kind.state_bytes_on_gpu(1) for kind in kinds if kind.per_sequence),
    )


def tokens_that_fit(cache: KvCache, room_bytes: int) -> int | None:
    """Tokens of one long sequence whose KV cache `room_bytes` holds (its state and windows
    included); None when no layer grows past its window, so any length fits once one window does.
    """
    in_window = cache.bytes_per_token + cache.window_bytes_per_token
    room = room_bytes - cache.state_bytes
    if room < in_window * cache.window_tokens or cache.window_tokens == 0:
        return max(0, room) // in_window
    if cache.bytes_per_token == 0:
        return None
    return cache.window_tokens + (room - in_window * cache.window_tokens) // cache.bytes_per_token


def sequences_that_fit(cache: KvCache, room_bytes: int, tokens: int) -> int:
    return max(room_bytes, 0) // cache.sequence_bytes(tokens)


@dataclass(frozen=True)
class KvRoom:
    """What memory left beside the weights holds, with 16-bit KV."""

    bytes: int  # negative: the weights alone do not fit
    tokens: int | None  # of one long sequence; None: any length (every layer has a window)
    users_full_context: int
    users_short_context: int


def kv_room(cache: KvCache, room_bytes: int, context: int) -> KvRoom:
    return KvRoom(
        bytes=room_bytes,
        tokens=tokens_that_fit(cache, room_bytes),
        users_full_context=sequences_that_fit(cache, room_bytes, context),
        users_short_context=sequences_that_fit(cache, room_bytes, min(SHORT_CONTEXT, context)),
    )
