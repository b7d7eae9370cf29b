// The calculator's planner. No dependencies, no formula of its own.
//
// It reads the plan tables the build exports (generator/sizing/plan_data.py: per model the weights
// per tensor-parallel size, the layer kinds' bytes, the activation peak, the bytes a token reads,
// llama.cpp's layers; once the engines' records and constants and every GPU) and does only what
// depends on the reader's inputs, as the Python planner does with the same tables: pipeline stages,
// block layout, subtraction, the searches and the remedies. Bytes are BigInt, so every integer
// matches Python's. Each step names the Python function it mirrors.
(function (root) {
  "use strict";

  var B = BigInt;
  function ceilDiv(a, b) { return (a + b - 1n) / b; }  // a >= 0, b > 0
  function floorDiv(a, b) { var q = a / b; return a % b !== 0n && a < 0n ? q - 1n : q; }  // b > 0
  function cdiv(a, b) { return Math.floor((a + b - 1) / b); }  // small whole numbers
  function maxBig(a, b) { return a > b ? a : b; }
  function minBig(a, b) { return a < b ? a : b; }
  function sum(values) { return values.reduce(function (a, b) { return a + b; }, 0n); }
  function largest(fits, high) {  // engine.py largest: the largest n in [0, high] with fits(n)
    var low = 0n;
    while (low < high) { var middle = (low + high + 1n) / 2n; if (fits(middle)) low = middle; else high = middle - 1n; }
    return low;
  }

  // ---- fractions: [numerator, denominator] of BigInt, as Python's Fraction ------------------
  function gcd(a, b) { while (b) { var t = a % b; a = b; b = t; } return a || 1n; }
  function frac(n, d) { var g = gcd(n < 0n ? -n : n, d); return [n / g, d / g]; }
  function fracOf(pair) { return frac(B(pair[0]), B(pair[1])); }
  function fracMin(a, b) { return b[0] * a[1] < a[0] * b[1] ? b : a; }
  function fracFloat(a) { return Number(a[0]) / Number(a[1]); }
  function roundHalfEven(n, d) {  // round() of a non-negative rational
    var q = n / d, r = n % d;
    return (2n * r > d || (2n * r === d && q % 2n === 1n)) ? q + 1n : q;
  }
  function parseFraction(text) {  // "0.92" -> [23, 25]; null when the text is not a plain decimal
    var match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(String(text)), decimals = match && (match[3] || "");
    return match && frac((match[1] ? -1n : 1n) * B(match[2] + decimals), 10n ** B(decimals.length));
  }
  // planner.py _decimal_text: the share's exact decimal (shares are decimals, so the division ends).
  function decimalText(f) {
    for (var digits = 0; (10n ** B(digits)) % f[1] !== 0n && digits < 30; digits++);
    var text = (f[0] * 10n ** B(digits) / f[1]).toString().padStart(digits + 1, "0");
    return digits ? (text.slice(0, -digits) + "." + text.slice(-digits)).replace(/0+$/, "").replace(/\.$/, "") : text;
  }

  // ---- the setup and the weights ------------------------------------------------------------
  function planSetup(gpu, count) {  // planner.py plan_setup: one machine, else machines of the largest shape
    var most = gpu.shapes[gpu.shapes.length - 1];
    return count <= most ? { gpusPerMachine: count, machines: 1 } : { gpusPerMachine: most, machines: Math.floor(count / most) };
  }

  function pipelineLayers(layers, pipeline) {  // loaded_weights.py pipeline_layers: equal runs, the rest before the last
    var stages = [];
    for (var i = 0; i < pipeline; i++) stages.push(Math.floor(layers / pipeline));
    for (var index = 2; index < layers % pipeline + 2; index++) stages[pipeline - index] += 1;
    return stages;
  }

  // loaded_weights.py pipeline_layers and fullest_stage_bytes over the table's tensor shares.
  // shares: [layers, embeddings, output head, vision tower, MTP draft]; `vision`: the engine loads the
  // tower (on the first stage); `drafting`: the MTP layers draft tokens (on the last stage).
  function weightsPerGpu(model, precision, padding, split, drafting, vision) {
    var table = model.precisions[precision].weights, shares = (table[padding] || table.none)[split.tensor].map(B);
    var pipeline = split.pipeline, layers = model.layers, best = 0n, first = shares[1] + (vision ? shares[3] : 0n);
    var last = shares[2] + (drafting ? shares[4] : 0n);
    if (pipeline === 1) return shares[0] + first + last;
    var stages = pipelineLayers(layers, pipeline);
    // a stage holds its layers' share of the layer bytes (layer_sizes where layers differ, else alike)
    var sizes = (model.layer_sizes || new Array(layers).fill(1)).map(B), total = sum(sizes), start = 0;
    stages.forEach(function (count, stage) {
      var held = sum(sizes.slice(start, start + count));
      start += count;
      best = maxBig(best, ceilDiv(shares[0] * held, total) + (stage === 0 ? first : 0n) +
        (stage === pipeline - 1 ? last : 0n));
    });
    return best;
  }

  // kv_cache.py KvCache.sequence_bytes over the table's [per token, per window token, window, state].
  function sequenceBytes(read, tokens) { var t = B(tokens); return B(read[0]) * t + B(read[1]) * minBig(t, B(read[2])) + B(read[3]); }
  function perTensorParallel(pair, tensor) { return B(tensor === 1 ? pair[0] : pair[1]); }
  function kindsOf(p, drafting) { return p.model[drafting ? "kinds_drafting" : "kinds"][p.cacheDtype][p.split.tensor]; }
  function dtypeKinds(p) { return kindsOf(p, !!p.request.speculative); }
  var REASONS = ["memory_in_use", "weights_do_not_fit", "no_kv_memory", "context_does_not_fit", "context_beyond_window",
    "no_checkpoint", "engine_does_not_run", "draft_with_pipeline", "gpu_not_planned", "gpu_without_kernels", "unified_memory"];

  // ---- vLLM (engine_vllm.py) ------------------------------------------------------------------
  // block_layout: the stage's layer kinds [layers, bytes, window, per sequence] in groups and blocks.
  function blockLayout(shared, kinds, pipeline, batchTokens, stageLayers) {
    var inFlight = B((pipeline + 1) * batchTokens), perToken = 0n, state = 0n, size = B(shared.vllm.block_size);
    kinds.forEach(function (k) { if (k[3]) state = maxBig(state, B(k[1])); else perToken = maxBig(perToken, B(k[1])); });
    if (state) size = size * ceilDiv(state, size * perToken);
    var counts = kinds.map(function (k) { return stageLayers || cdiv(k[0], pipeline); }), group = Math.min.apply(null, counts);
    if (!state && kinds.every(function (k) { return k[2] === null; })) {  // every layer full attention: one group, the pages summed
      var page = kinds.reduce(function (total, k, i) { return total + B(counts[i]) * B(k[1]); }, 0n);
      return layoutOf(size * page, [[1n, null, 0n, size]]);
    }
    if (Math.max.apply(null, counts) < 1.5 * group) group = Math.max.apply(null, counts);
    var groups = kinds.map(function (k, i) {  // [groups, the tokens a request's blocks cover at most, extra blocks, tokens a block]
      var tokens = !k[3] && perToken % B(k[1]) === 0n ? size * (perToken / B(k[1])) : size;  // a smaller page takes more tokens
      return [B(cdiv(counts[i], group)), k[3] ? 0n : k[2] === null ? null : B(k[2] - 1) + inFlight, k[3] || k[2] !== null ? 1n : 0n, tokens];
    });
    return layoutOf(B(group) * size * perToken, groups);
  }
  // engine_vllm_compressed.py approximate_gcd: the chunk in [low, max] that pads the values least, the larger on a tie
  function approximateGcd(values, low) {
    var best = low, bestPad = null;
    for (var size = low; size <= Math.max.apply(null, values); size++) {
      var pad = values.reduce(function (total, v) { return total + (size - v % size) % size; }, 0);
      if (bestPad === null || pad <= bestPad) { best = size; bestPad = pad; }
    }
    return best;
  }
  // packed_groups and engine_vllm.py packed_layout: specs [layer indexes, page bytes, block size,
  // window] of one block size and window share a bucket; a balanced bucket's repeats (one layer of
  // each page size) are dealt round into groups; a block id costs the fullest stage's widest group.
  function packedLayout(specs, layers, pipeline, batchTokens) {
    var inFlight = B((pipeline + 1) * batchTokens), buckets = {}, keys = [], last = 0;
    specs.forEach(function (s) {
      var key = s[2] + "/" + s[3];
      if (!(key in buckets)) { buckets[key] = { block: s[2], window: s[3], pages: {}, order: [] }; keys.push(key); }
      var b = buckets[key];
      if (!(s[1] in b.pages)) { b.pages[s[1]] = []; b.order.push(s[1]); }
      b.pages[s[1]] = b.pages[s[1]].concat(s[0]);
      s[0].forEach(function (layer) { last = Math.max(last, layer + 1); });
    });
    var counts = function (b) { return b.order.map(function (page) { return b.pages[page].length; }); };
    var balanced = function (b) { return new Set(counts(b)).size === 1; };
    var floor = 0, maxima = [];
    keys.forEach(function (key) {
      var b = buckets[key];
      if (!balanced(b)) return;
      maxima.push(Math.max.apply(null, counts(b)));
      if (b.order.length > 1) floor = Math.max(floor, Math.max.apply(null, counts(b)));
    });
    var repeats = floor ? approximateGcd(maxima, floor) : null, members = [];  // each group's [layer, page]
    var groups = keys.map(function (key) {  // [groups, the tokens a request's blocks cover at most, extra blocks, tokens a block]
      var b = buckets[key], n = balanced(b) && repeats ? cdiv(Math.max.apply(null, counts(b)), repeats) : 1;
      if (n === 1) {
        members.push([].concat.apply([], b.order.map(function (page) { return b.pages[page].map(function (l) { return [l, page]; }); })));
      } else {
        var pattern = b.pages[b.order[0]].map(function (_, r) { return b.order.map(function (page) { return [b.pages[page][r], page]; }); });
        for (var i = 0; i < n; i++) members.push([].concat.apply([], pattern.filter(function (_, r) { return r % n === i; })));
      }
      return [B(n), b.window === null ? null : B(b.window - 1) + inFlight, b.window === null ? 0n : 1n, B(b.block)];
    });
    var widest = 0n, start = 0;
    pipelineLayers(layers, pipeline).forEach(function (count, stage) {  // stage_ranges; a drafting layer on the last
      var stop = stage === pipeline - 1 ? Math.max(last, start + count) : start + count;
      members.forEach(function (group) {
        widest = maxBig(widest, sum(group.filter(function (m) { return m[0] >= start && m[0] < stop; }).map(function (m) { return B(m[1]); })));
      });
      start += count;
    });
    return layoutOf(widest, groups);
  }
  function layoutOf(bytesPerBlock, groups) {
    var layout = { bytesPerBlock: bytesPerBlock };
    layout.blocks = function (tokens) {
      return sum(groups.map(function (g) { return g[0] * (ceilDiv(g[1] === null ? tokens : minBig(tokens, g[1]), g[3]) + g[2]); }));
    };
    layout.neededBytes = function (tokens) { return layout.bytesPerBlock * layout.blocks(tokens); };
    return layout;
  }
  function vllmLayout(p, shared) {  // engine_vllm.py vllm_block_layout
    var stages = p.model.stage_attention_layers, pipeline = p.split.pipeline, tokens = shared.vllm.batch_tiers[p.gpu.vllm_batch_tier][1];
    if (p.model.vllm_specs) return packedLayout(p.model.vllm_specs[p.request.speculative ? 1 : 0], p.model.layers, pipeline, tokens);
    return blockLayout(shared, dtypeKinds(p), pipeline, tokens, stages && pipeline > 1 ? stages[pipeline] : null);
  }

  // account(): gpu_worker.py determine_available_memory, then kv_cache_utils.py's blocks.
  function vllmAccounting(p, shared, weights, context, window) {
    var v = shared.vllm, total = B(p.gpu.memory_bytes), tier = p.gpu.vllm_batch_tier, tensor = p.split.tensor;
    var fraction = p.request.memoryFraction || fracOf(v.utilization), requested = ceilDiv(total * fraction[0], fraction[1]);
    var nonKv = { activation_peak: B(p.model.activation_peak[tensor][tier]), cuda_graphs: B(v.cuda_graphs),
                  non_torch: perTensorParallel(v.non_torch, tensor) };
    var workspace = p.model.attention_workspace && p.model.attention_workspace[p.request.speculative ? 1 : 0][tier];  // AttentionWorkspace.bytes
    function workspaceAt(tokens) { return workspace ? B(workspace[0]) * B(cdiv(Number(tokens), workspace[1])) + B(workspace[2]) : 0n; }
    if (workspace) nonKv.attention_workspace = workspaceAt(context);
    var available = requested - weights - sum(Object.values(nonKv)), layout = vllmLayout(p, shared), C = B(context);
    var usable = available - layout.bytesPerBlock, freeAtStart = total - perTensorParallel(v.baseline, tensor);
    var concurrency = Number(maxBig(available, 0n) / layout.bytesPerBlock) / Number(layout.blocks(C)), reason = null;
    if (requested > freeAtStart) reason = REASONS[0];
    else if (weights > freeAtStart || weights >= requested) reason = REASONS[1];
    else if (usable <= 0n) reason = REASONS[2];
    else if (layout.neededBytes(C) > usable) reason = REASONS[3];
    var maxContext = reason !== null && reason !== REASONS[3] ? 0n  // the workspace grows with the context (workspace_growth)
      : largest(function (t) { return layout.neededBytes(t) + workspaceAt(t) - workspaceAt(context) <= usable; }, B(window));
    return { memoryFraction: fraction, nonKv: nonKv, available: available, kvBytesPerToken: ceilDiv(layout.neededBytes(C), C),
      kvTokens: Math.trunc(concurrency * context), maxConcurrency: concurrency, reason: reason, maxContext: Number(maxContext),
      maxUsers: reason === null ? Math.min(Math.floor(concurrency), v.batch_tiers[tier][2]) : 0 };
  }

  // ---- SGLang (engine_sglang.py) --------------------------------------------------------------
  function sglangDefaultFraction(shared, memoryBytes, split, drafting) {  // sglang_mem_fraction_static over the reserve tiers
    var s = shared.sglang, memory = Number(memoryBytes) / 2 ** 20;
    var tier = s.reserve_tiers.find(function (t) { return t[0] === null || memory < t[0]; });
    var reserved = (split.tensor < 4 ? tier[1] : tier[2]) + split.tensor * split.pipeline / 8 * 1024;
    if (memory > s.large_gpu_mib) reserved = Math.max(reserved, s.large_gpu_reserve_mib);
    if (drafting) reserved += s.draft_reserve_mib;
    return roundTo3((memory - reserved) / memory);
  }
  // Python's round(x, 3): the nearest thousandth of x's exact value, an exact tie (x a multiple of
  // 1/16, the only ties a double can hold at three decimals) to the even thousandth.
  function roundTo3(x) {
    var t = x * 1000, low = Math.floor(t);
    if (Number.isInteger(x * 16) && t - low === 0.5) return frac(B(low % 2 ? low + 1 : low), 1000n);
    return parseFraction(x.toFixed(3));
  }
  function sglangPool(p, kinds) {  // pool_bytes_per_token
    var cached = (kinds || dtypeKinds(p)).filter(function (k) { return !k[3]; }), layers = {}, widths = [];
    cached.forEach(function (k) { if (!(k[1] in layers)) { layers[k[1]] = 0; widths.push(k[1]); } layers[k[1]] += k[0]; });
    layers[cached[0][1]] += p.model.sglang_idle_layers;  // layers of one width share a stage's slots
    return sum(widths.map(function (w) { return B(cdiv(layers[w], p.split.pipeline)) * B(w); }));
  }

  // account(): model_runner.py profile_max_num_token.
  function sglangAccounting(p, shared, weights, context, window) {
    var s = shared.sglang, before = B(p.gpu.memory_bytes) - B(s.baseline);
    var fraction = p.request.memoryFraction || sglangDefaultFraction(shared, p.gpu.memory_bytes, p.split, !!p.request.speculative);
    var target = kindsOf(p, false), drafting = !!p.request.speculative;  // the target's layers: the draft comes after
    var states = sum(target.filter(function (k) { return k[3]; }).map(function (k) {  // state_pool_bytes
      return B(s.mamba_slots) * B(cdiv(k[0], p.split.pipeline)) * B(k[1]);
    }));
    var nonKv = { cuda_context: B(s.baseline), outside_fraction: roundHalfEven(before * (fraction[1] - fraction[0]), fraction[1]), states: states };
    var available = floorDiv(before * fraction[0], fraction[1]) - (weights - p.draftWeights) - states;
    var perToken = sglangPool(p, target), profiled = maxBig(available, 0n) / perToken, kvTokens = profiled, reason = null;
    if (drafting && profiled > 0n) {  // the headroom, then the draft's pool and weights outside the static share
      kvTokens += B(s.draft_headroom);
      var withDraft = sglangPool(p, kindsOf(p, true));
      nonKv.draft_cache = kvTokens * withDraft - profiled * perToken;
      nonKv.outside_fraction -= p.draftWeights + nonKv.draft_cache;
      perToken = withDraft;
    }
    var concurrency = Number(kvTokens) / context;
    var peakOutside = nonKv.outside_fraction - (drafting ? B(p.model.sglang_draft_copies[p.split.tensor]) : 0n);  // draft_copy_bytes
    if (weights > before || peakOutside < 0n) reason = REASONS[1];
    else if (profiled <= 0n) reason = REASONS[2];
    else if (kvTokens < B(context)) reason = REASONS[3];
    return { memoryFraction: fraction, nonKv: nonKv, available: available, kvBytesPerToken: perToken, kvTokens: Number(kvTokens),
      maxConcurrency: concurrency, reason: reason,
      maxUsers: reason === null ? Math.min(Math.floor(concurrency), drafting ? s.draft_running_requests : Infinity) : 0,
      maxContext: reason === null || reason === REASONS[3] ? Number(minBig(kvTokens, B(window))) : 0 };
  }

  // Per accounting (an engine record's `accounting`): the memory it leaves for the KV cache, one
  // sequence's KV bytes (the chart), and the share a remedy tries (at most 0.95).
  var ENGINES = {
    vllm: { account: vllmAccounting, sequenceKv: function (p, shared, tokens) { return vllmLayout(p, shared).neededBytes(B(tokens)); },
      fitting: function (shared, p) {  // what is free once CUDA is up, in hundredths
        return frac((p.totalMemory - perTensorParallel(shared.vllm.baseline, p.split.tensor)) * 100n / p.totalMemory, 100n);
      } },
    sglang: { account: sglangAccounting, sequenceKv: function (p, shared, tokens) { return sglangPool(p) * B(tokens); },
      fitting: function (shared, p) { var f = p.memoryFraction; return frac(f[0] * 20n + f[1], f[1] * 20n); } },  // 5/100 more
  };

  // ---- the plan (planner.py) ----------------------------------------------------------------
  function serveCommand(record, values, flags, env) {  // engine.py CommandTemplate.command
    var t = record.command, lines = t.start.concat([t.tensor], values.pipeline > 1 ? [t.pipeline] : [],
      values.machines > 1 && t.machines ? [t.machines] : [], [t.context]);
    lines = lines.map(function (line) { return line.replace(/\{(\w+)\}/g, function (m, key) { return String(values[key]); }); });
    lines[0] = env.concat([lines[0]]).join(" ");
    return lines.concat(flags.map(function (f) { return f[1] ? f.join(" ") : f[0]; })).join(" \\\n  ");
  }

  // plan(): one plan as asked. `request`: {engine, context, users, memoryFraction, kvDtype, precision,
  // speculative ("mtp" or null)}.
  function plan(model, shared, gpu, count, request) {
    var record = shared.engines[request.engine], setup = planSetup(gpu, count), tensor = model.tensor_for[setup.gpusPerMachine - 1];
    var split = { tensor: tensor, pipeline: setup.gpusPerMachine * setup.machines / tensor }, context = request.context || model.window;
    var scaled = model.rope_override && context > model.rope_override.native;  // engine.py rope_scaling_at
    // checkpoints.py served_weights: the repo the command serves and the flags its weights need
    var runs = model.runs.indexOf(request.engine) >= 0;  // engine.py Engine.runs
    var weights = model.precisions[request.precision], served = runs && weights.engines.indexOf(request.engine) >= 0;
    var flags = served ? weights.flags.slice() : [];
    if (model.vision) flags = flags.concat(record.text_only_flags);  // the pages plan text: the tower stays on disk
    if (scaled) flags = flags.concat(model.rope_override.flags[request.engine]);
    if (request.memoryFraction) flags.push([record.memory_fraction_flag, decimalText(request.memoryFraction)]);
    if (request.kvDtype === "fp8") flags.push([record.kv_cache_dtype_flag, record.fp8_kv_value]);
    if (request.speculative) flags = flags.concat(record.speculative_flags);
    // checkpoints.py cache_dtype: "auto" takes the served checkpoint's own KV cache type where the engine reads it
    var cacheDtype = request.kvDtype === "auto" && record.checkpoint_kv_dtype && served && weights.kv_cache_dtype ? weights.kv_cache_dtype : request.kvDtype;
    var p = { model: model, shared: shared, gpu: gpu, setup: setup, split: split, request: request, context: context, record: record, flags: flags, cacheDtype: cacheDtype,
      env: scaled ? record.rope_env : [], repo: served ? weights.repo : null,
      totalMemory: B(gpu.memory_bytes), decodeTokensPerSecond: null, changes: [], refused: null,
      pricePerHour: gpu.price_per_gpu_hour == null ? null : Number(gpu.price_per_gpu_hour) * count };
    var padding = record.pads_mxfp4 ? gpu.mxfp4_padding : "none", vision = record.text_only_flags.length === 0;
    p.weights = weightsPerGpu(model, request.precision, padding, split, !!request.speculative, vision);
    p.draftWeights = request.speculative ? p.weights - weightsPerGpu(model, request.precision, padding, split, false, vision) : 0n;
    var window = model.context_window;  // the longest context a plan may offer
    Object.assign(p, ENGINES[record.accounting].account(p, shared, p.weights, context, window || Math.max(context, model.window)));
    if (window && context > window) Object.assign(p, { reason: REASONS[4], maxUsers: 0 });
    if (request.speculative && split.pipeline > 1 && !record.speculative_with_pipeline) {
      Object.assign(p, { reason: REASONS[7], maxUsers: 0, maxContext: 0 });
    }
    var gpus = record.attention_gpus[model.attention_kind], major = gpu.compute_capability_major;  // engine.py Engine.gpu_reason
    if (gpus && gpus[0].indexOf(major) < 0) {
      Object.assign(p, { reason: major == null || gpus[1].indexOf(major) >= 0 ? REASONS[8] : REASONS[9], maxUsers: 0, maxContext: 0 });
    }
    if (gpu.unified_memory && !record.unified_memory) Object.assign(p, { reason: REASONS[10], maxUsers: 0, maxContext: 0 });
    if (!served) Object.assign(p, { reason: runs ? REASONS[5] : REASONS[6], maxUsers: 0, maxContext: 0 });
    p.starts = p.reason === null;
    if (gpu.bandwidth_bytes_per_second && served) {
      var read = B(model.precisions[request.precision].read_bytes) + sequenceBytes(model.kv_read[cacheDtype], context);
      p.decodeTokensPerSecond = gpu.bandwidth_bytes_per_second * tensor / Number(read);
    }
    return p;
  }

  function changedFlags(asked, result) {
    var seen = asked.flags.map(function (f) { return f.join(" "); });
    var changes = result.flags.filter(function (f) { return seen.indexOf(f.join(" ")) < 0; });
    return result.context === asked.context ? changes : changes.concat([[result.record.context_flag, String(result.context)]]);
  }

  // plan_that_starts(): as asked when it starts; else the first change of flags that makes it start
  // (_remedies: the share of the GPU that fits, then an 8-bit KV cache, then both); else (unless
  // `shorter` is false) the longest context that starts.
  function planThatStarts(model, shared, gpu, count, request, shorter) {
    var asked = plan(model, shared, gpu, count, request), tried = [asked];
    if (asked.starts || asked.repo === null) return asked;
    var fitting = fracMin(fracOf(shared.max_memory_fraction), ENGINES[asked.record.accounting].fitting(shared, asked)), options = [];
    var differs = asked.memoryFraction[0] !== fitting[0] || asked.memoryFraction[1] !== fitting[1];
    if (differs) options.push({ memoryFraction: fitting });
    if (request.kvDtype !== "fp8") options.push({ kvDtype: "fp8" }, differs ? { memoryFraction: fitting, kvDtype: "fp8" } : null);
    for (var i = 0; i < options.length; i++) {
      if (!options[i]) continue;
      var result = plan(model, shared, gpu, count, Object.assign({}, request, options[i]));
      if (result.starts) return Object.assign(result, { changes: changedFlags(asked, result), refused: asked.reason });
      tried.push(result);
    }
    var best = tried.reduce(function (b, p) { return p.maxContext > b.maxContext ? p : b; });
    if (shorter === false || best.maxContext === 0) return asked;
    var cut = plan(model, shared, gpu, count, Object.assign({}, best.request, { context: best.maxContext }));
    return Object.assign(cut, { changes: changedFlags(asked, cut), refused: asked.reason });
  }

  // answer(): the plan for the flags asked, and the remedy when it does not start (null: none).
  function answer(model, shared, gpu, count, request) {
    var asked = plan(model, shared, gpu, count, request), remedy = asked.starts ? null : planThatStarts(model, shared, gpu, count, request);
    return { asked: asked, remedy: remedy && remedy.changes.length ? remedy : null };
  }

  // fit.py fit_row(): the largest format whose plan starts at the context and holds the users.
  function fitRow(model, shared, gpu, count, request) {
    for (var i = 0, order = model.precision_order[request.engine], result = null; i < order.length; i++) {
      result = planThatStarts(model, shared, gpu, count, Object.assign({}, request, { precision: order[i] }), false);
      if (result.starts && result.maxUsers >= result.request.users) return { fits: true, plan: result };
    }
    return { fits: false, plan: result };
  }

  // A GPU the reader types in: vLLM's batch tier by its memory alone, the custom GPU's shapes and padding.
  function customGpu(shared, memoryBytes, bandwidthBytesPerSecond) {
    return { slug: "custom", name: null, memory_bytes: memoryBytes, shapes: shared.custom_gpu.shapes,
      bandwidth_bytes_per_second: bandwidthBytesPerSecond || null, price_per_gpu_hour: null, tensor_flops: {}, peer_link: null, peer_bandwidth: null,
      vllm_batch_tier: shared.vllm.batch_tiers.findIndex(function (t) { return memoryBytes >= t[0]; }),
      mxfp4_padding: shared.custom_gpu.mxfp4_padding };
  }

  // planner.py memory_at(): one GPU's weights, engine memory and KV cache for the chart.
  function memoryAt(p, shared, tokens, users) {
    var kv = ENGINES[p.record.accounting].sequenceKv(p, shared, tokens);
    return { weights: Number(p.weights), runtime: Number(sum(Object.values(p.nonKv))), kv: Number(kv * B(users)) };
  }

  // ---- throughput at a workload (throughput.py, plan_speed.py) ---------------------------------
  // throughput.py workload_at: the prompt and answer asked, by default the tables' 1,024 each or less.
  function workloadAt(shared, context, users, inputTokens, outputTokens) {
    var T = shared.throughput, output = outputTokens || Math.min(T.workload_tokens, Math.max(Math.floor(context / 2), 1));
    return { users: users, input: inputTokens || Math.min(T.workload_tokens, Math.max(context - output, 1)), output: output };
  }
  function expertsTouched(share, tokens) { return 1 - Math.pow(1 - share, tokens); }  // experts_touched
  function allReduceSeconds(work, hw, tokens) {  // _all_reduces
    if (hw.tensor === 1) return 0;
    var latency = fracFloat(fracOf(hw.shared.throughput.all_reduce_seconds[hw.peerLink || "pcie"]));
    var moved = 2 * (hw.tensor - 1) / hw.tensor * tokens * work.hidden * hw.shared.throughput.activation_bytes;
    return work.allReduces * (latency + (hw.peerBandwidth ? moved / hw.peerBandwidth : 0));
  }
  function gpuSeconds(hw, read, flops) {  // _gpu_seconds
    return Math.max(read / (hw.tensor * hw.bandwidth * hw.bandwidthShare),
                    flops / (hw.tensor * hw.flops * fracFloat(fracOf(hw.shared.throughput.compute_share))));
  }
  function ramSeconds(work, hw, touched) {  // _ram_seconds
    var bytes = work.ramBytes + work.ramExpertBytes * touched;
    return bytes && hw.ramBandwidth ? bytes / hw.ramBandwidth : 0;
  }
  function decodeStepSeconds(work, hw, batch, tokens) {  // decode_step_seconds
    var touched = expertsTouched(work.share, batch);
    var read = work.resident + work.experts * touched + batch * Number(sequenceBytes(work.cache, tokens));
    var flops = batch * (work.flops + work.attention * tokens);
    return gpuSeconds(hw, read, flops) + ramSeconds(work, hw, touched) + allReduceSeconds(work, hw, batch);
  }
  function prefillSeconds(work, hw, tokens) {  // prefill_seconds
    var touched = expertsTouched(work.share, tokens);
    var flops = tokens * work.flops + work.attention * tokens * tokens / 2;
    return gpuSeconds(hw, work.resident + work.experts * touched, flops) + ramSeconds(work, hw, touched) + allReduceSeconds(work, hw, tokens);
  }
  function throughput(work, hw, workload, batch) {  // throughput
    batch = Math.max(1, Math.min(batch, workload.users));
    var output = workload.output, step = decodeStepSeconds(work, hw, batch, workload.input + Math.floor(output / 2));
    var prefill = prefillSeconds(work, hw, workload.input), cycle = output * step + batch * prefill, total = batch * output / cycle;
    return { total: total, perUser: total / workload.users, ttft: prefill + step, tpot: step + (batch - 1) * prefill / output,
             prefill: prefill, batch: batch };
  }
  function modelWork(model, resident, experts, cache) {  // plan_speed.py _work
    var w = model.work;
    return { resident: resident, experts: experts, share: w.expert_share[0] / w.expert_share[1], cache: cache, flops: w.flops_per_token,
             attention: w.attention_flops_per_token, allReduces: w.all_reduces, hidden: w.hidden_size, ramBytes: 0, ramExpertBytes: 0 };
  }
  // plan_speed.py serving_throughput: null where it does not start or the GPU's figures are not known.
  function servingThroughput(p, workload) {
    var gpu = p.gpu, P = p.repo === null ? null : p.model.precisions[p.request.precision];
    if (!p.starts || !P || !gpu.bandwidth_bytes_per_second) return null;
    var flops = (gpu.tensor_flops || {})[P.compute] || (gpu.tensor_flops || {}).bf16;  // compute_flops
    if (!flops) return null;
    var work = modelWork(p.model, P.resident_bytes, P.expert_bytes, p.model.kv_read[p.cacheDtype]);
    var hw = { shared: p.shared, bandwidth: gpu.bandwidth_bytes_per_second, flops: flops, tensor: p.split.tensor,
               bandwidthShare: fracFloat(fracOf(p.shared.throughput.serving_share)), peerLink: gpu.peer_link, peerBandwidth: gpu.peer_bandwidth };
    var sequence = B(memoryAt(p, p.shared, workload.input + workload.output, 1).kv);
    var held = sequence > 0n ? floorDiv(p.available, sequence) : B(workload.users);
    return throughput(work, hw, workload, Number(minBig(held, B(workload.users))));
  }
  // plan_output.py throughput_json()
  function throughputJson(t, workload) {
    return { input_tokens: workload.input, output_tokens: workload.output,
      output_tokens_per_second: t && Math.round(t.total * 100) / 100, output_tokens_per_second_per_user: t && Math.round(t.perUser * 100) / 100,
      ttft_seconds: t && Math.round(t.ttft * 10000) / 10000, tpot_seconds: t && Math.round(t.tpot * 100000) / 100000,
      users_decoding_at_once: t && t.batch };
  }

  // plan_output.py plan_json(): the same field names and values.
  function planJson(p, workload) {
    workload = workload || workloadAt(p.shared, p.context, p.request.users);
    var nonKv = {}, values = { model: p.repo, tensor: p.split.tensor, pipeline: p.split.pipeline, machines: p.setup.machines, context: p.context };
    Object.keys(p.nonKv).forEach(function (k) { nonKv[k] = Number(p.nonKv[k]); });
    return Object.assign({
      model: p.model.id, gpu: p.gpu.slug, count: p.setup.gpusPerMachine * p.setup.machines, machines: p.setup.machines,
      engine: p.request.engine, engine_version: p.record.version, tp: p.split.tensor, pp: p.split.pipeline, context: p.context,
      users: p.request.users, precision: p.request.precision, checkpoint: p.repo, speculative: p.request.speculative || null, kv_dtype: p.request.kvDtype, kv_cache_dtype: p.cacheDtype, memory_fraction: fracFloat(p.memoryFraction),
      total_memory_bytes_per_gpu: Number(p.totalMemory), weights_bytes_per_gpu: Number(p.weights),
      kv_bytes_per_token_per_gpu: Number(p.kvBytesPerToken), non_kv_bytes_per_gpu: nonKv,
      available_kv_bytes_per_gpu: Number(maxBig(p.available, 0n)), short_bytes_per_gpu: Number(maxBig(-p.available, 0n)),
      kv_tokens: p.kvTokens, max_concurrency: Math.round(p.maxConcurrency * 10000) / 10000, starts: p.starts, reason: p.reason,
      max_context: p.maxContext, max_users: p.maxUsers, users_fit: p.starts && p.maxUsers >= p.request.users,
      verdict: !p.starts ? "does_not_start" : p.maxUsers >= p.request.users ? "starts" : "starts_for_fewer_users",
      decode_tokens_per_second: p.decodeTokensPerSecond, price_per_hour: p.pricePerHour,
    }, throughputJson(servingThroughput(p, workload), workload), {
      command: p.repo === null ? null : serveCommand(p.record, values, p.flags, p.env),
    });
  }
  // plan_output.py answer_json()
  function answerJson(a, workload) {
    workload = workload || workloadAt(a.asked.shared, a.asked.context, a.asked.request.users);
    var remedy = a.remedy && Object.assign(planJson(a.remedy, workload), { changes: a.remedy.changes.map(function (f) { return f.join(" "); }) });
    return Object.assign(planJson(a.asked, workload), { remedy: remedy });
  }

  // ---- llama.cpp (llama_cpp.py) ---------------------------------------------------------------
  // _placement: each GPU's weights and KV, what stays in RAM, and the bytes one token reads.
  function placement(T, Q, gpus, ngl, cpuMoe, cacheBytes) {
    var layers = T.layer_caches.length, first = Math.max(layers + 1 - ngl, 0), count = layers + 1 - first;
    var p = { weights: [], kv: [], ramWeights: Q.embeddings, ramKv: 0, gpuRead: 0, ramRead: 0, gpuExperts: 0, ramExperts: 0 };
    for (var g = 0; g < gpus; g++) { p.weights.push(0); p.kv.push(0); }
    Q.layers.forEach(function (kind, layer) {
      var part = Q.layer_bytes[kind], gpu = Math.floor((layer - first) * gpus / count);  // [weights, experts, read, experts read]
      if (layer < first) {
        p.ramWeights += part[0] + part[1]; p.ramRead += part[2] + part[3]; p.ramExperts += part[1];
        if (layer < layers) p.ramKv += cacheBytes[T.layer_caches[layer]];
        return;
      }
      p.weights[gpu] += part[0]; p.gpuRead += part[2];
      if (layer < cpuMoe) { p.ramWeights += part[1]; p.ramRead += part[3]; p.ramExperts += part[1]; }
      else { p.weights[gpu] += part[1]; p.gpuRead += part[3]; p.gpuExperts += part[1]; }
      if (layer === layers && T.tied_embeddings) { p.weights[gpu] += Q.embeddings; p.gpuRead += Q.embeddings; }
      if (layer < layers) p.kv[gpu] += cacheBytes[T.layer_caches[layer]];
    });
    return p;
  }

  // window_cells(): one unified stream of AUTO_SLOTS windows without --parallel, else one stream a user.
  function windowCells(window, cells, users, L) {
    function pad(n) { return Math.ceil(n / L.context_padding) * L.context_padding; }
    if (window === null) return cells;
    if (users === 1) return pad(Math.min(cells, window * L.auto_slots + L.n_ubatch));
    return users * pad(Math.min(Math.floor(cells / users), window + L.n_ubatch));
  }

  // plan_speed.py llama_cpp_throughput: every layer's reads, the experts a batch touches, what the CPU reads.
  function llamaCppThroughput(model, shared, gpu, p, starts, perToken, statePerUser, workload) {
    var flops = (gpu.tensor_flops || {}).bf16, k = B(model.work.expert_share[0]), e = B(model.work.expert_share[1]);
    if (!starts || !gpu.bandwidth_bytes_per_second || !flops) return null;
    function minusShare(read, experts) { return Number(roundHalfEven(B(read) * e - B(experts) * k, e)); }  // round(read - experts × k/E)
    var work = modelWork(model, minusShare(p.gpuRead, p.gpuExperts), p.gpuExperts, [perToken, 0, 0, statePerUser]);
    work.allReduces = 0; work.ramBytes = minusShare(p.ramRead, p.ramExperts); work.ramExpertBytes = p.ramExperts;
    var hw = { shared: shared, bandwidth: gpu.bandwidth_bytes_per_second, flops: flops, tensor: 1,
               bandwidthShare: fracFloat(fracOf(shared.throughput.llama_cpp_share)),
               ramBandwidth: gpu.unified_memory ? gpu.bandwidth_bytes_per_second : shared.llama_cpp.ram_bandwidth };
    return throughput(work, hw, workload, workload.users);
  }

  // llama_cpp_plan(), as plan_output.py llama_cpp_json() prints it. request: {quant, context, users,
  // nGpuLayers, nCpuMoe, cacheType}; workload: workloadAt's.
  function llamaCppPlan(model, shared, gpu, count, request, workload) {
    var L = shared.llama_cpp, T = model.llama_cpp, Q = T.quants[request.quant], layers = T.layer_caches.length, all = layers + 1;  // the file's blocks
    var context = request.context || T.default_context, users = request.users || 1, perCell = T.cell_bytes[request.cacheType];
    var cells = Math.ceil(context * users / L.context_padding) * L.context_padding, fullKv = perCell["0"] * cells, room = gpu.memory_bytes - L.fit_margin;
    var windowKv = perCell["1"] * windowCells(T.sliding_window, cells, users, L);  // cell_bytes by letter
    var slots = users > 1 ? users : L.auto_slots;  // --parallel, or llama-server's 4 slots without it
    var cacheBytes = { "0": fullKv, "1": windowKv, "x": perCell["x"] * cells, "r": T.state_bytes * slots, "-": 0 };  // a state per slot
    function layersOf(letter) { return T.layer_caches.split(letter).length - 1; }  // "x": a layer with its indexer's key too
    var perToken = perCell["0"] * layersOf("0") + perCell["1"] * layersOf("1") + perCell["x"] * layersOf("x"), statePerUser = T.state_bytes * layersOf("r");
    if (T.compressed) {  // llama_cpp.py _layer_caches_bytes and llama_cpp_compressed.py letter_bytes
      var stores = T.compressed.stores[request.cacheType], streams = users;  // --parallel, always (streams())
      var perStream = Math.ceil(Math.floor(cells / users) / L.context_padding) * L.context_padding;
      cacheBytes = {}; perToken = 0; statePerUser = 0;
      Object.keys(stores).forEach(function (letter) {
        var bytes = stores[letter].reduce(function (sum, s) {  // store_cells: the window's, or one a ratio of tokens
          var n = s[1] === null ? Math.min(perStream, T.sliding_window + L.n_ubatch) : Math.max(1, Math.ceil(perStream / s[1]));
          return sum + Math.ceil(n / L.context_padding) * L.context_padding * s[0];
        }, 0);
        cacheBytes[letter] = streams * (bytes + T.compressed.states[letter]);
      });
      T.layer_caches.split("").forEach(function (letter) {
        statePerUser += T.compressed.states[letter];
        stores[letter].forEach(function (s) { if (s[1] !== null) perToken += Math.floor(s[0] / s[1]); });
      });
    }
    function fullest(p) { return Math.max.apply(null, p.weights.map(function (w, i) { return w + p.kv[i]; })); }
    function fits(ngl, cpuMoe) { return ngl === 0 || fullest(placement(T, Q, count, ngl, cpuMoe, cacheBytes)) + T.compute_buffer <= room; }
    function most(holds, high) { return Number(largest(function (n) { return holds(Number(n)); }, B(high))); }
    var ngl = request.nGpuLayers, cpuMoe = request.nCpuMoe;
    if (gpu.unified_memory && ngl == null && cpuMoe == null) ngl = all;  // llama_cpp.py: the CPU's memory is the GPU's
    else if (ngl == null && cpuMoe == null && T.experts && !fits(all, 0) && fits(all, layers)) {
      ngl = all;  // every layer on the GPUs, and the experts of as many of them as fit
      cpuMoe = layers - most(function (kept) { return fits(all, layers - kept); }, layers);
    }
    cpuMoe = cpuMoe || 0;
    ngl = Math.min(ngl == null ? most(function (n) { return fits(n, cpuMoe); }, all) : ngl, all);
    var p = placement(T, Q, count, ngl, cpuMoe, cacheBytes), at = 0, speed = null;
    for (var i = 1; i < count; i++) if (p.weights[i] + p.kv[i] > p.weights[at] + p.kv[at]) at = i;
    var kvRead = Math.floor(p.kv.reduce(function (a, b) { return a + b; }, 0) / users);
    if (gpu.bandwidth_bytes_per_second) {
      speed = 1 / ((p.gpuRead + kvRead) / gpu.bandwidth_bytes_per_second + (p.ramRead + Math.floor(p.ramKv / users)) / (gpu.unified_memory ? gpu.bandwidth_bytes_per_second : L.ram_bandwidth));
    }
    var command = ["llama-server", "-m " + model.slug + "-" + request.quant + ".gguf", "--n-gpu-layers " + ngl]  // llama_server_command
      .concat(cpuMoe ? ["--n-cpu-moe " + cpuMoe] : [], ["--ctx-size " + cells],
        model.rope_override && context > model.rope_override.native
          ? [model.rope_override.flags[L.key].map(function (f) { return f.join(" "); }).join(" ")] : [],
        users > 1 || T.compressed ? ["--parallel " + users] : [],
        request.cacheType !== "f16" ? ["--cache-type-k " + request.cacheType + " --cache-type-v " + request.cacheType] : []);
    var starts = p.weights[at] + p.kv[at] + T.compute_buffer <= room;
    workload = workload || workloadAt(shared, context, users);
    return Object.assign({
      model: model.id, gpu: gpu.slug, count: count, engine: L.key, engine_version: L.version, quant: request.quant, imatrix: false,  // the calculator plans stock llama-quantize files
      gguf_file_bytes: Q.file[2], gguf_tensor_bytes: Q.file[0], bits_per_weight: Math.round(Q.file[0] * 8 / Q.file[1] * 10000) / 10000, context: context,
      users: users, cache_type: request.cacheType, n_gpu_layers: ngl, n_cpu_moe: cpuMoe, total_memory_bytes_per_gpu: gpu.memory_bytes,
      weights_bytes_per_gpu: p.weights[at], weights_bytes_in_ram: p.ramWeights, kv_bytes_per_token: perToken,
      state_bytes_per_user: statePerUser,
      kv_bytes_per_gpu: p.kv[at], kv_bytes_in_ram: p.ramKv, compute_buffer_bytes: T.compute_buffer,
      starts: starts, gpu_read_bytes_per_token: p.gpuRead + kvRead,
      ram_read_bytes_per_token: p.ramRead, decode_tokens_per_second: speed,
      price_per_hour: gpu.price_per_gpu_hour == null ? null : Number(gpu.price_per_gpu_hour) * count,
    }, throughputJson(llamaCppThroughput(model, shared, gpu, p, starts, perToken, statePerUser, workload), workload), {
      command: command.join(" \\\n  "),
    });
  }

  // fit.py llama_cpp_fit_row: every layer on the GPUs, part in RAM, or not at all (with the reason).
  // model.llama_cpp may hold one quant only (the fit page loads a quant's tables for every model).
  function llamaCppFitRow(model, shared, gpu, count, request) {
    var T = model.llama_cpp;
    function no(reason, plan) { return { verdict: "does_not_run", reason: reason, plan: plan || null }; }
    if (!T) return no("engine_does_not_run");
    if (model.context_window && request.context > model.context_window) return no("context_beyond_window");
    if (!T.quants[request.quant]) return no("no_checkpoint");
    var p = llamaCppPlan(model, shared, gpu, count, request);
    if (!p.starts) return no("does_not_start", p);
    var onGpus = p.n_gpu_layers === T.layer_caches.length + 1 && p.n_cpu_moe === 0;  // every_layer, no --n-cpu-moe
    return { verdict: onGpus ? "on_gpus" : "part_in_ram", reason: null, plan: p };
  }

  // ---- the cheapest setup for a workload (cheapest.py) -----------------------------------------
  // _ways: each serving engine's precisions with their weights' bytes, and each GGUF file tried.
  function cheapestWays(model, shared) {
    var serving = [], gguf = [];
    shared.throughput.engines.forEach(function (engine) {
      if (model.runs.indexOf(engine) < 0) return;
      model.precision_order[engine].forEach(function (precision) {
        serving.push({ engine: engine, precision: precision, bytes: model.precisions[precision].total_bytes });
      });
    });
    var T = model.llama_cpp;
    if (T) {
      shared.throughput.llama_cpp_quants.concat(T.quants.MXFP4_MOE ? ["MXFP4_MOE"] : []).forEach(function (quant) {
        gguf.push({ quant: quant, bytes: T.quants[quant].file[0] });
      });
    }
    return { serving: serving, gguf: gguf };
  }
  // _meets: every user decodes at once, at the speed asked; a speed not known meets no floor.
  function meets(t, asked) {
    if (t === null) return asked.floor == null;
    return t.batch >= asked.workload.users && (asked.floor == null || t.perUser >= asked.floor);
  }
  // _options_on: every way that answers on `count` GPUs of `gpu`, in the ways' order.
  function optionsOn(model, shared, gpu, count, ways, asked) {
    var memory = gpu.gpu_memory_bytes * count, users = asked.workload.users, found = [];
    ways.serving.forEach(function (way) {
      if (way.bytes > memory) return;
      var request = { engine: way.engine, context: asked.context, users: users, memoryFraction: null, kvDtype: "auto",
                      precision: way.precision, speculative: null };
      var p = planThatStarts(model, shared, gpu, count, request, false);
      if (p.starts && p.maxUsers >= users) found.push({ plan: p, json: null, speed: servingThroughput(p, asked.workload) });
    });
    if (count <= gpu.shapes[gpu.shapes.length - 1]) {
      ways.gguf.forEach(function (way) {
        if (way.bytes > memory) return;
        var out = llamaCppPlan(model, shared, gpu, count, { quant: way.quant, context: asked.context, users: users, cacheType: "f16" },
                               asked.workload);
        if (out.starts && out.n_gpu_layers === model.llama_cpp.layer_caches.length + 1 && !out.n_cpu_moe) {
          found.push({ plan: null, json: out, speed: out.output_tokens_per_second === null ? null :
            { total: out.output_tokens_per_second, perUser: out.output_tokens_per_second_per_user, batch: out.users_decoding_at_once } });
        }
      });
    }
    return found.filter(function (option) { return meets(option.speed, asked); });
  }
  // _by_price: priced setups cheapest first (exact: prices are decimals), then fewer GPUs, then the
  // list's order; those priced on request last.
  function byPrice(setups) {
    function price(setup) { var f = setup.gpu.price_per_gpu_hour == null ? null : parseFraction(setup.gpu.price_per_gpu_hour); return f && [f[0] * B(setup.count), f[1]]; }
    return setups.map(function (setup, order) { return { setup: setup, order: order, price: price(setup) }; }).sort(function (a, b) {
      if ((a.price === null) !== (b.price === null)) return a.price === null ? 1 : -1;
      if (a.price !== null) { var left = a.price[0] * b.price[1], right = b.price[0] * a.price[1]; if (left !== right) return left < right ? -1 : 1; }
      return a.setup.count - b.setup.count || a.order - b.order;
    }).map(function (item) { return item.setup; });
  }
  // _first_types: each GPU type's first setup that answers, until `shown` types have.
  function firstTypes(model, shared, setups, ways, asked, shown) {
    var chosen = [], seen = {};
    byPrice(setups).some(function (setup) {
      if (seen[setup.gpu.slug]) return false;
      var options = optionsOn(model, shared, setup.gpu, setup.count, ways, asked);
      if (options.length) { seen[setup.gpu.slug] = true; chosen.push(Object.assign({ gpu: setup.gpu, count: setup.count }, options[0])); }
      return chosen.length === shown;
    });
    return chosen;
  }
  // cheapest_options over `gpus` ([gpu, joined] pairs); asked: {context, workload, floor}.
  function cheapestOptions(model, shared, gpus, asked, pricedOnly, shown) {
    var candidates = gpus.filter(function (pair) { return !pricedOnly || pair[0].price_per_gpu_hour != null; });
    var ways = cheapestWays(model, shared), single = [], joined = [];
    shown = shown || shared.throughput.options_shown;
    candidates.forEach(function (pair) { pair[0].shapes.forEach(function (count) { single.push({ gpu: pair[0], count: count }); }); });
    var options = firstTypes(model, shared, single, ways, asked, shown);
    if (options.length) return options;
    candidates.forEach(function (pair) {
      if (!pair[1]) return;
      var largest = pair[0].shapes[pair[0].shapes.length - 1];
      for (var machines = 2; machines <= shared.throughput.max_machines; machines++) joined.push({ gpu: pair[0], count: largest * machines });
    });
    return firstTypes(model, shared, joined, ways, asked, shown);
  }
  function marketGpus(shared) {  // market_gpus: 8-GPU machines may be joined
    return shared.gpus.map(function (gpu) { return [gpu, gpu.shapes[gpu.shapes.length - 1] === shared.throughput.machine_size]; });
  }
  function stockGpus(shared) { return (shared.stock || []).map(function (gpu) { return [gpu, gpu.multi_node]; }); }
  // cheapest_output.py option_json's figures: what the setup is and how fast it serves.
  function optionJson(option, asked) {
    var p = option.plan, out = option.json, t = option.speed;
    return { gpu: option.gpu.slug, count: option.count, machines: p ? p.setup.machines : 1,
      engine: p ? p.request.engine : out.engine, precision: p ? p.request.precision : null, checkpoint: p ? p.repo : null,
      quant: p ? null : out.quant, price_per_hour: p ? p.pricePerHour : out.price_per_hour,
      max_users: p ? p.maxUsers : asked.workload.users,
      output_tokens_per_second: t && (p ? Math.round(t.total * 100) / 100 : t.total),
      output_tokens_per_second_per_user: t && (p ? Math.round(t.perUser * 100) / 100 : t.perUser),
      command: p ? planJson(p, asked.workload).command : out.command };
  }

  var api = {
    plan: plan, planThatStarts: planThatStarts, planJson: planJson, answer: answer, answerJson: answerJson, parseFraction: parseFraction, fitRow: fitRow,
    customGpu: customGpu, memoryAt: memoryAt, fracFloat: fracFloat, llamaCppPlan: llamaCppPlan, llamaCppFitRow: llamaCppFitRow, REASONS: REASONS,
    workloadAt: workloadAt, servingThroughput: servingThroughput, cheapestOptions: cheapestOptions, marketGpus: marketGpus,
    stockGpus: stockGpus, optionJson: optionJson,
  };
  if (typeof module === "object" && module.exports) module.exports = api;
  else root.VramPlanner = api;
})(this);
