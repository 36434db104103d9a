"""The page works with no network: every page of the quick start, visited in turn, asks only
its own server for anything (scripts, styles, data), and draws without an error."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import Page

    from kubesched.testing.browser import UIServer

# each page and an element it draws once its data is in
PAGES = {
    "cluster": "[data-testid=node-row]",
    "pods": "[data-testid=pod-row]",
    "decision?pod=default/db-0": "[data-testid=filter-matrix]",
    "whatif": "#whatif-editor",
    "config": "#config-editor",
    "compare": "#compare-b",
    "timeline": "#timeline-run",
}


def test_every_page_asks_only_its_own_server(page: Page, quickstart_ui: UIServer) -> None:
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    for route, drawn in PAGES.items():
        page.goto(f"{quickstart_ui.url}/#/{route}")
        page.locator(drawn).first.wait_for()
    assert asked
    elsewhere = [url for url in asked if not url.startswith(quickstart_ui.url + "/")]
    assert not elsewhere
