// Over time: a trace replayed on the virtual clock (as `kubesched replay`), its progress
// streamed while it runs, then allocation, pending pods and latency as charts, and the
// summary.json figures.
import { call, chart, kept, lab } from "../lab.js";
import { h } from "../dom.js";

const pct = (v) => `${Math.round(v * 100)}%`;
const secs = (v) => (v >= 100 ? `${Math.round(v)}s` : `${Number(v.toPrecision(2))}s`);
const count = (v) => `${Math.round(v)}`;
const FIGURES = [["pods", "pods"], ["scheduled", "scheduled"], ["pending", "pending"], ["unschedulable", "unschedulable"],
  ["preemptions", "preemptions"], ["evictions", "evictions"], ["attempts", "attempts"],
  ["latencySeconds.p50", "latency p50 (s)"], ["latencySeconds.p99", "latency p99 (s)"],
  ["allocation.cpu", "cpu allocation"], ["allocation.memory", "memory allocation"],
  ["virtualSeconds", "virtual seconds"], ["events", "trace events"]];

function pick(o, path) {
  return path.split(".").reduce((x, k) => (x && typeof x === "object" ? x[k] : undefined), o);
}

export async function render(root) {
  const start = await lab();
  const select = h("select", { id: "timeline-trace", "aria-label": "Trace" },
    start.traces.map((t) => h("option", { value: t.name }, `${t.name} (${t.format})`)));
  const useEdited = h("input", { type: "checkbox", id: "timeline-edited", checked: !!kept.get("config") });
  const bar = h("progress", { id: "timeline-progress", max: 1, value: 0, hidden: true });
  const status = h("span", { id: "timeline-status", class: "busy" });
  const out = h("div", { id: "timeline-result" });
  let source = null;
  const run = h("button", { type: "button", id: "timeline-run", onclick: async () => {
    if (source) source.close();
    run.disabled = true; out.replaceChildren(); status.textContent = "starting…";
    const body = { trace: select.value };
    if (useEdited.checked && kept.get("config")) body.config = kept.get("config");
    try {
      const answer = await call("/api/replay", body);
      if (!answer.ok) {
        out.replaceChildren(h("pre", { class: "message status-Unschedulable", id: "timeline-refused" },
          answer.problems.problems.map((p) => (p.line ? `line ${p.line}: ` : "") + p.message).join("\n")));
        run.disabled = false; status.textContent = "";
        return;
      }
      bar.hidden = false; bar.value = 0;
      source = new EventSource(`/api/replay/events?id=${answer.data.id}`);
      source.addEventListener("progress", (ev) => {
        const p = JSON.parse(ev.data);
        if (p.total) { bar.max = p.total; bar.value = p.done; }
        status.textContent = p.state === "queued" ? "waiting for another replay to finish…"
          : `${p.done} of ${p.total || "?"} trace events, t = ${Math.round(p.virtualSeconds)}s`;
      });
      source.addEventListener("timeline", (ev) => {
        source.close(); source = null; run.disabled = false; bar.hidden = true;
        const tl = JSON.parse(ev.data);
        status.textContent = `${tl.points} points`;
        out.replaceChildren(draw(tl));
      });
      source.addEventListener("failed", (ev) => {
        source.close(); source = null; run.disabled = false; bar.hidden = true; status.textContent = "";
        const e = JSON.parse(ev.data);
        out.replaceChildren(h("pre", { class: "message status-Unschedulable", id: "timeline-failed" }, e.error));
      });
      source.onerror = () => {
        if (source) { source.close(); source = null; }
        run.disabled = false; bar.hidden = true;
      };
    } catch (err) {
      run.disabled = false; status.textContent = "";
      out.replaceChildren(h("pre", { class: "message", id: "timeline-error" }, String(err.message || err)));
    }
  } }, "Replay");
  root.append(h("h1", {}, "Over time"),
    h("p", { class: "muted" }, "Replays a trace on the virtual clock as ", h("code", {}, "kubesched replay"),
      " does (same seed, same figures). Traces: those given with ", h("code", {}, "--trace"), " and the bundled example."),
    h("div", { class: "toolbar" }, select, h("label", {}, useEdited, " with the edited configuration"), run, bar, status), out);
}

function draw(tl) {
  const x = tl.series.time;
  const of = (cols) => cols.map((c) => ({ name: c, values: tl.series[c] }));
  const figures = h("table", { id: "timeline-summary", class: "weights" },
    h("caption", {}, "summary.json"),
    h("tbody", {}, FIGURES.map(([path, label]) => {
      const v = pick(tl.summary, path);
      if (v === undefined || v === null) return null;
      const shown = path.startsWith("allocation.") ? pct(v) : typeof v === "number" && !Number.isInteger(v) ? v.toFixed(3) : v;
      return h("tr", { dataset: { figure: path } }, h("td", {}, label), h("td", { class: "num" }, shown));
    })));
  return h("div", {},
    h("div", { class: "charts", id: "timeline-charts" },
      chart("timeline-chart-allocation", "Allocation (requested / allocatable)", x, of(tl.charts.allocation), pct),
      chart("timeline-chart-pending", "Pending pods", x, of(tl.charts.pending), count),
      chart("timeline-chart-latency", "Scheduling latency (creation → bound)", x, of(tl.charts.latency), secs)),
    figures);
}
