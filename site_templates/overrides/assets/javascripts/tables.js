// The tables of the indexes and the question kept in the address: sorting by a column, filtering,
// and folding long sections on phones. No dependencies; calculator.js uses the same helpers
// (window.VramTables). Without it, the pages' tables are complete and in their served order.
(function () {
  "use strict";

  function fill(template, values) {
    return template.replace(/\{(\w+)\}/g, function (match, key) { return key in values ? values[key] : match; });
  }

  // ---- the address ---------------------------------------------------------------------------
  // A value from the address is kept only when the form accepts it: an option of a select, a
  // number within the input's bounds (whole where its step is 1), a checkbox's "1".
  function acceptable(field, value) {
    if (field.tagName === "SELECT") {
      return Array.prototype.some.call(field.options, function (option) { return option.value === value; });
    }
    if (field.type === "checkbox") return value === "1";
    if (!/^\d+(\.\d+)?$/.test(value) || value.length > 12) return false;
    var number = Number(value);
    if (field.step === "1" && !Number.isInteger(number)) return false;
    return number >= Number(field.min) && number <= Number(field.max);
  }

  function readAddress(form, names) {
    var params = new URLSearchParams(window.location.search), ignored = [];
    names.forEach(function (name) {
      if (!params.has(name)) return;
      var field = form.elements[name], value = params.get(name);
      if (field && acceptable(field, value)) {
        if (field.type === "checkbox") field.checked = true; else field.value = value;
      } else {
        ignored.push(name);
      }
    });
    return ignored;
  }

  function writeAddress(form, names) {
    var params = new URLSearchParams();
    names.forEach(function (name) {
      var field = form.elements[name];
      if (!field || field.closest("[hidden]")) return;
      if (field.type === "checkbox") { if (field.checked) params.set(name, "1"); return; }
      if (field.value !== "") params.set(name, field.value);
    });
    var query = "?" + params.toString(), first = !form.hasAttribute("data-address-kept");
    form.setAttribute("data-address-kept", "");
    // a new address only when the question changed (a browser fetches the page's icon again for each),
    // and none for the page's own first question on an address without one
    if (query !== window.location.search && !(first && !window.location.search)) {
      window.history.replaceState(null, "", query + window.location.hash);
    }
    // The language switch keeps the question.
    document.querySelectorAll("a.md-select__link[hreflang]").forEach(function (link) {
      link.href = link.href.split(/[?#]/)[0] + query;
    });
  }

  // The question is answered now and again on every change of the form (which never submits).
  function answerEveryChange(form, update) {
    form.addEventListener("input", update);
    form.addEventListener("change", update);
    form.addEventListener("submit", function (event) { event.preventDefault(); });
    update();
  }

  function showNote(note, lines) {
    note.textContent = lines.join(" ");
    setHidden(note, lines.length === 0);
  }

  // Elements and figures change only when their value does: writing the same value again would still
  // make the browser lay out the page anew (a table of hundreds of rows on the models index).
  function setHidden(element, hidden) {
    if (element.hidden !== hidden) element.hidden = hidden;
  }

  // Header buttons sort the rows by their data-<key> value (as text, or as numbers); a first click
  // sorts ascending (the models index is served newest first, so it reverses that order).
  function makeSortable(root, body) {
    var sortKey = null, ascending = true;
    root.querySelectorAll("button[data-sort]").forEach(function (button) {
      button.addEventListener("click", function () {
        var key = button.dataset.sort, numeric = button.dataset.sortType === "number";
        ascending = sortKey === key ? !ascending : true;
        sortKey = key;
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var va = a.dataset[key], vb = b.dataset[key];
          if (va === "" || vb === "") return (va === "") - (vb === "");  // no value (no price, no date): last
          if (numeric) { va = Number(va); vb = Number(vb); } else { va = va.toLowerCase(); vb = vb.toLowerCase(); }
          return (va < vb ? -1 : va > vb ? 1 : 0) * (ascending ? 1 : -1);
        });
        rows.forEach(function (row) { body.appendChild(row); });
        root.querySelectorAll("th[aria-sort]").forEach(function (th) { th.setAttribute("aria-sort", "none"); });
        button.closest("th").setAttribute("aria-sort", ascending ? "ascending" : "descending");
      });
    });
  }

  // ---- the indexes: sort by any column, filter by the form, keep the question in the address ---
  // keep(form) gives the test a row passes to stay visible for the form's current values.
  function filteredIndex(root, names, keep) {
    var form = root.querySelector("[data-vram-form]"), body = root.querySelector("tbody");
    var text = JSON.parse(root.querySelector("script[data-vram-text]").textContent);
    names = names.filter(function (name) { return form.elements[name]; });
    var ignored = readAddress(form, names);
    var note = document.createElement("p");
    note.className = "vram-calc__note";
    note.setAttribute("role", "status");
    form.after(note);
    showNote(note, ignored.length ? [fill(text.ignored, { names: ignored.join(", ") })] : []);
    makeSortable(root, body);
    form.hidden = false;
    answerEveryChange(form, function () {
      var kept = keep(form);
      Array.prototype.forEach.call(body.rows, function (row) { setHidden(row, !kept(row)); });
      writeAddress(form, names);
    });
  }

  function gigabytes(field) { return field.value && field.checkValidity() ? Number(field.value) * 1e9 : null; }

  // the models index: by family, by what fits in N GB at some bits, by what runs in the operator's stock
  function modelsIndex(root) {
    filteredIndex(root, ["family", "fits-in-gb", "bits", "in-stock"], function (form) {
      var family = form.elements.family.value, limit = gigabytes(form.elements["fits-in-gb"]);
      var key = "bytes" + form.elements.bits.value, stock = form.elements["in-stock"];
      return function (row) {  // in stock: a precision a setup in stock holds (data-in-stock)
        return !(family && row.dataset.family !== family) && !(limit !== null && Number(row.dataset[key]) > limit) &&
          !(stock && stock.checked && !row.dataset.inStock);
      };
    });
  }

  // the GPUs index: by vendor, by memory of at least N GB, by whether it has a price
  function gpusIndex(root) {
    filteredIndex(root, ["vendor", "memory-gb", "priced"], function (form) {
      var vendor = form.elements.vendor.value, least = gigabytes(form.elements["memory-gb"]), priced = form.elements.priced.checked;
      return function (row) {
        return (!vendor || row.dataset.vendor === vendor) && (least === null || Number(row.dataset.memory) >= least) &&
          (!priced || row.dataset.price !== "");
      };
    });
  }

  function start() {
    // the detailed sections of model pages stay open on wide screens and fold on phones
    if (window.matchMedia("(max-width: 44.9375em)").matches) {
      document.querySelectorAll("details.vram-fold[open]").forEach(function (section) { section.open = false; });
    }
    document.querySelectorAll("[data-vram-index=models]").forEach(modelsIndex);
    document.querySelectorAll("[data-vram-index=gpus]").forEach(gpusIndex);
  }
  window.VramTables = { fill: fill, readAddress: readAddress, writeAddress: writeAddress, answerEveryChange: answerEveryChange,
                        showNote: showNote, setHidden: setHidden, makeSortable: makeSortable };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
