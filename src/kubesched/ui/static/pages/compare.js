// Two configurations side by side on the inputs (and the What-if page's manifests): the pods
// they place differently, and for one of them each configuration's per-plugin reasons.
import { call, editor, kept, lab, placed, startJob } from "../lab.js";
import { h } from "../dom.js";

function outcome(o) {
  return o ? (o.node ? `${o.node}` : `${o.status}`) : "–";
}

export async function render(root) {
  const start = await lab();
  const a = editor("compare-a", kept.get("compareA", start.config), { rows: 14, placeholder: "Configuration A" });
  const b = editor("compare-b", kept.get("compareB", kept.get("config", start.config)), { rows: 14, placeholder: "Configuration B" });
  const status = h("span", { id: "compare-status", class: "busy" });
  const result = h("div", { id: "compare-result" });
  const reasons = h("div", { id: "compare-reasons" });
  const body = () => ({ a: a.value, b: b.value, manifests: kept.get("manifests") });

  async function explain(pod) {
    reasons.replaceChildren(h("p", { class: "busy" }, `explaining ${pod}…`));
    try {
      const answer = await call("/api/compare/reasons", { ...body(), pod });
      if (!answer.ok) { reasons.replaceChildren(); return; }
      reasons.replaceChildren(reasonTable(answer.data));
    } catch (err) {
      reasons.replaceChildren(h("pre", { class: "message" }, String(err.message || err)));
    }
  }

  const run = h("button", { type: "button", id: "compare-run", onclick: async () => {
    kept.set("compareA", a.value); kept.set("compareB", b.value);
    run.disabled = true; status.textContent = "simulating both…"; reasons.replaceChildren();
    try {
      const answer = await startJob("/api/compare", body(), (p) => { status.textContent = placed(p); });
      a.show(null); b.show(null);
      if (!answer.ok) {
        const which = answer.problems.what === "configuration A" ? a : answer.problems.what === "configuration B" ? b : null;
        if (which) which.show(answer.problems);
        result.replaceChildren(h("p", { class: "status-Unschedulable", id: "compare-refused" },
          which ? `Nothing ran: ${answer.problems.what} has problems (shown above).` : answer.problems.error));
        return;
      }
      const d = answer.data;
      const cards = h("div", { class: "cards", id: "compare-counts" },
        ["scheduled", "pending", "preemptions"].map((k) => h("div", { class: "card", dataset: { count: k } },
          h("b", {}, `${d[k].a} | ${d[k].b}`), `${k} (A | B)`)));
      const rows = d.differing.map((x) => h("tr", { class: "clickable", title: "Why: per-plugin reasons",
          dataset: { pod: x.pod }, onclick: () => explain(x.pod) },
        h("td", {}, x.pod), h("td", {}, outcome(x.a)), h("td", {}, outcome(x.b)),
        h("td", { class: "reason" }, (x.a && x.a.message) || (x.b && x.b.message) || "")));
      result.replaceChildren(cards, d.differing.length
        ? h("table", { id: "compare-table" }, h("thead", {}, h("tr", {}, h("th", {}, "Pod"), h("th", {}, "A"), h("th", {}, "B"), h("th", {}, "Why"))), h("tbody", {}, rows))
        : h("p", { class: "muted", id: "compare-none" }, `Both configurations place all ${d.pods} pods alike.`));
    } catch (err) {
      result.replaceChildren(h("pre", { class: "message", id: "compare-error" }, String(err.message || err)));
    } finally { run.disabled = false; status.textContent = ""; }
  } }, "Compare");
  root.append(h("h1", {}, "Compare two configurations"),
    h("p", { class: "muted" }, "Both simulate the inputs (with the What-if page's manifests) on the same seed. Click a pod for each side's per-plugin reasons."),
    h("div", { class: "lab-columns" }, h("div", {}, h("h2", {}, "A"), a.element), h("div", {}, h("h2", {}, "B"), b.element)),
    h("div", { class: "toolbar" }, run, status), result, reasons);
}

// Per plugin: the weighted score each side gives the nodes either side chose, and any filter
// that rejects them; the higher total of each side marked.
function reasonTable(r) {
  const sides = r.configs.map((c, i) => ({ c, label: i ? "B" : "A" }));
  const cols = sides.flatMap(({ c, label }) => r.nodes.map((n) => ({ label, node: n, e: c.nodes[n] })));
  const plugins = [...new Set(cols.flatMap((col) => col.e ? Object.keys(col.e.scores) : []))];
  const head = h("tr", {}, h("th", {}, "Plugin"), cols.map((col) => h("th", { class: "num" }, `${col.label} on ${col.node}`)));
  const row = (name, cell) => h("tr", { dataset: { plugin: name } }, h("td", {}, name), cols.map((col) => cell(col)));
  const scores = plugins.map((p) => row(p, (col) => {
    const sc = col.e && col.e.scores[p];
    return h("td", { class: "num", title: sc ? `normalized ${sc.normalized} × weight ${sc.weight}` : "" }, sc ? sc.weighted : "–");
  }));
  const total = row("total", (col) => {
    const chosen = sides.find((s) => s.label === col.label).c.selectedNode === col.node;
    return h("td", { class: chosen ? "num best" : "num", title: chosen ? "selected" : "" }, col.e && col.e.totalScore !== null ? col.e.totalScore : "–");
  });
  const filters = row("filters", (col) => h("td", { class: "reason" },
    col.e ? (col.e.filters.length ? col.e.filters.map((f) => `${f.plugin}: ${f.reasons.join(", ") || f.code}`).join("; ") : "pass") : "–"));
  const outcomes = h("ul", {}, sides.map(({ c, label }) => h("li", {}, h("b", {}, `${label}: `),
    c.selectedNode ? `selects ${c.selectedNode}` : c.message || "no node",
    Object.keys(c.rejectedBy).length ? h("span", { class: "muted" }, ` — rejected by ${Object.entries(c.rejectedBy).map(([p, n]) => `${p} (${n})`).join(", ")}`) : null)));
  return h("div", { id: "compare-reasons-table", dataset: { pod: r.pod } }, h("h2", {}, `Why: ${r.pod}`), outcomes,
    cols.length ? h("table", { class: "scores" }, h("thead", {}, head), h("tbody", {}, scores, total, filters)) : null);
}
