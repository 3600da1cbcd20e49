"use strict";
const $ = (id) => document.getElementById(id);
let session = null, envs = [];

async function api(path, body) {
  const r = await fetch(path, body === undefined ? {} : {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
  const data = await r.json();
  if (!r.ok) throw new Error(data.error || r.statusText);
  return data;
}

function message(role, text) {
  const div = document.createElement("div");
  const reprompt = role !== "assistant" && text.startsWith("Invalid action:");
  div.className = "msg " + (role === "assistant" ? "you" : "env") + (reprompt ? " reprompt" : "");
  const who = document.createElement("span");
  who.className = "who";
  who.textContent = role === "assistant" ? "you" : (reprompt ? "game · re-prompt" : "game");
  div.append(who, document.createTextNode(text));
  return div;
}

// One row per control: each field a labelled list or text box, then the button that sends the
// control's template filled in. Enter in a field plays that control (not the free-text box).
function renderControls(list) {
  const box = $("controls");
  box.replaceChildren();
  list.forEach((c, k) => {
    const row = document.createElement("div");
    row.className = "control";
    const inputs = {};
    const b = document.createElement("button");
    for (const f of c.fields) {
      let input;
      if (f.options && f.options.length <= 12) {
        input = document.createElement("select");
        for (const o of f.options) { const opt = document.createElement("option"); opt.value = opt.textContent = o; input.appendChild(opt); }
      } else {
        input = document.createElement("input");
        input.placeholder = f.name;
        if (f.options) {
          const list = document.createElement("datalist");
          list.id = `list-${k}-${f.name}`;
          for (const o of f.options) { const opt = document.createElement("option"); opt.value = o; list.appendChild(opt); }
          row.appendChild(list);
          input.setAttribute("list", list.id);
        }
      }
      input.name = f.name;
      input.addEventListener("keydown", (ev) => {
        if (ev.key === "Enter") { ev.preventDefault(); b.click(); }  // else the form sends the free text
      });
      inputs[f.name] = input;
      const label = document.createElement("label");
      label.className = `field field-${f.name}`;
      label.append(f.name, input);
      row.appendChild(label);
    }
    b.type = "button";
    b.textContent = c.label;
    b.dataset.control = c.label;
    b.addEventListener("click", () => {
      const text = c.template.replace(/\{(\w+)\}/g, (_, n) => inputs[n].value.trim());
      send(text);
    });
    row.appendChild(b);
    box.appendChild(row);
  });
}

function render(state) {
  session = state.session;
  $("game").hidden = false;
  const conv = $("conversation");
  conv.replaceChildren(...state.transcript.map((m) => message(m.role, m.content)));
  conv.scrollTop = conv.scrollHeight;
  const i = state.info;
  const e = envs.find((x) => x.id === state.env_id);
  const kw = state.env_kwargs || {};
  const task = e && e.levels.length ? ` · level ${kw.difficulty ?? e.default_level}` + (kw.probe ? ` · probe ${kw.probe}` : "") : "";
  $("status").textContent = `${state.env_id}${task} · configuration ${state.config_id} · turn ${i.turn}/${i.max_turns} · format errors ${i.format_errors}`;
  $("hint").textContent = state.hint ? "Format: " + state.hint : "";
  renderControls(state.controls);
  $("act").hidden = state.done;
  const res = $("result");
  res.hidden = !state.done;
  if (state.done && state.result) {
    const r = state.result;
    res.replaceChildren();
    const h = document.createElement("h3");
    h.textContent = `Game over: ${r.outcome}, score ${r.score.toFixed(3)} in ${r.turns} turns`;
    const p = document.createElement("p");
    p.textContent = `Saved as ${r.agent} (sample ${r.sample}) in ${r.logged_to}. The hidden state:`;
    const pre = document.createElement("pre");
    pre.textContent = pretty(r.hidden);
    res.append(h, p, pre);
    document.body.dataset.finished = "1";
  }
}

async function send(text) {
  $("error").textContent = "";
  try { render(await api("/api/step", {session, action: text})); $("free").value = ""; }
  catch (e) { $("error").textContent = e.message; }
}

async function start() {
  $("error").textContent = "";
  delete document.body.dataset.finished;
  const e = envs.find((x) => x.id === $("env").value);
  const body = {name: $("name").value.trim(), env_id: $("env").value, config_id: $("config").value};
  if (e && e.levels.length) { body.level = $("level").value; body.probe = $("probe").value; }
  try { render(await api("/api/start", body)); }
  catch (e) { $("error").textContent = e.message; }
}

function showSplit() {
  const e = envs.find((x) => x.id === $("env").value);
  if (!e) return;
  $("split").textContent = `${e.suite}; configurations 0-${e.split - 1}`;
  $("config").max = e.split - 1;
  $("level-box").hidden = !e.levels.length;
  $("level").replaceChildren(...e.levels.map((l) => {
    const o = document.createElement("option");
    o.value = l; o.textContent = l === e.default_level ? `${l} (default)` : String(l);
    o.selected = l === e.default_level;
    return o;
  }));
  $("probe-box").hidden = !e.probes.length;
  $("probe").replaceChildren(...["", ...e.probes].map((p) => {
    const o = document.createElement("option");
    o.value = p; o.textContent = p || "none";
    return o;
  }));
}

function sendFree() {
  if (!$("free").value.trim()) { $("error").textContent = "The free-text box is empty: type a move, or use a button above."; return; }
  send($("free").value);
}

async function main() {
  envs = await api("/api/envs");
  for (const e of envs) { const o = document.createElement("option"); o.value = e.id; o.textContent = `${e.id} (${e.suite})`; $("env").appendChild(o); }
  $("env").addEventListener("change", showSplit);
  showSplit();
  $("start").addEventListener("click", start);
  $("send").addEventListener("click", sendFree);
  $("free").addEventListener("keydown", (ev) => { if (ev.key === "Enter" && !ev.shiftKey) { ev.preventDefault(); sendFree(); } });
  document.body.dataset.ready = "1";
}
main();
