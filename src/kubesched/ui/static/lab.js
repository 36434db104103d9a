// What the what-if, configuration, compare and over-time pages share: the JSON calls (a 422
// carries the problems of the text sent), a YAML editor with line numbers whose problems are
// shown in place, the table of changed placements, and a line chart with hover (hand-written
// SVG: three charts of a few thousand points need no library, and nothing is fetched from
// elsewhere, as the page's Content-Security-Policy wants).
import { h } from "./dom.js";

if (!document.getElementById("lab-css")) {
  document.head.append(h("link", { id: "lab-css", rel: "stylesheet", href: "/static/lab.css" }));
}

// The texts typed in the pages, kept while the page is open (moving between pages keeps them).
const KEY = "kubesched.lab.";
export const kept = {
  get: (name, fallback = "") => sessionStorage.getItem(KEY + name) ?? fallback,
  set: (name, value) => sessionStorage.setItem(KEY + name, value),
};

// POST a JSON body. Resolves to {ok: true, data} or, for text the server refused (422), to
// {ok: false, problems}; any other failure throws with the server's one-line message.
export async function call(path, body) {
  const res = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body) });
  if (res.status === 422) return { ok: false, problems: await res.json() };
  if (!res.ok) throw new Error((await res.text()).trim() || res.statusText);
  return { ok: true, data: await res.json() };
}

// A job's server-sent events (a replay, or a what-if or comparison started with startJob):
// onProgress(p) hears each progress ({run, runs, done, total, virtualSeconds}); resolves as
// call() does, to {ok: true, data} (its result) or {ok: false, problems} (text refused: 422),
// and rejects with the server's one-line message otherwise.
export function follow(id, onProgress) {
  return new Promise((resolve, reject) => {
    const source = new EventSource(`/api/jobs/events?id=${encodeURIComponent(id)}`);
    source.addEventListener("progress", (ev) => { if (onProgress) onProgress(JSON.parse(ev.data)); });
    source.addEventListener("result", (ev) => { source.close(); resolve({ ok: true, data: JSON.parse(ev.data) }); });
    source.addEventListener("failed", (ev) => {
      source.close();
      const e = JSON.parse(ev.data);
      if (e.status === 422) resolve({ ok: false, problems: e }); else reject(new Error(e.error));
    });
    source.onerror = () => { source.close(); reject(new Error("the server ended the progress stream")); };
  });
}

// call() for a route that takes a while (what-if, compare): asked as a job (Prefer:
// respond-async), whose progress streams to onProgress until its answer; the same results.
export async function startJob(path, body, onProgress) {
  const res = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json",
    Prefer: "respond-async" }, body: JSON.stringify(body) });
  if (res.status === 422) return { ok: false, problems: await res.json() };
  if (!res.ok) throw new Error((await res.text()).trim() || res.statusText);
  if (res.status !== 202) return { ok: true, data: await res.json() };
  const job = await res.json();
  if (onProgress) onProgress(job);
  return follow(job.id, onProgress);
}

// What a run's progress says: "run B: 40 of 200 pods placed".
export function placed(p, labels = ["A", "B"]) {
  const which = p.runs > 1 ? `run ${labels[p.run] ?? p.run + 1}: ` : "";
  return p.total ? `simulating… ${which}${p.done} of ${p.total} pods placed` : `simulating… ${which}`.trimEnd();
}

export async function lab() {
  const res = await fetch("/api/lab", { headers: { Accept: "application/json" } });
  if (!res.ok) throw new Error((await res.text()).trim() || res.statusText);
  return res.json();
}

