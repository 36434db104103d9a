"""What-if in the browser: a plugin's weight changed in the Configuration page's form moves a
pod, as ``kubesched simulate --config`` with that weight moves it; the Compare page shows
the two configurations' placements and, per plugin, ``explain``'s scores for each; a manifest
with a mistake is refused with the problem on its line of the editor, nothing run.

The cluster is two equal nodes where weights decide (tests/ui/fixtures/weights): node-a is
tainted PreferNoSchedule, node-b already runs a 3-cpu pod; the pending ``web`` pod goes to node-b
by default (TaintToleration's weight 3 outweighs NodeResourcesFit's 1) and, with
NodeResourcesFit weighing 10, to the free node-a. (The quick start's pods are placed the same
under any single weight: its scores tie or one node fits.)"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import yaml

from _yaml_bomb import billion_laughs, manifest_bomb
from kubesched.api import EXCESSIVE_ALIASING
from ui._fixtures import FIT_WEIGHS_10

from .conftest import QUICKSTART, REPO, explain_json, kubesched

if TYPE_CHECKING:
    from playwright.sync_api import Page

    from kubesched.testing.browser import UIServer

WEIGHTS = REPO / "tests" / "ui" / "fixtures" / "weights" / "cluster.yaml"


def _placements(*args: str | Path) -> dict[str, str | None]:
    out = json.loads(kubesched("simulate", *args, "-o", "json"))
    return {p["pod"]: p.get("node") for p in out["pods"]}


def test_a_weight_changed_in_the_form_moves_the_pod_as_simulate_with_that_config_does(
        page: Page, ui_server: Callable[..., UIServer], tmp_path: Path) -> None:
    server = ui_server(WEIGHTS)
    page.goto(f"{server.url}/#/pods")
    assert page.locator('[data-testid=pod-row][data-pod="default/web"] td').nth(2).inner_text() == "node-b"

    page.goto(f"{server.url}/#/config")
    weight = page.get_by_label("NodeResourcesFit weight")
    assert weight.input_value() == "1"
    weight.fill("10")
    page.locator("#config-weights-form-apply").click()
    editor = page.locator("#config-editor")
    page.wait_for_function(
        "() => document.getElementById('config-editor').value.includes('weight: 10')")
    config = yaml.safe_load(editor.input_value())
    score = config["profiles"][0]["plugins"]["score"]["enabled"]
    assert {"name": "NodeResourcesFit", "weight": 10} in score

    page.locator("#config-run").click()
    moved = page.locator('#config-changes-table tr[data-pod="default/web"]')
    assert moved.get_attribute("data-change") == "moved"
    cells = moved.locator("td").all_inner_texts()
    assert cells[:4] == ["default/web", "moved", "node-b (Scheduled)", "node-a (Scheduled)"]

    # the same configuration, written by the page, given to simulate: the same placements
    written = tmp_path / "config.yaml"
    written.write_text(editor.input_value())
    assert _placements(WEIGHTS)["default/web"] == "node-b"
    assert _placements(WEIGHTS, "--config", written)["default/web"] == "node-a"


def test_a_manifest_with_a_mistake_is_refused_on_its_line(page: Page, quickstart_ui: UIServer) -> None:
    page.goto(f"{quickstart_ui.url}/#/whatif")
    editor = page.locator("#whatif-editor")
    text = editor.input_value()
    assert "kind: Pod" in text
    # the example's cpu request, made a quantity that is none: the problem is placed on the
    # first line of the object that holds it, and names the field
    lines = text.split("\n")
    (row,) = [i for i, line in enumerate(lines) if "cpu: 500m" in line]
    lines[row] = lines[row].replace("500m", "lots")
    start = next(i for i, line in enumerate(lines) if line.startswith("apiVersion:")) + 1
    editor.fill("\n".join(lines))
    page.locator("#whatif-run").click()
    problem = page.locator("#whatif-editor-problems li.problem")
    assert problem.get_attribute("data-line") == str(start)
    assert problem.inner_text().startswith(f"line {start}: what-if.yaml: document 1 (Pod default/what-if): "
                                           "spec.containers[0].resources.requests.cpu: ")
    assert problem.inner_text().endswith("got 'lots'")
    assert page.locator(f"#whatif-editor-box .gutter .line.error[data-line='{start}']").count() == 1
    assert page.locator("#whatif-refused").inner_text() == "Nothing ran: see the problems above."
    # the served view is as it was: nothing half-applied
    page.goto(f"{quickstart_ui.url}/#/pods")
    rows = page.get_by_test_id("pod-row")
    rows.first.wait_for()  # the page draws its table at once
    shown = {r.get_attribute("data-pod"): r.locator("td").nth(2).inner_text() for r in rows.all()}
    assert shown == {pod: node or "–" for pod, node in _placements(QUICKSTART).items()}


def test_two_configurations_compared_side_by_side_with_explains_totals(
        page: Page, ui_server: Callable[..., UIServer], tmp_path: Path) -> None:
    config_b = tmp_path / "fit-10.yaml"
    config_b.write_text(FIT_WEIGHS_10)
    want = {"A": explain_json(WEIGHTS, "--pod", "default/web"),
            "B": explain_json(WEIGHTS, "--pod", "default/web", "--config", config_b)}
    server = ui_server(WEIGHTS)
    page.goto(f"{server.url}/#/compare")
    page.locator("#compare-b").fill(FIT_WEIGHS_10)
    page.locator("#compare-run").click()
    row = page.locator('#compare-table tr[data-pod="default/web"]')
    row.wait_for()
    assert row.locator("td").all_inner_texts()[:3] == ["default/web", "node-b", "node-a"]

    row.click()
    reasons = page.locator('#compare-reasons-table[data-pod="default/web"]')
    reasons.wait_for()
    assert reasons.locator("li").all_inner_texts() == ["A: selects node-b", "B: selects node-a"]
    heads = reasons.locator("thead th").all_inner_texts()[1:]
    totals = reasons.locator('tr[data-plugin="total"] td').all_inner_texts()[1:]
    fits = reasons.locator('tr[data-plugin="NodeResourcesFit"] td').all_inner_texts()[1:]
    for head, total, fit in zip(heads, totals, fits, strict=True):
        side, node = head.split(" on ")
        (n,) = [n for n in want[side]["nodes"] if n["name"] == node]
        assert total == str(n["totalScore"]), head
        (score,) = [s for s in n["scores"] if s["plugin"] == "NodeResourcesFit"]
        assert fit == str(score["weighted"]), head


# Every text an element shows, kept as it changes (a run on the quick start is quick: its
# progress shows for a moment, between two of the event stream's events).
RECORD_TEXTS = """(id) => {
  window.shown = [];
  const el = document.getElementById(id);
  new MutationObserver((records) => {
    for (const r of records) for (const n of r.addedNodes) window.shown.push(n.textContent);
  }).observe(el, { childList: true, subtree: true });
}"""


def test_whatif_and_compare_show_their_progress(page: Page, quickstart_ui: UIServer) -> None:
    """As a replay does: pods placed of those to place, per run, streamed while they run."""
    page.goto(f"{quickstart_ui.url}/#/whatif")
    page.locator("#whatif-editor").wait_for()
    page.evaluate(RECORD_TEXTS, "whatif-status")
    page.locator("#whatif-run").click()
    page.locator("#whatif-changes").wait_for()
    shown = page.evaluate("() => window.shown")
    assert shown[0] == "simulating…"
    progress = [t for t in shown if t.startswith("simulating… ") and " pods placed" in t]
    assert progress, shown
    counts = progress[-1].removeprefix("simulating… ").removesuffix(" pods placed")
    done, total = map(int, counts.split(" of "))
    assert 0 < done <= total
    assert page.locator("#whatif-status").inner_text() == ""  # cleared once the answer is drawn

    page.goto(f"{quickstart_ui.url}/#/compare")
    page.locator("#compare-run").wait_for()
    page.evaluate(RECORD_TEXTS, "compare-status")
    page.locator("#compare-run").click()
    page.locator("#compare-none").wait_for()  # the same configuration on both sides
    shown = page.evaluate("() => window.shown")
    assert any(t.startswith("simulating… run B: ") and t.endswith(" pods placed") for t in shown), shown


def test_an_alias_bomb_in_the_editors_is_refused_with_its_one_line(
        page: Page, quickstart_ui: UIServer) -> None:
    page.goto(f"{quickstart_ui.url}/#/whatif")
    page.locator("#whatif-editor").fill(manifest_bomb())
    page.locator("#whatif-run").click()
    assert page.locator("#whatif-error").inner_text() == f"what-if.yaml: {EXCESSIVE_ALIASING}"
    page.goto(f"{quickstart_ui.url}/#/config")
    editor = page.locator("#config-editor")
    editor.fill(editor.input_value() + billion_laughs(key="profiles"))
    page.locator("#config-check").click()
    assert page.locator("#config-editor-problems li.problem").inner_text() == \
        f"config.yaml: {EXCESSIVE_ALIASING}"
