"use strict";
const PAGE = 100;
const state = {data: null, rows: [], page: 0, selected: -1};
const $ = (id) => document.getElementById(id);
const F = {task: 0, agent: 1, outcome: 2, config: 3, sample: 4, score: 5, turns: 6, formatErrors: 7,
  promptTokens: 8, completionTokens: 9, cost: 10, error: 11, messages: 12, hidden: 13};

async function inflate(b64) {
  const bytes = Uint8Array.from(atob(b64.trim()), (c) => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return await new Response(stream).json();
}

function option(select, value, label) {
  const o = document.createElement("option");
  o.value = value; o.textContent = label; select.appendChild(o);
}

function fmt(x) { return x === null || x === undefined ? "-" : (typeof x === "number" ? (Number.isInteger(x) ? String(x) : x.toFixed(3)) : String(x)); }

// The CSS class of an outcome: only a plain word (a log's outcome is data, not a class list).
function outcomeClass(o) { return typeof o === "string" && /^[a-z_]+$/.test(o) ? "outcome-" + o : ""; }

function applyFilters() {
  const d = state.data, t = $("f-task").value, a = $("f-agent").value, o = $("f-outcome").value, c = $("f-config").value;
  state.rows = [];
  d.episodes.forEach((e, i) => {
    if ((t === "" || e[F.task] === +t) && (a === "" || e[F.agent] === +a) && (o === "" || e[F.outcome] === o)
        && (c === "" || e[F.config] === +c)) state.rows.push(i);
  });
  state.page = 0;
  $("f-count").textContent = `${state.rows.length} of ${d.episodes.length} episodes`;
  renderList();
}

function renderList() {
  const d = state.data, body = $("list").tBodies[0], pages = Math.max(1, Math.ceil(state.rows.length / PAGE));
  body.replaceChildren();
  for (const i of state.rows.slice(state.page * PAGE, (state.page + 1) * PAGE)) {
    const e = d.episodes[i], tr = document.createElement("tr");
    tr.dataset.index = i;
    if (i === state.selected) tr.className = "selected";
    const cells = [d.tasks[e[F.task]], d.agents[e[F.agent]], e[F.config] + (e[F.sample] ? ` #${e[F.sample]}` : ""),
      e[F.outcome], fmt(e[F.score]), e[F.turns]];
    cells.forEach((v, k) => { const td = document.createElement("td"); td.textContent = v;
      if (k === 3) td.className = outcomeClass(v); tr.appendChild(td); });
    tr.addEventListener("click", () => show(i));
    body.appendChild(tr);
  }
  $("page").textContent = `page ${state.page + 1} of ${pages}`;
  $("prev").disabled = state.page === 0;
  $("next").disabled = state.page + 1 >= pages;
}

function show(i) {
  const d = state.data, e = d.episodes[i], pane = $("episode");
  state.selected = i;
  for (const tr of $("list").tBodies[0].rows) tr.classList.toggle("selected", +tr.dataset.index === i);
  pane.replaceChildren();
  const h = document.createElement("h3");
  h.textContent = `${d.tasks[e[F.task]]} · ${d.agents[e[F.agent]]} · configuration ${e[F.config]}` + (e[F.sample] ? ` (sample ${e[F.sample]})` : "");
  pane.appendChild(h);
  // Every value from the log goes in as text (append / textContent), never as markup.
  const meta = document.createElement("div");
  meta.className = "meta";
  const cost = typeof e[F.cost] === "number" ? ` · cost $${e[F.cost].toPrecision(3)}` : "";
  const outcome = document.createElement("span");
  outcome.className = outcomeClass(e[F.outcome]);
  outcome.textContent = e[F.outcome];
  meta.append("outcome ", outcome, ` · score ${fmt(e[F.score])} · ${fmt(e[F.turns])} turns · ` +
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

async function main() {
  const t0 = performance.now();
  state.data = await inflate($("episode-data").textContent);
  const d = state.data;
  d.tasks.forEach((t, i) => option($("f-task"), i, t));
  d.agents.forEach((a, i) => option($("f-agent"), i, a));
  [...new Set(d.episodes.map((e) => e[F.outcome]))].sort().forEach((o) => option($("f-outcome"), o, o));
  for (const id of ["f-task", "f-agent", "f-outcome", "f-config"]) $(id).addEventListener("input", applyFilters);
  $("prev").addEventListener("click", () => { state.page--; renderList(); });
  $("next").addEventListener("click", () => { state.page++; renderList(); });
  applyFilters();
  document.body.dataset.loadMs = Math.round(performance.now() - t0);
  document.body.dataset.ready = "1";
}
main();
