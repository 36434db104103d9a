"""``kubesched ui --kubeconfig`` in the browser, against the real API server of ``../shared/k8s``
(started as the live tests start it, skipped with their message where it is absent, mandatory
under ``KUBESCHED_REQUIRE_K8S=1``), read with a token bound only to ``deploy/readonly``'s
ClusterRole: a node and a pending pod created on the API server while the page is open appear
in it without a reload (informers, then the page's event stream), the pod's decision clicked
open is ``explain --kubeconfig``'s, and the API server saw no write."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING

from kubesched.cluster import NotFound
from live._kube import create, events, node_manifest, pod_manifest, rest_for
from live.conftest import ControlPlane, control_plane  # noqa: F401  (the live tests' fixture)
from live.test_live_input import Cluster, _versions, cluster  # noqa: F401  (their cluster)

from .conftest import explain_json
from .test_decision import READ_MATRIX, _expected_filter

if TYPE_CHECKING:
    from playwright.sync_api import Page

    from kubesched.testing.browser import UIServer

UPDATE_MS = 60_000
"""A change reaches the page through the watch, a quiet half second, a new simulation and the
event stream: seconds, on a shared machine."""


def test_the_page_follows_the_cluster_without_a_reload_and_never_writes(
        page: Page, ui_server: Callable[..., UIServer], control_plane: ControlPlane,  # noqa: F811
        cluster: Cluster) -> None:  # noqa: F811
    ns, kc = cluster.namespace, str(cluster.kubeconfig)
    rest = rest_for(control_plane)
    new_node = f"{ns}-n2"
    try:
        before = _versions(rest)
        server = ui_server("--kubeconfig", kc)
        page.goto(f"{server.url}/#/cluster?q={ns}-")
        rows = page.get_by_test_id("node-row")
        rows.first.wait_for()
        assert sorted(r.get_attribute("data-node") or "" for r in rows.all()) == sorted(cluster.nodes)
        # set in this document: a reload (or a navigation away) would lose it
        page.evaluate("() => { window.keptSinceLoad = true; }")

        create(rest, node_manifest(new_node, "4", "8Gi"))
        page.locator(f'[data-testid=node-row][data-node="{new_node}"]').wait_for(timeout=UPDATE_MS)

        page.evaluate("() => { location.hash = '#/pods?q=" + ns + "/'; }")  # the page's own link
        page.locator(f'[data-testid=pod-row][data-pod="{ns}/small"]').wait_for()
        # 3 CPUs: fits on the new node alone, where big (3 CPUs too, older) now goes first
        create(rest, pod_manifest("late", ns, "default-scheduler", cpu="3"))
        late = page.locator(f'[data-testid=pod-row][data-pod="{ns}/late"]')
        late.wait_for(timeout=UPDATE_MS)
        cells = late.locator("td").all_inner_texts()
        assert (cells[2], cells[3]) == ("–", "Unschedulable")
        assert "Insufficient cpu" in cells[6]
        big = page.locator(f'[data-testid=pod-row][data-pod="{ns}/big"] td').all_inner_texts()
        assert (big[2], big[3]) == (new_node, "Scheduled")
        assert page.evaluate("() => window.keptSinceLoad") is True  # followed, never reloaded

        late.click()
        page.wait_for_url(f"**/#/decision?pod={ns}%2Flate")
        page.get_by_role("heading", name=f"Pod {ns}/late").wait_for()
        want = explain_json("--kubeconfig", kc, "--pod", f"{ns}/late")
        rows_want, _ = _expected_filter(want)
        shown = page.get_by_test_id("filter-matrix").evaluate(READ_MATRIX)
        assert {r["node"] for r in rows_want} >= {*cluster.nodes, new_node}
        assert shown == rows_want
        assert page.evaluate("() => window.keptSinceLoad") is True

        after = _versions(rest)
        # every object that was there is untouched; the two created are the only new ones
        assert {k: v for k, v in after.items() if k in before} == before
        assert set(after) - set(before) == {("Node", "", new_node), ("Pod", ns, "late")}
        assert not rest.request("GET", f"/api/v1/namespaces/{ns}/pods/late")["spec"].get("nodeName")
        assert events(rest, ns) == []
    finally:
        with contextlib.suppress(NotFound):
            rest.request("DELETE", f"/api/v1/namespaces/{ns}/pods/late")
        with contextlib.suppress(NotFound):
            rest.request("DELETE", f"/api/v1/nodes/{new_node}")
        rest.close()
