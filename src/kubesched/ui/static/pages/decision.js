// A pod's decision: what `kubesched explain --pod NS/NAME -o json` holds, drawn as matrices.
// Filter: node x plugin, pass or the reason; Score: raw, normalized, weighted per plugin and
// the total, the chosen node and the tied ones marked; preemption; DRA devices per node.
// Columns sort on click; large clusters show the rows a few hundred at a time.
import { api } from "../api.js";
import { navigate } from "../app.js";
import { h, sortHeader } from "../dom.js";

const STEP = 200;
const SHORT = { Success: "pass", Skip: "skip", Unschedulable: "fail", UnschedulableAndUnresolvable: "FAIL", Error: "error" };

export async function render(root, params) {
  const key = params.get("pod");
  if (!key) {
    root.append(h("h1", {}, "Decision"), h("p", { class: "muted" }, "Pick a pod on the ",
      h("a", { href: "#/pods?status=waiting" }, "Pods"), " page."));
    return;
  }
  const d = await api.decision(key);
  const download = `/api/decision?${new URLSearchParams({ pod: key, download: "1" })}`;
  root.append(h("h1", {}, `Pod ${d.pod}`),
    h("div", { class: "toolbar" }, h("span", { class: "muted" }, `profile ${d.profile}`),
      h("a", { href: download, download: `explain-${key.replace(/\//g, "_")}.json` }, "Download JSON (explain -o json)")));
  if (d.simulation && d.simulation.note) root.append(h("p", { class: "muted" }, `note: ${d.simulation.note}`));
  if (d.preEnqueue) {
    root.append(h("p", {}, `PreEnqueue ${d.preEnqueue.plugin}: ${d.preEnqueue.code} — the pod waits outside the scheduling queue; no node is evaluated.`),
      h("pre", { class: "message" }, d.message));
    return;
  }
  root.append(outcome(d));
  root.append(filterMatrix(d), scoreMatrix(d), preemption(d), devices(d), waiting(d));
}

function outcome(d) {
  if (d.selectedNode) {
    const tied = d.tiedNodes.length > 1 ? ` (tied: ${d.tiedNodes.join(", ")})` : "";
    return h("p", { "data-testid": "selected-node" }, h("b", {}, "Selected node: "), d.selectedNode, tied, d.message ? h("div", { class: "muted" }, d.message) : null);
  }
  return h("pre", { class: "message status-Unschedulable" }, d.message || "No node fits.");
}

// A table whose rows sort on any column and are shown STEP at a time.
function sortable(title, columns, rows, rowAttrs, initial, testid) {
  const state = { sort: initial.sort, desc: initial.desc, shown: STEP };
  const wrap = h("section", { "data-testid": testid });
  const draw = () => {
    const col = columns.find((c) => c.key === state.sort) || columns[0];
    const sorted = [...rows].sort((a, b) => {
      const x = col.value(a), y = col.value(b);
      const c = typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y));
      return state.desc ? -c : c;
    });
    const onSort = (k) => { state.desc = state.sort === k ? !state.desc : false; state.sort = k; draw(); };
    const head = h("tr", {}, columns.map((c) => sortHeader(c.label, c.key, state, onSort, c.num ? { class: "num" } : {})));
    const body = sorted.slice(0, state.shown).map((r) => h("tr", rowAttrs(r), columns.map((c) => c.cell(r))));
    const more = sorted.length > state.shown
      ? h("button", { type: "button", onclick: () => { state.shown += STEP; draw(); } }, `Show ${Math.min(STEP, sorted.length - state.shown)} more of ${sorted.length - state.shown}`)
      : null;
    wrap.replaceChildren(h("h2", {}, title), h("table", {}, h("thead", {}, head), h("tbody", {}, body)), ...(more ? [more] : []));
  };
  draw();
  return wrap;
}

function rowMarks(d) {
  const tied = new Set(d.tiedNodes.length > 1 ? d.tiedNodes : []);
  return (n) => ({ class: n.name === d.selectedNode ? "chosen" : tied.has(n.name) ? "tied" : "", "data-node": n.name });
}

