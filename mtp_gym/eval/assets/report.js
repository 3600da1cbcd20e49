"use strict";
// The episode browser. The index (typed columns: task, agent, outcome, configuration, sample,
// score, turns, block, offset) is inlined in the page; each episode's conversation lies in a
// block file beside it, loaded by a script element (fetch cannot read file://) that calls
// mtpBlock. A few blocks stay cached; a search reads the blocks one at a time.
const PAGE = 100, CACHE = 4;
const state = {ix: null, rows: new Int32Array(0), page: 0, selected: -1, showing: 0, match: null, matchText: "",
  search: null, byBlock: null};
const cache = new Map(), waiting = new Map();
const $ = (id) => document.getElementById(id);
// A block's entry of one episode (mtp_gym.eval.html._entry).
const F = {formatErrors: 0, promptTokens: 1, completionTokens: 2, cost: 3, error: 4, messages: 5, hidden: 6};

function bytesOf(b64) {
  const s = atob(b64.trim()), u = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) u[i] = s.charCodeAt(i);
  return u;
}

function inflate(b64) {
  return new Response(new Blob([bytesOf(b64)]).stream().pipeThrough(new DecompressionStream("gzip")));
}

async function loadIndex() {
  const buf = await (await inflate($("episode-index").textContent)).arrayBuffer();
  const n = new DataView(buf).getUint32(0, true);
  const ix = JSON.parse(new TextDecoder().decode(new Uint8Array(buf, 4, n)));
  const base = 4 + n;
  ix.cols = {};
  for (const [name, dtype, at, len] of ix.columns)
    ix.cols[name] = dtype === "<i4" ? new Int32Array(buf, base + at, len) : new Float64Array(buf, base + at, len);
  ix.outcomeCode = new Map(ix.outcomes.map((o, k) => [o, k]));
  return ix;
}

// Called by a block file: its episodes, gzip-compressed JSON in base64.
window.mtpBlock = (token, n, b64) => {
  const w = waiting.get(n);
  if (!state.ix || token !== state.ix.token || !w) return;
  waiting.delete(n);
  inflate(b64).json().then(w.resolve, w.reject);
};

function block(n) {
  let p = cache.get(n);
  if (p) { cache.delete(n); cache.set(n, p); return p; }
  const name = state.ix.blocks[n];
  p = new Promise((resolve, reject) => {
    if (name === undefined) { reject(new Error(`no block ${n}`)); return; }
    waiting.set(n, {resolve, reject});
    const s = document.createElement("script");
    s.src = encodeURIComponent(state.ix.dir) + "/" + encodeURIComponent(name);
    s.onload = () => { s.remove(); if (waiting.get(n)) { waiting.delete(n); reject(new Error(`${name}: not a block of this page`)); } };
    s.onerror = () => { s.remove(); waiting.delete(n); reject(new Error(`cannot load ${state.ix.dir}/${name}`)); };
    document.head.appendChild(s);
  });
  cache.set(n, p);
  p.catch(() => cache.delete(n));
  while (cache.size > CACHE) cache.delete(cache.keys().next().value);
  return p;
}

function option(select, value, label) {
  const o = document.createElement("option");
  o.value = value; o.textContent = label; select.appendChild(o);
}

function fmt(x) {
  if (x === null || x === undefined || (typeof x === "number" && Number.isNaN(x))) return "-";
  return typeof x === "number" ? (Number.isInteger(x) ? String(x) : x.toFixed(3)) : String(x);
}

// The CSS class of an outcome: only a plain word (a log's outcome is data, not a class list).
function outcomeClass(o) { return typeof o === "string" && /^[a-z_]+$/.test(o) ? "outcome-" + o : ""; }

function applyFilters() {
  const ix = state.ix, c = ix.cols, n = ix.count, m = state.match;
  const t = $("f-task").value, a = $("f-agent").value, o = $("f-outcome").value, cf = $("f-config").value;
  const T = t === "" ? -1 : +t, A = a === "" ? -1 : +a, O = o === "" ? -1 : ix.outcomeCode.get(o), C = cf === "" ? null : +cf;
  const out = new Int32Array(n);
  let k = 0;
  for (let i = 0; i < n; i++) {
    if ((T < 0 || c.task[i] === T) && (A < 0 || c.agent[i] === A) && (O < 0 || c.outcome[i] === O)
        && (C === null || c.config[i] === C) && (m === null || m[i])) out[k++] = i;
  }
  state.rows = out.subarray(0, k);
  state.page = 0;
  $("f-count").textContent = `${k} of ${n} episodes` + (m === null ? "" : ` containing “${state.matchText}”`);
  renderList();
}

