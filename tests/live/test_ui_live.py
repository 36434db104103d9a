"""``kubesched ui --kubeconfig`` against a real API server, with a token bound only to the
read-only ClusterRole of ``deploy/readonly``: the page shows the cluster as ``simulate``
answers about it, a pending pod's decision is ``explain --kubeconfig``'s JSON, the view
follows a pod created later (informers: list and watch), and the API server saw no write."""

from __future__ import annotations

import contextlib
import json
import urllib.request
from typing import Any

from typer.testing import CliRunner

from _serving_client import served_ui
from kubesched.cli import app
from kubesched.cluster import NotFound

from ._kube import create, events, pod_manifest, rest_for, wait_for
from .conftest import ControlPlane
from .test_live_input import Cluster, _versions, cluster  # noqa: F401  (the module's fixture)

runner = CliRunner()


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=30) as resp:
        return json.loads(resp.read())


def test_the_page_follows_the_cluster_read_only(control_plane: ControlPlane, cluster: Cluster) -> None:  # noqa: F811
    ns, kc = cluster.namespace, str(cluster.kubeconfig)
    rest = rest_for(control_plane)
    try:
        before = _versions(rest)
        want = runner.invoke(app, ["explain", "--kubeconfig", kc, "--pod", f"{ns}/big", "-o", "json"])
        assert want.exit_code == 0, want.output
        with served_ui("--kubeconfig", kc) as url:
            pods = {p["pod"]: p for p in _get(f"{url}/api/pods?q={ns}/")["items"]}
            assert pods[f"{ns}/small"]["node"] in cluster.nodes
            assert pods[f"{ns}/big"]["status"] == "Unschedulable"
            assert "Insufficient cpu" in pods[f"{ns}/big"]["message"]
            with urllib.request.urlopen(f"{url}/api/decision?pod={ns}/big", timeout=60) as resp:
                assert resp.read().decode() == want.stdout
            assert _get(f"{url}/api/summary")["live"] is True

            create(rest, pod_manifest("late", ns, "default-scheduler", cpu="100m"))
            seen = wait_for("the page to show the pod created later",
                            lambda: _get(f"{url}/api/pods?q={ns}/late")["items"] or None, timeout=60)
            assert seen[0]["node"] in cluster.nodes  # where the scheduler would put it now
            assert _get(f"{url}/api/summary")["version"] >= 2
        after = _versions(rest)
        # Every object that was there is untouched; the one created is the only new one, unbound.
        assert {k: v for k, v in after.items() if k in before} == before
        assert set(after) - set(before) == {("Pod", ns, "late")}
        assert not rest.request("GET", f"/api/v1/namespaces/{ns}/pods/late")["spec"].get("nodeName")
        assert events(rest, ns) == []
    finally:
        with contextlib.suppress(NotFound):
            rest.request("DELETE", f"/api/v1/namespaces/{ns}/pods/late")
        rest.close()
