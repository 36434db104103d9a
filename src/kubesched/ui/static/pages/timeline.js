// Over time: a trace replayed on the virtual clock (as `kubesched replay`), its progress
// streamed while it runs, then allocation, pending pods and latency as charts, and the
// summary.json figures; optionally under a second configuration too (as `kubesched compare`:
// same trace, same seed), both drawn on the same charts and their figures side by side.
import { call, chart, follow, kept, lab } from "../lab.js";
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
  const edited = kept.get("config");
  const useEdited = h("input", { type: "checkbox", id: "timeline-edited", checked: !!edited, disabled: !edited });
  const compare = h("input", { type: "checkbox", id: "timeline-compare", disabled: !edited });
  const bar = h("progress", { id: "timeline-progress", max: 1, value: 0, hidden: true });
  const status = h("span", { id: "timeline-status", class: "busy" });
  const out = h("div", { id: "timeline-result" });
  let runs = 0;  // the replay shown is the last one started
  const stop = () => { run.disabled = false; bar.hidden = true; };
  const run = h("button", { type: "button", id: "timeline-run", onclick: async () => {
    const mine = ++runs;
    stop();
    run.disabled = true; out.replaceChildren(); status.textContent = "starting…";
    // Compared: A is the served configuration, B the edited one.
    const body = { trace: select.value };
    if (compare.checked && edited) body.compare = edited;
    else if (useEdited.checked && edited) body.config = edited;
    try {
      const answer = await call("/api/replay", body);
      if (!answer.ok) {
        out.replaceChildren(h("pre", { class: "message status-Unschedulable", id: "timeline-refused" },
          `${answer.problems.what}:\n` + answer.problems.problems.map((p) => (p.line ? `line ${p.line}: ` : "") + p.message).join("\n")));
        stop(); status.textContent = "";
        return;
      }
      bar.hidden = false; bar.value = 0;
      let result;
      try {
        result = await follow(answer.data.id, (p) => {
          if (mine !== runs) return;
          if (p.total) { bar.max = p.total; bar.value = p.done; }
          const which = p.runs > 1 ? `run ${"AB"[p.run]}: ` : "";
          status.textContent = p.state === "queued" ? "waiting for another replay to finish…"
            : `${which}${p.done} of ${p.total || "?"} trace events, t = ${Math.round(p.virtualSeconds)}s`;
        });
      } catch (err) {
        result = { ok: false, problems: { error: String(err.message || err) } };
      }
      if (mine !== runs) return;
      stop();
      if (!result.ok) {
        status.textContent = "";
        out.replaceChildren(h("pre", { class: "message status-Unschedulable", id: "timeline-failed" }, result.problems.error));
        return;
      }
      status.textContent = result.data.runs.map((r) => `${r.points} points`).join(" | ");
      out.replaceChildren(draw(result.data.runs));
    } catch (err) {
      stop(); status.textContent = "";
      out.replaceChildren(h("pre", { class: "message", id: "timeline-error" }, String(err.message || err)));
    }
  } }, "Replay");
  root.append(h("h1", {}, "Over time"),
    h("p", { class: "muted" }, "Replays a trace on the virtual clock as ", h("code", {}, "kubesched replay"),
      " does (same seed, same figures). Traces: those given with ", h("code", {}, "--trace"), " and the bundled example.",
      edited ? "" : " Edit the configuration on the Configuration page to replay under it or compare."),
    h("div", { class: "toolbar" }, select,
      h("label", {}, useEdited, " under the edited configuration"),
      h("label", { title: "A: the served configuration, B: the edited one" }, compare, " compare served (A) and edited (B)"),
      run, bar, status), out);
}

function draw(runs) {
  const many = runs.length > 1;
  const of = (chartName) => runs.flatMap((r, k) => r.charts[chartName].map((c) => ({
    name: many ? `${r.label} ${c}` : c, x: r.series.time, values: r.series[c], dashed: k > 0 })));
  const figures = h("table", { id: "timeline-summary", class: "weights" },
    h("caption", {}, "summary.json"),
    many ? h("thead", {}, h("tr", {}, h("th", {}, ""), runs.map((r) => h("th", { class: "num" }, r.label)))) : null,
    h("tbody", {}, FIGURES.map(([path, label]) => {
      const values = runs.map((r) => pick(r.summary, path));
      if (values.every((v) => v === undefined || v === null)) return null;
      const shown = (v) => (v === undefined || v === null ? "–" : path.startsWith("allocation.") ? pct(v)
        : typeof v === "number" && !Number.isInteger(v) ? v.toFixed(3) : v);
      return h("tr", { dataset: { figure: path } }, h("td", {}, label),
        values.map((v, k) => h("td", { class: "num", dataset: { run: runs[k].label } }, shown(v))));
    })));
  return h("div", {},
    h("div", { class: "charts", id: "timeline-charts" },
      chart("timeline-chart-allocation", "Allocation (requested / allocatable)", of("allocation"), pct),
      chart("timeline-chart-pending", "Pending pods", of("pending"), count),
      chart("timeline-chart-latency", "Scheduling latency (creation → bound)", of("latency"), secs)),
    figures);
}
