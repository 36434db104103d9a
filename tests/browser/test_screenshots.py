"""The screenshots of ``kubesched ui``'s main views in the documentation (``docs/images/ui-*.png``,
shown on docs/commands/ui.md), taken from the quick start as a user sees it.

Every run draws the four views and checks each picture (a PNG of the viewport's size); with
``pytest tests/browser/test_screenshots.py --screenshots`` they are written into docs/images/,
otherwise into a temporary folder, so that the docs' pictures change only when asked."""

from __future__ import annotations

import re
import struct
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from .conftest import REPO

if TYPE_CHECKING:
    from playwright.sync_api import Browser

    from kubesched.testing.browser import UIServer

VIEWPORT = {"width": 1280, "height": 800}
VIEWS = ("cluster", "decision", "whatif", "replay")

_HOLD_RESULTS = """() => {
  const held = [];
  const add = EventSource.prototype.addEventListener;
  EventSource.prototype.addEventListener = function (type, listener, ...rest) {
    // closed at once, as the page's own listener does first: the stream's end is no error
    const hold = (ev) => { this.close(); held.push(() => listener.call(this, ev)); };
    return add.call(this, type, type === "result" ? hold : listener, ...rest);
  };
  window.__releaseResults = () => {
    EventSource.prototype.addEventListener = add;
    held.splice(0).forEach((deliver) => deliver());
  };
}"""
"""Hold back the ``result`` of the jobs the page follows from now on, until
``window.__releaseResults()``: their progress events still arrive, and the stream is closed on
the result as the page closes it."""


@pytest.fixture()
def out_dir(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    return REPO / "docs" / "images" if request.config.getoption("screenshots") else tmp_path


def _png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", path
    width, height = struct.unpack(">II", head[16:24])
    return width, height


def test_screenshots_of_the_main_views(browser: Browser, quickstart_ui: UIServer, out_dir: Path) -> None:
    context = browser.new_context(viewport=VIEWPORT, device_scale_factor=1)  # type: ignore[arg-type]
    context.set_default_timeout(30_000)
    page = context.new_page()
    url = quickstart_ui.url
    try:
        page.goto(f"{url}/#/cluster")
        page.get_by_test_id("node-row").first.wait_for()
        page.screenshot(path=out_dir / "ui-cluster.png")

        page.goto(f"{url}/#/decision?pod=default/web-0")
        page.get_by_test_id("score-matrix").wait_for()
        page.screenshot(path=out_dir / "ui-decision.png")

        page.goto(f"{url}/#/whatif")
        page.locator("#whatif-run").click()
        page.locator("#whatif-changes").wait_for()
        # Run it again and draw the page while the run's progress shows beside the button (the
        # last answer's changes still below): the job's result is held back in the page until
        # the picture is taken, so the line is there however fast the quick start simulates.
        page.evaluate(_HOLD_RESULTS)
        page.locator("#whatif-run").click()
        page.get_by_text(re.compile(r"pods placed$")).wait_for()
        page.screenshot(path=out_dir / "ui-whatif.png", full_page=True)
        page.evaluate("window.__releaseResults()")
        page.locator("#whatif-run:enabled").wait_for()

        page.goto(f"{url}/#/timeline")
        page.locator("#timeline-run").click()
        chart = page.locator("#timeline-chart-allocation svg")
        chart.wait_for()
        box = chart.bounding_box()
        assert box is not None
        chart.hover(position={"x": box["width"] * 0.4, "y": box["height"] * 0.5})
        page.locator("#timeline-chart-allocation-tip").wait_for(state="visible")
        page.screenshot(path=out_dir / "ui-replay.png")
    finally:
        context.close()
    for view in VIEWS:
        width, height = _png_size(out_dir / f"ui-{view}.png")
        assert width == VIEWPORT["width"] and height >= VIEWPORT["height"], view
