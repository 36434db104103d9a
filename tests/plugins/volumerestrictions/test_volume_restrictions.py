"""VolumeRestrictions, ported from upstream volume_restrictions_test.go (TestGCEDiskConflicts,
TestAWSDiskConflicts, TestRBDDiskConflicts, TestISCSIDiskConflicts, TestAccessModeConflicts) and
run on both paths."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st_

from kubesched.api import Pod
from kubesched.cache import PodInfo
from kubesched.framework import ActionType, Code, CycleState, EventResource, QueueingHint
from kubesched.plugins.volumerestrictions import (
    ERR_REASON_DISK_CONFLICT,
    ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT,
    VolumeRestrictions,
)
from kubesched.testing import make_node, make_pod, snapshot_of

from .._harness import FakeHandle
from ..volumebinding.fixtures import make_pvc, ok, run_filter, st, store_of

DISK = st(Code.UNSCHEDULABLE, ERR_REASON_DISK_CONFLICT)
RWOP = st(Code.UNSCHEDULABLE, ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT)


def _vol(name: str, **src: Any) -> dict[str, Any]:
    return {"name": name, **src}


GCE = _vol("v", gcePersistentDisk={"pdName": "foo"})
GCE2 = _vol("v", gcePersistentDisk={"pdName": "bar"})
GCE_RO = _vol("v", gcePersistentDisk={"pdName": "foo", "readOnly": True})
AWS = _vol("v", awsElasticBlockStore={"volumeID": "foo"})
AWS2 = _vol("v", awsElasticBlockStore={"volumeID": "bar"})
AWS_RO = _vol("v", awsElasticBlockStore={"volumeID": "foo", "readOnly": True})
RBD = _vol("v", rbd={"monitors": ["a", "b"], "pool": "foo", "image": "bar", "fsType": "ext4"})
RBD2 = _vol("v", rbd={"monitors": ["c", "d"], "pool": "foo", "image": "bar", "fsType": "ext4"})
RBD_RO = _vol("v", rbd={"monitors": ["b", "e"], "pool": "foo", "image": "bar", "readOnly": True})
RBD_DEFAULT_POOL = _vol("v", rbd={"monitors": ["a"], "image": "bar"})
RBD_POOL_RBD = _vol("v", rbd={"monitors": ["a"], "pool": "rbd", "image": "bar"})
ISCSI = _vol(
    "v",
    iscsi={
        "targetPortal": "127.0.0.1:3260",
        "iqn": "iqn.2016-12.server:storage.target01",
        "fsType": "ext4",
        "lun": 0,
    },
)
ISCSI2 = _vol(
    "v",
    iscsi={
        "targetPortal": "127.0.0.1:3260",
        "iqn": "iqn.2017-12.server:storage.target01",
        "fsType": "ext4",
        "lun": 0,
    },
)
ISCSI_RO = _vol("v", iscsi={"iqn": "iqn.2016-12.server:storage.target01", "readOnly": True})


def _pod(name: str, *volumes: dict[str, Any], node: str = "", claims: tuple[str, ...] = ()) -> Pod:
    pb = make_pod().name(name).uid(name)
    for v in volumes:
        pb.volume(v)
    for c in claims:
        pb.pvc(c)
    if node:
        pb.node(node)
    return pb.obj()


def _store() -> Any:
    return store_of(
        make_pvc("claim-with-rwop-1", modes=("ReadWriteOncePod",)),
        make_pvc("claim-with-rwop-2", modes=("ReadWriteOncePod",)),
        make_pvc("claim-with-rwx", modes=("ReadWriteMany",)),
    )


def _plugin() -> VolumeRestrictions:
    return VolumeRestrictions(handle=FakeHandle(store=_store()))


DISK_CASES = []
for kind, same, other, read_only in (
    ("GCE", GCE, GCE2, GCE_RO),
    ("AWS", AWS, AWS2, AWS_RO),
    ("RBD", RBD, RBD2, RBD_RO),
    ("ISCSI", ISCSI, ISCSI2, ISCSI_RO),
):
    DISK_CASES += [
        pytest.param(None, None, ok(), id=f"{kind}: nothing"),
        pytest.param(None, same, ok(), id=f"{kind}: one state"),
        pytest.param(same, same, DISK, id=f"{kind}: same state"),
        pytest.param(other, same, ok(), id=f"{kind}: different state"),
        # Both read-only: no conflict for GCE PD, RBD, iSCSI; AWS EBS conflicts regardless.
        pytest.param(read_only, read_only, DISK if kind == "AWS" else ok(), id=f"{kind}: both read-only"),
        pytest.param(read_only, same, DISK, id=f"{kind}: one read-only"),
    ]
DISK_CASES += [
    pytest.param(RBD_DEFAULT_POOL, RBD_POOL_RBD, DISK, id="RBD: pool defaults to rbd"),
    pytest.param(GCE, AWS, ok(), id="different kinds never conflict"),
]


@pytest.mark.parametrize(("incoming", "existing", "want"), DISK_CASES)
def test_disk_conflicts(incoming: dict[str, Any] | None, existing: dict[str, Any] | None, want: Any) -> None:
    pod = _pod("incoming", *([incoming] if incoming else []))
    pods = [_pod("existing", *([existing] if existing else []), node="node")]
    run = run_filter(_plugin, pod, [make_node().name("node").obj()], pods)
    got = run.statuses[0]
    assert (got.code, got.reasons) == (want.code, want.reasons)


ACCESS_CASES = [
    pytest.param(_pod("p"), [], [ok(), ok()], id="nothing"),
    pytest.param(
        _pod("p", claims=("claim-not-exist",)),
        [],
        [st(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, 'persistentvolumeclaim "claim-not-exist" not found')] * 2,
        id="failed to get PVC",
    ),
    pytest.param(
        _pod("p", claims=("claim-with-rwop-1",)),
        [_pod("q", claims=("claim-with-rwop-2",), node="n0")],
        [ok(), ok()],
        id="no access mode conflict",
    ),
    pytest.param(
        _pod("p", claims=("claim-with-rwop-1",)),
        [_pod("q", claims=("claim-with-rwop-1",), node="n1")],
        [RWOP, RWOP],
        id="access mode conflict, unschedulable",
    ),
    pytest.param(
        _pod("p", claims=("claim-with-rwop-1", "claim-with-rwop-2")),
        [_pod("q", claims=("claim-with-rwop-1", "claim-with-rwop-2"), node="n0")],
        [RWOP, RWOP],
        id="two conflicts, unschedulable",
    ),
    pytest.param(
        _pod("p", claims=("claim-with-rwx",)),
        [_pod("q", claims=("claim-with-rwx",), node="n0")],
        [ok(), ok()],
        id="ReadWriteMany claims never conflict",
    ),
    pytest.param(
        _pod("p", GCE, claims=("claim-with-rwop-1",)),
        [_pod("q", GCE, node="n0"), _pod("r", claims=("claim-with-rwop-1",), node="n1")],
        [DISK, RWOP],
        id="disk conflict is checked first",
    ),
]


@pytest.mark.parametrize(("pod", "existing", "want"), ACCESS_CASES)
def test_access_mode_conflicts(pod: Pod, existing: list[Pod], want: list[Any]) -> None:
    nodes = [make_node().name("n0").obj(), make_node().name("n1").obj()]
    run = run_filter(_plugin, pod, nodes, existing)
    assert [(s.code, s.reasons) for s in run.statuses] == [(w.code, w.reasons) for w in want]


def test_pre_filter_skip() -> None:
    _, status = _plugin().pre_filter(CycleState(), _pod("p", claims=("claim-with-rwx",)), [])
    assert status is not None and status.code == Code.SKIP


def test_filter_without_pre_filter_state_is_an_error() -> None:
    from kubesched.cache import NodeInfo

    got = _plugin().filter(CycleState(), _pod("p", GCE), NodeInfo.of(make_node().name("n").obj()))
    assert got is not None and got.code == Code.ERROR


def test_add_remove_pod_updates_conflict_count() -> None:
    """PreFilterExtensions: preemption removing the claim's user clears the conflict."""
    pl = _plugin()
    user = _pod("q", claims=("claim-with-rwop-1",), node="n0")
    snap = snapshot_of([make_node().name("n0").obj()], [user])
    state = CycleState()
    pod = _pod("p", claims=("claim-with-rwop-1",))
    _, status = pl.pre_filter(state, pod, snap.node_info_list)
    assert status is None
    ni = snap.node_info_list[0]
    assert pl.filter(state, pod, ni) == RWOP
    ext = pl.pre_filter_extensions()
    assert ext.remove_pod(state, pod, PodInfo(user), ni) is None
    assert pl.filter(state.clone(), pod, ni) is None
    assert ext.add_pod(state, pod, PodInfo(user), ni) is None
    assert pl.filter(state, pod, ni) == RWOP


