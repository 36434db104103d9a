// Small DOM helpers: elements built with textContent (never innerHTML: names and reasons are
// the cluster's data), bars, a pager, and column sorting.
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "class") el.className = v;
    else if (k === "style") el.style.cssText = v; // through the CSSOM: the CSP forbids style attributes
    else if (k === "dataset") Object.assign(el.dataset, v);
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

const BINARY = ["Ki", "Mi", "Gi", "Ti", "Pi"];
export function amount(resource, v) {
  if (resource === "cpu") return `${+(v / 1000).toFixed(3)}`; // cores, as kubectl top shows them
  if (resource === "memory" || resource.endsWith("storage")) {
    let x = v, i = -1;
    while (x >= 1024 && i < BINARY.length - 1) { x /= 1024; i++; }
    return i < 0 ? `${v}` : `${Number.isInteger(x) ? x : x.toFixed(1)}${BINARY[i]}`;
  }
  return `${v}`;
}

export function bar(resource, requested, allocatable) {
  const f = allocatable ? requested / allocatable : (requested ? 1 : 0);
  const pct = Math.min(100, Math.round(f * 100));
  const cls = f >= 1 ? "bar full" : f >= 0.8 ? "bar high" : "bar";
  return h("span", { title: `${resource}: ${amount(resource, requested)} / ${amount(resource, allocatable)} (${pct}%)` },
    h("span", { class: cls }, h("span", { style: `width:${pct}%` })),
    h("span", { class: "barlabel" }, `${amount(resource, requested)}/${amount(resource, allocatable)}`));
}

export function pager(total, offset, limit, go) {
  const last = Math.max(0, Math.floor((total - 1) / limit) * limit);
  return h("div", { class: "pager" },
    h("button", { type: "button", disabled: offset <= 0, onclick: () => go(Math.max(0, offset - limit)) }, "‹ Prev"),
    h("span", { class: "muted" }, total ? `${offset + 1}–${Math.min(total, offset + limit)} of ${total}` : "none"),
    h("button", { type: "button", disabled: offset + limit >= total, onclick: () => go(Math.min(last, offset + limit)) }, "Next ›"));
}

// A header cell that sorts: the server (cluster lists) or the caller (a decision's matrices).
export function sortHeader(label, key, state, onSort, attrs = {}) {
  const cls = ["sortable", state.sort === key ? (state.desc ? "sorted-desc" : "sorted-asc") : ""].join(" ");
  return h("th", { ...attrs, class: cls, title: "Sort", onclick: () => onSort(key) }, label);
}

export function debounce(fn, ms) {
  let t;
  return (...args) => { clearTimeout(t); t = setTimeout(() => fn(...args), ms); };
}