function label(i) {
  const ix = state.ix, c = ix.cols;
  return {task: ix.tasks[c.task[i]], agent: ix.agents[c.agent[i]], config: c.config[i], sample: c.sample[i],
    outcome: ix.outcomes[c.outcome[i]], score: c.score[i], turns: c.turns[i]};
}

function renderList() {
  const body = $("list").tBodies[0], pages = Math.max(1, Math.ceil(state.rows.length / PAGE));
  body.replaceChildren();
  for (const i of state.rows.subarray(state.page * PAGE, (state.page + 1) * PAGE)) {
    const e = label(i), tr = document.createElement("tr");
    tr.dataset.index = i;
    if (i === state.selected) tr.className = "selected";
    const cells = [e.task, e.agent, e.config + (e.sample ? ` #${e.sample}` : ""), e.outcome, fmt(e.score), fmt(e.turns)];
    cells.forEach((v, k) => { const td = document.createElement("td"); td.textContent = v;
      if (k === 3) td.className = outcomeClass(v); tr.appendChild(td); });
    tr.addEventListener("click", () => show(i));
    body.appendChild(tr);
  }
  $("page").textContent = `page ${state.page + 1} of ${pages}`;
  $("prev").disabled = state.page === 0;
  $("next").disabled = state.page + 1 >= pages;
}

async function show(i) {
  const c = state.ix.cols, pane = $("episode"), ticket = ++state.showing;
  state.selected = i;
  for (const tr of $("list").tBodies[0].rows) tr.classList.toggle("selected", +tr.dataset.index === i);
  let e;
  try {
    e = (await block(c.block[i]))[c.offset[i]];
  } catch (err) {
    if (ticket !== state.showing) return;
    const p = document.createElement("p"); p.className = "muted"; p.textContent = String(err.message || err);
    pane.replaceChildren(p);
    return;
  }
  if (ticket !== state.showing) return;  // another episode was picked meanwhile
  render(i, e);
}

function render(i, e) {
  const pane = $("episode"), l = label(i);
  pane.replaceChildren();
  pane.dataset.index = i;
  const h = document.createElement("h3");
  h.textContent = `${l.task} · ${l.agent} · configuration ${l.config}` + (l.sample ? ` (sample ${l.sample})` : "");
  pane.appendChild(h);
  // Every value from the log goes in as text (append / textContent), never as markup.
  const meta = document.createElement("div");
  meta.className = "meta";
  const cost = typeof e[F.cost] === "number" ? ` · cost $${e[F.cost].toPrecision(3)}` : "";
  const outcome = document.createElement("span");
  outcome.className = outcomeClass(l.outcome);
  outcome.textContent = l.outcome;
  meta.append("outcome ", outcome, ` · score ${fmt(l.score)} · ${fmt(l.turns)} turns · ` +
    `${fmt(e[F.formatErrors])} format errors · tokens ${fmt(e[F.promptTokens])} in / ${fmt(e[F.completionTokens])} out${cost}`);
  pane.appendChild(meta);
  if (e[F.error]) { const p = document.createElement("p"); p.className = "muted"; p.textContent = "error: " + e[F.error]; pane.appendChild(p); }
  for (const [role, text, kind, reasoning] of e[F.messages]) {
    const div = document.createElement("div");
    div.className = "msg " + (role ? "agent" : "env") + (kind ? " " + kind : "");
    const who = document.createElement("span");
    who.className = "who";
    who.textContent = role ? "agent" : (kind === "reprompt" ? "env · re-prompt" : kind === "correction" ? "env · correction" : "env");
    div.appendChild(who);
    div.appendChild(document.createTextNode(text));
    if (reasoning) { const det = document.createElement("details"); det.className = "reasoning";
      const s = document.createElement("summary"); s.textContent = "reasoning"; det.appendChild(s);
      det.appendChild(document.createTextNode(reasoning)); div.appendChild(det); }
    pane.appendChild(div);
  }
  const hid = document.createElement("h4"); hid.textContent = "Hidden state (revealed at the end)"; pane.appendChild(hid);
  const pre = document.createElement("pre"); pre.className = "hidden"; pre.textContent = pretty(e[F.hidden]);
  pane.appendChild(pre);
}

