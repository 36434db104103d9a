"""VolumeZone, ported from upstream volume_zone_test.go (TestSingleZone, TestMultiZone,
TestWithBinding) and run on both paths."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st_

from kubesched.framework import ActionType, Code, CycleState, EventResource, QueueingHint
from kubesched.plugins.volumezone import ERR_REASON_CONFLICT, VolumeZone
from kubesched.plugins.volumezone.volume_zone import label_zones_to_set
from kubesched.testing import make_node, make_pod

from .._harness import FakeHandle
from ..volumebinding.fixtures import make_pv, make_pvc, make_sc, ok, run_filter, st, store_of

BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
BETA_REGION = "failure-domain.beta.kubernetes.io/region"
ZONE = "topology.kubernetes.io/zone"
REGION = "topology.kubernetes.io/region"

CONFLICT = st(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ERR_REASON_CONFLICT)
UNRESOLVABLE = Code.UNSCHEDULABLE_AND_UNRESOLVABLE


def _store() -> Any:
    return store_of(
        make_pv("Vol_1", labels={BETA_ZONE: "us-west1-a"}),
        make_pv("Vol_2", labels={BETA_REGION: "us-west1", "uselessLabel": "none"}),
        make_pv("Vol_3", labels={BETA_REGION: "us-west1"}),
        make_pv("Vol_Stable_1", labels={ZONE: "us-west1-a"}),
        make_pv("Vol_Stable_2", labels={REGION: "us-west1", "uselessLabel": "none"}),
        make_pv("Vol_Multi", labels={ZONE: "us-west1-b__us-west1-a"}),
        make_pv("Vol_Bad", labels={ZONE: "us-west1-a__"}),
        make_sc("Class_Wait", wffc=True),
        make_sc("Class_Immediate", wffc=False),
        make_pvc("PVC_1", volume="Vol_1"),
        make_pvc("PVC_2", volume="Vol_2"),
        make_pvc("PVC_3", volume="Vol_3"),
        make_pvc("PVC_4", volume="Vol_not_exist"),
        make_pvc("PVC_Stable_1", volume="Vol_Stable_1"),
        make_pvc("PVC_Stable_2", volume="Vol_Stable_2"),
        make_pvc("PVC_Multi", volume="Vol_Multi"),
        make_pvc("PVC_Bad", volume="Vol_Bad"),
        make_pvc("PVC_EmptySC"),
        make_pvc("PVC_NoSC", sc="Class_0"),
        make_pvc("PVC_Wait", sc="Class_Wait"),
        make_pvc("PVC_Immediate", sc="Class_Immediate"),
    )


def _plugin() -> VolumeZone:
    return VolumeZone(handle=FakeHandle(store=_store()))


CASES = [
    pytest.param([], {}, ok(), id="pod without volume"),
    pytest.param(["PVC_1"], {}, ok(), id="node without labels"),
    pytest.param(
        ["PVC_1"], {BETA_ZONE: "us-west1-a", "uselessLabel": "none"}, ok(), id="beta zone label matched"
    ),
    pytest.param(
        ["PVC_2"], {BETA_REGION: "us-west1", "uselessLabel": "none"}, ok(), id="beta region label matched"
    ),
    pytest.param(
        ["PVC_2"],
        {BETA_REGION: "no_us-west1", "uselessLabel": "none"},
        CONFLICT,
        id="beta region label doesn't match",
    ),
    pytest.param(
        ["PVC_1"],
        {BETA_ZONE: "no_us-west1-a", "uselessLabel": "none"},
        CONFLICT,
        id="beta zone label doesn't match",
    ),
    pytest.param(
        ["PVC_Stable_1"], {ZONE: "us-west1-a", "uselessLabel": "none"}, ok(), id="zone label matched"
    ),
    pytest.param(
        ["PVC_Stable_2"], {REGION: "us-west1", "uselessLabel": "none"}, ok(), id="region label matched"
    ),
    pytest.param(
        ["PVC_Stable_2"],
        {REGION: "no_us-west1", "uselessLabel": "none"},
        CONFLICT,
        id="region label doesn't match",
    ),
    pytest.param(["PVC_Stable_1"], {ZONE: "no_us-west1-a"}, CONFLICT, id="zone label doesn't match"),
    pytest.param(["PVC_1"], {ZONE: "us-west1-a"}, ok(), id="pv with beta label,node with ga label, matched"),
    pytest.param(
        ["PVC_1"], {ZONE: "no_us-west1-a"}, CONFLICT, id="pv with beta label,node with ga label, don't match"
    ),
    pytest.param(
        ["PVC_Stable_1"],
        {BETA_ZONE: "us-west1-a"},
        CONFLICT,
        id="pv with ga label, node with beta label only: no fallback that way",
    ),
    pytest.param(["PVC_Stable_1"], {"uselessLabel": "none"}, ok(), id="node without topology labels"),
    pytest.param(["PVC_Stable_1"], {REGION: "us-west1"}, CONFLICT, id="node region only, pv zone"),
    pytest.param(["PVC_Multi"], {ZONE: "us-west1-b"}, ok(), id="multi-zone label matched"),
    pytest.param(["PVC_Stable_1"], {ZONE: "us-west1-b"}, CONFLICT, id="multi zone label doesn't match"),
    pytest.param(["PVC_Bad"], {ZONE: "us-west1-b"}, ok(), id="zone label with invalid value is ignored"),
    pytest.param(
        ["PVC_1", "PVC_Stable_2"],
        {ZONE: "us-west1-a", REGION: "us-west1"},
        ok(),
        id="two volumes both matched",
    ),
    pytest.param(
        ["PVC_1", "PVC_Stable_2"],
        {ZONE: "us-west1-a", REGION: "eu"},
        CONFLICT,
        id="two volumes one mismatched",
    ),
    pytest.param(["PVC_Wait"], {ZONE: "us-west1-a"}, ok(), id="unbound volume with WaitForFirstConsumer"),
    pytest.param(
        ["PVC_EmptySC"],
        {ZONE: "us-west1-a"},
        st(UNRESOLVABLE, "PersistentVolumeClaim had no pv name and storageClass name"),
        id="unbound volume empty storage class",
    ),
    pytest.param(
        ["PVC_NoSC"],
        {ZONE: "us-west1-a"},
        st(UNRESOLVABLE, 'storageclass.storage.k8s.io "Class_0" not found'),
        id="unbound volume no storage class",
    ),
    pytest.param(
        ["PVC_Immediate"],
        {ZONE: "us-west1-a"},
        st(UNRESOLVABLE, "PersistentVolume had no name"),
        id="unbound volume immediate binding mode",
    ),
    pytest.param(
        ["PVC_4"],
        {ZONE: "us-west1-a"},
        st(UNRESOLVABLE, 'persistentvolume "Vol_not_exist" not found'),
        id="pv not found",
    ),
    pytest.param(
        ["PVC_X"],
        {ZONE: "us-west1-a"},
        st(UNRESOLVABLE, 'persistentvolumeclaim "PVC_X" not found'),
        id="pvc not found",
    ),
]


@pytest.mark.parametrize(("claims", "node_labels", "want"), CASES)
def test_filter(claims: list[str], node_labels: dict[str, str], want: Any) -> None:
    pb = make_pod().name("pod")
    for c in claims:
        pb.pvc(c)
    node = make_node().name("host1").labels(node_labels).obj()
    run = run_filter(_plugin, pb.obj(), [node])
    got = run.statuses[0]
    assert (got.code, got.reasons) == (want.code, want.reasons)


def test_pre_filter_skips_pods_without_bound_pvs() -> None:
    state = CycleState()
    _, status = _plugin().pre_filter(state, make_pod().name("p").pvc("PVC_Wait").obj(), [])
    assert status is not None and status.code == Code.SKIP


def test_filter_without_pre_filter_computes_topologies() -> None:
    """Upstream falls back to computing the PV topologies when the state is missing."""
    from kubesched.cache import NodeInfo

    pod = make_pod().name("p").pvc("PVC_1").obj()
    ni = NodeInfo.of(make_node().name("n").label(ZONE, "other").obj())
    got = _plugin().filter(CycleState(), pod, ni)
    assert got is not None and got.reasons == (ERR_REASON_CONFLICT,)


@pytest.mark.parametrize(
    ("value", "want"),
    [
        pytest.param("a", frozenset({"a"}), id="single"),
        pytest.param("a__b", frozenset({"a", "b"}), id="multi"),
        pytest.param(" a __b ", frozenset({"a", "b"}), id="trimmed"),
        pytest.param("a__", None, id="empty item is an error"),
    ],
)
def test_label_zones_to_set(value: str, want: frozenset[str] | None) -> None:
    assert label_zones_to_set(value) == want


def test_events_to_register() -> None:
    got = {(e.event.resource, e.event.action) for e in _plugin().events_to_register()}
    assert got == {
        (EventResource.STORAGE_CLASS, ActionType.ADD),
        (EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL),
        (EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD | ActionType.UPDATE),
        (EventResource.PERSISTENT_VOLUME, ActionType.ADD | ActionType.UPDATE),
    }


def test_hints() -> None:
    pl = _plugin()
    pod = make_pod().name("p").pvc("PVC_1").obj()
    assert pl.is_schedulable_after_pvc_change(pod, None, make_pvc("PVC_1")) == QueueingHint.QUEUE
    assert pl.is_schedulable_after_pvc_change(pod, None, make_pvc("PVC_9")) == QueueingHint.QUEUE_SKIP
    assert (
        pl.is_schedulable_after_pvc_change(pod, None, make_pvc("PVC_1", namespace="x"))
        == QueueingHint.QUEUE_SKIP
    )
    assert (
        pl.is_schedulable_after_storage_class_added(pod, None, make_sc("c", wffc=True)) == QueueingHint.QUEUE
    )
    assert (
        pl.is_schedulable_after_storage_class_added(pod, None, make_sc("c", wffc=False))
        == QueueingHint.QUEUE_SKIP
    )
    old = make_pv("v", labels={ZONE: "a"})
    assert pl.is_schedulable_after_pv_change(pod, None, old) == QueueingHint.QUEUE
    assert pl.is_schedulable_after_pv_change(pod, old, make_pv("v", labels={ZONE: "b"})) == QueueingHint.QUEUE
    assert (
        pl.is_schedulable_after_pv_change(pod, old, make_pv("v", labels={ZONE: "a", "x": "y"}))
        == QueueingHint.QUEUE_SKIP
    )


_KEYS = (ZONE, REGION, BETA_ZONE, BETA_REGION)
_VALUES = ("a", "b", "a__b")


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    pv_labels=st_.lists(
        st_.dictionaries(st_.sampled_from(_KEYS), st_.sampled_from(_VALUES), max_size=3),
        min_size=1,
        max_size=3,
    ),
    node_labels=st_.lists(
        st_.dictionaries(st_.sampled_from(_KEYS), st_.sampled_from(("a", "b", "c")), max_size=3),
        min_size=1,
        max_size=6,
    ),
)
def test_batch_agrees_with_per_node(
    pv_labels: list[dict[str, str]], node_labels: list[dict[str, str]]
) -> None:
    objs: list[Any] = []
    pb = make_pod().name("p")
    for i, labels in enumerate(pv_labels):
        objs += [make_pv(f"v{i}", labels=labels), make_pvc(f"c{i}", volume=f"v{i}")]
        pb.pvc(f"c{i}")
    store = store_of(*objs)
    nodes = [make_node().name(f"n{i}").labels(lb).obj() for i, lb in enumerate(node_labels)]
    run_filter(lambda: VolumeZone(handle=FakeHandle(store=store)), pb.obj(), nodes)  # asserts agreement
