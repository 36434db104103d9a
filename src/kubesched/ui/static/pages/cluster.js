// The cluster: totals, then the nodes a page at a time (filtered, sorted and paged by the
// server), each with its allocation bars; a node's pods are one click away.
import { api } from "../api.js";
import { navigate } from "../app.js";
import { amount, bar, debounce, h, pager, sortHeader } from "../dom.js";

const LIMIT = 100;

export async function render(root, params) {
  const state = {
    q: params.get("q") || "", sort: params.get("sort") || "name", desc: params.get("order") === "desc",
    offset: Number(params.get("offset") || 0),
  };
  const summary = await api.summary();
  root.append(h("h1", {}, "Cluster"), cards(summary));
  const table = h("div");
  const search = h("input", { type: "search", placeholder: "Filter nodes by name or label (key=value)", value: state.q,
    "aria-label": "Filter nodes" });
  root.append(h("div", { class: "toolbar" }, search), table);

  const go = () => navigate("cluster", { q: state.q, sort: state.sort === "name" ? "" : state.sort,
    order: state.desc ? "desc" : "", offset: state.offset || "" });
  search.addEventListener("input", debounce(() => { state.q = search.value; state.offset = 0; go(); }, 250));
  const onSort = (key) => { state.desc = state.sort === key ? !state.desc : key !== "name"; state.sort = key; state.offset = 0; go(); };

  const page = await api.nodes({ q: state.q, sort: state.sort, order: state.desc ? "desc" : "asc",
    offset: state.offset, limit: LIMIT });
  const withDevices = page.items.some((n) => n.devices.total > 0);
  const head = h("tr", {}, sortHeader("Node", "name", state, onSort),
    page.resources.map((r) => sortHeader(r, r, state, onSort)),
    withDevices ? h("th", {}, "DRA devices") : null,
    sortHeader("Pods on it", "pods-count", state, onSort), h("th", {}, "Taints"));
  const rows = page.items.map((n) => h("tr", { class: "clickable", title: "Show its pods", "data-testid": "node-row", "data-node": n.name,
      onclick: () => navigate("pods", { node: n.name }) },
    h("td", {}, n.name, n.unschedulable ? h("span", { class: "tag" }, "cordoned") : null),
    page.resources.map((r) => {
      const v = n.resources[r];
      return h("td", {}, v ? bar(r, v.requested, v.allocatable) : h("span", { class: "muted" }, "–"));
    }),
    withDevices ? h("td", {}, n.devices.total ? bar("devices", n.devices.allocated, n.devices.total) : "–") : null,
    h("td", { class: "num" }, n.podCount),
    h("td", {}, n.taints.map((t) => h("span", { class: "tag" }, t)))));
  table.replaceChildren(pager(page.total, page.offset, page.limit, (o) => { state.offset = o; go(); }),
    h("table", {}, h("thead", {}, head), h("tbody", {}, rows)));
}

function cards(s) {
  const st = s.statuses;
  const card = (label, value, onclick) => h("div", { class: "card" + (onclick ? " clickable" : ""), onclick },
    h("b", {}, value), label);
  const total = (r) => s.totals[r] ? `${amount(r, s.totals[r].requested)} / ${amount(r, s.totals[r].allocatable)}` : "–";
  return h("div", { class: "cards" },
    card("nodes", s.nodes),
    card("pods", s.pods, () => navigate("pods")),
    card("waiting (no node)", s.waiting, () => navigate("pods", { status: "waiting" })),
    card("scheduled here", st.Scheduled || 0, () => navigate("pods", { status: "Scheduled" })),
    card("preemptions", s.preemptions.length),
    card("cpu requested", total("cpu")),
    card("memory requested", total("memory")));
}
