// The calculator of model pages and the "What fits my GPUs" page. No dependencies but the two
// scripts the pages load before it: planner.js (the physics) and tables.js (the address, sorting).
//
// planner.js computes; this file reads the form and the address, writes the figures (as text, never
// as HTML) and keeps the question in the address. Without it, the pages' static tables answer.
(function () {
  "use strict";

  var P = window.VramPlanner, T = window.VramTables;  // tables.js: the address, sorting, showing and hiding
  var fill = T.fill, readAddress = T.readAddress, writeAddress = T.writeAddress, answerEveryChange = T.answerEveryChange;
  var showNote = T.showNote, setHidden = T.setHidden, makeSortable = T.makeSortable;
  var COMMON = ["offer", "gpu", "gpu-memory-gb", "gpu-bandwidth-gbs", "count", "context", "users", "engine", "kv-dtype"];

  function getJson(url) {
    return fetch(url).then(function (response) {
      if (!response.ok) throw new Error(url + ": " + response.status);
      return response.json();
    });
  }

  // Number formats as the pages print them with Babel (render.py), in the page's locale.
  function formats(locale, currency) {
    function decimals(digits) {
      return new Intl.NumberFormat(locale, { maximumFractionDigits: digits, roundingMode: "halfEven" });
    }
    var whole = decimals(0), two = decimals(2), one = decimals(1);
    return {
      number: function (value) { return whole.format(value); },
      gb: function (bytes) {  // render.py gigabytes_fine
        if (bytes > 0 && bytes < 5e6) return "< " + two.format(0.01);
        var gb = bytes / 1e9, size = Math.abs(gb);
        return (size < 10 ? two : size < 100 ? one : whole).format(gb);
      },
      rate: function (perSecond) { return (perSecond < 10 ? one : whole).format(perSecond); },  // render.py rate
      // render.py seconds: milliseconds below a second, else two decimals below 10 s, one above
      seconds: function (value, text) {
        if (value < 1) return fill(text.milliseconds, { value: whole.format(Math.max(Math.round(value * 1000), 1)) });
        return fill(text.seconds, { value: new Intl.NumberFormat(locale, { minimumFractionDigits: value < 10 ? 2 : 1,
          maximumFractionDigits: value < 10 ? 2 : 1, roundingMode: "halfEven" }).format(value) });
      },
      concurrency: function (value) { return two.format(value); },
      bits: function (value) {  // render.py bits: two decimals
        return new Intl.NumberFormat(locale, { minimumFractionDigits: 2, maximumFractionDigits: 2, roundingMode: "halfEven" }).format(value);
      },
      money: function (amount) { return new Intl.NumberFormat(locale, { style: "currency", currency: currency }).format(amount); },
      date: function (iso) {  // render.py date: Babel's long style, 27 de julho de 2026, July 27, 2026
        return new Intl.DateTimeFormat(locale, { dateStyle: "long", timeZone: "UTC" }).format(new Date(iso + "T00:00:00Z"));
      },
      // [singular, plural] as gettext gives them for 1 and 2: the form the language uses for `count`
      plural: function (forms, count) { return new Intl.PluralRules(locale).select(count) === "one" ? forms[0] : forms[1]; },
    };
  }

  // ---- the question --------------------------------------------------------------------------
  // The GPUs a question may use: the operator's stock (shared.json's `stock`: its GPU types with
  // their machine shapes in stock, its prices and whether machines join) where the form asks for
  // it, else every GPU of the catalog. The GPU list then offers only those.
  function offeredGpus(form, shared) {
    var offer = form.elements.offer, stock = offer && offer.value === "stock" ? shared.stock || [] : null;
    var select = form.elements.gpu;
    Array.prototype.forEach.call(select.options, function (option) {
      var out = stock !== null && !stock.some(function (gpu) { return gpu.slug === option.value; });
      option.hidden = option.disabled = out;
    });
    if (select.selectedIndex < 0 || select.options[select.selectedIndex].disabled) {
      var first = Array.prototype.find.call(select.options, function (option) { return !option.disabled; });
      if (first) select.value = first.value;
    }
    return stock;
  }

  // The GPUs' names in the page's language, as its GPU list shows them (a catalog name may carry
  // words: shared.json has the English, the same for every language).
  function namesOfThePage(form, shared) {
    var names = {};
    Array.prototype.forEach.call(form.elements.gpu.options, function (option) { names[option.value] = option.textContent; });
    shared.gpus.concat(shared.stock || []).forEach(function (gpu) { if (names[gpu.slug]) gpu.name = names[gpu.slug]; });
  }

  function chosenGpu(form, shared) {
    var stock = offeredGpus(form, shared);
    var slug = form.elements.gpu.value, custom = slug === "custom";
    form.querySelectorAll("[data-custom-gpu]").forEach(function (label) { setHidden(label, !custom); });
    if (!custom) return (stock || shared.gpus).find(function (gpu) { return gpu.slug === slug; }) || null;
    var memory = form.elements["gpu-memory-gb"], bandwidth = form.elements["gpu-bandwidth-gbs"];
    if (!memory.value || !memory.checkValidity()) return null;
    var perSecond = bandwidth.value && bandwidth.checkValidity() ? Math.round(Number(bandwidth.value) * 1e9) : null;
    return P.customGpu(shared, Math.round(Number(memory.value) * 1e9), perSecond);
  }

  // The question the form asks, or the line that says why it cannot be asked.
  function question(form, shared, text) {
    var invalid = Array.prototype.find.call(form.elements, function (field) {
      return field.name && !field.closest("[hidden]") && !field.checkValidity();
    });
    if (invalid) return { problem: invalid.labels && invalid.labels[0] ? invalid.labels[0].textContent.trim() + ": " + invalid.validationMessage : invalid.validationMessage };
    var gpu = chosenGpu(form, shared);
    if (!gpu) return { problem: text.custom_memory };
    var count = Number(form.elements.count.value), largest = gpu.shapes[gpu.shapes.length - 1];
    if ("multi_node" in gpu && !(gpu.shapes.indexOf(count) >= 0 || (gpu.multi_node && count % largest === 0))) {
      // in stock: a machine of a shape in stock, or machines of the largest joined where the operator joins them
      return { problem: fill(gpu.multi_node ? text.stock_shapes_joined : text.stock_shapes,
                             { gpu: gpu.name, shapes: gpu.shapes.join(", "), largest: largest }) };
    }
    if (count > largest && count % largest) return { problem: fill(text.count_rule, { gpus: largest }) };
    if (count > largest && form.elements.engine.value === shared.llama_cpp.key) {
      return { problem: fill(text.llama_one_machine, { gpus: largest }) };
    }
    function optional(name) {
      var field = form.elements[name];
      return field && field.value !== "" ? Number(field.value) : null;
    }
    var context = Number(form.elements.context.value), users = Number(form.elements.users.value);
    var workload = P.workloadAt(shared, context, users, optional("input-tokens"), optional("output-tokens"));
    if (workload.input + workload.output > context) {
      return { problem: fill(text.workload_too_long, { input: workload.input, output: workload.output, context: context }) };
    }
    return {
      gpu: gpu, count: count, workload: workload,
      request: {
        engine: form.elements.engine.value, context: Number(form.elements.context.value),
        users: Number(form.elements.users.value), memoryFraction: null,
        kvDtype: form.elements["kv-dtype"].value,
        precision: form.elements.precision ? form.elements.precision.value : "native",
        speculative: form.elements.mtp && form.elements.mtp.checked && !form.elements.mtp.closest("[hidden]") ? "mtp" : null,
        quant: form.elements.quant ? form.elements.quant.value : null,
        cacheType: form.elements["cache-type"] ? form.elements["cache-type"].value : "f16",
        nGpuLayers: optional("n-gpu-layers"), nCpuMoe: optional("n-cpu-moe"),
      },
    };
  }

  // ---- a model page --------------------------------------------------------------------------
  var SVG = "http://www.w3.org/2000/svg";

  function svgElement(name, attributes) {
    var element = document.createElementNS(SVG, name);
    Object.keys(attributes).forEach(function (key) { element.setAttribute(key, attributes[key]); });
    return element;
  }

  // Memory per GPU against context (log scale), stacked: weights, the engine's own memory, the KV
  // cache of the users asked; the GPU's memory as a line. Drawn at the width the page gives it, so
  // its text is the size written (13 px), on a phone too; the y axis has its values in GB.
  function drawChart(svg, plan, shared, users, text, format) {
    var title = svg.querySelector("title");
    while (svg.lastChild && svg.lastChild !== title) svg.removeChild(svg.lastChild);
    var width = Math.round(Math.max(300, Math.min(640, svg.getBoundingClientRect().width || 640)));
    var legendRows = width >= 560 ? 1 : 3, height = 250 + 18 * legendRows;
    var left = 64, right = 12, top = 22, bottom = 40 + 18 * legendRows;
    svg.setAttribute("viewBox", "0 0 " + width + " " + height);
    var high = Math.max(plan.context, plan.model.window), low = Math.min(1024, high);
    var points = [];
    for (var i = 0; i <= 32; i++) {
      var tokens = Math.round(low * Math.pow(high / low, i / 32));
      points.push({ tokens: tokens, memory: P.memoryAt(plan, shared, tokens, users) });
    }
    var capacity = Number(plan.totalMemory), last = points[points.length - 1].memory;
    var most = Math.max(capacity, last.weights + last.runtime + last.kv), top_value = most * 1.05;
    function x(tokens) { return left + (width - left - right) * Math.log(tokens / low) / Math.log(high / low || 2); }
    function y(bytes) { return top + (height - top - bottom) * (1 - Math.min(bytes, top_value) / top_value); }
    function area(lower, upper, css) {
      var path = points.map(function (p, n) { return (n ? "L" : "M") + x(p.tokens).toFixed(1) + " " + y(upper(p.memory)).toFixed(1); });
      for (var n = points.length - 1; n >= 0; n--) path.push("L" + x(points[n].tokens).toFixed(1) + " " + y(lower(points[n].memory)).toFixed(1));
      svg.appendChild(svgElement("path", { d: path.join(" ") + " Z", class: css }));
    }
    area(function () { return 0; }, function (m) { return m.weights; }, "vram-chart__weights");
    area(function (m) { return m.weights; }, function (m) { return m.weights + m.runtime; }, "vram-chart__runtime");
    area(function (m) { return m.weights + m.runtime; }, function (m) { return m.weights + m.runtime + m.kv; }, "vram-chart__kv");
    svg.appendChild(svgElement("line", { x1: left, x2: width - right, y1: y(capacity), y2: y(capacity), class: "vram-chart__capacity" }));
    svg.appendChild(svgElement("line", { x1: left, x2: left, y1: top, y2: height - bottom, class: "vram-chart__axis" }));
    svg.appendChild(svgElement("line", { x1: left, x2: width - right, y1: height - bottom, y2: height - bottom, class: "vram-chart__axis" }));
    function label(content, attributes) {
      var element = svgElement("text", attributes);
      element.textContent = content;
      svg.appendChild(element);
    }
    [0, 1 / 3, 2 / 3, 1].forEach(function (share) {  // the y axis' values: memory per GPU
      svg.appendChild(svgElement("line", { x1: left - 4, x2: left, y1: y(most * share), y2: y(most * share), class: "vram-chart__axis" }));
      label(fill(text.gb, { value: format.gb(most * share) }), { x: left - 6, y: y(most * share) + 4, "text-anchor": "end",
                                                                class: "vram-chart__label", "data-axis": "y" });
    });
    label(text.gpu_memory + ": " + fill(text.gb, { value: format.gb(capacity) }), { x: width - right, y: y(capacity) - 5, "text-anchor": "end", class: "vram-chart__label" });
    label(format.number(low), { x: left, y: height - bottom + 16, class: "vram-chart__label" });
    label(format.number(high), { x: width - right, y: height - bottom + 16, "text-anchor": "end", class: "vram-chart__label" });
    if (width >= 420) label(text.context_axis, { x: (left + width - right) / 2, y: height - bottom + 16, "text-anchor": "middle", class: "vram-chart__label" });
    var legend = [[text.weights, "vram-chart__weights"], [text.engine_memory, "vram-chart__runtime"], [text.kv_cache, "vram-chart__kv"]];
    legend.forEach(function (entry, n) {  // a row on a wide screen, one entry a line on a phone
      var lx = legendRows === 1 ? left + n * 170 : left, ly = legendRows === 1 ? height - 20 : height - 20 - (2 - n) * 18;
      svg.appendChild(svgElement("rect", { x: lx, y: ly, width: 12, height: 12, class: entry[1] }));
      label(entry[0], { x: lx + 17, y: ly + 10, class: "vram-chart__label" });
    });
  }

  function setOut(root, field, shown, raw) {
    var element = root.querySelector('[data-out="' + field + '"]');
    if (!element) return;
    if (element.textContent !== shown) element.textContent = shown;
    if (element.getAttribute("data-value") !== String(raw)) element.setAttribute("data-value", String(raw));
  }

  // A price per hour and when it was read: "$0.80 per hour (price of January 1, 2026, over 90 days old)"
  // (_macros.md.j2 price_read); a GPU of the reader's own has no price
  function priceShown(amount, gpu, text, format) {
    var shown = fill(text.per_hour, { value: format.money(amount) });
    if (!gpu.price_date) return shown;
    return shown + " (" + fill(gpu.price_stale ? text.price_of_stale : text.price_of, { date: format.date(gpu.price_date) }) + ")";
  }

  // The figures of `plan --engine llama.cpp --json` (planner.js llamaCppPlan).
  function showLlamaCpp(root, out, gpu, text, format, why) {
    function gb(bytes) { return fill(text.gb, { value: format.gb(bytes) }); }
    setOut(root, "starts", out.starts ? text.yes : text.no, out.starts);
    setOut(root, "gguf_file_bytes", gb(out.gguf_file_bytes), out.gguf_file_bytes);
    setOut(root, "bits_per_weight", format.bits(out.bits_per_weight), out.bits_per_weight);
    setOut(root, "n_gpu_layers", format.number(out.n_gpu_layers), out.n_gpu_layers);
    setOut(root, "n_cpu_moe", format.number(out.n_cpu_moe), out.n_cpu_moe);
    ["weights_bytes_per_gpu", "weights_bytes_in_ram", "kv_bytes_per_gpu", "compute_buffer_bytes"].forEach(function (field) {
      setOut(root, field, gb(out[field]), out[field]);
    });
    // what does not fit has no speed or price to show, and its command says it does not start
    setOut(root, "decode_tokens_per_second", !out.starts ? "–" : out.decode_tokens_per_second === null ? text.not_published
      : fill(text.tokens_per_second, { value: format.rate(out.decode_tokens_per_second) }), out.starts && out.decode_tokens_per_second);
    setOut(root, "price_per_hour", !out.starts ? "–" : out.price_per_hour === null ? ("multi_node" in gpu ? text.on_request : text.no_price)
      : priceShown(out.price_per_hour, gpu, text, format), out.starts && out.price_per_hour);
    setOut(root, "command", out.starts ? out.command : text.does_not_start_command + "\n" + out.command, out.starts);
    why.textContent = out.starts ? "" : text.llama_does_not_fit;
    setHidden(why, out.starts);
  }

  // The workload's figures of `plan --json` (planner.js throughputJson): "–" where it does not start.
  function showThroughput(root, out, ran, text, format) {
    function shown(value, as) { return !ran ? "–" : value === null ? text.not_known : as(value); }
    function rate(value) { return fill(text.tokens_per_second, { value: format.rate(value) }); }
    function seconds(value) { return format.seconds(value, text); }
    setOut(root, "output_tokens_per_second", shown(out.output_tokens_per_second, rate), ran && out.output_tokens_per_second);
    setOut(root, "output_tokens_per_second_per_user", shown(out.output_tokens_per_second_per_user, rate), ran && out.output_tokens_per_second_per_user);
    setOut(root, "ttft_seconds", shown(out.ttft_seconds, seconds), ran && out.ttft_seconds);
    setOut(root, "tpot_seconds", shown(out.tpot_seconds, seconds), ran && out.tpot_seconds);
  }

  // "Cheapest for this question" (planner.js cheapestOptions, cheapest.py): where the setup asked
  // falls short, the cheapest setup of each GPU type the form plans on that serves every user, with
  // a link that asks it.
  function showCheapest(root, form, shared, model, asked, short, text, format) {
    var box = root.querySelector("[data-cheapest]"), list = root.querySelector('[data-out="cheapest"]');
    setHidden(box, !short);
    if (!short) return;
    var stock = form.elements.offer && form.elements.offer.value === "stock";
    var question = { context: asked.request.context, workload: asked.workload, floor: null };
    var options = P.cheapestOptions(model, shared, stock ? P.stockGpus(shared) : P.marketGpus(shared), question, !stock);
    while (list.firstChild) list.removeChild(list.firstChild);
    list.setAttribute("data-value", JSON.stringify(options.map(function (o) { return [o.gpu.slug, o.count, (o.plan ? o.plan.request.engine : o.json.engine)]; })));
    if (!options.length) {
      var none = document.createElement("li");
      none.textContent = fill(text.cheapest_none, { machines: shared.throughput.max_machines });
      list.appendChild(none);
      return;
    }
    options.forEach(function (option) {
      var out = P.optionJson(option, question), gpu = option.gpu, largest = gpu.shapes[gpu.shapes.length - 1];
      var setup = out.machines > 1 ? fill(text.cheapest_machines, { machines: out.machines, count: largest, gpu: gpu.name })
        : option.count + " × " + gpu.name;
      var engine = out.engine === shared.llama_cpp.key ? "llama.cpp" : shared.engines[out.engine].name + " " + shared.engines[out.engine].version;
      var served = out.quant ? "GGUF " + out.quant : out.checkpoint;
      var price = out.price_per_hour === null ? text.on_request : priceShown(out.price_per_hour, gpu, text, format);
      var item = document.createElement("li"), link = document.createElement("a");
      item.textContent = fill(out.output_tokens_per_second_per_user === null ? text.cheapest_option_untimed : text.cheapest_option,
        { setup: setup, engine: engine, served: served, price: price,
          rate: out.output_tokens_per_second_per_user === null ? "" : format.rate(out.output_tokens_per_second_per_user) }) + " (";
      var params = new URLSearchParams(window.location.search);
      params.set("gpu", gpu.slug); params.set("count", String(option.count)); params.set("engine", out.engine);
      if (out.precision) params.set("precision", out.precision);
      if (out.quant) params.set("quant", out.quant);
      link.href = "?" + params.toString() + "#calculator";
      link.textContent = text.ask_it;
      item.appendChild(link);
      item.appendChild(document.createTextNode(")"));
      list.appendChild(item);
    });
  }

  function modelPage(root) {
    var form = root.querySelector("[data-vram-form]"), note = root.querySelector('[data-out="note"]');
    var text = JSON.parse(root.querySelector("script[data-vram-text]").textContent);
    var format = formats(root.dataset.locale, root.dataset.currency);
    var names = COMMON.concat(["input-tokens", "output-tokens", "precision", "mtp", "quant", "cache-type", "n-gpu-layers", "n-cpu-moe"]);
    var base = root.dataset.data;
    Promise.all([getJson(base + "/shared.json"), getJson(base + "/models/" + root.dataset.model + ".json")]).then(function (data) {
      var shared = data[0], model = data[1];
      namesOfThePage(form, shared);
      var ignored = readAddress(form, names);
      var addressNote = ignored.length ? [fill(text.ignored, { names: ignored.join(", ") })] : [];
      var chartTask = null;
      function update() {
        var engine = form.elements.engine.value;
        root.querySelectorAll("[data-engines]").forEach(function (element) {
          setHidden(element, element.dataset.engines.split(" ").indexOf(engine) < 0);
        });
        clearTimeout(chartTask);  // a chart (and a search) of the previous question is not drawn any more
        var asked = question(form, shared, text), why = root.querySelector('[data-out="why"]');
        if (asked.problem) {
          showNote(note, addressNote.concat([asked.problem]));
          setHidden(root.querySelector("[data-cheapest]"), true);
          return;
        }
        showNote(note, addressNote);
        if (engine === shared.llama_cpp.key && model.context_window && asked.request.context > model.context_window) {
          // as `plan --engine llama.cpp` refuses it: the window, and no figures
          showNote(note, addressNote.concat([fill(text.does_not_start, { reason: fill(text.context_beyond_window,
            { window: format.number(model.context_window) }) })]));
          return;
        }
        if (engine === shared.llama_cpp.key) {
          var llama = P.llamaCppPlan(model, shared, asked.gpu, asked.count, asked.request, asked.workload);
          showLlamaCpp(root, llama, asked.gpu, text, format, why);
          showThroughput(root, llama, llama.starts, text, format);
          chartTask = setTimeout(function () {
            showCheapest(root, form, shared, model, asked, !llama.starts, text, format);
          }, 0);
          writeAddress(form, names);
          return;
        }
        // the figures are for the flags asked; a remedy (flags that make it start) is said beside them
        var result = P.answer(model, shared, asked.gpu, asked.count, asked.request), plan = result.asked;
        var out = P.answerJson(result, asked.workload), ran = out.starts ? out : null;
        // three verdicts: it starts for the users asked, for fewer of them, or not at all
        setOut(root, "starts", !out.starts ? text.no : out.users_fit ? text.yes : fill(text.starts_for_fewer_users,
          { users: format.number(out.max_users), asked: format.number(out.users) }), out.verdict);
        setOut(root, "checkpoint", out.checkpoint === null ? "–" : out.checkpoint, out.checkpoint);
        setOut(root, "weights_bytes_per_gpu", fill(text.gb, { value: format.gb(out.weights_bytes_per_gpu) }), out.weights_bytes_per_gpu);
        setOut(root, "available_kv_bytes_per_gpu", fill(text.gb, { value: format.gb(out.available_kv_bytes_per_gpu) }), out.available_kv_bytes_per_gpu);
        setOut(root, "kv_tokens", format.number(out.kv_tokens), out.kv_tokens);
        setOut(root, "max_concurrency", format.concurrency(out.max_concurrency), out.max_concurrency);
        setOut(root, "max_context", format.number(out.max_context), out.max_context);
        setOut(root, "max_users", format.number(out.max_users), out.max_users);
        // a plan that does not start has no speed or price to show
        setOut(root, "decode_tokens_per_second", !ran ? "–" : out.decode_tokens_per_second === null ? text.not_published
          : fill(text.tokens_per_second, { value: format.rate(out.decode_tokens_per_second) }), ran && out.decode_tokens_per_second);
        setOut(root, "price_per_hour", !ran ? "–" : out.price_per_hour === null ? ("multi_node" in asked.gpu ? text.on_request : text.no_price)
          : priceShown(out.price_per_hour, asked.gpu, text, format), ran && out.price_per_hour);
        // the command printed is one that starts: the remedy's, when the flags asked do not
        // (no checkpoint at the bits asked: no command, never one that loads other weights)
        setOut(root, "command", out.remedy ? out.remedy.command : out.starts ? out.command : out.command === null ? "–"
          : text.does_not_start_command + "\n" + out.command, out.remedy ? true : out.starts);
        var lines = [];
        var reason = out.reason && fill(text[out.reason], { window: format.number(model.context_window) });
        if (out.remedy) lines.push(fill(text.changed, { reason: reason, changes: out.remedy.changes.join(", ") }));
        else if (out.reason === "gpu_not_planned") lines.push(text.not_planned);  // it may run there: not modelled
        else if (out.reason === "unified_memory") lines.push(text.unified_memory);  // choose llama.cpp there
        else if (!out.starts) lines.push(fill(text.does_not_start, { reason: reason }));
        else if (!out.users_fit) lines.push(fill(format.plural(text.too_few_users, out.max_users), { users: format.number(out.max_users) }));
        why.textContent = lines.join(" ");
        setHidden(why, lines.length === 0);
        // the throughput of the flags asked where they start, else of the remedy's
        var timed = out.starts ? out : out.remedy;
        showThroughput(root, timed || out, !!timed && timed.starts, text, format);
        // the chart plans 33 contexts, the search of the cheapest many more: in a task of their own,
        // after the figures are on screen
        chartTask = setTimeout(function () {
          drawChart(root.querySelector('[data-out="chart"]'), plan, shared, asked.request.users, text, format);
          showCheapest(root, form, shared, model, asked, !(timed && timed.starts && timed.users_fit), text, format);
        }, 0);
        writeAddress(form, names);
      }
      root.hidden = false;
      answerEveryChange(form, update);
    }).catch(function () { root.hidden = true; });
  }

  // ---- the fit page --------------------------------------------------------------------------
  // Each model's verdict (fit.py): on the GPUs, part in RAM at a speed (llama.cpp), or not, and why.
  function fitPage(root) {
    var form = root.querySelector("[data-vram-form]"), note = root.querySelector('[data-out="note"]');
    var text = JSON.parse(root.querySelector("script[data-vram-text]").textContent);
    var format = formats(root.dataset.locale, root.dataset.currency);
    var names = COMMON.concat(["quant", "cache-type", "family", "size", "show"]), base = root.dataset.data;
    var body = root.querySelector("tbody"), ggufTables = {}, loading = {};
    // llama.cpp's tables of one GGUF quant for every model, fetched the first time it is asked
    function gguf(quant) {
      if (!(quant in loading)) loading[quant] = getJson(base + "/llama-cpp/" + quant + ".json").then(function (t) { ggufTables[quant] = t; });
      return loading[quant];
    }
    Promise.all([getJson(base + "/shared.json"), getJson(base + "/models.json")]).then(function (data) {
      var shared = data[0], models = {};
      namesOfThePage(form, shared);
      data[1].forEach(function (model) { models[model.slug] = model; });
      var ignored = readAddress(form, names);
      var addressNote = ignored.length ? [fill(text.ignored, { names: ignored.join(", ") })] : [];
      function cell(row, field, value) { row.querySelector('[data-out="' + field + '"]').textContent = value; }
      function filter() {
        var family = form.elements.family.value, size = form.elements.size.value.split("-"), show = form.elements.show.value;
        Array.prototype.forEach.call(body.rows, function (row) {
          var params = Number(row.dataset.params) / 1e9, verdict = row.dataset.verdict;
          var visible = (!family || row.dataset.family === family) &&
            (!size[0] || params >= Number(size[0])) && (!size[1] || params < Number(size[1])) &&
            (!show || (show === "on_gpus" ? verdict === "on_gpus" : verdict !== "does_not_run"));
          setHidden(row, !visible);
        });
      }
      function verdictText(verdict, reason, plan, model) {  // _macros.md.j2 fit_verdict
        if (verdict === "on_gpus") return text.on_gpus;
        if (verdict === "part_in_ram") {
          var ram = format.gb(plan.weights_bytes_in_ram + plan.kv_bytes_in_ram);
          return plan.decode_tokens_per_second === null ? fill(text.part_in_ram_untimed, { ram: ram })
            : fill(text.part_in_ram, { ram: ram, rate: format.rate(plan.decode_tokens_per_second) });
        }
        if (reason === "context_beyond_window") return fill(text.beyond_window, { window: format.number(model.context_window) });
        if (reason === "engine_does_not_run" || reason === "no_checkpoint") return text[reason];
        if (reason === "unified_memory" || reason === "gpu_not_planned" || reason === "gpu_without_kernels") return text.not_planned;
        return text.no;
      }
      // the model page's question: the fit page's, with the format or GGUF file the row names
      function link(row, extra) {
        var query = new URLSearchParams();
        COMMON.concat(["quant", "cache-type"]).forEach(function (name) {
          var field = form.elements[name];
          if (name !== "offer" && field && !field.closest("[hidden]") && field.value !== "") query.set(name, field.value);
        });
        Object.keys(extra).forEach(function (name) { query.set(name, extra[name]); });
        var anchor = row.querySelector("a[data-link]");
        anchor.setAttribute("href", anchor.getAttribute("href").split("?")[0] + "?" + query.toString());
      }
      function update() {
        var engine = form.elements.engine.value, llama = engine === shared.llama_cpp.key;
        root.querySelectorAll("[data-engines]").forEach(function (element) {
          setHidden(element, element.dataset.engines.split(" ").indexOf(engine) < 0);
        });
        var asked = question(form, shared, text);
        if (asked.problem) { showNote(note, addressNote.concat([asked.problem])); return; }
        showNote(note, addressNote);
        if (llama && !ggufTables[asked.request.quant]) {  // answered once its tables are here
          gguf(asked.request.quant).then(update, function () { showNote(note, addressNote.concat([text.no_data])); });
          return;
        }
        Array.prototype.forEach.call(body.rows, function (row) {
          var model = models[row.dataset.model], verdict, reason, decode = null;
          if (!model) return;
          if (llama) {
            var tables = ggufTables[asked.request.quant][model.slug] || null;
            var found = P.llamaCppFitRow(Object.assign({}, model, { llama_cpp: tables }), shared, asked.gpu, asked.count, asked.request);
            var runs = found.verdict !== "does_not_run";
            verdict = found.verdict; reason = found.reason;
            decode = runs ? found.plan.decode_tokens_per_second : null;
            cell(row, "fits", verdictText(verdict, reason, found.plan, model));
            cell(row, "precision", runs ? fill(text.gguf, { quant: asked.request.quant }) : "–");
            cell(row, "max_context", "–");
            row.dataset.maxContext = "0";
            link(row, {});
          } else {
            var result = P.fitRow(model, shared, asked.gpu, asked.count, asked.request), plan = result.plan;
            verdict = result.fits ? "on_gpus" : "does_not_run"; reason = result.fits ? null : plan.reason;
            decode = result.fits ? plan.decodeTokensPerSecond : null;
            cell(row, "fits", verdictText(verdict, reason, plan, model));
            cell(row, "precision", result.fits ? text.formats[plan.request.precision] + " (" + plan.repo + ")" : "–");
            cell(row, "max_context", plan.maxContext ? format.number(plan.maxContext) : "–");
            row.dataset.maxContext = String(plan.maxContext);
            link(row, { precision: plan.request.precision });
          }
          row.dataset.fits = String(verdict === "on_gpus");
          row.dataset.verdict = verdict;
          row.dataset.rank = String(text.verdicts.indexOf(verdict));  // fit.py VERDICTS: best first
          row.dataset.decode = String(decode || 0);
          cell(row, "decode", decode !== null && decode !== undefined ? format.rate(decode) : "–");
        });
        filter();
        writeAddress(form, names);
        root.dataset.answered = engine;  // every row answers the engine asked (tests wait for it)
      }
      makeSortable(root, body);
      form.hidden = false;
      answerEveryChange(form, update);
    }).catch(function () { form.hidden = true; });
  }

  function start() {
    if (!P) return;
    document.querySelectorAll("[data-vram-calc]").forEach(modelPage);
    document.querySelectorAll("[data-vram-fit]").forEach(fitPage);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
