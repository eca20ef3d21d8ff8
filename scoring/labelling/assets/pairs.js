// pptjudge A/B preference page: one pair at a time, every change saved as it is made.
// Knows pairs only by opaque ids and candidates only as "left" and "right".
"use strict";

const $ = (id) => document.getElementById(id);
const SAVE_DELAY_MS = 300;
const state = { order: [], index: -1, current: null, dirty: false, unconfirmed: null, timer: null, pending: Promise.resolve() };

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

function setProgress(p) {
  $("progress").max = Math.max(p.total, 1);
  $("progress").value = p.done;
  $("progress-text").textContent = `${p.done}/${p.total} done`;
}

function choice() {
  const checked = document.querySelector('input[name="choice"]:checked');
  return checked ? checked.value : null;
}

function answer() {
  return { choice: choice(), reason: $("reason").value };
}

function saveNow() {
  clearTimeout(state.timer);
  if (!state.dirty || state.current === null) return state.pending;
  const oid = state.current;
  const body = answer();
  state.dirty = false;
  state.unconfirmed = body; // until the server says saved (a closing tab may abort the request)
  $("saved").textContent = "saving...";
  state.pending = state.pending
    .then(() => api("PUT", `/api/pairs/${oid}/label`, body))
    .then((r) => {
      if (state.unconfirmed === body) state.unconfirmed = null;
      setProgress(r);
      $("saved").textContent = "saved";
    })
    .catch((err) => {
      state.dirty = true;
      $("saved").textContent = "NOT saved";
      $("message").textContent = `Could not save: ${err.message}`;
    });
  return state.pending;
}

function changed(delay) {
  state.dirty = true;
  $("saved").textContent = "unsaved";
  clearTimeout(state.timer);
  if (delay) state.timer = setTimeout(saveNow, SAVE_DELAY_MS);
  else saveNow();
}

async function show(oid) {
  await saveNow();
  const p = await api("GET", `/api/pairs/${oid}`);
  state.current = oid;
  state.index = state.order.indexOf(oid);
  $("done-panel").hidden = true;
  $("main").hidden = false;
  $("position").textContent = `pair ${p.position} of ${p.total}`;
  // separate images (A's side shuffled by the server) or one composite with A and B drawn in
  const composite = p.images.composite !== null;
  $("composite-figure").hidden = !composite;
  $("full").hidden = composite;
  $("ref-figure").hidden = p.images.reference === null;
  if (composite) $("composite").src = p.images.composite;
  if (p.images.reference !== null) $("reference").src = p.images.reference;
  if (p.images.left !== null) $("left").src = p.images.left;
  if (p.images.right !== null) $("right").src = p.images.right;
  $("side-left").textContent = p.sides[0];
  $("side-right").textContent = p.sides[1];
  for (const img of ["composite", "reference", "left", "right"]) $(img).classList.remove("natural");
  document.querySelectorAll('input[name="choice"]').forEach((r) => {
    r.checked = p.label !== null && r.value === p.label.choice;
  });
  $("reason").value = (p.label && p.label.reason) || "";
  $("saved").textContent = p.label ? "saved" : "";
  $("message").textContent = "";
}

async function next() {
  if (state.current === null) return;
  if (choice() === null) {
    $("message").textContent = "Choose 1, 2 or tie (T) first.";
    return;
  }
  state.dirty = true;
  await saveNow();
  if (state.dirty) return;
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
  if (!$("done-panel").hidden) await show(state.order[state.order.length - 1]);
  else if (state.index > 0) await show(state.order[state.index - 1]);
}

function pick(value) {
  $(`choice-${value}`).checked = true;
  changed(false);
}

function onKey(e) {
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const t = e.target;
  if (t.tagName === "INPUT" && t.type === "text") {
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
    1: () => pick("left"),
    ArrowLeft: () => pick("left"),
    2: () => pick("right"),
    ArrowRight: () => pick("right"),
    t: () => pick("tie"),
    n: next,
    Enter: next,
    b: prev,
  };
  const action = actions[e.key.length === 1 ? e.key.toLowerCase() : e.key];
  if (action && ($("done-panel").hidden || e.key === "b")) {
    e.preventDefault();
    action();
  }
}

async function start() {
  const s = await api("GET", "/api/state");
  $("annotator").textContent = `annotator: ${s.annotator}`;
  $("question").textContent = s.question;
  state.order = s.order;
  setProgress(s);
  document.querySelectorAll('input[name="choice"]').forEach((r) =>
    r.addEventListener("change", () => changed(false)),
  );
  $("reason").addEventListener("input", () => changed(true));
  $("next").addEventListener("click", next);
  $("prev").addEventListener("click", prev);
  for (const img of ["composite", "reference", "left", "right"]) {
    $(img).addEventListener("click", () => {
      $(img).classList.toggle("natural");
      $(img).parentElement.classList.toggle("zoomed");
    });
  }
  document.addEventListener("keydown", onKey);
  // A closed tab, a reload or a switch away with a change not yet sent: send it anyway. A
  // text/plain body, as sendBeacon refuses other types; the server reads the JSON either way.
  const flush = () => {
    if ((state.dirty || state.unconfirmed) && state.current !== null) {
      clearTimeout(state.timer);
      const blob = new Blob([JSON.stringify(answer())], { type: "text/plain;charset=UTF-8" });
      if (navigator.sendBeacon(`/api/pairs/${state.current}/label`, blob)) {
        state.dirty = false;
        state.unconfirmed = null;
      }
    }
  };
  window.addEventListener("pagehide", flush);
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") flush();
  });
  if (s.current !== null) await show(s.current);
  else $("done-panel").hidden = false;
  document.body.dataset.ready = "1";
}

start().catch((err) => {
  $("fatal").hidden = false;
  $("fatal").textContent = `The page could not start: ${err.message}`;
});