// The index's rows of each block (offsets into one array), built for the first search.
function rowsByBlock() {
  if (state.byBlock) return state.byBlock;
  const b = state.ix.cols.block, n = state.ix.count, nb = state.ix.blocks.length;
  const start = new Int32Array(nb + 1), rows = new Int32Array(n);
  for (let i = 0; i < n; i++) start[b[i] + 1]++;
  for (let k = 0; k < nb; k++) start[k + 1] += start[k];
  const at = start.slice(0, nb);
  for (let i = 0; i < n; i++) rows[at[b[i]]++] = i;
  return (state.byBlock = {start, rows});
}

function contains(e, q) {
  if (e[F.error] && String(e[F.error]).toLowerCase().includes(q)) return true;
  for (const [, text, , reasoning] of e[F.messages])
    if (String(text).toLowerCase().includes(q) || (reasoning && String(reasoning).toLowerCase().includes(q))) return true;
  return false;
}

async function search() {
  if (state.search) state.search.cancelled = true;
  const raw = $("f-text").value.trim(), q = raw.toLowerCase(), status = $("search-status");
  if (!q) { state.match = null; status.textContent = ""; applyFilters(); return; }
  const job = {cancelled: false}, c = state.ix.cols, nb = state.ix.blocks.length, {start, rows} = rowsByBlock();
  state.search = job;
  $("search-stop").disabled = false;
  const match = new Uint8Array(state.ix.count);
  let found = 0, failed = 0;
  for (let b = 0; b < nb && !job.cancelled; b++) {
    status.textContent = `searching block ${b + 1} of ${nb}: ${found} found`;
    let data;
    try { data = await block(b); } catch (err) { failed++; continue; }
    for (let k = start[b]; k < start[b + 1]; k++) {
      const i = rows[k], e = data[c.offset[i]];
      if (e && contains(e, q)) { match[i] = 1; found++; }
    }
    data = null;
    await new Promise((r) => setTimeout(r, 0));  // let the page answer between blocks
  }
  if (state.search !== job) return;
  state.search = null;
  $("search-stop").disabled = true;
  if (job.cancelled) { status.textContent = "search stopped"; return; }
  state.match = match; state.matchText = raw;
  status.textContent = `${found} episode(s) contain “${raw}”` + (failed ? ` (${failed} block(s) could not be read)` : "");
  document.body.dataset.searched = raw;
  applyFilters();
}

async function main() {
  const t0 = performance.now();
  try {
    state.ix = await loadIndex();
  } catch (err) {
    $("f-count").textContent = "the episode index could not be read: " + String(err.message || err);
    document.body.dataset.failed = "1";
    return;
  }
  const ix = state.ix;
  ix.tasks.forEach((t, i) => option($("f-task"), i, t));
  ix.agents.forEach((a, i) => option($("f-agent"), i, a));
  [...ix.outcomes].sort().forEach((o) => option($("f-outcome"), o, o));
  for (const id of ["f-task", "f-agent", "f-outcome", "f-config"]) $(id).addEventListener("input", applyFilters);
  $("prev").addEventListener("click", () => { state.page--; renderList(); });
  $("next").addEventListener("click", () => { state.page++; renderList(); });
  $("search").addEventListener("submit", search);
  $("search-stop").addEventListener("click", () => { if (state.search) state.search.cancelled = true; });
  applyFilters();
  document.body.dataset.indexMs = Math.round(performance.now() - t0);
  if (state.rows.length) {  // the first episodes' block, so the first click opens at once
    try { await block(ix.cols.block[state.rows[0]]); } catch (err) { /* shown when an episode is opened */ }
  }
  document.body.dataset.loadMs = Math.round(performance.now() - t0);
  document.body.dataset.ready = "1";
}
main();
