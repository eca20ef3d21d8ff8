// pptjudge labelling page: one case at a time, every change saved as it is made.
// Talks only to /api/* of the server that served it; knows cases only by opaque ids.
"use strict";

const $ = (id) => document.getElementById(id);
const ZOOM_STEP = 1.5;
const SAVE_DELAY_MS = 300;

const state = {
  order: [],
  index: -1,
  current: null,
  total: 0,
  done: 0,
  dirty: false,
  unconfirmed: null,
  timer: null,
  pending: Promise.resolve(),
  zoom: null, // null = fit to the view
  syncing: false,
};

async function api(method, url, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const resp = await fetch(url, init);
  const data = await resp.json();
  if (!resp.ok) throw new Error(data.error || `HTTP ${resp.status}`);
  return data;
}

function showMessage(text) {
  $("message").textContent = text;
}

function setProgress(p) {
  state.done = p.done;
  state.total = p.total;
  $("progress").max = Math.max(p.total, 1);
  $("progress").value = p.done;
  $("progress-text").textContent = `${p.done}/${p.total} done`;
}

// -- the form -------------------------------------------------------------------------------

function buildTaxonomy(dimensions) {
  const root = $("taxonomy");
  for (const dim of dimensions) {
    const box = document.createElement("details");
    box.open = true;
    box.className = "dimension";
    const head = document.createElement("summary");
    head.textContent = dim.name;
    box.appendChild(head);
    for (const cat of dim.categories) {
      const catBox = document.createElement("div");
      catBox.className = "category";
      const title = document.createElement("h4");
      title.textContent = cat.name;
      catBox.appendChild(title);
      if (cat.description) {
        const d = document.createElement("p");
        d.className = "desc";
        d.textContent = cat.description;
        catBox.appendChild(d);
      }
      for (const st of cat.subtypes) {
        const row = document.createElement("div");
        row.className = "subtype";
        const label = document.createElement("label");
        const check = document.createElement("input");
        check.type = "checkbox";
        check.dataset.subtype = st.name;
        check.id = `st-${st.name}`;
        const name = document.createElement("b");
        name.textContent = st.name;
        const desc = document.createElement("span");
        desc.className = "desc";
        desc.textContent = ` ${st.description}`;
        label.append(check, " ", name, desc);
        const frac = document.createElement("input");
        frac.type = "number";
        frac.min = "0";
        frac.max = "1";
        frac.step = "0.05";
        frac.placeholder = "fraction";
        frac.title = "affected fraction of this kind of element (0-1)";
        frac.dataset.fraction = st.name;
        frac.id = `fr-${st.name}`;
        frac.disabled = true;
        row.append(label, frac);
        catBox.appendChild(row);
      }
      box.appendChild(catBox);
    }
    root.appendChild(box);
  }
}

function gateValue() {
  const checked = document.querySelector('input[name="gate"]:checked');
  return checked ? checked.value : null;
}

function formLabel() {
  const gate = gateValue();
  const subtypes = {};
  if (gate !== "fail") {
    for (const check of document.querySelectorAll("input[data-subtype]")) {
      if (!check.checked) continue;
      const raw = $(`fr-${check.dataset.subtype}`).value.trim();
      const frac = raw === "" ? null : Number(raw);
      subtypes[check.dataset.subtype] =
        frac === null || Number.isNaN(frac) ? null : Math.min(1, Math.max(0, frac));
    }
  }
  return {
    gate,
    gate_stage: gate === "fail" && $("gate-stage").value ? $("gate-stage").value : null,
    gate_reason: gate === "fail" ? $("gate-reason").value : "",
    subtypes,
  };
}

function syncForm() {
  const gate = gateValue();
  $("fail-details").hidden = gate !== "fail";
  $("stage3").disabled = gate === "fail";
  for (const check of document.querySelectorAll("input[data-subtype]")) {
    $(`fr-${check.dataset.subtype}`).disabled = !check.checked;
  }
}

function fillForm(label) {
  document.querySelectorAll('input[name="gate"]').forEach((r) => {
    r.checked = label !== null && r.value === label.gate;
  });
  $("gate-stage").value = (label && label.gate_stage) || "";
  $("gate-reason").value = (label && label.gate_reason) || "";
  const subtypes = (label && label.subtypes) || {};
  for (const check of document.querySelectorAll("input[data-subtype]")) {
    const name = check.dataset.subtype;
    check.checked = Object.prototype.hasOwnProperty.call(subtypes, name);
    const frac = subtypes[name];
    $(`fr-${name}`).value = frac === null || frac === undefined ? "" : String(frac);
  }
  syncForm();
}

