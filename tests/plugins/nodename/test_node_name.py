"""NodeName (node_name_test.go), per-node and batch."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from kubesched.api import Pod
from kubesched.framework import Code, QueueingHint
from kubesched.plugins.nodename import ERR_REASON, NodeName
from kubesched.testing import make_node, make_pod, snapshot_of

from .._harness import filter_all, simple
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
