"""The JSON API over the engine: the cluster a page at a time, a pod's decision byte for byte
as ``explain -o json``, the exports as ``snapshot`` and ``simulate -o yaml`` write them, the
shell and its assets, and the event stream telling a new view."""

from __future__ import annotations

import json
import re
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from kubesched.api.loader import load_paths
from kubesched.cli import app
from kubesched.ui import Workspace

from .conftest import QUICKSTART, served

runner = CliRunner()


def _cli(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def _write_cluster(path: Path, nodes: int, pods_per_node: int, pending: int) -> Path:
    """``nodes`` nodes of 4 cpu, ``pods_per_node`` bound pods of 100m each (node i gets
    i % 10 more), and ``pending`` pods of 8 cpu no node fits."""
    docs = []
    for i in range(nodes):
        docs.append(f"""apiVersion: v1
kind: Node
metadata: {{name: n{i:04d}, labels: {{zone: z{i % 3}}}}}
status:
  allocatable: {{cpu: "4", memory: 8Gi, pods: "110"}}
  capacity: {{cpu: "4", memory: 8Gi, pods: "110"}}
""")
        for j in range(pods_per_node + i % 10):
            docs.append(f"""apiVersion: v1
kind: Pod
metadata: {{name: p{i:04d}-{j}, namespace: default}}
spec:
  nodeName: n{i:04d}
  containers: [{{name: c, image: x, resources: {{requests: {{cpu: 100m}}}}}}]
""")
    for k in range(pending):
        docs.append(f"""apiVersion: v1
kind: Pod
metadata: {{name: big-{k}, namespace: default}}
spec:
  containers: [{{name: c, image: x, resources: {{requests: {{cpu: "8"}}}}}}]
""")
    path.write_text("---\n".join(docs))
    return path


def test_the_decision_is_explains_json_byte_for_byte() -> None:
    want = _cli("explain", str(QUICKSTART), "--pod", "default/db-0", "-o", "json")
    with served(QUICKSTART) as ui:
        got = ui.get("/api/decision?pod=default/db-0")
        assert got.status == 200
        assert got.headers["content-type"] == "application/json"
        assert got.body == want.encode()
        assert ui.get("/api/decision?pod=default/db-0").body == want.encode()  # kept, same bytes
        download = ui.get("/api/decision?pod=default/db-0&download=1")
        assert download.body == want.encode()
        assert "attachment" in download.headers["content-disposition"]


def test_a_workload_is_explained_as_explain_explains_it(tmp_path: Path) -> None:
    manifest = tmp_path / "deploy.yaml"
    manifest.write_text("""apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "1", memory: 1Gi, pods: "10"}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: c, image: x, resources: {requests: {cpu: 400m}}}]
""")
    want = _cli("explain", str(manifest), "--pod", "Deployment/default/web", "-o", "json")
    with served(manifest) as ui:
        assert ui.get("/api/decision?pod=Deployment/default/web").body == want.encode()


@pytest.mark.parametrize(("query", "status", "says"), [
    ("pod=default/nope", 404, 'pod "default/nope" not found'),
    ("pod=a/b/c/d", 400, "want NAMESPACE/NAME"),
    ("", 400, "give the pod"),
])
def test_a_decision_for_no_pod_is_a_one_line_error(query: str, status: int, says: str) -> None:
    with served(QUICKSTART) as ui:
        got = ui.get(f"/api/decision?{query}")
        assert got.status == status
        assert says in got.body.decode()
        assert got.body.decode().count("\n") == 1


def test_the_exports_are_what_snapshot_and_simulate_write() -> None:
    with served(QUICKSTART) as ui:
        snap = ui.get("/api/export/snapshot")
        assert snap.status == 200 and "attachment" in snap.headers["content-disposition"]
        assert snap.body.decode() == _cli("snapshot", str(QUICKSTART))
        assert ui.get("/api/export/state").body.decode() == _cli("simulate", str(QUICKSTART), "-o", "yaml")


def test_large_exports_are_streamed_and_are_the_bytes_snapshot_and_simulate_write(tmp_path: Path) -> None:
    """Sent a piece at a time as written (chunked: the text never held whole), the same bytes
    as the command line's; the pods repeat their containers, which the loader holds once and
    the writer writes out in full at each pod."""
    cluster = _write_cluster(tmp_path / "c.yaml", nodes=40, pods_per_node=10, pending=3)
    with served(cluster) as ui:
        assert len(list(ui.workspace.snapshot())) > 1
        assert len(list(ui.workspace.state())) > 1
        for path, command in (("/api/export/snapshot", ("snapshot", str(cluster))),
                              ("/api/export/state", ("simulate", str(cluster), "-o", "yaml"))):
            got = ui.get(path)
            assert got.status == 200 and got.headers["transfer-encoding"] == "chunked"
            assert got.headers["content-type"] == "application/yaml; charset=utf-8"
            text = got.body.decode()
            assert text == _cli(*command)
            assert "*id0" not in text and text.count("- name: c\n    image: x\n") > 400


def test_the_summary_counts_the_simulation() -> None:
    with served(QUICKSTART) as ui:
        s = ui.get("/api/summary").json()
    assert (s["nodes"], s["pods"]) == (6, 13)
    assert s["statuses"] == {"Bound": 4, "Preempted": 1, "Scheduled": 8}
    assert s["preemptions"] == [{"victim": "default/batch-4", "preemptor": "default/db-0", "node": "node-b2"}]
    assert s["resources"][:3] == ["cpu", "memory", "pods"]


def test_nodes_are_paged_filtered_and_sorted_on_the_server(tmp_path: Path) -> None:
    with served(_write_cluster(tmp_path / "c.yaml", nodes=600, pods_per_node=1, pending=0)) as ui:
        page = ui.get("/api/nodes?limit=50&offset=100").json()
        assert (page["total"], page["offset"], len(page["items"])) == (600, 100, 50)
        assert page["items"][0]["name"] == "n0100"
        assert len(ui.get("/api/nodes?limit=100000").json()["items"]) == 500  # never more than a page
        assert ui.get("/api/nodes?q=N059").json()["total"] == 10  # n0590..n0599
        assert ui.get("/api/nodes?q=zone=z1").json()["total"] == 200  # by label
        busiest = ui.get("/api/nodes?sort=cpu&order=desc&limit=3").json()["items"]
        assert [n["resources"]["cpu"]["requested"] for n in busiest] == [1000, 1000, 1000]  # 1 + 9 pods
        assert busiest[0]["podCount"] == 10
        assert ui.get("/api/nodes?offset=x").status == 400


def test_pods_are_filtered_by_status_node_and_name_with_their_reasons(tmp_path: Path) -> None:
    with served(_write_cluster(tmp_path / "c.yaml", nodes=20, pods_per_node=1, pending=3)) as ui:
        waiting = ui.get("/api/pods?status=waiting").json()
        assert waiting["total"] == 3
        assert {p["status"] for p in waiting["items"]} == {"Unschedulable"}
        assert waiting["items"][0]["message"].startswith("0/20 nodes are available: 20 Insufficient cpu.")
        on = ui.get("/api/pods?node=n0003").json()
        assert {p["pod"] for p in on["items"]} == {f"default/p0003-{j}" for j in range(4)}
        assert ui.get("/api/pods?q=big-1").json()["total"] == 1
        prio = ui.get("/api/pods?sort=priority&order=desc&limit=1").json()
        assert prio["total"] == 20 * 1 + sum(i % 10 for i in range(20)) + 3
        node = ui.get("/api/node?name=n0003").json()
        assert node["podCount"] == 4 and node["resources"]["cpu"] == {"requested": 400, "allocatable": 4000}
        assert ui.get("/api/node?name=nope").status == 404


def test_the_shell_links_only_assets_the_package_serves() -> None:
    with served(QUICKSTART) as ui:
        shell = ui.get("/")
        assert shell.status == 200 and shell.headers["content-type"].startswith("text/html")
        html = shell.body.decode()
        assert 'href="#/cluster"' in html and 'href="#/pods"' in html
        refs = re.findall(r'(?:src|href)="(/static/[^"]+)"', html)
        assert refs
        for ref in refs:
            assert ui.get(ref).status == 200, ref
        # each module's imports resolve to an asset
        for name in ("app.js", "pages/cluster.js", "pages/pods.js", "pages/decision.js"):
            js = ui.get(f"/static/{name}").body.decode()
            base = name.rpartition("/")[0]
            for imp in re.findall(r'from "(\.{1,2}/[^"]+)"', js):
                target = Path("/", base, imp).resolve().as_posix().lstrip("/")
                assert ui.get(f"/static/{target}").status == 200, (name, imp)
            assert "http://" not in js and "https://" not in js  # nothing from the network


def _next_event(stream: Any, name: str) -> dict[str, Any]:
    """The data of the next ``name`` event on a server-sent event stream (others skipped)."""
    event = ""
    while True:
        line = stream.readline().decode()
        assert line, "the stream ended"
        if line.startswith("event: "):
            event = line[7:].strip()
        elif line.startswith("data: ") and event == name:
            return dict(json.loads(line[6:]))


def test_a_reload_is_told_on_the_event_stream() -> None:
    with served(QUICKSTART) as ui:
        with urllib.request.urlopen(ui.url + "/api/events", timeout=30) as stream:
            assert stream.headers["Content-Type"] == "text/event-stream"
            assert stream.readline() == b"retry: 3000\n"
            assert _next_event(stream, "version") == {"version": 1, "error": ""}
            assert ui.post("/api/reload").json() == {"version": 2}
            assert _next_event(stream, "version") == {"version": 2, "error": ""}
        assert ui.get("/api/summary").json()["version"] == 2


def test_a_failed_rebuild_is_told_and_the_view_before_kept(tmp_path: Path) -> None:
    manifest = tmp_path / "c.yaml"
    manifest.write_text((QUICKSTART / "10-nodes.yaml").read_text())
    with served(manifest) as ui, urllib.request.urlopen(ui.url + "/api/events", timeout=30) as stream:
        assert _next_event(stream, "version")["version"] == 1
        manifest.write_text("kind: Pod\nmetadata: {name: x}\nspec: {containers: 3}\n")
        got = ui.post("/api/reload")
        assert got.status == 400 and str(manifest) in got.body.decode()
        event = _next_event(stream, "version")
        assert event["version"] == 1 and str(manifest) in event["error"]
        assert ui.get("/api/summary").json()["nodes"] == 6  # the view before


def test_each_simulation_tells_its_progress() -> None:
    seen: list[tuple[int, int]] = []
    workspace = Workspace(load_paths([QUICKSTART]), progress=lambda done, total: seen.append((done, total)))
    assert seen and seen[-1] == (8, 8)  # the 8 pending pods of the input, all placed in the end
    assert workspace.progress is None  # between runs


def test_the_event_stream_ends_when_the_server_stops() -> None:
    with served(QUICKSTART) as ui, urllib.request.urlopen(ui.url + "/api/events", timeout=30) as stream:
        for _ in range(5):
            stream.readline()
        ui.workspace.close()
        assert stream.read() == b""  # the last chunk: the stream ended cleanly


def test_an_unknown_route_is_404_and_a_wrong_method_405() -> None:
    with served(QUICKSTART) as ui:
        assert ui.get("/api/nope").status == 404
        assert ui.post("/api/summary").status == 405


def test_dra_devices_and_extended_resources_per_node() -> None:
    """examples/dra: each node's devices published by its ResourceSlices against those its
    pods' claims were allocated (a shared claim counted once), and the extended resource
    backed by DRA among the bars; hugepages no node offers or asks for are not."""
    dra = QUICKSTART.parent / "dra"
    with served(dra) as ui:
        assert ui.get("/api/summary").json()["resources"] == ["cpu", "memory", "pods", "example.com/gpu"]
        nodes = {n["name"]: n for n in ui.get("/api/nodes").json()["items"]}
        assert nodes["gpu-node-6"]["devices"] == {"allocated": 6, "total": 8}
        assert nodes["gpu-node-1"]["devices"] == {"allocated": 5, "total": 8}  # shared-a and -b: one gpu
        assert nodes["cpu-node-0"]["devices"] == {"allocated": 0, "total": 0}
        assert nodes["gpu-node-6"]["resources"]["example.com/gpu"] == {"requested": 2, "allocatable": 0}
        node = ui.get("/api/node?name=gpu-node-6").json()
        gpus = [f"gpu.example.com/gpu-node-6/gpu-{i}" for i in (0, 1, 4, 5, 6, 7)]
        assert node["devices"]["allocated"] == gpus
        assert len(node["devices"]["published"]) == 8
        waiting = ui.get("/api/pods?status=waiting").json()["items"]
        assert [p["pod"] for p in waiting] == ["ml/train-16"]
        want = _cli("explain", str(dra), "--pod", "ml/train-16", "-o", "json")
        assert ui.get("/api/decision?pod=ml/train-16").body == want.encode()


@pytest.mark.parametrize(("example", "pods"), [
    # db-0 preempts batch-4; web-0 and report-0 are placed (on a tie among several nodes).
    ("quickstart", ["default/db-0", "default/web-0", "default/report-0", "default/web-1"]),
    # DRA claims: devices per node, ties among GPU nodes, a shared claim, one that fits nowhere.
    ("dra", ["ml/train-0", "ml/mig-small-0", "ml/train-16", "ml/shared-a", "ml/train-1"]),
])
def test_decisions_in_a_row_on_one_workspace_are_fresh_explains(example: str, pods: list[str]) -> None:
    """The workspace keeps the loaded state's store and scheduler between decisions: each
    decision after the first is a dry run on them, and still ``explain``'s bytes (the random
    tie-break drawn afresh, nothing left behind by the decision before)."""
    path = QUICKSTART.parent / example
    workspace = Workspace(load_paths([path]))
    try:
        for key in pods:
            want = _cli("explain", str(path), "--pod", key, "-o", "json")
            assert workspace.decision(key) == (200, want.encode()), key
    finally:
        workspace.close()
