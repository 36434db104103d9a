"""Over time in the browser: the bundled example trace (``examples/replay``) replayed from the
page draws its charts, the hover over a chart shows the values at that time, and the figures
under the charts are ``kubesched replay``'s summary for the same trace and seed."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from .conftest import REPO, kubesched

if TYPE_CHECKING:
    from playwright.sync_api import Page

    from kubesched.testing.browser import UIServer

EXAMPLE = REPO / "examples" / "replay"


def test_a_replay_run_from_the_page_draws_charts_with_hover_and_replays_summary(
        page: Page, quickstart_ui: UIServer) -> None:
    want = json.loads(kubesched("replay", EXAMPLE / "trace.jsonl", "--cluster", EXAMPLE / "cluster.yaml",
                                "--no-plots", "-o", "json"))
    page.goto(f"{quickstart_ui.url}/#/timeline")
    page.locator("#timeline-run").click()
    charts = page.locator("#timeline-charts")
    charts.wait_for()
    for name in ("allocation", "pending", "latency"):
        chart = page.locator(f"#timeline-chart-{name}")
        assert int(chart.get_attribute("data-points") or 0) > 1
        assert chart.locator("path.series").count() >= 1

    # hover: the rule and the values at that time (pending pods, as counts)
    pending = page.locator("#timeline-chart-pending")
    tip = page.locator("#timeline-chart-pending-tip")
    assert tip.is_hidden()
    svg = pending.locator("svg")
    box = svg.bounding_box()
    assert box is not None
    svg.hover(position={"x": box["width"] * 0.5, "y": box["height"] * 0.5})
    tip.wait_for(state="visible")
    lines = tip.inner_text().splitlines()
    assert lines[0] == f"t = {tip.get_attribute('data-time')}s"
    assert 0 < int(tip.get_attribute("data-time") or 0) < want["virtualSeconds"]
    name, value = lines[1].rsplit(": ", 1)
    assert name and value.isdigit()
    svg.hover(position={"x": 1, "y": 1})
    page.mouse.move(0, 0)
    tip.wait_for(state="hidden")

    # the summary.json figures, as replay prints them
    figures = page.locator("#timeline-summary")
    shown = {row.get_attribute("data-figure"): row.locator("td").nth(1).inner_text()
             for row in figures.locator("tr[data-figure]").all()}
    for key in ("pods", "scheduled", "pending", "unschedulable", "preemptions", "evictions", "attempts",
                "events"):
        assert shown[key] == str(want[key]), key
    assert shown["latencySeconds.p99"] == f"{want['latencySeconds']['p99']:.3f}"
    assert shown["allocation.cpu"] == f"{round(want['allocation']['cpu'] * 100)}%"
