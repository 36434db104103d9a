"""DynamicResources, the DRA placeholder: Skip without claims, a clear refusal with claims."""

from __future__ import annotations

import pytest

from kubesched.framework import Code, CycleState, NodeBatch
from kubesched.plugins.dynamicresources import ERR_NOT_IMPLEMENTED, DynamicResources
from kubesched.plugins.registry import in_tree_registry
from kubesched.testing import make_node, make_pod, snapshot_of

from .._harness import FakeHandle, filter_all, simple

NODES = [make_node().name(f"n{i}").obj() for i in range(3)]
REFUSED = (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_NOT_IMPLEMENTED,))


def test_registered_under_upstreams_name() -> None:
    assert in_tree_registry()["DynamicResources"] is DynamicResources


def test_pre_filter_skips_a_pod_without_claims() -> None:
    run = filter_all(DynamicResources(), make_pod().name("p").obj(), snapshot_of(NODES))
    assert simple(run.pre_filter_status) == (Code.SKIP, ())
    assert all(s.is_success() for s in run.statuses)


def test_pre_filter_refuses_a_pod_with_claims() -> None:
    pod = make_pod().name("p").resource_claims(["gpu"]).obj()
    run = filter_all(DynamicResources(), pod, snapshot_of(NODES))
    assert simple(run.pre_filter_status) == REFUSED


@pytest.mark.parametrize("claims", [[], ["gpu"], ["gpu", "nic"]])
def test_filter_paths_agree(claims: list[str]) -> None:
    pl, snap = DynamicResources(), snapshot_of(NODES)
    pod = make_pod().name("p").resource_claims(claims).obj()
    batch = pl.filter_batch(CycleState(), pod, NodeBatch.all(snap))
    per_node = [simple(pl.filter(CycleState(), pod, ni)) for ni in snap.node_info_list]
    assert per_node == [simple(batch.status(i)) for i in range(len(NODES))]
    assert per_node == [REFUSED if claims else (Code.SUCCESS, ())] * len(NODES)


def test_feature_off_does_nothing() -> None:
    pl = DynamicResources(None, FakeHandle(features={"DynamicResourceAllocation": False}))
    pod = make_pod().name("p").resource_claims(["gpu"]).obj()
    assert simple(filter_all(pl, pod, snapshot_of(NODES)).pre_filter_status) == (Code.SKIP, ())