function filterMatrix(d) {
  const plugins = [];
  for (const n of d.nodes) for (const f of n.filters) if (!plugins.includes(f.plugin)) plugins.push(f.plugin);
  const skipped = plugins.filter((p) => d.nodes.every((n) => n.filters.every((f) => f.plugin !== p || f.code === "Skip")));
  const shown = plugins.filter((p) => !skipped.includes(p));
  const verdict = (n, p) => n.filters.find((f) => f.plugin === p);
  const order = { Success: 0, Skip: 1, Unschedulable: 2, UnschedulableAndUnresolvable: 3, Error: 4 };
  const columns = [
    { key: "node", label: "Node", value: (n) => n.name, cell: (n) => h("td", {}, n.name) },
    ...shown.map((p) => ({
      key: `f:${p}`, label: p, value: (n) => { const v = verdict(n, p); return v ? order[v.code] ?? 5 : -1; },
      cell: (n) => {
        const v = verdict(n, p);
        if (!v) return h("td", { class: "muted" }, "");
        const short = SHORT[v.code] || v.code;
        return h("td", { class: `cell-${short}`, "data-plugin": p, title: v.reasons.join("; ") || v.code },
          short, v.reasons.length && v.code !== "Success" ? h("div", { class: "reason" }, v.reasons.join("; ")) : null);
      },
    })),
    { key: "feasible", label: "Feasible", value: (n) => (n.feasible ? 0 : 1),
      cell: (n) => h("td", { class: n.feasible ? "cell-pass" : "cell-FAIL", "data-testid": "feasible" }, n.feasible ? "yes" : "no") },
  ];
  const section = sortable(`Filter (${d.nodes.filter((n) => n.feasible).length} of ${d.nodes.length} nodes feasible)`,
    columns, d.nodes, rowMarks(d), { sort: "node", desc: false }, "filter-matrix");
  if (skipped.length) section.append(h("p", { class: "muted" }, `Skipped (nothing to check for this pod): ${skipped.join(", ")}`));
  return section;
}

function scoreMatrix(d) {
  const feasible = d.nodes.filter((n) => n.feasible && n.scores.length);
  if (!feasible.length) return h("section");
  const plugins = [];
  for (const n of feasible) for (const s of n.scores) if (!plugins.includes(s.plugin)) plugins.push(s.plugin);
  const score = (n, p) => n.scores.find((s) => s.plugin === p);
  const columns = [
    { key: "node", label: "Node", value: (n) => n.name,
      cell: (n) => h("td", {}, n.name, n.name === d.selectedNode ? h("span", { class: "tag" }, "chosen")
        : d.tiedNodes.length > 1 && d.tiedNodes.includes(n.name) ? h("span", { class: "tag" }, "tied") : null) },
    ...plugins.map((p) => ({
      key: `s:${p}`, label: p, num: true, value: (n) => score(n, p)?.weighted ?? -1,
      cell: (n) => {
        const s = score(n, p);
        return s ? h("td", { class: "num", "data-plugin": p, title: `raw ${s.raw}, normalized ${s.normalized} × weight ${s.weight} = ${s.weighted}` },
          h("b", {}, s.weighted), h("div", { class: "reason muted" }, `${s.normalized}×${s.weight} · raw ${s.raw}`)) : h("td", {});
      },
    })),
    { key: "total", label: "Total", num: true, value: (n) => n.totalScore, cell: (n) => h("td", { class: "num", "data-testid": "total" }, h("b", {}, n.totalScore)) },
  ];
  const section = sortable("Score (weighted; normalized × weight and raw below)", columns, feasible, rowMarks(d), { sort: "total", desc: true }, "score-matrix");
  return section;
}

function preemption(d) {
  const pf = d.postFilter;
  if (!pf) return h("section");
  const body = pf.nominatedNode
    ? [h("p", {}, `${pf.plugin} would nominate `, h("b", {}, pf.nominatedNode), " and evict:"),
       pf.victims.length ? h("ul", {}, pf.victims.map((v) => h("li", {}, h("a", { href: "#", onclick: (e) => { e.preventDefault(); navigate("pods", { q: v }); } }, v))))
                         : h("p", { class: "muted" }, "(nothing)")]
    : [h("p", {}, pf.message || "No preemption would help.")];
  return h("section", {}, h("h2", {}, `Preemption (${pf.plugin})`), body);
}

function devices(d) {
  const rows = d.nodes.filter((n) => n.devices.length);
  if (!rows.length) return h("section");
  return h("section", {}, h("h2", {}, "DRA devices per node"),
    h("table", {}, h("thead", {}, h("tr", {}, h("th", {}, "Node"), h("th", {}, "Devices"))),
      h("tbody", {}, rows.map((n) => h("tr", {}, h("td", {}, n.name), h("td", {}, n.devices.join("; ")))))));
}

function waiting(d) {
  if (!d.waitingClaims.length) return h("section");
  return h("section", {}, h("h2", {}, "Claims waiting for binding"),
    h("ul", {}, d.waitingClaims.map((w) => h("li", {}, `PersistentVolumeClaim ${w.claim}: ${w.message}`))));
}
