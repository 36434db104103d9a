"""VolumeBinding, ported from upstream volume_binding_test.go / binder_test.go and run on both
paths; Reserve/Unreserve/PreBind against a real MemoryStore."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st_

from kubesched.api import Pod
from kubesched.framework import ArgsError, Code, CycleState, NodeBatch
from kubesched.plugins.volumebinding import (
    ERR_REASON_BIND_CONFLICT,
    ERR_REASON_NODE_CONFLICT,
    ERR_REASON_PV_NOT_EXIST,
    ERR_UNBOUND_IMMEDIATE,
    VolumeBinding,
    VolumeBindingArgs,
)
from kubesched.plugins.volumebinding.volume_binding import STATE_KEY
from kubesched.testing import make_node, make_pod, snapshot_of

from .._harness import FakeHandle
from .fixtures import (
    HOSTNAME,
    ZONE,
    make_csinode,
    make_pv,
    make_pvc,
    make_sc,
    ok,
    run_filter,
    st,
    store_of,
)

UNRES = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
WAIT_SC = "wait-sc"
IMMEDIATE_SC = "immediate-sc"
PROV_SC = "provisioning-sc"


def _base() -> list[Any]:
    return [
        make_sc(WAIT_SC, wffc=True),
        make_sc(IMMEDIATE_SC, wffc=False),
        make_sc(PROV_SC, wffc=True, provisioner="csi.example.com", topologies={ZONE: ["zone-a"]}),
    ]


def _pod(*claims: str, name: str = "pod-a", ephemeral: tuple[str, ...] = ()) -> Pod:
    pb = make_pod().name(name).uid(name)
    for c in claims:
        pb.pvc(c)
    for e in ephemeral:
        pb.volume({"name": e, "ephemeral": {"volumeClaimTemplate": {"spec": {}}}})
    return pb.obj()


def _nodes() -> list[Any]:
    return [
        make_node().name("node-a").labels({HOSTNAME: "node-a", ZONE: "zone-a", "foo": "bar"}).obj(),
        make_node().name("node-b").labels({HOSTNAME: "node-b", ZONE: "zone-b", "foo": "barbar"}).obj(),
    ]


def _plugin(store: Any, **features: bool) -> Any:
    return lambda: VolumeBinding(handle=FakeHandle(store=store, features=features))


BIND = st(UNRES, ERR_REASON_BIND_CONFLICT)
NODE = st(UNRES, ERR_REASON_NODE_CONFLICT)

CASES = [
    pytest.param(_pod(), [], [ok(), ok()], id="pod has not pvcs"),
    pytest.param(
        _pod("pvc-a"),
        [make_pvc("pvc-a", volume="pv-a"), make_pv("pv-a", claim=("default", "pvc-a"))],
        [ok(), ok()],
        id="all bound",
    ),
    pytest.param(
        _pod("pvc-a", "pvc-b"),
        [
            make_pvc("pvc-a", volume="pv-a"),
            make_pv("pv-a", affinity={HOSTNAME: ["node-a"]}),
            make_pvc("pvc-b", volume="pv-b"),
            make_pv("pv-b", affinity={HOSTNAME: ["node-a", "node-b"]}),
        ],
        [ok(), NODE],
        id="all bound with local volumes",
    ),
    pytest.param(
        _pod("pvc-a"),
        [],
        [st(UNRES, 'persistentvolumeclaim "pvc-a" not found')] * 2,
        id="PVC does not exist",
    ),
    pytest.param(
        _pod("pvc-a", "pvc-b"),
        [make_pvc("pvc-a", volume="pv-a"), make_pv("pv-a")],
        [st(UNRES, 'persistentvolumeclaim "pvc-b" not found')] * 2,
        id="Part of PVCs do not exist",
    ),
    pytest.param(
        _pod("pvc-b"),
        [make_pvc("pvc-b", sc=IMMEDIATE_SC)],
        [st(UNRES, ERR_UNBOUND_IMMEDIATE)] * 2,
        id="immediate claims not bound",
    ),
    pytest.param(
        _pod("pvc-b"),
        [make_pvc("pvc-b", sc=WAIT_SC, volume="pv-x", phase="Pending")],
        [st(UNRES, ERR_UNBOUND_IMMEDIATE)] * 2,
        id="prebound claims count as immediate",
    ),
    pytest.param(
        _pod("pvc-a"), [make_pvc("pvc-a", sc=WAIT_SC)], [BIND, BIND], id="unbound claims no matches"
    ),
    pytest.param(
        _pod("pvc-a", "pvc-b"),
        [
            make_pvc("pvc-a", volume="pv-a"),
            make_pv("pv-a", affinity={"foo": ["bar"]}),
            make_pvc("pvc-b", sc=WAIT_SC),
            make_pv("pv-b", sc=WAIT_SC, affinity={"foo": ["bar"]}),
        ],
        [ok(), st(UNRES, ERR_REASON_NODE_CONFLICT, ERR_REASON_BIND_CONFLICT)],
        id="bound and unbound unsatisfied",
    ),
    pytest.param(
        _pod("pvc-a"),
        [make_pvc("pvc-a", volume="pv-a")],
        [st(UNRES, ERR_REASON_PV_NOT_EXIST)] * 2,
        id="pv not found",
    ),
    pytest.param(
        _pod("pvc-a"),
        [make_pvc("pvc-a", volume="pv-a", phase="Lost")],
        [st(UNRES, 'persistentvolumeclaim "pvc-a" bound to non-existent persistentvolume "pv-a"')] * 2,
        id="pv not found claim lost",
    ),
    pytest.param(
        _pod("pvc-a"),
        [make_pvc("pvc-a", volume="pv-a", deleting=True), make_pv("pv-a")],
        [st(UNRES, 'persistentvolumeclaim "pvc-a" is being deleted')] * 2,
        id="pvc being deleted",
    ),
    pytest.param(
        _pod("pvc-a"),
        [make_pvc("pvc-a", sc=WAIT_SC), make_pv("pv-a", sc=WAIT_SC, capacity="1Gi")],
        [ok(), ok()],
        id="unbound claim matches an available pv",
    ),
    pytest.param(
        _pod("pvc-a"),
        [make_pvc("pvc-a", sc=WAIT_SC, request="2Gi"), make_pv("pv-a", sc=WAIT_SC, capacity="1Gi")],
        [BIND, BIND],
        id="pv too small",
    ),
    pytest.param(
        _pod("pvc-a"),
        [make_pvc("pvc-a", sc=WAIT_SC, modes=("ReadWriteMany",)), make_pv("pv-a", sc=WAIT_SC)],
        [BIND, BIND],
        id="access modes mismatch",
    ),
    pytest.param(
        _pod("pvc-a"),
        [make_pvc("pvc-a", sc=WAIT_SC), make_pv("pv-a", sc=WAIT_SC, volume_mode="Block")],
        [BIND, BIND],
        id="volume mode mismatch",
    ),
    pytest.param(
        _pod("pvc-a"),
        [
            make_pvc("pvc-a", sc=WAIT_SC, selector={"tier": "gold"}),
            make_pv("pv-a", sc=WAIT_SC, labels={"tier": "silver"}),
            make_pv("pv-b", sc=WAIT_SC, labels={"tier": "gold"}, affinity={"foo": ["bar"]}),
        ],
        [ok(), BIND],
        id="label selector and node affinity",
    ),
    pytest.param(
        _pod("pvc-a"),
        [make_pvc("pvc-a", sc=WAIT_SC), make_pv("pv-a", sc=WAIT_SC, phase="Released")],
        [BIND, BIND],
        id="pv not available",
    ),
    pytest.param(
        _pod("pvc-a"),
        [make_pvc("pvc-a", sc=WAIT_SC), make_pv("pv-a", sc="other-sc")],
        [BIND, BIND],
        id="pv of another class",
    ),
    pytest.param(
        _pod("pvc-a"),
        [make_pvc("pvc-a", sc=WAIT_SC), make_pv("pv-a", sc=WAIT_SC, claim=("default", "x"))],
        [BIND, BIND],
        id="pv claimed by another pvc",
    ),
    pytest.param(
        _pod("pvc-a"),
        [
            make_pvc("pvc-a", sc=WAIT_SC),
            make_pv("pv-a", sc=WAIT_SC, claim=("default", "pvc-a"), phase="Bound", affinity={"foo": ["bar"]}),
        ],
        [ok(), BIND],
        id="pv prebound to the claim, node affinity decides",
    ),
    pytest.param(
        _pod("pvc-a"),
        [make_pvc("pvc-a", sc=PROV_SC)],
        [ok(), BIND],
        id="dynamic provisioning within allowed topologies",
    ),
    pytest.param(
        _pod("pvc-a"),
        [make_pvc("pvc-a", sc=PROV_SC, annotations={"volume.kubernetes.io/selected-node": "node-b"})],
        [BIND, BIND],
        id="selected node annotation on another node",
    ),
    pytest.param(
        _pod(ephemeral=("eph",)),
        [],
        [st(UNRES, 'waiting for ephemeral volume controller to create the persistentvolumeclaim "pod-a-eph"')]
        * 2,
        id="ephemeral claim not created yet",
    ),
    pytest.param(
        _pod(ephemeral=("eph",)),
        [make_pvc("pod-a-eph", sc=PROV_SC, owner_uid="someone")],
        [st(UNRES, "PVC default/pod-a-eph was not created for pod default/pod-a (pod is not owner)")] * 2,
        id="ephemeral claim not owned by the pod",
    ),
    pytest.param(
        _pod(ephemeral=("eph",)),
        [make_pvc("pod-a-eph", sc=PROV_SC, owner_uid="pod-a")],
        [ok(), BIND],
        id="ephemeral claim provisioned",
    ),
]


@pytest.mark.parametrize(("pod", "objs", "want"), CASES)
def test_filter(pod: Pod, objs: list[Any], want: list[Any]) -> None:
    store = store_of(*_base(), *objs)
    run = run_filter(_plugin(store), pod, _nodes())
    assert [(s.code, s.reasons) for s in run.statuses] == [(w.code, w.reasons) for w in want]
    # Newest upstream returns no node subset (the local-PV PreFilterResult was dropped).
    assert run.pre_filter_result is None


def _filtered_state(store: Any, pod: Pod, plugin: VolumeBinding) -> CycleState:
    state = CycleState()
    snap = snapshot_of(_nodes())
    _, status = plugin.pre_filter(state, pod, snap.node_info_list)
    assert status is None
    plugin.filter_batch(state, pod, NodeBatch.all(snap))
    return state


def test_smallest_fit_and_claims_by_size() -> None:
    """findMatchingVolumes: claims in increasing request order take the smallest fitting PV."""
    store = store_of(
        *_base(),
        make_pvc("big", sc=WAIT_SC, request="8Gi"),
        make_pvc("small", sc=WAIT_SC, request="1Gi"),
        make_pv("pv-20", sc=WAIT_SC, capacity="20Gi"),
        make_pv("pv-10", sc=WAIT_SC, capacity="10Gi"),
        make_pv("pv-5", sc=WAIT_SC, capacity="5Gi"),
    )
    pl = VolumeBinding(handle=FakeHandle(store=store))
    state = _filtered_state(store, _pod("big", "small"), pl)
    pv = state.read(STATE_KEY).pod_volumes_by_node["node-a"]
    assert [(b.pvc.name, b.pv.name) for b in pv.static_bindings] == [("small", "pv-5"), ("big", "pv-10")]


def test_reserve_assumes_and_unreserve_reverts() -> None:
    store = store_of(
        *_base(), make_pvc("pvc-a", sc=WAIT_SC), make_pvc("pvc-b", sc=WAIT_SC), make_pv("pv-a", sc=WAIT_SC)
    )
    pl = VolumeBinding(handle=FakeHandle(store=store))
    state = _filtered_state(store, _pod("pvc-a"), pl)
    assert pl.reserve(state, _pod("pvc-a"), "node-a") is None
    assert state.read(STATE_KEY).all_bound is False
    # The next pod cannot take the assumed PV.
    run = run_filter(lambda: pl, _pod("pvc-b", name="pod-b"), _nodes())
    assert run.statuses == [BIND, BIND]
    pl.unreserve(state, _pod("pvc-a"), "node-a")
    run = run_filter(lambda: pl, _pod("pvc-b", name="pod-b"), _nodes())
    assert run.statuses == [ok(), ok()]


def test_pre_bind_writes_static_binding() -> None:
    store = store_of(*_base(), make_pvc("pvc-a", sc=WAIT_SC), make_pv("pv-a", sc=WAIT_SC))
    pl = VolumeBinding(handle=FakeHandle(store=store))
    pod = _pod("pvc-a")
    state = _filtered_state(store, pod, pl)
    assert pl.reserve(state, pod, "node-a") is None
    assert pl.pre_bind(state, pod, "node-a") is None
    pv = store.get("PersistentVolume", "", "pv-a")
    pvc = store.get("PersistentVolumeClaim", "default", "pvc-a")
    assert (pv.claim_ref or {}).get("name") == "pvc-a" and pv.phase == "Bound"
    assert pvc.volume_name == "pv-a" and pvc.phase == "Bound"
    assert pvc.annotations["pv.kubernetes.io/bind-completed"] == "yes"
    # Now fully bound: the next cycle sees a bound claim and Reserve reports all bound.
    state2 = _filtered_state(store, pod, pl)
    assert pl.reserve(state2, pod, "node-a") is None
    assert state2.read(STATE_KEY).all_bound is True
    assert pl.pre_bind(state2, pod, "node-a") is None


def test_pre_bind_provisions_dynamically() -> None:
    store = store_of(
        *_base(),
        make_pvc("pvc-a", sc=PROV_SC, request="3Gi"),
        make_csinode("node-a", {"csi.example.com": None}, topology_keys=(ZONE,)),
        *_nodes(),
    )
    pl = VolumeBinding(handle=FakeHandle(store=store))
    pod = _pod("pvc-a")
    state = _filtered_state(store, pod, pl)
    assert pl.reserve(state, pod, "node-a") is None
    assert pl.pre_bind(state, pod, "node-a") is None
    pvc = store.get("PersistentVolumeClaim", "default", "pvc-a")
    assert pvc.volume_name == f"pvc-{pvc.meta.uid}" and pvc.phase == "Bound"
    assert pvc.annotations["volume.kubernetes.io/selected-node"] == "node-a"
    pv = store.get("PersistentVolume", "", pvc.volume_name)
    assert pv.capacity["storage"] == 3 * 1024**3 and pv.source["csi"]["driver"] == "csi.example.com"
    assert pv.node_affinity is not None and pv.node_affinity.matches("", {ZONE: "zone-a"})
    assert not pv.node_affinity.matches("", {ZONE: "zone-b"})


def test_pre_bind_without_reserve_state_is_an_error() -> None:
    pl = VolumeBinding(handle=FakeHandle(store=store_of()))
    status = pl.pre_bind(CycleState(), _pod("pvc-a"), "node-a")
    assert status is not None and status.code == Code.ERROR


def test_score_disabled_by_default() -> None:
    store = store_of(*_base(), make_pvc("pvc-a", sc=WAIT_SC), make_pv("pv-a", sc=WAIT_SC))
    pl = VolumeBinding(handle=FakeHandle(store=store))
    state = _filtered_state(store, _pod("pvc-a"), pl)
    assert pl.pre_score(state, _pod("pvc-a"), []) == st(Code.SKIP)


@pytest.mark.parametrize(
    ("request_", "capacity", "want"),
    [
        # default shape {0,10},{100,0} scaled by 10: score = 100 - utilization
        pytest.param("50Gi", "100Gi", 50, id="half used"),
        pytest.param("100Gi", "100Gi", 0, id="full"),
        pytest.param("10Gi", "100Gi", 90, id="mostly free"),
        pytest.param("1", "3", 67, id="integer utilization 33 -> 67"),
    ],
)
def test_storage_capacity_scoring(request_: str, capacity: str, want: int) -> None:
    store = store_of(
        *_base(),
        make_pvc("pvc-a", sc=WAIT_SC, request=request_),
        make_pv("pv-a", sc=WAIT_SC, capacity=capacity),
    )
    pl = VolumeBinding(handle=FakeHandle(store=store, features={"StorageCapacityScoring": True}))
    pod = _pod("pvc-a")
    state = _filtered_state(store, pod, pl)
    assert pl.pre_score(state, pod, []) is None
    snap = snapshot_of(_nodes())
    scores = [pl.score(state, pod, ni)[0] for ni in snap.node_info_list]
    batch, status = pl.score_batch(state, pod, NodeBatch.all(snap))
    assert status is None and list(batch) == scores == [want, want]


@pytest.mark.parametrize(
    ("args", "error"),
    [
        pytest.param({"bindTimeoutSeconds": -1}, "bindTimeoutSeconds", id="negative bind timeout"),
        pytest.param(
            {"shape": [{"utilization": 50, "score": 1}, {"utilization": 10, "score": 2}]},
            "shape[1].utilization",
            id="shape not increasing",
        ),
        pytest.param({"shape": [{"utilization": 0, "score": 11}]}, "shape[0].score", id="score out of range"),
        pytest.param(
            {"shape": [{"utilization": 101, "score": 1}]},
            "shape[0].utilization",
            id="utilization out of range",
        ),
        pytest.param({"unknown": 1}, "unknown", id="unknown field"),
    ],
)
def test_args_validation(args: dict[str, Any], error: str) -> None:
    with pytest.raises(ArgsError, match=error.replace("[", r"\[").replace("]", r"\]")):
        VolumeBindingArgs.from_dict(args)


def test_shape_needs_storage_capacity_scoring() -> None:
    args = VolumeBindingArgs.from_dict(
        {"shape": [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}]}
    )
    with pytest.raises(ArgsError, match="StorageCapacityScoring"):
        VolumeBinding(args, FakeHandle(store=store_of()))
    pl = VolumeBinding(args, FakeHandle(store=store_of(), features={"StorageCapacityScoring": True}))
    assert pl.scorer is not None and pl.scorer({"sc": [50, 100]}) == 50


def test_args_defaults() -> None:
    a = VolumeBindingArgs.from_dict({})
    assert a.bind_timeout_seconds == 600 and a.shape == ()


def test_hints() -> None:
    from kubesched.framework import QueueingHint

    pl = VolumeBinding(handle=FakeHandle(store=store_of()))
    pod = _pod("pvc-a", ephemeral=("eph",))
    assert pl.is_schedulable_after_pvc_change(pod, None, make_pvc("pvc-a")) == QueueingHint.QUEUE
    assert pl.is_schedulable_after_pvc_change(pod, None, make_pvc("pod-a-eph")) == QueueingHint.QUEUE
    assert pl.is_schedulable_after_pvc_change(pod, None, make_pvc("other")) == QueueingHint.QUEUE_SKIP
    sc = make_sc("s", provisioner="p")
    assert pl.is_schedulable_after_storage_class_change(pod, None, sc) == QueueingHint.QUEUE
    assert (
        pl.is_schedulable_after_storage_class_change(pod, sc, make_sc("s", provisioner="p"))
        == QueueingHint.QUEUE_SKIP
    )
    assert (
        pl.is_schedulable_after_storage_class_change(
            pod, sc, make_sc("s", provisioner="p", topologies={ZONE: ["a"]})
        )
        == QueueingHint.QUEUE
    )
    assert pl.is_schedulable_after_csi_node_change(pod, None, make_csinode("n", {})) == QueueingHint.QUEUE
    csi_pod = make_pod().name("c").volume({"name": "v", "csi": {"driver": "d"}}).obj()

    def driver(name: str, capacity: bool) -> dict[str, Any]:
        return {"metadata": {"name": name}, "spec": {"storageCapacity": capacity}}

    hint = pl.is_schedulable_after_csi_driver_change
    assert hint(csi_pod, driver("d", True), driver("d", False)) == QueueingHint.QUEUE
    assert hint(csi_pod, driver("d", False), driver("d", True)) == QueueingHint.QUEUE_SKIP
    assert hint(csi_pod, driver("e", True), driver("e", False)) == QueueingHint.QUEUE_SKIP
    cap = pl.is_schedulable_after_csi_storage_capacity_change
    assert cap(pod, None, {"capacity": "1Gi"}) == QueueingHint.QUEUE
    assert cap(pod, {"capacity": "1Gi"}, {"capacity": "2Gi"}) == QueueingHint.QUEUE
    assert (
        cap(pod, {"capacity": "2Gi"}, {"capacity": "3Gi", "maximumVolumeSize": "1Gi"})
        == QueueingHint.QUEUE_SKIP
    )
    assert cap(pod, {}, {"capacity": "0"}) == QueueingHint.QUEUE
    assert (
        pl.is_schedulable_after_csi_node_change(pod, make_csinode("n", {}), make_csinode("n", {"d": 1}))
        == QueueingHint.QUEUE_SKIP
    )


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    claims=st_.lists(
        st_.tuples(st_.sampled_from((WAIT_SC, PROV_SC)), st_.integers(1, 4)), min_size=1, max_size=3
    ),
    pvs=st_.lists(st_.tuples(st_.integers(1, 5), st_.sampled_from(("zone-a", "zone-b", None))), max_size=4),
)
def test_batch_agrees_with_per_node(claims: list[tuple[str, int]], pvs: list[tuple[int, str | None]]) -> None:
    objs: list[Any] = [*_base()]
    objs += [make_pvc(f"c{i}", sc=sc, request=f"{size}Gi") for i, (sc, size) in enumerate(claims)]
    objs += [
        make_pv(f"v{i}", sc=WAIT_SC, capacity=f"{size}Gi", affinity={ZONE: [z]} if z else None)
        for i, (size, z) in enumerate(pvs)
    ]
    store = store_of(*objs)
    run_filter(_plugin(store), _pod(*[f"c{i}" for i in range(len(claims))]), _nodes())


@settings(max_examples=40, deadline=None, derandomize=True)
@given(pvs=st_.lists(st_.tuples(st_.sampled_from(("zone-a", "zone-b", None)), st_.booleans()), min_size=1,
                     max_size=4))
def test_bound_claims_batch_agrees_with_per_node(pvs: list[tuple[str | None, bool]]) -> None:
    """Bound claims only (checkBoundClaims): the batch path looks each PV up once; statuses
    (node conflict before a missing PV, in claim order) and the per-node decisions it records
    are the per-node path's."""
    objs: list[Any] = [*_base()]
    for i, (zone, exists) in enumerate(pvs):
        objs.append(make_pvc(f"c{i}", sc=WAIT_SC, volume=f"v{i}"))
        if exists:
            objs.append(make_pv(f"v{i}", sc=WAIT_SC, affinity={ZONE: [zone]} if zone else None,
                                claim=("default", f"c{i}")))
    store = store_of(*objs)
    pod = _pod(*[f"c{i}" for i in range(len(pvs))])
    per_node = run_filter(_plugin(store), pod, _nodes())
    plugin = _plugin(store)()
    state = CycleState()
    snap = snapshot_of(_nodes(), [])
    plugin.pre_filter(state, pod, snap.node_info_list)
    res = plugin.filter_batch(state, pod, NodeBatch.all(snap))
    assert [res.status(i).code for i in range(2)] == per_node.codes()
    assert sorted(state.read(STATE_KEY).pod_volumes_by_node) == sorted(
        per_node.state.read(STATE_KEY).pod_volumes_by_node)


def test_bound_claim_with_missing_pv_after_conflict() -> None:
    """checkBoundClaims stops at the first failing claim, on every path: on node-b the first
    claim's PV conflicts and the second claim (PV missing) is not reached; on node-a the first
    fits and the second's PV is missing."""
    store = store_of(*_base(), make_pvc("c0", sc=WAIT_SC, volume="v0"),
                     make_pvc("c1", sc=WAIT_SC, volume="v1"),
                     make_pv("v0", sc=WAIT_SC, affinity={ZONE: ["zone-a"]}, claim=("default", "c0")))
    run = run_filter(_plugin(store), _pod("c0", "c1"), _nodes())
    assert run.statuses == [
        st(UNRES, "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"),
        st(UNRES, "node(s) had volume node affinity conflict"),
    ]
