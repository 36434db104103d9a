"""PodIndex views: per-row counts kept up to date across cycles equal a recount from scratch.

The views move with the deltas of the nodes each snapshot update rewrote; a stale view would
silently change affinity and spreading decisions, so each cache operation that changes what a
view counts (pods added, removed, relabelled, assumed then forgotten, going terminating; nodes
added, removed, relabelled) is exercised on a long-lived index that is queried every step."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubesched.api import Pod
from kubesched.cache import Cache, Snapshot
from kubesched.clock import VirtualClock
from kubesched.plugins.helper import (
    AffinityTerm,
    PodIndex,
    PodTerms,
    PodTermsCache,
    TopologyValueCounts,
    ValueCodes,
    match_key,
)
from kubesched.testing import make_node, make_pod

from .._random_cluster import RandomCluster

ZONE_KEY = "topology.kubernetes.io/zone"
KINDS = ("required_affinity", "required_anti_affinity", "preferred_affinity", "preferred_anti_affinity")


def _app(value: str) -> Callable[[Pod], bool]:
    return lambda p: p.labels.get("app") == value


GROUP_RULES: list[tuple[str, Callable[[Pod], bool]]] = [
    ("app-a", _app("a")),
    ("app-b", _app("b")),
    ("default-ns", lambda p: p.namespace == "default"),
]
PROBES = [make_pod().name("probe-a").labels({"app": "a"}).obj(),
          make_pod().name("probe-b").namespace("other").labels({"app": "b", "tier": "db"}).obj()]


def recount_groups(snap: Snapshot, pred: Callable[[Pod], bool], skip_terminating: bool) -> list[int]:
    return [sum(1 for pi in ni.pods if pred(pi.pod)
                and not (skip_terminating and pi.pod.meta.deletion_timestamp is not None))
            for ni in snap.node_info_list]


def recount_terms(snap: Snapshot, kind: str, pred: Callable[[AffinityTerm], bool]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for j, ni in enumerate(snap.node_info_list):
        for pi in ni.pods:
            t = PodTerms.of(pi.pod)
            weighted = [(w.term, w.weight) for w in getattr(t, kind)] if kind.startswith("preferred") \
                else [(x, 1) for x in getattr(t, kind)]
            for term, w in weighted:
                if pred(term):
                    out.setdefault(term.topology_key, [0] * len(snap.node_info_list))[j] += w
    return out


def nonzero(rows: dict[str, np.ndarray] | dict[str, list[int]]) -> dict[str, list[int]]:
    return {k: list(map(int, v)) for k, v in rows.items() if any(v)}


def check(index: PodIndex, snap: Snapshot) -> None:
    index.sync(snap.node_info_list, snap)
    for name, pred in GROUP_RULES:
        for skip in (False, True):
            got = index.group_rows(name, pred, skip).tolist()
            assert got == recount_groups(snap, pred, skip), (name, skip)
            # per-domain sums, kept across syncs while the label column is the same array
            for key in (ZONE_KEY, "kubernetes.io/hostname"):
                codes, values = snap.columns.label_column(key)
                sums = index.group_domain_sums(name, pred, codes, len(values), skip).tolist()
                want = [0] * len(values)
                for row, count in enumerate(got):
                    if codes[row] >= 0:
                        want[int(codes[row])] += count
                assert sums == want, (name, skip, key)
    for kind in KINDS:
        for probe in PROBES:
            def term_pred(t: AffinityTerm, probe: Pod = probe) -> bool:
                return t.matches(probe, {})
            terms = index.term_rows(kind, match_key(probe, {}), term_pred)
            assert nonzero(dict(terms)) == nonzero(recount_terms(snap, kind, term_pred)), (kind, probe.name)


def fresh_index(snap: Snapshot) -> PodIndex:
    index = PodIndex(PodTermsCache())
    index.sync(snap.node_info_list, snap)
    return index


def entries(index: PodIndex) -> dict[str, tuple[dict[object, int], dict[object, dict[object, int]]]]:
    """Each node's pod groups (by group key, not id) and term counts, as the index holds them."""
    keys = {gid: key for key, gid in index._group_ids.items()}
    return {name: ({keys[g]: n for g, n in e.groups.items()}, e.terms) for name, e in index._nodes.items()}


