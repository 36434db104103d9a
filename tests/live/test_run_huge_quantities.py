"""``kubesched run`` with a node whose allocatable the real API server accepts but int64 does
not hold (``cpu: 1E``, ``memory: 16Ei``, ``pods: 1E``, ``example.com/foo: 10E``):
the amounts saturate as upstream's Value()/MilliValue() do, every pod is bound where
``simulate`` binds it, and an update of that node through the watch (new huge amounts) leaves
the scheduler scheduling."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import yaml

from kubesched.api.loader import load_paths
from kubesched.app import LiveScheduler
from kubesched.framework.config import load_config
from kubesched.simulator import run_simulation

from ._kube import (
    MERGE,
    cleanup,
    create,
    create_all,
    get_pod,
    node_manifest,
    pod_manifest,
    profile_config,
    rest_for,
    wait_for,
)
from .conftest import ControlPlane

HUGE = {"cpu": "1E", "memory": "16Ei", "pods": "1E", "example.com/foo": "10E"}


def test_run_schedules_around_amounts_beyond_int64(
        control_plane: ControlPlane, tmp_path: Path, namespace_name: str,
        live_scheduler: tuple[LiveScheduler, threading.Thread]) -> None:
    ns, sched = namespace_name, f"kubesched-{namespace_name}"
    rest = rest_for(control_plane)
    huge, small = f"{ns}-huge", f"{ns}-small"
    huge_node = node_manifest(huge, "1", "1Gi")
    huge_node["status"]["capacity"] = huge_node["status"]["allocatable"] = dict(HUGE)
    greedy = pod_manifest("greedy", ns, sched, cpu="1E", memory="1Gi")
    greedy["spec"]["containers"][0]["resources"]["requests"]["example.com/foo"] = "10E"
    greedy["spec"]["containers"][0]["resources"]["limits"] = {"example.com/foo": "10E"}
    objects: list[dict[str, Any]] = [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}},
        huge_node, node_manifest(small, "4", "8Gi"),
        greedy, pod_manifest("web", ns, sched, cpu="500m", memory="1Gi"),
    ]
    f = tmp_path / "objects.yaml"
    f.write_text(yaml.safe_dump_all(objects))
    expected = {p.pod.split("/", 1)[1]: p.node for p in
                run_simulation(load_paths([f]), load_config(profile_config(tmp_path, sched))).pods}
    assert expected == {"greedy": huge, "web": small}
    live, thread = live_scheduler
    with cleanup(rest, ns) as nodes:
        create_all(rest, objects, nodes)
        thread.start()

        def placed(names: tuple[str, ...]) -> dict[str, str] | None:
            got = {n: get_pod(rest, ns, n)["spec"].get("nodeName", "") for n in names}
            return got if all(got.values()) else None

        assert wait_for("the pods to be bound", lambda: placed(("greedy", "web")), timeout=30) == expected
        # the node changes (the watch's update path), still beyond int64; then one more pod
        rest.request("PATCH", f"/api/v1/nodes/{huge}/status",
                     {"status": {"allocatable": {**HUGE, "cpu": "2E", "memory": "32Ei"}}}, content_type=MERGE)
        create(rest, pod_manifest("late", ns, sched, cpu="1", memory="1Gi"))
        assert wait_for("the late pod to be bound", lambda: placed(("late",)), timeout=30) == {"late": small}
        assert live.scheduler is not None and thread.is_alive()