// A textarea with a gutter of line numbers; show(problems) marks their lines and lists them
// under it (a click on one selects its line).
export function editor(id, text, { rows = 18, placeholder = "" } = {}) {
  const gutter = h("pre", { class: "gutter", "aria-hidden": "true" });
  const area = h("textarea", { id, class: "yaml", rows, spellcheck: "false", autocomplete: "off",
    placeholder, "aria-label": placeholder || id });
  area.value = text;
  const list = h("ul", { id: `${id}-problems`, class: "problems", hidden: true });
  let marked = new Set();
  const number = () => {
    const n = area.value.split("\n").length;
    gutter.replaceChildren(...Array.from({ length: n }, (_, i) =>
      h("span", { class: marked.has(i + 1) ? "line error" : "line", dataset: { line: i + 1 } }, `${i + 1}\n`)));
  };
  area.addEventListener("input", () => { marked = new Set(); number(); });
  area.addEventListener("scroll", () => { gutter.scrollTop = area.scrollTop; });
  number();
  const box = h("div", { class: "editor", id: `${id}-box` }, gutter, area);
  function select(line) {
    const lines = area.value.split("\n");
    const start = lines.slice(0, line - 1).reduce((a, l) => a + l.length + 1, 0);
    area.focus();
    area.setSelectionRange(start, start + (lines[line - 1] || "").length);
    area.scrollTop = Math.max(0, (line - 3) * parseFloat(getComputedStyle(area).lineHeight || "18"));
  }
  return {
    element: h("div", { class: "editor-wrap" }, box, list),
    area,
    get value() { return area.value; },
    set value(v) { area.value = v; marked = new Set(); number(); },
    show(answer) {
      const problems = answer ? answer.problems : [];
      marked = new Set(problems.map((p) => p.line).filter(Boolean));
      number();
      list.hidden = !problems.length;
      list.replaceChildren(...problems.map((p) => h("li", {
        class: "problem", dataset: { line: p.line ?? "" }, title: p.line ? "Show the line" : "",
        onclick: () => p.line && select(p.line) },
      p.line ? h("b", {}, `line ${p.line}: `) : null, p.message)));
    },
  };
}

const CHANGE = { added: "added", removed: "removed", moved: "moved", placed: "now placed",
  unplaced: "now without a node", status: "status changed" };

function where(o) {
  if (!o) return "–";
  return o.node ? `${o.node} (${o.status})` : o.status;
}

// The pods whose outcome differs between two runs, and the counts of each.
export function changes(id, result, labels = ["before", "after"]) {
  const counts = h("div", { class: "cards", id: `${id}-counts` },
    ["scheduled", "pending"].map((k) => h("div", { class: "card", dataset: { count: k } },
      h("b", {}, `${result[k].before} → ${result[k].after}`), `${k} (${labels.join(" → ")})`)));
  if (!result.changes.length) {
    return h("div", { id }, counts, h("p", { class: "muted", id: `${id}-none` }, "No pod's outcome changed."));
  }
  const rows = result.changes.map((c) => h("tr", { dataset: { pod: c.pod, change: c.change } },
    h("td", {}, c.pod), h("td", { class: `change-${c.change}` }, CHANGE[c.change] || c.change),
    h("td", {}, where(c.before)), h("td", {}, where(c.after)),
    h("td", { class: "reason" }, (c.after && c.after.message) || (c.before && c.before.message) || "")));
  return h("div", { id }, counts, h("table", { id: `${id}-table` },
    h("thead", {}, h("tr", {}, h("th", {}, "Pod"), h("th", {}, "Change"), h("th", {}, labels[0]),
      h("th", {}, labels[1]), h("th", {}, "Why"))), h("tbody", {}, rows)));
}

// The effective score weights of each profile, editable; onApply(weights) gets
// {schedulerName: {plugin: weight}} with only the values changed.
export function weightsForm(id, profiles, onApply) {
  const inputs = [];
  const tables = profiles.map((p) => h("table", { class: "weights", dataset: { profile: p.schedulerName } },
    h("caption", {}, p.schedulerName),
    h("thead", {}, h("tr", {}, h("th", {}, "Score plugin"), h("th", { class: "num" }, "Weight"))),
    h("tbody", {}, p.plugins.map((pl) => {
      const input = h("input", { type: "number", min: 1, step: 1, value: pl.weight, class: "weight",
        id: `${id}-${p.schedulerName}-${pl.name}`, dataset: { plugin: pl.name, profile: p.schedulerName },
        "aria-label": `${pl.name} weight` });
      inputs.push({ input, profile: p.schedulerName, plugin: pl.name, weight: pl.weight });
      return h("tr", { dataset: { plugin: pl.name } }, h("td", {}, pl.name), h("td", { class: "num" }, input));
    }))));
  const apply = h("button", { type: "button", id: `${id}-apply`, onclick: () => {
    const out = {};
    for (const w of inputs) {
      const v = Number(w.input.value);
      if (Number.isInteger(v) && v !== w.weight) (out[w.profile] ||= {})[w.plugin] = v;
    }
    onApply(out);
  } }, "Write the weights into the YAML");
  return h("div", { id, class: "weights-form" }, tables, apply);
}