def test_events_to_register() -> None:
    got = {(e.event.resource, e.event.action) for e in _plugin().events_to_register()}
    assert got == {
        (EventResource.ASSIGNED_POD, ActionType.DELETE),
        (EventResource.NODE, ActionType.ADD),
        (EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD),
    }


@pytest.mark.parametrize(
    ("deleted", "want"),
    [
        pytest.param(_pod("q", GCE, node="n"), QueueingHint.QUEUE, id="deleted pod had the conflicting disk"),
        pytest.param(_pod("q", GCE2, node="n"), QueueingHint.QUEUE_SKIP, id="deleted pod had another disk"),
        pytest.param(
            _pod("q", claims=("claim-with-rwop-1",), node="n"),
            QueueingHint.QUEUE,
            id="deleted pod used the same claim",
        ),
        pytest.param(
            make_pod().name("q").namespace("other").volume(GCE).obj(),
            QueueingHint.QUEUE_SKIP,
            id="deleted pod in another namespace",
        ),
    ],
)
def test_hint_pod_deleted(deleted: Pod, want: QueueingHint) -> None:
    pod = _pod("p", GCE, claims=("claim-with-rwop-1",))
    assert _plugin().is_schedulable_after_assigned_pod_deleted(pod, deleted, None) == want


def test_hint_pvc_added() -> None:
    pod = _pod("p", claims=("claim-with-rwop-1",))
    pl = _plugin()
    assert pl.is_schedulable_after_pvc_added(pod, None, make_pvc("claim-with-rwop-1")) == QueueingHint.QUEUE
    assert pl.is_schedulable_after_pvc_added(pod, None, make_pvc("other")) == QueueingHint.QUEUE_SKIP
    assert (
        pl.is_schedulable_after_pvc_added(pod, None, make_pvc("claim-with-rwop-1", namespace="x"))
        == QueueingHint.QUEUE_SKIP
    )


