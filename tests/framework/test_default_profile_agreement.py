"""The default profile with the in-tree plugins: batch and per-node paths give the same filter
statuses and scores on random clusters (what ``--check-decisions`` relies on)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kubesched.api import ReplicaSet, Service
from kubesched.cluster import MemoryStore
from kubesched.framework import CycleState, Framework, NodeBatch, new_profile_map
from kubesched.framework.config import default_config
from kubesched.testing import make_node, make_pod, snapshot_of

ZONES = ["z1", "z2", "z3"]

node_st = st.tuples(
    st.integers(1, 8),  # cpu
    st.integers(1, 8),  # memory GiB
    st.sampled_from(ZONES),
    st.booleans(),  # tainted
    st.booleans(),  # unschedulable
    st.integers(0, 3),  # cpu already used
)
pod_st = st.tuples(
    st.integers(0, 6),  # cpu request
    st.integers(0, 6),  # memory request GiB
    st.booleans(),  # tolerates the taint
    st.sampled_from([None, *ZONES]),  # node selector on zone
    st.booleans(),  # uses resourceClaims (DynamicResources refuses it at PreFilter)
)


def _frameworks(snap: Any) -> tuple[Framework, Framework]:
    cfg = default_config()
    fast = new_profile_map(cfg, snapshot=snap)["default-scheduler"]
    slow = new_profile_map(cfg, snapshot=snap, per_node=True)["default-scheduler"]
    return fast, slow


@settings(max_examples=30, deadline=None, derandomize=True)
@given(nodes=st.lists(node_st, min_size=1, max_size=8), pod=pod_st)
def test_default_profile_batch_equals_per_node(nodes: list[tuple[Any, ...]], pod: tuple[Any, ...]) -> None:
    built, existing = [], []
    for i, (cpu, mem, zone, tainted, unsched, used) in enumerate(nodes):
        b = make_node().name(f"n{i}").capacity({"cpu": str(cpu), "memory": f"{mem}Gi"}).label("zone", zone)
        if tainted:
            b = b.taint("dedicated", "x", "NoSchedule")
        if unsched:
            b = b.unschedulable()
        built.append(b.obj())
        if used:
            existing.append(make_pod().name(f"e{i}").uid(f"e{i}").node(f"n{i}").req({"cpu": str(used)}).obj())
    cpu, mem, tolerates, zone_sel, claims = pod
    pb = make_pod().name("p").uid("p").req({"cpu": str(cpu), "memory": f"{mem}Gi"})
    if tolerates:
        pb = pb.toleration("dedicated", "x", "NoSchedule", "Equal")
    if zone_sel:
        pb = pb.node_selector({"zone": zone_sel})
    if claims:
        pb = pb.resource_claims(["gpu"])
    p = pb.obj()
    snap = snapshot_of(built, existing)
    fast, slow = _frameworks(snap)
    s_fast, s_slow = CycleState(), CycleState()
    _, st_fast, _ = fast.run_pre_filter_plugins(s_fast, p)
    _, st_slow, _ = slow.run_pre_filter_plugins(s_slow, p)
    assert st_fast == st_slow
    if not st_fast.is_success():
        return
    batch = NodeBatch.all(snap)
    out = fast.run_filter_plugins_batch(s_fast, p, batch)
    for row, ni in enumerate(batch.node_infos()):
        assert out.status(row) == slow.run_filter_plugins(s_slow, p, ni), ni.name
    feasible = [snap.node_info_list[i] for i in out.feasible().tolist()]
    if len(feasible) < 2:
        return
    assert fast.run_pre_score_plugins(s_fast, p, feasible).is_success()
    assert slow.run_pre_score_plugins(s_slow, p, feasible).is_success()
    r_fast, sf = fast.run_score_plugins(s_fast, p, feasible)
    r_slow, ss = slow.run_score_plugins(s_slow, p, feasible)
    assert sf.is_success() and ss.is_success() and r_fast is not None and r_slow is not None
    assert r_fast.normalized.tolist() == r_slow.normalized.tolist()
    assert r_fast.totals.tolist() == r_slow.totals.tolist()


def _store(service_app: str | None, rs_app: str | None) -> MemoryStore:
    """A Service selecting ``app=<service_app>`` and a ReplicaSet ``rs`` selecting
    ``app=<rs_app>``, each only when given."""
    objs: list[Any] = []
    if service_app is not None:
        objs.append(Service.from_dict({"apiVersion": "v1", "kind": "Service",
                                       "metadata": {"name": "s", "namespace": "default"},
                                       "spec": {"selector": {"app": service_app}}}))
    if rs_app is not None:
        objs.append(ReplicaSet.from_dict({"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                          "metadata": {"name": "rs", "namespace": "default"},
                                          "spec": {"selector": {"matchLabels": {"app": rs_app}}}}))
    store = MemoryStore()
    store.load(objs)
    return store


APPS = ["web", "db"]


@settings(max_examples=30, deadline=None, derandomize=True)
@given(
    nodes=st.lists(st.tuples(st.sampled_from([*ZONES, ""]), st.lists(st.sampled_from(APPS), max_size=4)),
                   min_size=2, max_size=8),
    app=st.sampled_from(APPS),
    service_app=st.sampled_from([None, *APPS]),
    rs_app=st.sampled_from([None, *APPS]),
)
def test_default_spreading_batch_equals_per_node(nodes: list[tuple[str, list[str]]], app: str,
                                                 service_app: str | None, rs_app: str | None) -> None:
    """System default spreading with a selector from a Service and the owning ReplicaSet: both
    paths score the same (nodes without a zone form their own domain)."""
    built, existing = [], []
    for i, (zone, apps) in enumerate(nodes):
        b = make_node().name(f"n{i}").capacity({"cpu": "8", "memory": "8Gi"}).label(
            "kubernetes.io/hostname", f"n{i}")
        built.append((b.label("topology.kubernetes.io/zone", zone) if zone else b).obj())
        existing += [make_pod().name(f"e{i}-{j}").uid(f"e{i}-{j}").label("app", a).node(f"n{i}").obj()
                     for j, a in enumerate(apps)]
    p = make_pod().name("p").uid("p").label("app", app).owner_reference("rs").obj()
    snap = snapshot_of(built, existing)
    cfg = default_config()
    store = _store(service_app, rs_app)
    fast = new_profile_map(cfg, snapshot=snap, store=store)["default-scheduler"]
    slow = new_profile_map(cfg, snapshot=snap, store=store, per_node=True)["default-scheduler"]
    s_fast, s_slow = CycleState(), CycleState()
    fast.run_pre_filter_plugins(s_fast, p)
    slow.run_pre_filter_plugins(s_slow, p)
    feasible = list(snap.node_info_list)
    assert fast.run_pre_score_plugins(s_fast, p, feasible).is_success()
    assert slow.run_pre_score_plugins(s_slow, p, feasible).is_success()
    r_fast, sf = fast.run_score_plugins(s_fast, p, feasible)
    r_slow, ss = slow.run_score_plugins(s_slow, p, feasible)
    assert sf.is_success() and ss.is_success() and r_fast is not None and r_slow is not None
    assert r_fast.normalized.tolist() == r_slow.normalized.tolist()
    assert r_fast.totals.tolist() == r_slow.totals.tolist()