// -- saving ---------------------------------------------------------------------------------

function saveNow() {
  clearTimeout(state.timer);
  state.timer = null;
  if (!state.dirty || state.current === null) return state.pending;
  const oid = state.current;
  const body = formLabel();
  state.dirty = false;
  state.unconfirmed = body; // until the server says saved (a closing tab may abort the request)
  $("saved").textContent = "saving...";
  state.pending = state.pending
    .then(() => api("PUT", `/api/cases/${oid}/label`, body))
    .then((r) => {
      if (state.unconfirmed === body) state.unconfirmed = null;
      setProgress(r);
      $("saved").textContent = "saved";
    })
    .catch((err) => {
      state.dirty = true;
      $("saved").textContent = "NOT saved";
      showMessage(`Could not save: ${err.message}`);
    });
  return state.pending;
}

function changed(delay) {
  state.dirty = true;
  $("saved").textContent = "unsaved";
  syncForm();
  clearTimeout(state.timer);
  if (delay) state.timer = setTimeout(saveNow, SAVE_DELAY_MS);
  else saveNow();
}

// -- navigation -----------------------------------------------------------------------------

async function show(oid) {
  await saveNow();
  const c = await api("GET", `/api/cases/${oid}`);
  state.current = oid;
  state.index = state.order.indexOf(oid);
  $("done-panel").hidden = true;
  $("main").hidden = false;
  $("position").textContent = `case ${c.position} of ${c.total}`;
  $("pair").src = c.images.pair;
  $("render").src = c.images.render;
  $("ref").hidden = c.images.reference === null;
  $("ref-missing").hidden = c.images.reference !== null;
  if (c.images.reference !== null) $("ref").src = c.images.reference;
  fillForm(c.label);
  $("saved").textContent = c.saved_at ? "saved" : "";
  showMessage("");
  state.zoom = null;
  applyZoom();
}

async function next() {
  if (state.current === null) return;
  if (gateValue() === null) {
    showMessage("Choose pass (P) or fail (F) first.");
    return;
  }
  state.dirty = true;
  await saveNow();
  if (state.dirty) return; // the save failed: stay on the case
  if (state.index + 1 < state.order.length) {
    await show(state.order[state.index + 1]);
    return;
  }
  const s = await api("GET", "/api/state");
  setProgress(s);
  if (s.current !== null) {
    await show(s.current);
  } else {
    $("main").hidden = true;
    $("done-panel").hidden = false;
    $("position").textContent = "";
  }
}

async function prev() {
  if (!$("done-panel").hidden) {
    await show(state.order[state.order.length - 1]);
  } else if (state.index > 0) {
    await show(state.order[state.index - 1]);
  }
}

// -- zoom -----------------------------------------------------------------------------------

// state.zoom: null = fit to the view, a number = that many times the fitted width (both images
// then show the same part of the figure, whatever their resolutions), "full" = 1 image pixel
// per screen pixel.
function applyZoom() {
  for (const [view, img] of [["ref-view", "ref"], ["render-view", "render"]]) {
    const el = $(img);
    const box = $(view);
    if (state.zoom === null) {
      el.style.width = "100%";
    } else if (state.zoom === "full") {
      if (el.naturalWidth) el.style.width = `${el.naturalWidth}px`;
    } else {
      el.style.width = `${Math.round(box.clientWidth * state.zoom)}px`;
    }
    box.classList.toggle("zoomed", state.zoom !== null);
  }
  const z = state.zoom;
  $("zoom-level").textContent = z === null ? "fit" : z === "full" ? "1:1" : `×${z.toFixed(1)}`;
}

function zoomBy(factor) {
  let base = state.zoom === null ? 1 : state.zoom;
  if (base === "full") {
    base = $("render").clientWidth / Math.max($("render-view").clientWidth, 1);
  }
  const z = Math.min(12, Math.max(1, base * factor));
  state.zoom = z === 1 ? null : z;
  applyZoom();
}

