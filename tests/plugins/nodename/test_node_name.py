"""NodeName (node_name_test.go), per-node and batch."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from kubesched.api import Pod
from kubesched.framework import Code, CycleState, QueueingHint
from kubesched.plugins.nodename import ERR_REASON, NodeName
from kubesched.testing import make_node, make_pod, snapshot_of

from .._harness import FakeHandle, filter_all, simple
from ..strategies import Cluster, clusters, incoming_pods


@pytest.mark.parametrize(
    ("pod", "want"),
    [
        pytest.param(make_pod().name("p").obj(), (Code.SUCCESS, ()), id="no host specified"),
        pytest.param(make_pod().name("p").node("foo").obj(), (Code.SUCCESS, ()), id="host matches"),
        pytest.param(
            make_pod().name("p").node("bar").obj(),
            (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON,)),
            id="host doesn't match",
        ),
    ],
)
def test_filter(pod: Pod, want: tuple[Code, tuple[str, ...]]) -> None:
    snap = snapshot_of([make_node().name("foo").obj()])
    assert simple(filter_all(NodeName(), pod, snap).statuses[0]) == want


@pytest.mark.parametrize(
    ("gate", "pod", "want"),
    [
        pytest.param(True, make_pod().name("p").node("foo").obj(), frozenset({"foo"}), id="assigned pod"),
        pytest.param(True, make_pod().name("p").obj(), None, id="unassigned pod"),
        pytest.param(False, make_pod().name("p").node("foo").obj(), None, id="feature disabled"),
    ],
)
def test_pre_filter(gate: bool, pod: Pod, want: frozenset[str] | None) -> None:
    # TestNodeName_PreFilter (PR #140000): behind InPlacePodVerticalScalingSchedulerPreemption.
    snap = snapshot_of([make_node().name("foo").obj(), make_node().name("bar").obj()])
    pl = NodeName(handle=FakeHandle(snap, features={"InPlacePodVerticalScalingSchedulerPreemption": gate}))
    res, status = pl.pre_filter(CycleState(), pod, snap.list())
    assert status is None
    assert (None if res is None else res.node_names) == want


def test_hint_node_add() -> None:
    pl = NodeName()
    [ev] = pl.events_to_register()
    assert ev.hint is not None
    pod = make_pod().name("p").node("foo").obj()
    assert ev.hint(pod, None, make_node().name("foo").obj()) == QueueingHint.QUEUE
    assert ev.hint(pod, None, make_node().name("bar").obj()) == QueueingHint.QUEUE_SKIP


@settings(max_examples=20, deadline=None, derandomize=True)
@given(cluster=clusters(), pod=incoming_pods())
def test_batch_agrees(cluster: Cluster, pod: Pod) -> None:
    filter_all(NodeName(), pod, cluster.snapshot())
