"""One definition of SelectVictimsOnNode's rule (``plugins/defaultpreemption/_victim_rule.py``)
serves its three implementations: the generic path (the filter chain on a node copy), the
per-node resource model and the batch one. The order key, its array form and MoreImportantPod
agree, and with the plugin's hooks replaced the resource model still answers as the generic
path does."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from kubesched.api import Pod
from kubesched.cache import NodeInfo, PodInfo
from kubesched.framework.preemption import importance_columns, importance_key, more_important_pod
from kubesched.testing.wrappers import make_pod

from .test_fast_dry_run import assert_same, build, dry_run_both, node_spec, pod_spec

NOW = 50.0


def _pods(specs: list[tuple[int, int | None]]) -> list[Pod]:
    out = []
    for i, (prio, start) in enumerate(specs):
        b = make_pod().name(f"p{i}").priority(prio)
        if start is not None:
            b.start_time(float(start))
        out.append(b.obj())
    return out


@settings(max_examples=100, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.integers(-3, 3), st.one_of(st.none(), st.integers(0, 100))), max_size=12))
def test_the_order_is_one_key_in_three_forms(specs: list[tuple[int, int | None]]) -> None:
    """MoreImportantPod (the comparison the hooks replace), the key the per-node paths sort by
    and the array key the batch path sorts by give the same order (stable on ties)."""
    pods = _pods(specs)

    def cmp(a: Pod, b: Pod) -> int:
        return -1 if more_important_pod(a, b, NOW) else (1 if more_important_pod(b, a, NOW) else 0)

    by_cmp = sorted(pods, key=functools.cmp_to_key(cmp))
    by_key = sorted(pods, key=lambda p: importance_key(p, NOW))
    prio = np.array([p.priority_value for p in pods], dtype=np.int64)
    start = np.array([np.nan if p.start_time is None else p.start_time for p in pods], dtype=np.float64)
    idx = np.arange(len(pods))
    by_columns = [pods[i] for i in np.lexsort((idx, *importance_columns(prio, start, NOW)))] if pods else []
    assert [p.name for p in by_cmp] == [p.name for p in by_key] == [p.name for p in by_columns]


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.lists(node_spec, min_size=1, max_size=5), st.lists(pod_spec, max_size=20),
       st.integers(1, 8), st.integers(1, 20), st.integers(-1, 2), st.booleans())
def test_replaced_hooks_resource_model_matches_select_victims_on_node(
        nodes: list[tuple[int, int, bool]], pods: list[tuple[int, int, int, int, int | None, bool]],
        cpu: int, priority: int, pdb_allowed: int, reverse: bool) -> None:
    """IsEligiblePod and MoreImportantPod replaced (as upstream's exported fields allow): the
    per-node resource model reads the same hooks through the shared rule."""
    s = build(nodes, pods, [])
    pdbs = []
    if pdb_allowed >= 0:
        s.pdb("pdb", {"app": "a"}, min_available=1, status={"disruptionsAllowed": pdb_allowed})
        pdbs = list(s.store.list("PodDisruptionBudget"))
    plugin: Any = s.plugin

    def odd_only(ni: NodeInfo, pi: PodInfo, preemptor: Pod) -> bool:
        return int(pi.pod.name[1:]) % 2 == 1

    plugin.is_eligible_pod = odd_only
    if reverse:  # later-started pods first: the opposite of the default on equal priority
        plugin.more_important_pod = lambda a, b: (a.priority_value, a.start_time or NOW) > (
            b.priority_value, b.start_time or NOW)
    pod = make_pod().name("incoming").uid("incoming").priority(priority).req(
        {"cpu": str(cpu), "memory": "1Gi"}).obj()
    got, want = dry_run_both(s, pod, pdbs)
    assert assert_same(got, want) == len(got)
