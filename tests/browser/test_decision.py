"""A pod's decision in the browser is ``kubesched explain -o json``'s: the quick start served, a
pending pod clicked on the Pods page, and the Filter and Score matrices read back from the page
(what a user sees: each cell's verdict and reasons, each score's weighted value, normalized ×
weight and raw, the totals, the chosen and tied nodes) against the command's JSON."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from .conftest import QUICKSTART, explain_json

if TYPE_CHECKING:
    from playwright.sync_api import Page

    from kubesched.testing.browser import UIServer

# the short verdicts the Filter matrix shows for explain's codes
SHORT = {"Success": "pass", "Skip": "skip", "Unschedulable": "fail",
         "UnschedulableAndUnresolvable": "FAIL", "Error": "error"}

# every row of a matrix: the node, then per plugin the cell's first line and its second
# (a reason, or normalized × weight and raw), as drawn
READ_MATRIX = """(section) => [...section.querySelectorAll("tbody tr")].map((tr) => ({
  node: tr.dataset.node,
  cells: Object.fromEntries([...tr.querySelectorAll("td[data-plugin]")].map((td) => [
    td.dataset.plugin,
    [td.firstChild ? td.firstChild.textContent : "",
     td.querySelector(".reason") ? td.querySelector(".reason").textContent : ""]])),
  feasible: tr.querySelector("[data-testid=feasible]")?.textContent ?? null,
  total: tr.querySelector("[data-testid=total]")?.textContent ?? null,
}))"""


def _open_decision_from_the_pods_page(page: Page, url: str, pod: str) -> None:
    page.goto(f"{url}/#/pods")
    page.locator(f'[data-testid=pod-row][data-pod="{pod}"]').click()
    page.wait_for_url(f"**/#/decision?pod={pod.replace('/', '%2F')}")
    page.get_by_role("heading", name=f"Pod {pod}").wait_for()


def _expected_filter(d: dict[str, Any]) -> tuple[list[dict[str, Any]], list[str]]:
    plugins = list(dict.fromkeys(f["plugin"] for n in d["nodes"] for f in n["filters"]))
    skipped = [p for p in plugins
               if all(f["code"] == "Skip" for n in d["nodes"] for f in n["filters"] if f["plugin"] == p)]
    rows = []
    for n in sorted(d["nodes"], key=lambda n: n["name"]):
        cells = {}
        for f in n["filters"]:
            if f["plugin"] in skipped:
                continue
            reason = "; ".join(f["reasons"]) if f["reasons"] and f["code"] != "Success" else ""
            cells[f["plugin"]] = [SHORT[f["code"]], reason]
        rows.append({"node": n["name"], "cells": cells, "feasible": "yes" if n["feasible"] else "no",
                     "total": None})
    return rows, skipped


def _expected_score(d: dict[str, Any]) -> list[dict[str, Any]]:
    feasible = [n for n in d["nodes"] if n["feasible"] and n["scores"]]
    # the page sorts the Score matrix by total, highest first (a stable sort over explain's order)
    feasible.sort(key=lambda n: -n["totalScore"])
    return [{"node": n["name"],
             "cells": {s["plugin"]: [str(s["weighted"]), f"{s['normalized']}×{s['weight']} · raw {s['raw']}"]
                       for s in n["scores"]},
             "feasible": None, "total": str(n["totalScore"])} for n in feasible]


@pytest.mark.parametrize("pod", [
    pytest.param("default/web-0", id="spread-pod-scored-on-five-nodes-one-tainted"),
    pytest.param("default/db-0", id="high-priority-pod-that-fits-only-by-preemption"),
    pytest.param("default/report-0", id="zone-pinned-pod"),
])
def test_a_pending_pods_matrices_in_the_page_are_explains(
        page: Page, quickstart_ui: UIServer, pod: str) -> None:
    want = explain_json(QUICKSTART, "--pod", pod)
    _open_decision_from_the_pods_page(page, quickstart_ui.url, pod)

    filter_rows, skipped = _expected_filter(want)
    section = page.get_by_test_id("filter-matrix")
    assert section.evaluate(READ_MATRIX) == filter_rows
    feasible = sum(n["feasible"] for n in want["nodes"])
    assert section.locator("h2").inner_text() == f"Filter ({feasible} of {len(want['nodes'])} nodes feasible)"
    if skipped:
        assert section.get_by_text("Skipped (nothing to check for this pod): ").inner_text().endswith(
            ", ".join(skipped))

    score_rows = _expected_score(want)
    if score_rows:
        assert page.get_by_test_id("score-matrix").evaluate(READ_MATRIX) == score_rows
    else:
        assert page.get_by_test_id("score-matrix").count() == 0

    if want["selectedNode"]:
        shown = page.get_by_test_id("selected-node").inner_text()
        assert shown.startswith(f"Selected node: {want['selectedNode']}")
        if len(want["tiedNodes"]) > 1:
            assert f"(tied: {', '.join(want['tiedNodes'])})" in shown
            # the chosen row and the tied ones are marked
            chosen = page.get_by_test_id("score-matrix").locator("tr.chosen")
            assert chosen.get_attribute("data-node") == want["selectedNode"]
    else:
        assert page.locator("pre.message").first.inner_text() == want["message"]
    if want["postFilter"] and want["postFilter"]["nominatedNode"]:
        assert page.get_by_text(f"would nominate {want['postFilter']['nominatedNode']}").is_visible()
        for victim in want["postFilter"]["victims"]:
            assert page.get_by_role("link", name=victim).is_visible()


def test_the_score_matrix_sorts_on_a_column(page: Page, quickstart_ui: UIServer) -> None:
    want = explain_json(QUICKSTART, "--pod", "default/web-0")
    page.goto(f"{quickstart_ui.url}/#/decision?pod=default/web-0")
    matrix = page.get_by_test_id("score-matrix")
    matrix.locator("th:text-is('Node')").click()
    names = sorted(n["name"] for n in want["nodes"] if n["feasible"])
    assert matrix.locator("tbody tr").evaluate_all("(rows) => rows.map((r) => r.dataset.node)") == names
    matrix.locator("th:text-is('Node')").click()
    assert matrix.locator("tbody tr").evaluate_all("(rows) => rows.map((r) => r.dataset.node)") == names[::-1]


def test_the_decision_downloads_as_explains_json(page: Page, quickstart_ui: UIServer) -> None:
    want = explain_json(QUICKSTART, "--pod", "default/db-0")
    page.goto(f"{quickstart_ui.url}/#/decision?pod=default/db-0")
    with page.expect_download() as download:
        page.get_by_role("link", name="Download JSON (explain -o json)").click()
    assert json.loads(Path(download.value.path()).read_text()) == want
    assert download.value.suggested_filename == "explain-default_db-0.json"


def _cluster(path: Path, nodes: int) -> Path:
    docs = [{"apiVersion": "v1", "kind": "Node",
             "metadata": {"name": f"node-{i:03d}", "labels": {"kubernetes.io/hostname": f"node-{i:03d}"}},
             "status": {"allocatable": {"cpu": str(1 + i % 4), "memory": "8Gi", "pods": "110"}}}
            for i in range(nodes)]
    docs.append({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "big", "namespace": "default"},
                 "spec": {"containers": [{"name": "main", "resources": {"requests": {"cpu": "2"}}}]}})
    path.write_text("---\n".join(json.dumps(d) + "\n" for d in docs))
    return path


def test_a_decision_over_many_nodes_shows_them_a_page_at_a_time(
        page: Page, ui_server: Callable[..., UIServer], tmp_path: Path) -> None:
    cluster = _cluster(tmp_path / "cluster.yaml", 250)
    want = explain_json(cluster, "--pod", "default/big")
    server = ui_server(cluster)
    page.goto(f"{server.url}/#/decision?pod=default/big")
    matrix = page.get_by_test_id("filter-matrix")
    rows = matrix.locator("tbody tr")
    rows.first.wait_for()
    assert rows.count() == 200  # a page of the matrix
    matrix.get_by_role("button", name="Show 50 more of 50").click()
    filter_rows, _ = _expected_filter(want)
    page.wait_for_function(
        "() => document.querySelectorAll('[data-testid=filter-matrix] tbody tr').length === 250")
    assert matrix.evaluate(READ_MATRIX) == filter_rows
    # nodes of 1 cpu fail NodeResourcesFit with its reason; the feasible ones are scored
    assert sum(r["feasible"] == "no" for r in filter_rows) == 63
    assert page.get_by_test_id("score-matrix").locator("tbody tr").count() == 187