OPS = st.lists(st.tuples(st.sampled_from(["add_pod", "add_pod", "remove_pod", "relabel_pod", "assume_forget",
                                          "terminate", "add_node", "remove_node", "relabel_node"]),
                         st.integers(0, 1000)), min_size=1, max_size=10)


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(ops=OPS, data=st.data())
def test_views_follow_cache_changes(ops: list[tuple[str, int]], data: st.DataObject) -> None:
    cluster = RandomCluster(data)
    snap = Snapshot()
    index = PodIndex(PodTermsCache())

    def check_now() -> None:
        cluster.cache.update_snapshot(snap)
        check(index, snap)
        assert entries(index) == entries(fresh_index(snap))  # the delta re-reads equal full reads

    check_now()
    for step, (op, r) in enumerate(ops):
        # an assumed pod counts while assumed, and no more once forgotten
        cluster.apply(op, r, step, while_assumed=check_now)
        check_now()


def test_view_of_a_group_only_on_a_rewritten_node_survives_the_rewrite() -> None:
    """A node re-read with one more pod of a group that lived only there: the group keeps its
    id (new counts are applied before the old ones are taken away), so the view stays right."""
    cache = Cache(VirtualClock())
    cache.add_node(make_node().name("n1").obj())
    cache.add_node(make_node().name("n2").obj())
    cache.add_pod(make_pod().name("x1").labels({"app": "a"}).node("n2").obj())
    snap = Snapshot()
    cache.update_snapshot(snap)
    index = PodIndex()
    pred = _app("a")
    index.sync(snap.node_info_list, snap)
    assert index.group_rows("a", pred).tolist() == recount_groups(snap, pred, False)
    cache.add_pod(make_pod().name("x2").labels({"app": "a"}).node("n2").obj())
    cache.update_snapshot(snap)
    index.sync(snap.node_info_list, snap)
    rows = index.group_rows("a", pred).tolist()
    assert rows == recount_groups(snap, pred, False) and sorted(rows) == [0, 2]
    assert index.group_rows("a, built after", pred).tolist() == rows  # a view built from the index


def test_views_of_a_plain_node_list_follow_a_reordering() -> None:
    """Synced with a list that is not a snapshot's: rows follow the list's order."""
    snap_nodes = [make_node().name(n).obj() for n in ("a", "b")]
    cache = Cache(VirtualClock())
    for n in snap_nodes:
        cache.add_node(n)
    cache.add_pod(make_pod().name("p").labels({"app": "a"}).node("b").obj())
    snap = Snapshot()
    cache.update_snapshot(snap)
    index = PodIndex()
    pred = _app("a")
    infos = list(snap.node_info_list)
    index.sync(infos)
    assert index.group_rows("a", pred).tolist() == [0 if ni.name == "a" else 1 for ni in infos]
    infos.reverse()
    index.sync(infos)
    assert index.group_rows("a", pred).tolist() == [0 if ni.name == "a" else 1 for ni in infos]


@pytest.mark.parametrize(
    ("ops", "expected"),
    [
        pytest.param([("add", "z", "z1", 2), ("add", "z", "z1", -2)], {}, id="count-back-to-zero-is-deleted"),
        pytest.param([("add", "z", "z1", 1), ("add", "h", "n1", 3)], {("z", "z1"): 1, ("h", "n1"): 3},
                     id="pairs-of-several-keys"),
        pytest.param([("array", "z", ["z1", "z2"], [2, 0]), ("add", "z", "z2", 1)],
                     {("z", "z1"): 2, ("z", "z2"): 1}, id="array-then-single-pair"),
        pytest.param([("array", "z", ["z1", "z2"], [2, 0]), ("array", "z", ["z2", "z1"], [1, 1])],
                     {("z", "z1"): 3, ("z", "z2"): 1}, id="arrays-over-different-columns"),
    ],
)
def test_topology_value_counts(ops: list[tuple[object, ...]], expected: dict[tuple[str, str], int]) -> None:
    c = TopologyValueCounts()
    for op in ops:
        if op[0] == "add":
            _, k, v, d = op
            c.add(str(k), str(v), int(d))  # type: ignore[call-overload]
        else:
            _, k, values, counts = op
            c.add_array(str(k), list(values), np.array(counts, dtype=np.int64))  # type: ignore[call-overload]
    assert c.as_dict() == expected
    assert bool(c) == bool(expected)
    assert c.nonzero_keys() == sorted({k for k, _ in expected})


def test_topology_value_counts_gathers_per_code_and_copies_independently() -> None:
    values = ["z1", "z2"]
    c = TopologyValueCounts()
    c.add_array("zone", values, np.array([0, 4], dtype=np.int64))
    vc = ValueCodes()
    assert c.per_code("zone", values, vc).tolist() == [0, 4, 0]
    d = c.copy()
    d.add("zone", "z2", -4)
    assert c.get("zone", "z2") == 4 and d.get("zone", "z2") == 0
    assert c.per_code("zone", values, vc).tolist() == [0, 4, 0]
    assert d.per_code("zone", values, vc).tolist() == [0, 0, 0]
    assert not d
