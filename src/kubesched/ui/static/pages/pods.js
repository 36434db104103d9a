// The pods, a page at a time: where each went, or why it has none; one click shows its
// decision. Filtered by status ("waiting": every pod left without a node), by node, by name.
import { api } from "../api.js";
import { navigate } from "../app.js";
import { bar, debounce, h, pager, sortHeader } from "../dom.js";

const LIMIT = 100;

export async function render(root, params) {
  const state = {
    q: params.get("q") || "", status: params.get("status") || "", node: params.get("node") || "",
    sort: params.get("sort") || "name", desc: params.get("order") === "desc", offset: Number(params.get("offset") || 0),
  };
  const go = () => navigate("pods", { q: state.q, status: state.status, node: state.node,
    sort: state.sort === "name" ? "" : state.sort, order: state.desc ? "desc" : "", offset: state.offset || "" });
  const summary = await api.summary();
  const statuses = Object.keys(summary.statuses);
  const select = h("select", { "aria-label": "Status", onchange: (e) => { state.status = e.target.value; state.offset = 0; go(); } },
    h("option", { value: "" }, "every status"),
    h("option", { value: "waiting", selected: state.status === "waiting" }, `waiting (${summary.waiting})`),
    statuses.map((s) => h("option", { value: s, selected: state.status === s }, `${s} (${summary.statuses[s]})`)));
  const search = h("input", { type: "search", placeholder: "Filter by pod, workload or node", value: state.q,
    "aria-label": "Filter pods" });
  search.addEventListener("input", debounce(() => { state.q = search.value; state.offset = 0; go(); }, 250));
  const nodeTag = state.node ? h("span", { class: "tag" }, `node ${state.node} `,
    h("a", { href: "#", onclick: (e) => { e.preventDefault(); state.node = ""; go(); } }, "×")) : null;
  root.append(h("h1", {}, state.node ? `Pods on ${state.node}` : "Pods"), h("div", { class: "toolbar" }, search, select, nodeTag));
  if (state.node) root.append(await nodeFacts(state.node));

  const onSort = (key) => { state.desc = state.sort === key ? !state.desc : key === "priority"; state.sort = key; state.offset = 0; go(); };
  const page = await api.pods({ q: state.q, status: state.status, node: state.node, sort: state.sort,
    order: state.desc ? "desc" : "asc", offset: state.offset, limit: LIMIT });
  const head = h("tr", {}, sortHeader("Pod", "name", state, onSort), h("th", {}, "Workload"),
    sortHeader("Node", "node", state, onSort), sortHeader("Status", "status", state, onSort),
    sortHeader("Priority", "priority", state, onSort, { class: "num" }), h("th", {}, "Nominated"),
    h("th", {}, "Why"));
  const rows = page.items.map((p) => h("tr", { class: "clickable", title: "Show its decision", "data-testid": "pod-row", "data-pod": p.pod,
      onclick: () => navigate("decision", { pod: p.pod }) },
    h("td", {}, p.pod), h("td", {}, p.workload || ""), h("td", {}, p.node || "–"),
    h("td", { class: `status-${p.status}` }, p.status), h("td", { class: "num" }, p.priority),
    h("td", {}, p.nominatedNode || ""), h("td", { class: "reason" }, p.message)));
  root.append(pager(page.total, page.offset, page.limit, (o) => { state.offset = o; go(); }),
    h("table", {}, h("thead", {}, head), h("tbody", {}, rows)));
}

// The node's allocation, labels, taints and DRA devices (published, and which are allocated).
async function nodeFacts(name) {
  const n = await api.node(name);
  const used = new Set(n.devices.allocated);
  return h("section", {},
    h("div", { class: "cards" }, Object.entries(n.resources).filter(([, v]) => v.allocatable || v.requested)
      .map(([r, v]) => h("div", { class: "card" }, bar(r, v.requested, v.allocatable), h("div", {}, r)))),
    h("p", {}, Object.entries(n.labels).map(([k, v]) => h("span", { class: "tag" }, `${k}=${v}`)),
      n.taints.map((t) => h("span", { class: "tag" }, t)), n.unschedulable ? h("span", { class: "tag" }, "cordoned") : null),
    n.devices.published.length ? h("p", {}, h("b", {}, `DRA devices (${used.size} of ${n.devices.published.length} allocated): `),
      n.devices.published.map((d) => h("span", { class: used.has(d) ? "tag status-Scheduled" : "tag" }, d))) : null);
}
