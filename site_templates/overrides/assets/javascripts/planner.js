// The engine-true planner of generator/sizing/planner.py, in the browser. No dependencies.
//
// It reads the data generator/sizing/plan_inputs.py exports (one model, and once the formats,
// engines and GPUs) and computes the figures of `python -m generator plan ... --json` with the same
// integer arithmetic: bytes are BigInt, so every integer matches Python's; ratios and speeds are
// the same IEEE double operations. Every function names the Python one it follows.
(function (root) {
  "use strict";

  var VLLM = "vllm";
  var B = BigInt;

  // engines.py cdiv for BigInt (a >= 0, b > 0; BigInt division truncates toward zero).
  function ceilDiv(a, b) { return (a + b - 1n) / b; }
  function floorDiv(a, b) { var q = a / b; return (a % b !== 0n && (a < 0n) !== (b < 0n)) ? q - 1n : q; }
  function roundUp(value, multiple) { return ceilDiv(value, multiple) * multiple; }
  function maxBig(a, b) { return a > b ? a : b; }
  function minBig(a, b) { return a < b ? a : b; }

  // ---- Fractions: [numerator, denominator] of BigInt ----------------------------------------
  function frac(n, d) { var g = gcd(n < 0n ? -n : n, d); return [n / g, d / g]; }
  function gcd(a, b) { while (b) { var t = a % b; a = b; b = t; } return a || 1n; }
  function fracOf(pair) { return frac(B(pair[0]), B(pair[1])); }
  function fracEq(a, b) { return a[0] === b[0] && a[1] === b[1]; }
  function fracLt(a, b) { return a[0] * b[1] < b[0] * a[1]; }
  function fracMin(a, b) { return fracLt(b, a) ? b : a; }
  function fracAdd(a, b) { return frac(a[0] * b[1] + b[0] * a[1], a[1] * b[1]); }
  function fracFloat(a) { return Number(a[0]) / Number(a[1]); }
  // Python's round() of a non-negative rational: to the nearest integer, ties to even.
  function roundHalfEven(n, d) {
    var q = n / d, r = n % d;
    if (2n * r > d || (2n * r === d && q % 2n === 1n)) return q + 1n;
    return q;
  }
  // "0.92" -> [23, 25], "-0.1" -> [-1, 10]; null when the text is not a plain decimal.
  function parseFraction(text) {
    var match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(String(text));
    if (!match) return null;
    var decimals = match[3] || "";
    var numerator = B(match[2] + decimals);
    return frac(match[1] ? -numerator : numerator, 10n ** B(decimals.length));
  }
  // planner.py _decimal_text: the fraction with 3 decimals, trailing zeros dropped.
  function decimalText(fraction) {
    return fracFloat(fraction).toFixed(3).replace(/0+$/, "").replace(/\.$/, "");
  }

  // ---- weights (formats.py tensor_bytes, loaded_weights.py) -------------------------------------
  function tensorBytes(shared, tensor, formatKey) {
    var fmt = shared.formats[formatKey];
    var kept = shared.formats[shared.kept_format];
    var rows = B(tensor[1]), cols = B(tensor[2]), count = B(tensor[3]);
    if (tensor[2] === 1 && fmt.bits < kept.bits) fmt = kept;
    var values = rows * cols * count * B(fmt.bits) / 8n;
    if (!fmt.group) return values;
    var blocks = ceilDiv(rows, B(fmt.group[0])) * ceilDiv(cols, B(fmt.group[1])) * count;
    return values + blocks * B(fmt.scale_bytes);
  }

  function shardBytes(shared, tensor, formatKey, tp, padding) {
    var component = tensor[0], shards = B(tensor[4]);
    if (padding && formatKey === "mxfp4" && component === "routed_experts" && tensor[2] > 1) {
      var padded = [component, Number(roundUp(B(tensor[1]), B(padding[1]))),
                    Number(roundUp(ceilDiv(shards, tp), B(padding[0]))), tensor[3], 1];
      return tensorBytes(shared, padded, formatKey);
    }
    var whole = tensorBytes(shared, tensor, formatKey);
    var slices = shards;
    if (shared.vocab_components.indexOf(component) >= 0) slices = roundUp(shards, B(shared.vocab_padding));
    return ceilDiv(whole * ceilDiv(slices, tp), shards);
  }

  function pipelineLayers(layers, pipeline) {
    var stages = [];
    for (var i = 0; i < pipeline; i++) stages.push(Math.floor(layers / pipeline));
    for (var index = 2; index < layers % pipeline + 2; index++) stages[pipeline - index] += 1;
    return stages;
  }

  function formatOf(plan, component) {
    return Object.prototype.hasOwnProperty.call(plan.formats, component) ? plan.formats[component] : plan.default;
  }

  function loadedBytesPerGpu(model, shared, precision, tp, pipeline, padding) {
    var plan = model.precisions[precision];
    var layerBytes = 0n, vocabIn = 0n, vocabOut = 0n, T = B(tp);
    model.tensors.forEach(function (tensor) {
      if (shared.not_loaded.indexOf(tensor[0]) >= 0) return;
      var shard = shardBytes(shared, tensor, formatOf(plan, tensor[0]), T, padding);
      if (tensor[0] === "embeddings") vocabIn += shard;
      else if (tensor[0] === "output_head") vocabOut += shard;
      else layerBytes += shard;
    });
    if (pipeline === 1) return layerBytes + vocabIn + vocabOut;
    var stages = pipelineLayers(model.layers, pipeline), best = 0n;
    stages.forEach(function (count, index) {
      var stage = ceilDiv(layerBytes * B(count), B(model.layers)) +
        (index === 0 ? vocabIn : 0n) + (index === pipeline - 1 ? vocabOut : 0n);
      best = maxBig(best, stage);
    });
    return best;
  }

  function bytesByComponent(model, shared, precision) {
    var plan = model.precisions[precision], totals = {};
    model.tensors.forEach(function (tensor) {
      totals[tensor[0]] = (totals[tensor[0]] || 0n) + tensorBytes(shared, tensor, formatOf(plan, tensor[0]));
    });
    return totals;
  }

  // ---- engines.py ---------------------------------------------------------------------------
  function perTensorParallel(pair, tensor) { return B(tensor === 1 ? pair[0] : pair[1]); }
  function kvDtypeBytes(kvDtype) { return kvDtype === "fp8" ? 1n : 2n; }

  function sglangMemFractionStatic(memoryBytes, tensor, pipeline) {
    var memory = Number(memoryBytes) / 2 ** 20, chunk, graphs;
    if (memory < 20 * 1024) { chunk = 2048; graphs = 8; }
    else if (memory < 35 * 1024) { chunk = 2048; graphs = tensor < 4 ? 16 : 80; }
    else if (memory < 60 * 1024) { chunk = 4096; graphs = tensor < 4 ? 32 : 160; }
    else if (memory < 160 * 1024) { chunk = 8192; graphs = tensor < 4 ? 256 : 512; }
    else { chunk = 16384; graphs = 512; }
    var reserved = 512 + Math.max(chunk, 2048) * 1.5 + graphs * 2 + tensor * pipeline / 8 * 1024;
    if (memory > 60 * 1024) reserved = Math.max(reserved, 10 * 1024);
    var thousandths = (memory - reserved) / memory;
    return parseFraction(thousandths.toFixed(3));
  }

  // ---- setups.py / planner.py ---------------------------------------------------------------
  function planSetup(gpu, count) {
    var largest = gpu.shapes[gpu.shapes.length - 1];
    if (count <= largest) return { gpusPerMachine: count, machines: 1 };
    return { gpusPerMachine: largest, machines: Math.floor(count / largest) };
  }

  function parallelSizes(model, setup) {
    var tensor = 1;
    for (var size = 1; size <= setup.gpusPerMachine; size++) {
      if (setup.gpusPerMachine % size === 0 && model.tensor_parallel.indexOf(size) >= 0) tensor = size;
    }
    return { tensor: tensor, pipeline: setup.gpusPerMachine * setup.machines / tensor };
  }

  function attentionBytesPerToken(model, tensor, dtypeBytes) {
    var a = model.attention;
    if (a.kind === "mla") return B(a.kv_lora_rank + a.qk_rope_head_dim + (a.indexer_head_dim || 0)) * dtypeBytes;
    return 2n * B(Math.max(1, Math.floor(a.kv_heads / tensor))) * B(a.head_dim) * dtypeBytes;
  }

  function stateBytes(model, tensor) {
    var l = model.linear_attention;
    var keyDim = l.key_heads * l.key_head_dim, valueDim = l.value_heads * l.value_head_dim;
    var matrix = B(Math.floor(l.value_heads / tensor)) * B(l.key_head_dim) * B(l.value_head_dim);
    var conv = B(l.conv_kernel - 1) * B(2 * keyDim + valueDim) / B(tensor);
    return (matrix + conv) * 2n;
  }

  function layerKinds(model, split, dtypeBytes, inFlight) {
    var a = model.attention, perToken = attentionBytesPerToken(model, split.tensor, dtypeBytes);
    var windowed = a.sliding_window_layers || 0, windowTokens = B(a.sliding_window || 0);
    var kinds = [{ layers: a.layers - windowed, bytes: perToken, blocks: function (tokens, size) { return ceilDiv(tokens, size); } }];
    if (windowed) {
      kinds.push({ layers: windowed, bytes: perToken, blocks: function (tokens, size) {
        return ceilDiv(minBig(windowTokens - 1n + inFlight, tokens), size) + 1n;
      } });
    }
    if (model.linear_attention) {
      kinds.push({ layers: model.linear_attention.layers, bytes: stateBytes(model, split.tensor), state: true,
                   blocks: function () { return 1n; } });
    }
    return kinds.filter(function (kind) { return kind.layers; }).map(function (kind) {
      return { layers: Number(ceilDiv(B(kind.layers), B(split.pipeline))), bytes: kind.bytes, blocks: kind.blocks, state: !!kind.state };
    });
  }

  function vllmLayout(shared, kinds) {
    var blockSize = B(shared.engines.vllm_block_size);
    var tokens = kinds.filter(function (k) { return !k.state; }), states = kinds.filter(function (k) { return k.state; });
    var perToken = tokens.reduce(function (m, k) { return maxBig(m, k.bytes); }, 0n);
    var page = blockSize * perToken;
    if (states.length) {
      var state = states.reduce(function (m, k) { return maxBig(m, k.bytes); }, 0n);
      blockSize = blockSize * ceilDiv(state, blockSize * perToken);
      page = blockSize * perToken;
    }
    var counts = kinds.map(function (k) { return k.layers; });
    var groupSize = Math.min.apply(null, counts);
    if (Math.max.apply(null, counts) < 1.5 * groupSize) groupSize = Math.max.apply(null, counts);
    var groups = kinds.map(function (k) { return [ceilDiv(B(k.layers), B(groupSize)), k]; });
    var layout = {
      blockSize: blockSize,
      bytesPerBlock: B(groupSize) * page,
      blocks: function (tokensAsked) {
        return groups.reduce(function (sum, g) { return sum + g[0] * g[1].blocks(tokensAsked, blockSize); }, 0n);
      },
    };
    layout.neededBytes = function (t) { return layout.bytesPerBlock * layout.blocks(t); };
    return layout;
  }

  function largest(fits, high) {
    var low = 0n;
    while (low < high) {
      var middle = (low + high + 1n) / 2n;
      if (fits(middle)) low = middle; else high = middle - 1n;
    }
    return low;
  }

  function activationPeak(model, shared, tensor, tokens, sequences) {
    var widths = [], T = B(tensor);
    if (model.intermediate_size) widths.push(3n * ceilDiv(B(model.intermediate_size), T));
    if (model.expert_intermediate_size) {
      widths.push(B(model.experts_per_token) * (3n * ceilDiv(B(model.expert_intermediate_size), T) + B(model.hidden_size)));
    }
    var widest = widths.reduce(maxBig, 0n);
    var forward = tokens * 2n * (widest + 4n * B(model.hidden_size));
    var sampler = B(shared.engines.vllm_sampler_bytes_per_logit) * minBig(tokens, sequences) * B(model.vocab_size);
    return maxBig(forward, sampler);
  }

  var MEMORY_IN_USE = "memory_in_use", WEIGHTS_DO_NOT_FIT = "weights_do_not_fit";
  var NO_KV_MEMORY = "no_kv_memory", CONTEXT_DOES_NOT_FIT = "context_does_not_fit";

  function vllmAccounting(model, shared, gpu, split, request, weights, context, window) {
    var e = shared.engines, tensor = split.tensor, total = B(gpu.memory_bytes);
    var fraction = request.memoryFraction || fracOf(e.vllm_utilization);
    var batchTokens = B(request.maxNumBatchedTokens || gpu.vllm_batch[0]);
    var sequences = B(request.maxNumSeqs || gpu.vllm_batch[1]);
    var requested = ceilDiv(total * fraction[0], fraction[1]);
    var nonKv = {
      activation_peak: activationPeak(model, shared, tensor, batchTokens, sequences),
      cuda_graphs: B(e.vllm_cuda_graphs),
      non_torch: perTensorParallel(e.vllm_non_torch, tensor),
    };
    var available = requested - weights - nonKv.activation_peak - nonKv.cuda_graphs - nonKv.non_torch;
    var kinds = layerKinds(model, split, kvDtypeBytes(request.kvDtype), B(split.pipeline + 1) * batchTokens);
    var layout = vllmLayout(shared, kinds);
    var usable = available - layout.bytesPerBlock;
    var C = B(context);
    var concurrency = Number(maxBig(available, 0n) / layout.bytesPerBlock) / Number(layout.blocks(C));
    var freeAtStart = total - perTensorParallel(e.vllm_baseline, tensor);
    var reason = null;
    if (requested > freeAtStart) reason = MEMORY_IN_USE;
    else if (weights > freeAtStart || weights >= requested) reason = WEIGHTS_DO_NOT_FIT;
    else if (usable <= 0n) reason = NO_KV_MEMORY;
    else if (layout.neededBytes(C) > usable) reason = CONTEXT_DOES_NOT_FIT;
    var maxContext = (reason === MEMORY_IN_USE || reason === WEIGHTS_DO_NOT_FIT || reason === NO_KV_MEMORY) ? 0n :
      largest(function (t) { return layout.neededBytes(t) <= usable; }, B(window));
    return {
      memoryFraction: fraction, nonKv: nonKv, available: available,
      kvBytesPerToken: ceilDiv(layout.neededBytes(C), C),
      kvTokens: Math.trunc(concurrency * context), maxConcurrency: concurrency, reason: reason,
      maxContext: Number(maxContext),
      maxUsers: reason === null ? Math.min(Math.floor(concurrency), Number(sequences)) : 0,
    };
  }

  function sglangAccounting(model, shared, gpu, split, request, weights, context, window) {
    var e = shared.engines, tensor = split.tensor, total = B(gpu.memory_bytes);
    var before = total - B(e.sglang_baseline);
    var fraction = request.memoryFraction || sglangMemFractionStatic(total, tensor, split.pipeline);
    var states = 0n;
    if (model.linear_attention) {
      states = B(e.sglang_mamba_slots) * ceilDiv(B(model.linear_attention.layers), B(split.pipeline)) * stateBytes(model, tensor);
    }
    var outside = roundHalfEven(before * (fraction[1] - fraction[0]), fraction[1]);
    var nonKv = { cuda_context: B(e.sglang_baseline), outside_fraction: outside, states: states };
    var available = floorDiv(before * fraction[0], fraction[1]) - weights - states;
    var perToken = ceilDiv(B(model.attention.layers), B(split.pipeline)) *
      attentionBytesPerToken(model, tensor, kvDtypeBytes(request.kvDtype));
    var kvTokens = maxBig(available, 0n) / perToken;
    var concurrency = Number(kvTokens) / context;
    var reason = null;
    if (weights > before) reason = WEIGHTS_DO_NOT_FIT;
    else if (kvTokens <= 0n) reason = NO_KV_MEMORY;
    else if (kvTokens < B(context)) reason = CONTEXT_DOES_NOT_FIT;
    var maxContext = (reason === null || reason === CONTEXT_DOES_NOT_FIT) ? Number(minBig(kvTokens, B(window))) : 0;
    return {
      memoryFraction: fraction, nonKv: nonKv, available: available, kvBytesPerToken: perToken,
      kvTokens: Number(kvTokens), maxConcurrency: concurrency, reason: reason, maxContext: maxContext,
      maxUsers: reason === null ? Math.floor(concurrency) : 0,
    };
  }

  // kv_cache.py kv_cache + speed.py token_read: bytes one generated token reads.
  function tokenReadBytes(model, shared, precision, kvDtype, context) {
    var weights = bytesByComponent(model, shared, precision), resident = 0n;
    Object.keys(weights).forEach(function (k) {
      if (shared.not_read.indexOf(k) < 0 && k !== "routed_experts") resident += weights[k];
    });
    if (model.tied_embeddings) resident += weights.embeddings || 0n;
    var experts = 0n;
    if (model.expert_intermediate_size) {
      experts = roundHalfEven((weights.routed_experts || 0n) * B(model.experts_per_token), B(model.experts));
    }
    var a = model.attention, bits = 8n * kvDtypeBytes(kvDtype);
    var elements = a.kind === "mla" ? B(a.kv_lora_rank + a.qk_rope_head_dim + (a.indexer_head_dim || 0))
      : 2n * B(a.kv_heads * a.head_dim);
    var perLayer = elements * bits / 8n, windowed = B(a.sliding_window_layers || 0), C = B(context);
    var kv = B(a.layers) * perLayer - windowed * perLayer;
    kv = kv * C + windowed * perLayer * minBig(C, B(a.sliding_window || 0));
    if (model.linear_attention) {
      var l = model.linear_attention;
      var matrix = B(l.value_heads * l.key_head_dim * l.value_head_dim);
      var conv = B(l.conv_kernel - 1) * B(2 * l.key_heads * l.key_head_dim + l.value_heads * l.value_head_dim);
      kv += B(l.layers) * (matrix + conv) * bits / 8n;
    }
    return resident + experts + kv;
  }

  function defaultContext(model) { return model.window; }

  function serveCommand(model, split, machines, engine, context, flags) {
    var command;
    if (engine === VLLM) {
      command = "vllm serve " + model.id + " \\\n  --tensor-parallel-size " + split.tensor;
      if (split.pipeline > 1) command += " \\\n  --pipeline-parallel-size " + split.pipeline;
      command += " \\\n  --max-model-len " + context;
    } else {
      command = "python -m sglang.launch_server \\\n  --model-path " + model.id + " \\\n  --tp " + split.tensor;
      if (split.pipeline > 1) command += " \\\n  --pp-size " + split.pipeline;
      if (machines > 1) command += " \\\n  --nnodes " + machines + " --node-rank 0 --dist-init-addr HEAD_NODE_IP:5000";
      command += " \\\n  --context-length " + context;
    }
    flags.forEach(function (flag) { command += " \\\n  " + flag[0] + " " + flag[1]; });
    return command;
  }

  function planFlags(engine, request) {
    var flags = [];
    if (request.memoryFraction) {
      flags.push([engine === VLLM ? "--gpu-memory-utilization" : "--mem-fraction-static", decimalText(request.memoryFraction)]);
    }
    if (request.kvDtype === "fp8") flags.push(["--kv-cache-dtype", engine === VLLM ? "fp8" : "fp8_e4m3"]);
    return flags;
  }

  // planner.py plan(): one plan as asked. `request`: {engine, context, users, memoryFraction,
  // kvDtype, precision}; `gpu`: an entry of shared.gpus (or one typed by the reader).
  function plan(model, shared, gpu, count, request) {
    var setup = planSetup(gpu, count), split = parallelSizes(model, setup);
    var context = request.context || defaultContext(model);
    var vllm = request.engine === VLLM;
    var padding = vllm ? gpu.vllm_mxfp4_padding : null;
    var weights = loadedBytesPerGpu(model, shared, request.precision, split.tensor, split.pipeline, padding);
    var window = Math.max(context, defaultContext(model));
    var account = (vllm ? vllmAccounting : sglangAccounting)(model, shared, gpu, split, request, weights, context, window);
    var speed = null;
    if (gpu.bandwidth_bytes_per_second) {
      speed = gpu.bandwidth_bytes_per_second * split.tensor / Number(tokenReadBytes(model, shared, request.precision, request.kvDtype, context));
    }
    var price = gpu.price_per_gpu_hour === null || gpu.price_per_gpu_hour === undefined ? null
      : Number(gpu.price_per_gpu_hour) * setup.gpusPerMachine * setup.machines;
    return {
      model: model, gpu: gpu, setup: setup, split: split, request: request, context: context,
      memoryFraction: account.memoryFraction, totalMemory: B(gpu.memory_bytes), weights: weights,
      nonKv: account.nonKv, available: account.available, kvBytesPerToken: account.kvBytesPerToken,
      kvTokens: account.kvTokens, maxConcurrency: account.maxConcurrency, starts: account.reason === null,
      reason: account.reason, maxContext: account.maxContext, maxUsers: account.maxUsers,
      decodeTokensPerSecond: speed, pricePerHour: price, changes: [], refused: null,
      flags: planFlags(request.engine, request), engineVersion: shared.engines.versions[request.engine],
    };
  }

  function fittingFraction(shared, asked) {
    var max = fracOf(shared.engines.max_memory_fraction);
    if (asked.request.engine !== VLLM) return fracMin(max, fracAdd(asked.memoryFraction, [1n, 20n]));
    var total = asked.totalMemory;
    var free = total - perTensorParallel(shared.engines.vllm_baseline, asked.split.tensor);
    return fracMin(max, frac(free * 100n / total, 100n));
  }

  function withRequest(request, changes) {
    var copy = {};
    Object.keys(request).forEach(function (k) { copy[k] = request[k]; });
    Object.keys(changes).forEach(function (k) { copy[k] = changes[k]; });
    return copy;
  }

  function remedies(request, fraction, fitting) {
    var tries = [], differs = !fracEq(fraction, fitting);
    if (differs) tries.push(withRequest(request, { memoryFraction: fitting }));
    if (request.kvDtype !== "fp8") {
      tries.push(withRequest(request, { kvDtype: "fp8" }));
      if (differs) tries.push(withRequest(request, { memoryFraction: fitting, kvDtype: "fp8" }));
    }
    return tries;
  }

  function changedFlags(asked, result) {
    var seen = asked.flags.map(function (f) { return f.join(" "); });
    var changes = result.flags.filter(function (f) { return seen.indexOf(f.join(" ")) < 0; });
    if (result.context !== asked.context) {
      changes.push([result.request.engine === VLLM ? "--max-model-len" : "--context-length", String(result.context)]);
    }
    return changes;
  }

  // planner.py plan_that_starts(): as asked when it starts; else the first change of flags that
  // makes it start; else the longest context that starts.
  function planThatStarts(model, shared, gpu, count, request, shorter) {
    var asked = plan(model, shared, gpu, count, request);
    if (asked.starts) return asked;
    var tried = [asked], options = remedies(request, asked.memoryFraction, fittingFraction(shared, asked));
    for (var i = 0; i < options.length; i++) {
      var result = plan(model, shared, gpu, count, options[i]);
      if (result.starts) { result.changes = changedFlags(asked, result); result.refused = asked.reason; return result; }
      tried.push(result);
    }
    if (shorter === false) return asked;
    var best = tried.reduce(function (b, p) { return p.maxContext > b.maxContext ? p : b; });
    if (best.maxContext === 0) return asked;
    var shorter = plan(model, shared, gpu, count, withRequest(best.request, { context: best.maxContext }));
    shorter.changes = changedFlags(asked, shorter);
    shorter.refused = asked.reason;
    return shorter;
  }

  // fit.py fit_row(): the largest format whose plan starts at the context and holds the users.
  function fitRow(model, shared, gpu, count, request) {
    var result = null;
    for (var i = 0; i < model.precision_order.length; i++) {
      result = planThatStarts(model, shared, gpu, count, withRequest(request, { precision: model.precision_order[i] }), false);
      if (result.starts && result.maxUsers >= result.request.users) return { fits: true, plan: result };
    }
    return { fits: false, plan: result };
  }

  // A GPU the reader types in: vLLM's batch defaults by its memory (engines.py vllm_batch_defaults,
  // an unknown name is not an A100) and the MXFP4 padding of NVIDIA GPUs other than Hopper.
  function customGpu(memoryBytes, bandwidthBytesPerSecond) {
    var GIB = 2 ** 30;
    var batch = memoryBytes >= 160 * GIB ? [16384, 1024] : memoryBytes >= 70 * GIB ? [8192, 1024] : [2048, 256];
    return {
      slug: "custom", name: null, memory_bytes: memoryBytes, shapes: [1, 2, 4, 8],
      bandwidth_bytes_per_second: bandwidthBytesPerSecond || null, price_per_gpu_hour: null,
      vllm_batch: batch, vllm_mxfp4_padding: [128, 256],
    };
  }

  // Memory one GPU holds at `tokens` of context for `users` sequences: weights, the engine's own
  // memory and the KV cache as the plan lays it out (for the chart).
  function memoryAt(p, shared, tokens, users) {
    var kv;
    if (p.request.engine === VLLM) {
      var kinds = layerKinds(p.model, p.split, kvDtypeBytes(p.request.kvDtype), B(p.split.pipeline + 1) * B(p.gpu.vllm_batch[0]));
      kv = vllmLayout(shared, kinds).neededBytes(B(tokens));
    } else {
      kv = ceilDiv(B(p.model.attention.layers), B(p.split.pipeline)) *
        attentionBytesPerToken(p.model, p.split.tensor, kvDtypeBytes(p.request.kvDtype)) * B(tokens);
    }
    var runtime = Object.keys(p.nonKv).reduce(function (sum, k) { return sum + p.nonKv[k]; }, 0n);
    return { weights: Number(p.weights), runtime: Number(runtime), kv: Number(kv * B(users)) };
  }


  // ---- llama.cpp with a GGUF file (gguf.py, llama_cpp.py) -----------------------------------
  function useMoreBits(i, n) {
    return i < Math.floor(n / 8) || i >= Math.floor(7 * n / 8) || (((i - Math.floor(n / 8)) % 3) + 3) % 3 === 2;
  }

  // gguf.py _chosen_type: llama_tensor_get_type's branches for these presets
  function chosenType(L, quant, t, facts, imatrix) {
    var next = L.presets[quant], name = t.name, i = t.layer;
    if (name === "output" || (name === "token_embd" && !facts.has_output)) {
      if (t.row % L.ggml_types[next][0]) return "Q8_0";
      return next === "Q8_0" ? next : "Q6_K";
    }
    if (name === "token_embd") return next;
    if (name === "attn_v") {
      if (quant === "Q2_K") next = facts.n_gqa >= 4 ? "Q4_K" : "Q3_K";
      else if (quant === "Q3_K_M") next = i < 2 ? "Q5_K" : "Q4_K";
      else if (quant === "IQ4_XS" && facts.n_gqa >= 4) next = "Q5_K";
      else if ((quant === "Q4_K_M" || quant === "Q5_K_M") && useMoreBits(i, facts.layers)) next = "Q6_K";
      if (facts.is_70b && (next === "Q3_K" || next === "Q4_K")) next = "Q5_K";
      if (facts.n_expert === 8) next = "Q8_0";
      return next;
    }
    if (name === "attn_k") return facts.n_expert === 8 ? "Q8_0" : next;
    if (name.indexOf("ffn_down") === 0) {
      if (quant === "Q2_K") return "Q3_K";
      if (quant === "Q3_K_M") return i < Math.floor(facts.layers / 16) ? "Q5_K" : "Q4_K";
      if ((quant === "Q4_K_M" || quant === "Q5_K_M") && useMoreBits(i, facts.layers)) return "Q6_K";
      if (quant === "IQ4_XS" && i < Math.floor(facts.layers / 8) && !imatrix) return "Q5_K";
      return next;
    }
    if (name === "attn_qkv") return { Q3_K_M: "Q4_K", Q4_K_M: "Q5_K", Q5_K_M: "Q6_K" }[quant] || next;
    if (name === "attn_output") {
      if (facts.n_expert === 8) return ["Q2_K", "Q3_K_M", "Q4_K_M", "IQ4_XS"].indexOf(quant) >= 0 ? "Q5_K" : next;
      return { Q2_K: "Q3_K", Q3_K_M: "Q4_K" }[quant] || next;
    }
    return next;
  }

  // gguf.py tensor_type
  function ggufType(L, quant, t, facts) {
    if (t.source === "F32" || t.source === "MXFP4") return t.source;
    var preset = L.presets[quant];
    if (preset === "F16" || preset === "BF16") return preset;
    var kind = chosenType(L, quant, t, facts, false);
    if (t.row % L.ggml_types[kind][0]) {
      kind = L.fallback[kind] || "F16";
      if (t.row % L.ggml_types[kind][0]) kind = "F16";
    }
    return kind;
  }

  // The file's tensors, layer by layer, with their type and bytes (gguf.py gguf_file).
  function ggufFile(model, L, quant) {
    var g = model.gguf, tensors = [], bytes = 0, values = 0;
    g.tensors.forEach(function (run) {
      for (var layer = run[5]; layer <= run[6]; layer++) {
        var t = { name: run[0], row: run[1], rows: run[2], source: run[3], experts: run[4], layer: layer < 0 ? null : layer };
        var kind = ggufType(L, quant, t, g), type = L.ggml_types[kind];
        t.bytes = type[1] * Math.floor(t.row / type[0]) * t.rows;
        tensors.push(t);
        bytes += t.bytes;
        values += t.row * t.rows;
      }
    });
    // the file's order: the input embeddings, the blocks in order, then the output layer
    return { tensors: tensors, bytes: bytes, values: values };
  }

  function pad(value, multiple) { return Math.ceil(value / multiple) * multiple; }

  function cacheRowBytes(L, values, cacheType) {
    var type = L.ggml_types[cacheType.toUpperCase()];
    return Math.floor(values / type[0]) * type[1];
  }

  function kvPerLayer(model, L, cells, cacheType) {
    var a = model.attention, row;
    if (a.kind === "mla") row = cacheRowBytes(L, a.kv_lora_rank + a.qk_rope_head_dim, cacheType);
    else row = 2 * cacheRowBytes(L, a.kv_heads * a.head_dim, cacheType);
    var windowCells = cells;
    if (a.sliding_window) windowCells = Math.min(cells, pad(a.sliding_window + L.n_ubatch, L.context_padding));
    return [row * cells, row * windowCells];
  }

  function isWindowed(model, layer) {
    var windowed = model.attention.sliding_window_layers || 0, layers = model.layers;
    if (!windowed) return false;
    var period = layers > windowed ? Math.floor(layers / (layers - windowed)) : 1;
    return windowed === layers || layer % period < period - 1;
  }

  var EXPERT_NAMES = ["ffn_gate_exps", "ffn_up_exps", "ffn_down_exps"];

  function placement(model, L, file, gpus, ngl, cpuMoe, cells, cacheType) {
    var layers = model.layers, first = Math.max(layers + 1 - ngl, 0), share = {}, count = layers + 1 - first;
    for (var index = 0; index < count; index++) share[first + index] = Math.floor(index * gpus / Math.max(count, 1));
    var weights = [], kv = [];
    for (var g = 0; g < gpus; g++) { weights.push(0); kv.push(0); }
    var ramWeights = 0, ramKv = 0, gpuRead = 0, ramRead = 0, embeddings = 0;
    var perLayer = kvPerLayer(model, L, cells, cacheType);
    file.tensors.forEach(function (t) {
      var layer = t.layer !== null ? t.layer : (t.name === "token_embd" ? null : layers);
      if (t.name === "token_embd") embeddings = t.bytes;
      var inRam = layer === null || !(layer in share) || (EXPERT_NAMES.indexOf(t.name) >= 0 && layer < cpuMoe);
      var read = t.name === "token_embd" ? 0 : t.experts ? Math.floor(t.bytes * model.experts_per_token / model.experts) : t.bytes;
      if (inRam) { ramWeights += t.bytes; ramRead += read; }
      else { weights[share[layer]] += t.bytes; gpuRead += read; }
    });
    if (model.tied_embeddings && (layers in share)) { weights[share[layers]] += embeddings; gpuRead += embeddings; }
    for (var l = 0; l < layers; l++) {
      var size = isWindowed(model, l) ? perLayer[1] : perLayer[0];
      if (l in share) kv[share[l]] += size; else ramKv += size;
    }
    return { weights: weights, kv: kv, ramWeights: ramWeights, ramKv: ramKv, gpuRead: gpuRead, ramRead: ramRead };
  }

  function first(holds, low, high) {
    while (low < high) {
      var middle = Math.floor((low + high) / 2);
      if (holds(middle)) high = middle; else low = middle + 1;
    }
    return low;
  }

  // llama_cpp.py llama_cpp_plan(); request: {quant, context, users, nGpuLayers, nCpuMoe, cacheType}
  function llamaCppPlan(model, shared, gpu, count, request) {
    var L = shared.llama_cpp, file = ggufFile(model, L, request.quant);
    var context = request.context || Math.min(model.window, L.default_context), users = request.users || 1;
    var cells = pad(context * users, L.context_padding), total = gpu.memory_bytes;
    var compute = L.n_ubatch * 4 * (model.vocab_size + model.hidden_size), room = total - L.fit_margin;
    function fits(ngl, cpuMoe) {
      var p = placement(model, L, file, count, ngl, cpuMoe, cells, request.cacheType);
      var fullest = 0;
      for (var i = 0; i < count; i++) fullest = Math.max(fullest, p.weights[i] + p.kv[i]);
      return ngl === 0 || fullest + compute <= room;
    }
    var all = model.layers + 1, ngl = request.nGpuLayers, cpuMoe = request.nCpuMoe;
    var experts = model.expert_intermediate_size !== null && model.expert_intermediate_size !== undefined;
    if ((ngl === null || ngl === undefined) && (cpuMoe === null || cpuMoe === undefined) && experts &&
        !fits(all, 0) && fits(all, model.layers)) {
      ngl = all;
      cpuMoe = first(function (n) { return fits(all, n); }, 0, model.layers);
    }
    cpuMoe = cpuMoe || 0;
    if (ngl === null || ngl === undefined) ngl = all - first(function (dropped) { return fits(all - dropped, cpuMoe); }, 0, all);
    ngl = Math.min(ngl, all);
    var p = placement(model, L, file, count, ngl, cpuMoe, cells, request.cacheType);
    var one = kvPerLayer(model, L, 1, request.cacheType), perToken = 0;
    for (var l = 0; l < model.layers; l++) perToken += isWindowed(model, l) ? one[1] : one[0];
    var kvRead = Math.floor(p.kv.reduce(function (a, b) { return a + b; }, 0) / users);
    var speed = null;
    if (gpu.bandwidth_bytes_per_second) {
      var seconds = (p.gpuRead + kvRead) / gpu.bandwidth_bytes_per_second + (p.ramRead + Math.floor(p.ramKv / users)) / L.ram_bandwidth;
      speed = 1 / seconds;
    }
    var fullest = 0;
    for (var i = 1; i < count; i++) if (p.weights[i] + p.kv[i] > p.weights[fullest] + p.kv[fullest]) fullest = i;
    return {
      model: model, gpu: gpu, count: count, request: request, file: file, context: context, users: users,
      nGpuLayers: ngl, nCpuMoe: cpuMoe, weights: p.weights[fullest], ramWeights: p.ramWeights, kv: p.kv[fullest],
      ramKv: p.ramKv, kvPerToken: perToken, compute: compute, total: total,
      starts: p.weights[fullest] + p.kv[fullest] + compute <= room, gpuRead: p.gpuRead + kvRead, ramRead: p.ramRead,
      speed: speed, version: L.version,
    };
  }

  function llamaServerCommand(p) {
    var r = p.request, command = "llama-server \\\n  -m " + p.model.slug + "-" + r.quant + ".gguf \\\n  --n-gpu-layers " + p.nGpuLayers;
    if (p.nCpuMoe) command += " \\\n  --n-cpu-moe " + p.nCpuMoe;
    command += " \\\n  --ctx-size " + pad(p.context * p.users, 256);
    if (p.users > 1) command += " \\\n  --parallel " + p.users;
    if (r.cacheType !== "f16") command += " \\\n  --cache-type-k " + r.cacheType + " --cache-type-v " + r.cacheType;
    return command;
  }

  // plan_output.py llama_cpp_json(): the same field names and values.
  function llamaCppJson(p) {
    return {
      model: p.model.id, gpu: p.gpu.slug, count: p.count, engine: "llama.cpp", engine_version: p.version,
      quant: p.request.quant, gguf_file_bytes: p.file.bytes,
      bits_per_weight: Math.round(p.file.bytes * 8 / p.file.values * 10000) / 10000, context: p.context,
      users: p.users, cache_type: p.request.cacheType, n_gpu_layers: p.nGpuLayers, n_cpu_moe: p.nCpuMoe,
      total_memory_bytes_per_gpu: p.total, weights_bytes_per_gpu: p.weights, weights_bytes_in_ram: p.ramWeights,
      kv_bytes_per_token: p.kvPerToken, kv_bytes_per_gpu: p.kv, kv_bytes_in_ram: p.ramKv,
      compute_buffer_bytes: p.compute, starts: p.starts, gpu_read_bytes_per_token: p.gpuRead,
      ram_read_bytes_per_token: p.ramRead, decode_tokens_per_second: p.speed,
      price_per_hour: p.gpu.price_per_gpu_hour === null || p.gpu.price_per_gpu_hour === undefined ? null
        : Number(p.gpu.price_per_gpu_hour) * p.count,
      command: llamaServerCommand(p),
    };
  }

  // plan_output.py plan_json(): the same field names and values.
  function planJson(p) {
    var nonKv = {};
    Object.keys(p.nonKv).forEach(function (k) { nonKv[k] = Number(p.nonKv[k]); });
    return {
      model: p.model.id, gpu: p.gpu.slug, count: p.setup.gpusPerMachine * p.setup.machines,
      machines: p.setup.machines, engine: p.request.engine,
      engine_version: p.engineVersion, tp: p.split.tensor, pp: p.split.pipeline, context: p.context,
      users: p.request.users, precision: p.request.precision, kv_dtype: p.request.kvDtype,
      memory_fraction: fracFloat(p.memoryFraction), total_memory_bytes_per_gpu: Number(p.totalMemory),
      weights_bytes_per_gpu: Number(p.weights), kv_bytes_per_token_per_gpu: Number(p.kvBytesPerToken),
      non_kv_bytes_per_gpu: nonKv, available_kv_bytes_per_gpu: Number(maxBig(p.available, 0n)),
      short_bytes_per_gpu: Number(maxBig(-p.available, 0n)), kv_tokens: p.kvTokens,
      max_concurrency: Math.round(p.maxConcurrency * 10000) / 10000, starts: p.starts, reason: p.reason,
      max_context: p.maxContext, max_users: p.maxUsers, users_fit: p.starts && p.maxUsers >= p.request.users,
      decode_tokens_per_second: p.decodeTokensPerSecond, price_per_hour: p.pricePerHour,
      changes: p.changes.map(function (f) { return f.join(" "); }), refused: p.refused,
      command: serveCommand(p.model, p.split, p.setup.machines, p.request.engine, p.context,
                            p.flags),
    };
  }

  var api = {
    plan: plan, planThatStarts: planThatStarts, planJson: planJson, parseFraction: parseFraction,
    fitRow: fitRow, customGpu: customGpu, memoryAt: memoryAt, fracFloat: fracFloat,
    llamaCppPlan: llamaCppPlan, llamaCppJson: llamaCppJson,
    loadedBytesPerGpu: loadedBytesPerGpu, planSetup: planSetup, REASONS: [MEMORY_IN_USE, WEIGHTS_DO_NOT_FIT, NO_KV_MEMORY, CONTEXT_DOES_NOT_FIT],
  };
  if (typeof module === "object" && module.exports) module.exports = api;
  else root.VramPlanner = api;
})(this);