function syncScroll(from, to) {
  if (state.syncing) return;
  state.syncing = true;
  const a = $(from);
  const b = $(to);
  const fx = a.scrollWidth > a.clientWidth ? a.scrollLeft / (a.scrollWidth - a.clientWidth) : 0;
  const fy = a.scrollHeight > a.clientHeight ? a.scrollTop / (a.scrollHeight - a.clientHeight) : 0;
  b.scrollLeft = fx * (b.scrollWidth - b.clientWidth);
  b.scrollTop = fy * (b.scrollHeight - b.clientHeight);
  requestAnimationFrame(() => {
    state.syncing = false;
  });
}

// -- keyboard -------------------------------------------------------------------------------

function setGate(value) {
  $(`gate-${value}`).checked = true;
  changed(false);
}

function onKey(e) {
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const t = e.target;
  const typing =
    (t.tagName === "INPUT" && !["checkbox", "radio"].includes(t.type)) ||
    t.tagName === "SELECT" ||
    t.tagName === "TEXTAREA";
  if (typing) {
    if (e.key === "Enter") {
      e.preventDefault();
      t.blur();
      next();
    } else if (e.key === "Escape") {
      t.blur();
    }
    return;
  }
  const actions = {
    p: () => setGate("pass"),
    f: () => setGate("fail"),
    n: next,
    Enter: next,
    b: prev,
    "+": () => zoomBy(ZOOM_STEP),
    "=": () => zoomBy(ZOOM_STEP),
    "-": () => zoomBy(1 / ZOOM_STEP),
    0: () => {
      state.zoom = null;
      applyZoom();
    },
    1: () => {
      state.zoom = "full";
      applyZoom();
    },
  };
  const action = actions[e.key.length === 1 ? e.key.toLowerCase() : e.key];
  if (action && ($("done-panel").hidden || e.key === "b")) {
    e.preventDefault();
    action();
  }
}

// -- start ----------------------------------------------------------------------------------

async function start() {
  const s = await api("GET", "/api/state");
  $("annotator").textContent = `annotator: ${s.annotator}`;
  state.order = s.order;
  buildTaxonomy(s.taxonomy);
  setProgress(s);

  document.querySelectorAll('input[name="gate"]').forEach((r) =>
    r.addEventListener("change", () => changed(false)),
  );
  $("gate-stage").addEventListener("change", () => changed(false));
  $("gate-reason").addEventListener("input", () => changed(true));
  $("taxonomy").addEventListener("change", () => changed(false));
  $("taxonomy").addEventListener("input", (e) => {
    if (e.target.dataset.fraction) changed(true);
  });
  $("next").addEventListener("click", next);
  $("prev").addEventListener("click", prev);
  $("zoom-in").addEventListener("click", () => zoomBy(ZOOM_STEP));
  $("zoom-out").addEventListener("click", () => zoomBy(1 / ZOOM_STEP));
  $("zoom-fit").addEventListener("click", () => {
    state.zoom = null;
    applyZoom();
  });
  $("zoom-full").addEventListener("click", () => {
    state.zoom = "full";
    applyZoom();
  });
  $("ref").addEventListener("load", applyZoom);
  $("render").addEventListener("load", applyZoom);
  $("ref-view").addEventListener("scroll", () => syncScroll("ref-view", "render-view"));
  $("render-view").addEventListener("scroll", () => syncScroll("render-view", "ref-view"));
  document.addEventListener("keydown", onKey);
  // A closed tab or a reload with a change not yet sent: send it anyway.
  // A closed tab, a reload or a switch away with a change not yet sent: send it anyway. A
  // text/plain body, as sendBeacon refuses other types; the server reads the JSON either way.
  const flush = () => {
    if ((state.dirty || state.unconfirmed) && state.current !== null) {
      clearTimeout(state.timer);
      const blob = new Blob([JSON.stringify(formLabel())], { type: "text/plain;charset=UTF-8" });
      if (navigator.sendBeacon(`/api/cases/${state.current}/label`, blob)) {
        state.dirty = false;
        state.unconfirmed = null;
      }
    }
  };
  window.addEventListener("pagehide", flush);
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") flush();
  });

  if (s.current !== null) {
    await show(s.current);
  } else {
    $("done-panel").hidden = false;
  }
  document.body.dataset.ready = "1";
}

start().catch((err) => {
  $("fatal").hidden = false;
  $("fatal").textContent = `The page could not start: ${err.message}`;
});
