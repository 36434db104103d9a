"""NodeVolumeLimits (CSILimits), ported from upstream csi_test.go (TestCSILimits) and run on both
paths."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st_

from kubesched.api import Pod
from kubesched.framework import ActionType, Code, CycleState, EventResource, QueueingHint
from kubesched.plugins.nodevolumelimits import (
    ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED,
    CSILimits,
    csi_attach_limit_key,
)
from kubesched.testing import make_node, make_pod

from .._harness import FakeHandle
from ..volumebinding.fixtures import (
    make_csinode,
    make_pv,
    make_pvc,
    make_sc,
    ok,
    run_filter,
    st,
    store_of,
)

EBS = "ebs.csi.aws.com"
GCE = "pd.csi.storage.gke.io"
EXCEEDED = st(Code.UNSCHEDULABLE, ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED)


def _objects(csinode_limits: dict[str, int | None] | None) -> list[Any]:
    objs: list[Any] = []
    for driver in (EBS, GCE):
        for i in range(4):
            pv = f"csi-{driver}-{i}"
            objs.append(make_pv(pv, source={"csi": {"driver": driver, "volumeHandle": f"{driver}-vol-{i}"}}))
            objs.append(make_pvc(f"csi-{driver}-{i}", volume=pv))
    # an unbound claim and a claim whose PV does not exist: counted by the class's provisioner
    objs += [
        make_sc("csi-sc", provisioner=EBS),
        make_sc("intree-sc", provisioner="kubernetes.io/gce-pd"),
        make_pvc("pending-0", sc="csi-sc"),
        make_pvc("pending-1", sc="csi-sc"),
        make_pvc("invalid-pv", sc="csi-sc", volume="missing-pv", phase="Bound"),
        make_pvc("missing-sc", sc="not-there"),
        make_pvc("no-sc"),
        make_pvc("intree-pending", sc="intree-sc"),
        make_pv(
            "gce-pv",
            source={"gcePersistentDisk": {"pdName": "disk-1"}},
            labels={"topology.kubernetes.io/zone": "z1"},
        ),
        make_pvc("gce-claim", volume="gce-pv"),
        make_pvc("p-eph", owner_uid="p", volume="csi-ebs.csi.aws.com-3"),
        make_pvc("p-eph-unbound", owner_uid="p", sc="csi-sc"),
        make_pvc("p-stranger", owner_uid="someone-else", volume="csi-ebs.csi.aws.com-3"),
    ]
    if csinode_limits is not None:
        objs.append(make_csinode("node", csinode_limits))
    return objs


def _pod(
    name: str,
    *claims: str,
    node: str = "",
    inline: tuple[dict[str, Any], ...] = (),
    ephemeral: tuple[str, ...] = (),
) -> Pod:
    pb = make_pod().name(name).uid(name)
    for c in claims:
        pb.pvc(c)
    for i, v in enumerate(inline):
        pb.volume({"name": f"inline-{i}", **v})
    for e in ephemeral:
        pb.volume({"name": e, "ephemeral": {"volumeClaimTemplate": {"spec": {}}}})
    if node:
        pb.node(node)
    return pb.obj()


def ebs(i: int) -> str:
    return f"csi-{EBS}-{i}"


def gce(i: int) -> str:
    return f"csi-{GCE}-{i}"


GCE_INLINE = {"gcePersistentDisk": {"pdName": "disk-9"}}

CASES = [
    pytest.param(
        _pod("p", ebs(0), ebs(1)),
        [_pod("e", ebs(2), node="node")],
        {EBS: 4},
        ok(),
        id="fits when node volume limit >= new pods CSI volume",
    ),
    pytest.param(
        _pod("p", ebs(0), ebs(1)),
        [_pod("e", ebs(2), ebs(3), node="node")],
        {EBS: 3},
        EXCEEDED,
        id="doesn't when node volume limit <= pods CSI volume",
    ),
    pytest.param(
        _pod("p", ebs(0), ebs(1)),
        [_pod("e", ebs(2), ebs(3), node="node")],
        {EBS: None},
        ok(),
        id="should when driver does not support volume limits",
    ),
    pytest.param(
        _pod("p", ebs(0), ebs(1)),
        [_pod("e", ebs(2), ebs(3), node="node")],
        None,
        ok(),
        id="no CSINode and no attachable allocatable: no limit",
    ),
    pytest.param(
        _pod("p", ebs(0), ebs(1)),
        [_pod("e", ebs(0), ebs(1), node="node")],
        {EBS: 2},
        ok(),
        id="volumes shared with pods on the node count once",
    ),
    pytest.param(
        _pod("p", ebs(0), ebs(0)),
        [_pod("e", ebs(1), node="node")],
        {EBS: 2},
        ok(),
        id="the same claim twice in one pod counts once",
    ),
    pytest.param(
        _pod("p", "pending-0"),
        [_pod("e", ebs(2), ebs(3), node="node")],
        {EBS: 2},
        EXCEEDED,
        id="count pending PVCs towards volume limit <= pods CSI volume",
    ),
    pytest.param(
        _pod("p", "pending-0", "pending-1"),
        [_pod("e", ebs(2), node="node")],
        {EBS: 4},
        ok(),
        id="count multiple pending pvcs towards volume limit >= pods CSI volume",
    ),
    pytest.param(
        _pod("p", "pending-0", "pending-1"),
        [_pod("e", ebs(2), ebs(3), node="node")],
        {EBS: 3},
        EXCEEDED,
        id="count multiple pending pvcs towards volume limit <= pods CSI volume",
    ),
    pytest.param(
        _pod("p", "invalid-pv"),
        [_pod("e", ebs(2), ebs(3), node="node")],
        {EBS: 2},
        EXCEEDED,
        id="should count PVCs with invalid PV name but valid SC",
    ),
    pytest.param(
        _pod("p", "missing-sc", "no-sc"),
        [_pod("e", ebs(2), ebs(3), node="node")],
        {EBS: 2},
        ok(),
        id="don't count pvcs with missing SC",
    ),
    pytest.param(
        _pod("p", ebs(0)),
        [_pod("e", gce(0), gce(1), node="node")],
        {EBS: 1, GCE: 2},
        ok(),
        id="don't count pvcs with different type towards volume limit",
    ),
    pytest.param(
        _pod("p", gce(2)),
        [_pod("e", gce(0), gce(1), node="node")],
        {EBS: 1, GCE: 2},
        EXCEEDED,
        id="count pvcs with the same type towards volume limit",
    ),
    pytest.param(
        _pod("p", "claim-missing"),
        [],
        {EBS: 1},
        st(
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
            'looking up PVC default/claim-missing: persistentvolumeclaim "claim-missing" not found',
        ),
        id="pvc of the new pod not found",
    ),
    pytest.param(
        _pod("p", ebs(0)),
        [_pod("e", "claim-missing", ebs(2), node="node")],
        {EBS: 2},
        ok(),
        id="pvcs of existing pods that are missing are not counted",
    ),
    pytest.param(
        _pod("p", inline=(GCE_INLINE,)),
        [_pod("e", gce(0), node="node")],
        {GCE: 1},
        EXCEEDED,
        id="should count in-tree inline volumes if migration is enabled",
    ),
    pytest.param(
        _pod("p", "gce-claim"),
        [_pod("e", gce(0), node="node")],
        {GCE: 1},
        EXCEEDED,
        id="should count in-tree PVs if migration is enabled",
    ),
    pytest.param(
        _pod("p", "intree-pending"),
        [_pod("e", gce(0), node="node")],
        {GCE: 1},
        EXCEEDED,
        id="should count unbound claims of in-tree provisioners if migration is enabled",
    ),
    pytest.param(
        _pod("p", "gce-claim", inline=(GCE_INLINE,)),
        [_pod("e", gce(0), node="node")],
        None,
        ok(),
        id="should not count in-tree volume if migration is disabled (no CSINode)",
    ),
    pytest.param(
        _pod("p", ephemeral=("eph",)), [_pod("e", ebs(2), node="node")], {EBS: 2}, ok(), id="ephemeral volume"
    ),
    pytest.param(
        _pod("p", ephemeral=("eph",)),
        [_pod("e", ebs(2), node="node")],
        {EBS: 1},
        EXCEEDED,
        id="ephemeral doesn't when node volume limit <= pods ephemeral CSI volume",
    ),
    pytest.param(
        _pod("p", ephemeral=("eph-unbound",)),
        [_pod("e", ebs(2), node="node")],
        {EBS: 1},
        EXCEEDED,
        id="ephemeral volume unbound",
    ),
    pytest.param(
        _pod("p", ephemeral=("missing",)),
        [],
        {EBS: 1},
        st(
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
            'looking up PVC default/p-missing: persistentvolumeclaim "p-missing" not found',
        ),
        id="ephemeral volume missing",
    ),
    pytest.param(
        _pod("p", ephemeral=("stranger",)),
        [],
        {EBS: 1},
        st(Code.ERROR, "PVC default/p-stranger was not created for pod default/p (pod is not owner)"),
        id="ephemeral volume not owned",
    ),
]


@pytest.mark.parametrize(("pod", "existing", "limits", "want"), CASES)
def test_csi_limits(pod: Pod, existing: list[Pod], limits: dict[str, int | None] | None, want: Any) -> None:
    store = store_of(*_objects(limits))
    run = run_filter(
        lambda: CSILimits(handle=FakeHandle(store=store)), pod, [make_node().name("node").obj()], existing
    )
    got = run.statuses[0]
    assert (got.code, got.reasons) == (want.code, want.reasons)


def test_node_allocatable_limits_without_csinode() -> None:
    """getVolumeLimits reads attachable-volumes-* from the node when there is no CSINode."""
    store = store_of(*_objects(None))
    node = make_node().name("node").capacity({"pods": "32", csi_attach_limit_key(EBS): "2"}).obj()
    run = run_filter(
        lambda: CSILimits(handle=FakeHandle(store=store)),
        _pod("p", ebs(0)),
        [node],
        [_pod("e", ebs(1), ebs(2), node="node")],
    )
    assert run.statuses[0] == EXCEEDED


def test_pre_filter_skips_pods_without_attachable_volumes() -> None:
    pl = CSILimits(handle=FakeHandle(store=store_of()))
    pod = make_pod().name("p").volume({"name": "x", "emptyDir": {}}).obj()
    assert pl.pre_filter(CycleState(), pod, [])[1] == st(Code.SKIP)
    assert pl.pre_filter(CycleState(), _pod("p", inline=(GCE_INLINE,)), [])[1] is None


@pytest.mark.parametrize(
    ("driver", "want"),
    [
        pytest.param(EBS, "attachable-volumes-csi-ebs.csi.aws.com", id="short"),
        pytest.param(
            "a" * 40,
            "attachable-volumes-csi-" + "a" * 23 + hashlib.sha1(b"a" * 40).hexdigest()[:16],
            id="long, hashed",
        ),
    ],
)
def test_csi_attach_limit_key(driver: str, want: str) -> None:
    assert csi_attach_limit_key(driver) == want
    assert len(want) < 63


def test_events_and_hints() -> None:
    pl = CSILimits(handle=FakeHandle(store=store_of()))
    got = {(e.event.resource, e.event.action) for e in pl.events_to_register()}
    assert got == {
        (EventResource.CSI_NODE, ActionType.ADD),
        (EventResource.CSI_NODE, ActionType.UPDATE),
        (EventResource.ASSIGNED_POD, ActionType.DELETE),
        (EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD),
        (EventResource.VOLUME_ATTACHMENT, ActionType.DELETE),
    }
    pod = _pod("p", ebs(0), ephemeral=("eph",))
    assert pl.is_schedulable_after_pvc_added(pod, None, make_pvc(ebs(0))) == QueueingHint.QUEUE
    assert pl.is_schedulable_after_pvc_added(pod, None, make_pvc("p-eph")) == QueueingHint.QUEUE
    assert pl.is_schedulable_after_pvc_added(pod, None, make_pvc("other")) == QueueingHint.QUEUE_SKIP
    assert (
        pl.is_schedulable_after_assigned_pod_deleted(pod, _pod("e", ebs(1), node="n"), None)
        == QueueingHint.QUEUE
    )
    assert (
        pl.is_schedulable_after_assigned_pod_deleted(pod, _pod("e", ebs(1)), None) == QueueingHint.QUEUE_SKIP
    )
    assert (
        pl.is_schedulable_after_assigned_pod_deleted(pod, _pod("e", node="n"), None)
        == QueueingHint.QUEUE_SKIP
    )
    old = make_csinode("n", {EBS: 2, GCE: None})
    assert (
        pl.is_schedulable_after_csi_node_updated(pod, old, make_csinode("n", {EBS: 3})) == QueueingHint.QUEUE
    )
    assert (
        pl.is_schedulable_after_csi_node_updated(pod, old, make_csinode("n", {EBS: 2, GCE: 1}))
        == QueueingHint.QUEUE_SKIP
    )
    assert (
        pl.is_schedulable_after_csi_node_updated(pod, old, make_csinode("n", {EBS: None}))
        == QueueingHint.QUEUE
    )


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    incoming=st_.lists(st_.sampled_from((ebs(0), ebs(1), gce(0), "pending-0", "gce-claim")), max_size=3),
    placed=st_.lists(
        st_.tuples(
            st_.integers(0, 2), st_.lists(st_.sampled_from((ebs(1), ebs(2), gce(1), gce(2))), max_size=2)
        ),
        max_size=5,
    ),
    limits=st_.lists(st_.one_of(st_.none(), st_.integers(0, 3)), min_size=3, max_size=3),
)
def test_batch_agrees_with_per_node(
    incoming: list[str], placed: list[tuple[int, list[str]]], limits: list[int | None]
) -> None:
    objs = _objects(None)
    objs += [make_csinode(f"n{i}", {EBS: lim, GCE: lim}) for i, lim in enumerate(limits)]
    store = store_of(*objs)
    pods = [_pod(f"e{j}", *claims, node=f"n{n}") for j, (n, claims) in enumerate(placed)]
    nodes = [make_node().name(f"n{i}").obj() for i in range(3)]
    run_filter(lambda: CSILimits(handle=FakeHandle(store=store)), _pod("p", *incoming), nodes, pods)


def test_missing_claim_beside_csi_claims_is_unresolvable_on_every_path() -> None:
    """The incoming pod's volumes are resolved once for all nodes when they do not depend on
    the node (CSI PVs): a missing claim after a CSI one gives the same status on every node."""
    objs = _objects(None)
    objs += [make_csinode(f"n{i}", {EBS: 1}) for i in range(2)]
    store = store_of(*objs)
    nodes = [make_node().name(f"n{i}").obj() for i in range(2)]
    pods = [_pod("e0", ebs(1), node="n0")]
    def plugin() -> CSILimits:
        return CSILimits(handle=FakeHandle(store=store))

    run = run_filter(plugin, _pod("p", ebs(0), "nope"), nodes, pods)
    assert run.codes() == [Code.UNSCHEDULABLE_AND_UNRESOLVABLE] * 2
    run = run_filter(plugin, _pod("p", ebs(0)), nodes, pods)
    assert run.statuses == [EXCEEDED, ok()]


def test_limits_follow_csinode_updates() -> None:
    """The plugin keeps each node's limits while its allocatable and CSINode objects are the
    same: a CSINode update (a new object) must be seen by the next Filter."""
    from kubesched.testing import snapshot_of

    objs = _objects(None)
    objs.append(make_csinode("n0", {EBS: 1}))
    store = store_of(*objs)
    pl = CSILimits(handle=FakeHandle(store=store))
    snap = snapshot_of([make_node().name("n0").obj()], [_pod("e0", ebs(1), node="n0")])
    ni = snap.node_info_list[0]
    pod = _pod("p", ebs(0))
    state = CycleState()
    assert pl.filter(state, pod, ni) == EXCEEDED
    assert pl.filter(state, pod, ni) == EXCEEDED  # cached limits, same answer
    csinode = store.try_get("CSINode", "", "n0")
    store.update(make_csinode("n0", {EBS: 2}).with_changes(
        {("metadata", "resourceVersion"): csinode.meta.resource_version}))
    assert pl.filter(state, pod, ni) is None
