"""NodeUnschedulable (node_unschedulable_test.go), per-node and batch."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from kubesched.api import Pod
from kubesched.cache import NodeInfo, Snapshot
from kubesched.framework import Code, CycleState, QueueingHint
from kubesched.plugins.nodeunschedulable import (
    ERR_REASON_UNKNOWN_CONDITION,
    ERR_REASON_UNSCHEDULABLE,
    NodeUnschedulable,
)
from kubesched.testing import make_node, make_pod, snapshot_of

from .._harness import filter_all, simple
from ..strategies import Cluster, clusters, incoming_pods

UNSCHED = (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON_UNSCHEDULABLE,))
OK = (Code.SUCCESS, ())
KEY = "node.kubernetes.io/unschedulable"


@pytest.mark.parametrize(
    ("unschedulable", "pod", "want"),
    [
        pytest.param(
            True, make_pod().name("p").obj(), UNSCHED, id="Does not schedule pod to unschedulable node"
        ),
        pytest.param(False, make_pod().name("p").obj(), OK, id="Schedule pod to normal node"),
        pytest.param(
            True,
            make_pod().name("p").toleration(KEY, effect="NoSchedule").obj(),
            OK,
            id="Schedule pod with toleration to unschedulable node",
        ),
        pytest.param(
            True,
            make_pod().name("p").toleration(KEY, effect="NoExecute").obj(),
            UNSCHED,
            id="toleration with another effect does not help",
        ),
        pytest.param(True, make_pod().name("p").toleration().obj(), OK, id="tolerate everything"),
    ],
)
def test_filter(unschedulable: bool, pod: Pod, want: tuple[Code, tuple[str, ...]]) -> None:
    snap = snapshot_of([make_node().name("n").unschedulable(unschedulable).obj()])
    assert simple(filter_all(NodeUnschedulable(), pod, snap).statuses[0]) == want


def test_node_info_without_node() -> None:
    st = NodeUnschedulable().filter(CycleState(), make_pod().name("p").obj(), NodeInfo())
    assert simple(st) == (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON_UNKNOWN_CONDITION,))


UNKNOWN = (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON_UNKNOWN_CONDITION,))


@pytest.mark.parametrize(
    ("pod", "want"),
    [
        pytest.param(make_pod().name("p").obj(), [UNKNOWN, UNSCHED, OK], id="plain pod"),
        pytest.param(
            make_pod().name("p").toleration(KEY, effect="NoSchedule").obj(),
            [UNKNOWN, OK, OK],
            id="tolerating pod",
        ),
    ],
)
def test_batch_node_less_rows(pod: Pod, want: list[tuple[Code, tuple[str, ...]]]) -> None:
    # The batch path reads the has_node column: a NodeInfo without its Node gets the per-node
    # answer, whatever the pod tolerates (filter_all checks both paths agree).
    snap = Snapshot([
        NodeInfo(),
        NodeInfo.of(make_node().name("a").unschedulable().obj()),
        NodeInfo.of(make_node().name("b").obj()),
    ])
    assert [simple(s) for s in filter_all(NodeUnschedulable(), pod, snap).statuses] == want


def test_hints() -> None:
    pl = NodeUnschedulable()
    node_ev, pod_ev = pl.events_to_register()
    assert node_ev.hint is not None and pod_ev.hint is not None
    pod = make_pod().name("p").uid("p").obj()
    cordoned = make_node().name("n").unschedulable().obj()
    ready = make_node().name("n").obj()
    assert node_ev.hint(pod, cordoned, ready) == QueueingHint.QUEUE
    assert node_ev.hint(pod, None, ready) == QueueingHint.QUEUE
    assert node_ev.hint(pod, ready, cordoned) == QueueingHint.QUEUE_SKIP
    assert node_ev.hint(pod, ready, ready) == QueueingHint.QUEUE_SKIP
    tolerant = make_pod().name("p").uid("p").toleration(KEY, effect="NoSchedule").obj()
    assert pod_ev.hint(pod, pod, tolerant) == QueueingHint.QUEUE
    assert pod_ev.hint(pod, pod, pod) == QueueingHint.QUEUE_SKIP
    assert pod_ev.hint(pod, tolerant, tolerant) == QueueingHint.QUEUE_SKIP  # nothing changed


@settings(max_examples=20, deadline=None, derandomize=True)
@given(cluster=clusters(), pod=incoming_pods())
def test_batch_agrees(cluster: Cluster, pod: Pod) -> None:
    filter_all(NodeUnschedulable(), pod, cluster.snapshot())


def test_batch_reads_only_its_rows_when_the_snapshot_has_a_cordoned_node() -> None:
    # The clean-snapshot shortcut must not apply: the batch's own rows decide.
    import numpy as np

    from kubesched.framework import NodeBatch

    snap = snapshot_of([make_node().name("a").unschedulable().obj(), make_node().name("b").obj()])
    pod = make_pod().name("p").obj()
    rows = {n: NodeBatch(snap, np.asarray([snap.node_index[n]], dtype=np.int64)) for n in ("a", "b")}
    pl = NodeUnschedulable()
    assert pl.filter_batch(CycleState(), pod, rows["b"]).codes.tolist() == [0]
    assert pl.filter_batch(CycleState(), pod, rows["a"]).codes.tolist() == [int(UNSCHED[0])]
