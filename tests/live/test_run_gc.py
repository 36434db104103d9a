"""``kubesched run`` keeps the cluster it holds out of the cyclic garbage collector's walks
(kubesched.process's HeapFreezer): frozen once the informers have synced, the pods watched since
frozen by the ticks, everything restored when the scheduler is closed."""

from __future__ import annotations

import gc
import threading
from pathlib import Path

import pytest

from kubesched.app import LiveScheduler
from kubesched.app import server as server_mod
from kubesched.framework.config import load_config
from kubesched.process import YOUNG_THRESHOLD

from ._kube import cleanup, create, get_pod, node_manifest, pod_manifest, profile_config, rest_for, wait_for
from .conftest import ControlPlane


def test_run_freezes_the_synced_heap_and_the_pods_watched_since(
        control_plane: ControlPlane, tmp_path: Path, namespace_name: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(server_mod, "GC_FREEZE_INTERVAL", 0.05)
    ns, sched = namespace_name, f"kubesched-{namespace_name}"
    cfg = profile_config(tmp_path, sched)
    before = gc.get_threshold()
    rest = rest_for(control_plane)
    live = LiveScheduler(load_config(cfg), str(control_plane.kubeconfig))
    thread = threading.Thread(target=lambda: live.start() and live.run(), name="kubesched-run")
    with cleanup(rest, ns) as nodes:
        try:
            create(rest, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
            create(rest, node_manifest(f"{ns}-n", "4", "8Gi"))
            nodes.append(f"{ns}-n")
            thread.start()
            wait_for("the scheduler", lambda: live.scheduler)
            # start() raises the young threshold just after it builds the scheduler
            wait_for("the young threshold raised",
                     lambda: gc.get_threshold()[0] == max(YOUNG_THRESHOLD, before[0]))
            settled = wait_for("the first freeze", gc.get_freeze_count)
            create(rest, pod_manifest("p", ns, sched))
            wait_for("the pod to be bound", lambda: get_pod(rest, ns, "p")["spec"].get("nodeName"))
            wait_for("a tick to freeze what came since", lambda: gc.get_freeze_count() > settled)
        finally:
            live.stop()
            thread.join(20)
            live.close()
    assert not thread.is_alive()
    assert gc.get_freeze_count() == 0 and gc.get_threshold() == before