_VOLS = (GCE, GCE2, GCE_RO, AWS, AWS2, RBD, RBD2, RBD_RO, ISCSI, ISCSI_RO)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    incoming=st_.lists(st_.sampled_from(_VOLS), max_size=2),
    claims=st_.lists(st_.sampled_from(("claim-with-rwop-1", "claim-with-rwx")), max_size=2, unique=True),
    placed=st_.lists(
        st_.tuples(st_.integers(0, 3), st_.lists(st_.sampled_from(_VOLS), max_size=2), st_.booleans()),
        max_size=6,
    ),
)
def test_batch_agrees_with_per_node(
    incoming: list[dict[str, Any]], claims: list[str], placed: list[tuple[int, list[dict[str, Any]], bool]]
) -> None:
    pod = _pod("p", *[dict(v, name=f"v{i}") for i, v in enumerate(incoming)], claims=tuple(claims))
    pods = [
        _pod(
            f"e{j}",
            *[dict(v, name=f"v{i}") for i, v in enumerate(vols)],
            node=f"n{n}",
            claims=("claim-with-rwop-1",) if uses else (),
        )
        for j, (n, vols, uses) in enumerate(placed)
    ]
    nodes = [make_node().name(f"n{i}").obj() for i in range(4)]
    run_filter(_plugin, pod, nodes, pods)  # asserts agreement


@pytest.mark.parametrize("users", [(), ("n0",), ("n1",), ("n0", "n1")])
def test_claim_use_read_from_the_cycle_snapshot_equals_the_node_scan(users: tuple[str, ...]) -> None:
    """IsPVCUsedByPods: when PreFilter is given the cycle snapshot's nodes, the snapshot's set of
    used claims answers; otherwise the nodes' own counts do. Both give the same count."""
    nodes = [make_node().name(n).obj() for n in ("n0", "n1")]
    placed = [_pod(f"q{i}", claims=("claim-with-rwop-1",), node=n) for i, n in enumerate(users)]
    snap = snapshot_of(nodes, placed)
    pod = _pod("p", claims=("claim-with-rwop-1", "claim-with-rwop-2"))
    got = []
    for handle_snap in (snap, snapshot_of(nodes)):  # the cycle's snapshot; another one
        pl = VolumeRestrictions(handle=FakeHandle(snap=handle_snap, store=_store()))
        state = CycleState()
        _, status = pl.pre_filter(state, pod, snap.node_info_list)
        if status is not None:  # nothing to check: Skip
            got.append(status.code)
        else:
            got.append([pl.filter(state, pod, ni) for ni in snap.node_info_list])
    assert got[0] == got[1] == ([RWOP, RWOP] if users else Code.SKIP)
