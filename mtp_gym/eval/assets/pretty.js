"use strict";
function pretty(v, pad = "") {
  // JSON with lists of plain values on one line (a vocabulary stays readable).
  if (Array.isArray(v) && v.every((x) => x === null || typeof x !== "object")) return JSON.stringify(v).replace(/,/g, ", ");
  if (v === null || typeof v !== "object") return JSON.stringify(v);
  const inner = pad + "  ", items = Array.isArray(v) ? v.map((x) => inner + pretty(x, inner))
    : Object.entries(v).map(([k, x]) => inner + JSON.stringify(k) + ": " + pretty(x, inner));
  const [open, close] = Array.isArray(v) ? ["[", "]"] : ["{", "}"];
  return items.length ? `${open}\n${items.join(",\n")}\n${pad}${close}` : open + close;
}
