// What-if: manifests typed here are added on top of the inputs (an object of the same kind and
// name replaces the input's: an edit), simulated under the configuration of the Configuration
// page, and compared with the inputs as served: the pods whose outcome changed.
import { changes, editor, kept, placed, startJob } from "../lab.js";
import { h } from "../dom.js";

const EXAMPLE = `# Manifests added on top of the inputs; an object named as one of the inputs replaces it.
apiVersion: v1
kind: Pod
metadata:
  name: what-if
  namespace: default
spec:
  containers:
  - name: main
    resources:
      requests:
        cpu: 500m
        memory: 256Mi
`;

export async function render(root) {
  const ed = editor("whatif-editor", kept.get("manifests", EXAMPLE), { placeholder: "Manifests (YAML)" });
  const status = h("span", { id: "whatif-status", class: "busy" });
  const result = h("div", { id: "whatif-result" });
  const config = kept.get("config");
  const run = h("button", { type: "button", id: "whatif-run", onclick: async () => {
    kept.set("manifests", ed.value);
    run.disabled = true;
    status.textContent = "simulating…";
    try {
      const body = { manifests: ed.value };
      if (config) body.config = config;
      const answer = await startJob("/api/whatif", body, (p) => { status.textContent = placed(p); });
      ed.show(answer.ok ? null : answer.problems);
      result.replaceChildren(answer.ok ? changes("whatif-changes", answer.data, ["inputs", "with the what-if"])
        : h("p", { class: "status-Unschedulable", id: "whatif-refused" }, answer.problems.what === "manifests"
          ? "Nothing ran: see the problems above." : `Nothing ran: the ${answer.problems.what} was refused: ${answer.problems.error}`));
      status.textContent = "";
    } catch (err) {
      status.textContent = "";
      result.replaceChildren(h("pre", { class: "message", id: "whatif-error" }, String(err.message || err)));
    } finally { run.disabled = false; }
  } }, "Simulate with these");
  root.append(h("h1", {}, "What-if"),
    h("p", { class: "muted" }, "Add or edit manifests; they are checked as ",
      h("code", {}, "kubesched validate"), " checks them and simulated on top of the inputs",
      config ? " under the configuration edited on the " : " (configuration: the one served; edit it on the ",
      h("a", { href: "#/config" }, "Configuration"), config ? " page." : " page)."),
    ed.element, h("div", { class: "toolbar" }, run, status), result);
}
