"""llama.cpp's context defaults that every part of its accounting reads (commit 82bb485)."""

N_UBATCH = 512  # common/common.h: the physical batch
CONTEXT_PADDING = 256  # llama-context.cpp: GGML_PAD(n_ctx, 256)
# tools/server/server.cpp (PR 16736): without --parallel, llama-server runs 4 slots on a unified
# cache ("setting n_parallel = 4 and kv_unified = true"): the KV cache keeps its --ctx-size cells,
# but a hybrid holds a recurrent state for each of the 4 sequences.
AUTO_SLOTS = 4
