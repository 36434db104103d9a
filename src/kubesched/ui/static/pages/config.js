// The KubeSchedulerConfiguration: edited as YAML (checked as --config checks a file, each
// error on its line) or through a form of the score weights (written into the YAML), then the
// inputs simulated again under it, with the What-if page's manifests if any.
import { call, changes, editor, kept, lab, placed, startJob, weightsForm } from "../lab.js";
import { h } from "../dom.js";

export async function render(root) {
  const start = await lab();
  const ed = editor("config-editor", kept.get("config", start.config), { rows: 22, placeholder: "KubeSchedulerConfiguration (YAML)" });
  const status = h("span", { id: "config-status", class: "busy" });
  const form = h("div", { id: "config-weights" });
  const result = h("div", { id: "config-result" });
  const busy = (text) => { status.textContent = text; };

  function drawWeights(profiles) {
    form.replaceChildren(h("h2", {}, "Score weights"), weightsForm("config-weights-form", profiles, async (weights) => {
      if (!Object.keys(weights).length) return;
      busy("writing…");
      try {
        const answer = await call("/api/config/weights", { config: ed.value, weights });
        if (answer.ok) { ed.value = answer.data.config; kept.set("config", ed.value); drawWeights(answer.data.weights); }
        ed.show(answer.ok ? null : answer.problems);
      } catch (err) { ed.show({ problems: [{ message: String(err.message || err), line: null }] }); }
      busy("");
    }));
  }

  const check = h("button", { type: "button", id: "config-check", onclick: async () => {
    busy("checking…");
    try {
      const answer = await call("/api/config/check", { config: ed.value });
      ed.show(answer.ok ? null : answer.problems);
      if (answer.ok) { kept.set("config", ed.value); drawWeights(answer.data.weights); }
      busy(answer.ok ? "valid" : "");
    } catch (err) {  // a text refused whole (an alias bomb): its one line, under the editor
      ed.show({ problems: [{ message: String(err.message || err), line: null }] });
      busy("");
    }
  } }, "Check");
  const rerun = h("button", { type: "button", id: "config-run", onclick: async () => {
    busy("simulating…");
    rerun.disabled = true;
    try {
      const answer = await startJob("/api/whatif", { config: ed.value, manifests: kept.get("manifests") },
        (p) => busy(placed(p)));
      ed.show(answer.ok && answer.problems === undefined ? null : answer.problems);
      if (answer.ok) {
        kept.set("config", ed.value);
        drawWeights(answer.data.weights);
        result.replaceChildren(changes("config-changes", answer.data, ["served", "this configuration"]));
      } else {
        result.replaceChildren(h("p", { class: "status-Unschedulable", id: "config-refused" },
          answer.problems.what === "manifests" ? "The What-if page's manifests were refused: fix them there." :
            "Nothing ran: the configuration has problems (shown above)."));
      }
    } catch (err) {
      result.replaceChildren(h("pre", { class: "message", id: "config-error" }, String(err.message || err)));
    } finally { rerun.disabled = false; busy(""); }
  } }, "Re-run with this configuration");
  const reset = h("button", { type: "button", id: "config-reset", onclick: () => {
    ed.value = start.config; kept.set("config", ""); ed.show(null); drawWeights(start.weights);
  } }, "Back to the served one");
  drawWeights(start.weights);
  root.append(h("h1", {}, "Configuration"),
    h("p", { class: "muted" }, "The KubeSchedulerConfiguration the inputs are simulated under. Comments are lost when the weights form rewrites the YAML."),
    h("div", { class: "lab-columns" }, h("div", {}, ed.element, h("div", { class: "toolbar" }, check, rerun, reset, status)), form),
    result);
}
