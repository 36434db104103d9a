"""A snapshot shows the same cluster: the page's Snapshot link downloads what ``kubesched
snapshot`` writes for the same input, and ``kubesched ui`` on that file draws the same cluster
(totals, every node's allocation bars, pod counts and taints) and the same pods."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from .conftest import QUICKSTART, kubesched

if TYPE_CHECKING:
    from playwright.sync_api import Page

    from kubesched.testing.browser import UIServer


def _cluster_as_drawn(page: Page, url: str) -> tuple[str, list[str]]:
    page.goto(f"{url}/#/cluster")
    rows = page.get_by_test_id("node-row")
    rows.first.wait_for()
    return page.locator(".cards").inner_text(), rows.all_inner_texts()


def _pods_as_drawn(page: Page, url: str) -> list[str]:
    page.goto(f"{url}/#/pods")
    rows = page.get_by_test_id("pod-row")
    rows.first.wait_for()
    return rows.all_inner_texts()


def test_a_snapshot_downloaded_from_the_page_shows_the_same_cluster(
        page: Page, quickstart_ui: UIServer, ui_server: Callable[..., UIServer], tmp_path: Path) -> None:
    cards, nodes = _cluster_as_drawn(page, quickstart_ui.url)
    pods = _pods_as_drawn(page, quickstart_ui.url)
    assert len(nodes) == 6 and len(pods) == 13

    with page.expect_download() as download:
        page.get_by_role("link", name="Snapshot").click()
    saved = tmp_path / download.value.suggested_filename
    download.value.save_as(saved)
    assert saved.name == "snapshot.yaml"
    assert saved.read_text() == kubesched("snapshot", QUICKSTART)

    from_snapshot = ui_server(saved)
    assert _cluster_as_drawn(page, from_snapshot.url) == (cards, nodes)
    assert _pods_as_drawn(page, from_snapshot.url) == pods