// A line chart of series over x (seconds), with a hover rule and the values under it.
const W = 640, H = 180, PAD = { l: 48, r: 12, t: 10, b: 24 };
const COLORS = ["#2f5fd0", "#c0392b", "#2e8b57", "#c98a00", "#8e44ad", "#16a085"];
const SVG = "http://www.w3.org/2000/svg";

function s(tag, attrs = {}) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  return el;
}

// series: [{name, x, values}] (each its own x: runs compared over time sample apart).
export function chart(id, title, series, fmt = (v) => `${v}`) {
  const xs = series.flatMap((c) => c.x.filter((v) => v !== null));
  const x0 = Math.min(...xs, 0), x1 = Math.max(...xs, 1);
  const ys = series.flatMap((c) => c.values.filter((v) => v !== null));
  const y1 = Math.max(...ys, 0) || 1;
  const px = (v) => PAD.l + ((v - x0) / (x1 - x0 || 1)) * (W - PAD.l - PAD.r);
  const py = (v) => H - PAD.b - (v / y1) * (H - PAD.t - PAD.b);
  const svg = s("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart", role: "img", "aria-label": title });
  for (const f of [0, 0.5, 1]) {
    const y = py(f * y1);
    svg.append(s("line", { x1: PAD.l, x2: W - PAD.r, y1: y, y2: y, class: "grid" }));
    const label = s("text", { x: PAD.l - 4, y: y + 4, class: "tick", "text-anchor": "end" });
    label.textContent = fmt(f * y1);
    svg.append(label);
  }
  for (const [i, v] of [[0, x0], [1, x1]]) {
    const t = s("text", { x: px(v), y: H - 6, class: "tick", "text-anchor": i ? "end" : "start" });
    t.textContent = `${Math.round(v)}s`;
    svg.append(t);
  }
  // Steps, not slopes: a metric holds its value until the next row (a change in the store).
  series.forEach((c, k) => {
    let d = "", open = false;
    c.values.forEach((v, i) => {
      if (v === null || c.x[i] === null) { open = false; return; }
      d += open ? `H${px(c.x[i]).toFixed(1)}V${py(v).toFixed(1)}` : `M${px(c.x[i]).toFixed(1)},${py(v).toFixed(1)}`;
      open = true;
    });
    svg.append(s("path", { d, class: c.dashed ? "series dashed" : "series", stroke: COLORS[k % COLORS.length],
      "data-series": c.name }));
  });
  const rule = s("line", { y1: PAD.t, y2: H - PAD.b, class: "rule", visibility: "hidden" });
  svg.append(rule);
  const tip = h("div", { class: "tip", id: `${id}-tip`, hidden: true });
  const legend = h("div", { class: "legend" }, series.map((c, k) =>
    h("span", { class: "key", dataset: { series: c.name } }, h("i", { class: `swatch c${k % COLORS.length}` }), c.name)));
  const points = Math.max(0, ...series.map((c) => c.x.length));
  const box = h("div", { class: "chart-box", id, dataset: { points } }, h("h3", {}, title), svg, tip, legend);
  // The row in effect at time t: the last one at or before it (the steps drawn).
  const at = (x, t) => {
    let lo = 0, hi = x.length - 1;
    if (hi < 0 || x[0] > t) return -1;
    while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (x[mid] <= t) lo = mid; else hi = mid - 1; }
    return lo;
  };
  svg.addEventListener("mousemove", (ev) => {
    const r = svg.getBoundingClientRect();
    const t = Math.max(x0, Math.min(x1, x0 + ((ev.clientX - r.left) * (W / r.width) - PAD.l) / (W - PAD.l - PAD.r) * (x1 - x0)));
    rule.setAttribute("x1", px(t)); rule.setAttribute("x2", px(t)); rule.setAttribute("visibility", "visible");
    tip.hidden = false;
    tip.dataset.time = Math.round(t);
    tip.replaceChildren(h("b", {}, `t = ${Math.round(t)}s`), ...series.map((c) => {
      const i = at(c.x, t);
      const v = i < 0 ? null : c.values[i];
      return h("div", { dataset: { series: c.name } }, `${c.name}: ${v === null ? "–" : fmt(v)}`);
    }));
    tip.style.left = `${Math.min(r.width - 160, Math.max(0, ev.clientX - r.left + 12))}px`;
  });
  svg.addEventListener("mouseleave", () => { rule.setAttribute("visibility", "hidden"); tip.hidden = true; });
  return box;
}
