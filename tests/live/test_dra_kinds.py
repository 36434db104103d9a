"""The resource.k8s.io/v1 kinds DynamicResources reads, against an API server that does not
serve that version (the test control plane predates it): the live store still syncs, the kinds
are empty, and it says so once per kind."""

from __future__ import annotations

import logging

import pytest

from kubesched.clock import RealClock
from kubesched.cluster.live import OPTIONAL_KINDS, LiveStore

from ._kube import rest_for
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
