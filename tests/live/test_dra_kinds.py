"""The resource.k8s.io kinds DynamicResources reads, against an API server that does not serve
their versions (the test control plane predates them): the live store still syncs, the kinds
are empty, and it says so once per kind."""

from __future__ import annotations

import logging
import threading
from pathlib import Path

import pytest

from kubesched.api import KubeVersion
from kubesched.app import LiveScheduler
from kubesched.clock import RealClock
from kubesched.cluster.live import OPTIONAL_KINDS, LiveStore
from kubesched.framework.config import load_config

from ._kube import (
    cleanup,
    create_all,
    get_pod,
    node_manifest,
    pod_manifest,
    profile_config,
    rest_for,
    wait_for,
)
from .conftest import ControlPlane


def test_live_store_starts_without_resource_k8s_io_v1(control_plane: ControlPlane,
                                                       caplog: pytest.LogCaptureFixture) -> None:
    rest = rest_for(control_plane)
    served = rest.clone()
    try:
        served.request("GET", "/apis/resource.k8s.io/v1")
        pytest.skip("this API server serves resource.k8s.io/v1")
    except Exception:
        pass
    finally:
        served.close()
    store = LiveStore(rest, RealClock())
    with caplog.at_level(logging.WARNING, logger="kubesched.cluster.live._informer"):
        try:
            store.start()
            assert store.wait_for_sync(15)
            assert all(store.list(k) == [] for k in OPTIONAL_KINDS)
        finally:
            store.stop()
    said = [r.getMessage() for r in caplog.records if "is not served by the API server" in r.getMessage()]
    assert sorted(m.split(":")[0] for m in said) == sorted(k for k in store.informers if k in OPTIONAL_KINDS)


def test_run_as_a_release_whose_rule_version_is_not_served_says_so_once_and_schedules(
        control_plane: ControlPlane, tmp_path: Path, namespace_name: str,
        caplog: pytest.LogCaptureFixture) -> None:
    """``run`` as 1.35 with DRADeviceTaintRules watches ``resource.k8s.io/v1alpha3``, which this
    API server does not serve: upstream's v1.35 scheduler would keep failing to list it and bind
    nothing; kubesched logs one line and schedules without rules."""
    rest = rest_for(control_plane)
    sched = f"kubesched-{namespace_name}"
    cfg = load_config(profile_config(tmp_path, sched), features={"DRADeviceTaintRules": True},
                      kube_version=KubeVersion(1, 35))
    live = LiveScheduler(cfg, str(control_plane.kubeconfig))
    assert live.store.informers["DeviceTaintRule"].api_version == "resource.k8s.io/v1alpha3"
    thread = threading.Thread(target=lambda: live.start() and live.run(), name="kubesched-run")
    with caplog.at_level(logging.WARNING, logger="kubesched.cluster.live._informer"), \
            cleanup(rest, namespace_name) as nodes:
        create_all(rest, [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace_name}},
                          node_manifest(f"{namespace_name}-n", "2", "4Gi"),
                          pod_manifest("p", namespace_name, sched)], nodes)
        thread.start()
        try:
            wait_for("the pod to be bound",
                     lambda: get_pod(rest, namespace_name, "p")["spec"].get("nodeName"), timeout=30)
        finally:
            live.stop()
            thread.join(20)
            live.close()
    said = [r.getMessage() for r in caplog.records if r.getMessage().startswith("DeviceTaintRule:")]
    assert said == ["DeviceTaintRule: resource.k8s.io/v1alpha3 cannot be listed (resource.k8s.io/v1alpha3 "
                    "is not served by the API server); treating it as empty"]
