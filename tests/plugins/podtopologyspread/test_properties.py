"""Property: the batch and per-node paths of PodTopologySpread agree on random clusters, for
Filter (also after AddPod/RemovePod) and Score, with pod constraints and with default constraints
(System, and List with a DoNotSchedule one) whose selector comes from Services and owners."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubesched.api import Pod
from kubesched.cache import PodInfo
from kubesched.framework import Code, CycleState
from kubesched.plugins.podtopologyspread import PodTopologySpread, PodTopologySpreadArgs, filtering
from kubesched.testing import snapshot_of

from .._workloads import Workloads, store_with, workloads
from ..interpodaffinity._paths import FakeHandle, check_add_remove_pod, run_filter, run_score
from ..interpodaffinity._strategies import SpreadCluster, affinity_clusters, affinity_pods

SETTINGS = settings(
    max_examples=20,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@SETTINGS
@given(cluster=affinity_clusters(), pod=affinity_pods("incoming"), data=st.data())
def test_batch_agrees_with_per_node(cluster: SpreadCluster, pod: Pod, data: st.DataObject) -> None:
    s = cluster.snapshot()
    pl = PodTopologySpread(handle=FakeHandle(s))
    run_filter(pl, pod, s)
    feasible = data.draw(st.lists(st.sampled_from([n.name for n in cluster.nodes]), min_size=1, unique=True))
    run_score(pl, pod, s, feasible)

    ni = s.node_info_list[data.draw(st.integers(0, len(cluster.nodes) - 1))]
    check_add_remove_pod(pl, pod, s, ni, PodInfo(data.draw(affinity_pods("added", node_name=ni.name))))


@SETTINGS
@given(cluster=affinity_clusters(), pod=affinity_pods("incoming"))
def test_pre_filter_counts_follow_the_per_node_definition(cluster: SpreadCluster, pod: Pod) -> None:
    """calPreFilterState read node by node: the counts per domain (and the domains of eligible
    nodes without matching pods) equal the column path's, whether or not every node carries the
    topology keys (both the all-rows shortcut and the masked path run here)."""
    s = cluster.snapshot()
    pl = PodTopologySpread(handle=FakeHandle(s))
    state = CycleState()
    _, st_ = pl.pre_filter(state, pod, s.node_info_list)
    if st_ is not None and st_.code == Code.SKIP:
        return
    got = filtering.get_pre_filter_state(state)
    for i, c in enumerate(got.constraints):
        want: dict[str, int] = {}
        for ni in s.node_info_list:
            node = ni.node
            assert node is not None
            if any(k.topology_key not in node.labels for k in got.constraints):
                continue
            if not c.match_node_inclusion_policies(pod, node):
                continue
            value = node.labels[c.topology_key]
            want[value] = want.get(value, 0) + sum(
                1 for p in ni.pods
                if p.pod.namespace == pod.namespace and not p.pod.is_terminating
                and c.selector is not None and not c.selector.is_empty and c.selector.matches(p.pod.labels))
        assert got.tp_value_to_match_num[i] == want


LIST_DEFAULTS = PodTopologySpreadArgs.from_dict({"defaultingType": "List", "defaultConstraints": [
    {"maxSkew": 1, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "DoNotSchedule"},
    {"maxSkew": 2, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "ScheduleAnyway"},
]})


@SETTINGS
@given(cluster=affinity_clusters(), pod=affinity_pods("incoming", owned=True), work=workloads(),
       list_defaults=st.booleans(), data=st.data())
def test_default_constraints_batch_agrees_with_per_node(cluster: SpreadCluster, pod: Pod, work: Workloads,
                                                        list_defaults: bool, data: st.DataObject) -> None:
    """The default constraints' selector (DefaultSelector over the drawn Services and owner)
    gives the same Filter and Score on both paths, also after AddPod/RemovePod."""
    pods = [work.own(p) for p in cluster.pods]
    incoming = Workloads.without_constraints(work.own(pod))
    s = snapshot_of(cluster.nodes, pods)
    pl = PodTopologySpread(LIST_DEFAULTS if list_defaults else None,
                           FakeHandle(s, store=store_with(*work.objects)))
    run_filter(pl, incoming, s)
    feasible = data.draw(st.lists(st.sampled_from([n.name for n in cluster.nodes]), min_size=1, unique=True))
    run_score(pl, incoming, s, feasible)
    state = CycleState()
    _, st_ = pl.pre_filter(state, incoming, s.node_info_list)
    if st_ is not None and st_.code == Code.SKIP:
        return
    ni = s.node_info_list[data.draw(st.integers(0, len(cluster.nodes) - 1))]
    other = PodInfo(work.own(data.draw(affinity_pods("added", node_name=ni.name, owned=True))))
    before = run_filter(pl, incoming, s, state)
    pl.add_pod(state, incoming, other, ni)
    run_filter(pl, incoming, s, state)
    pl.remove_pod(state, incoming, other, ni)
    assert run_filter(pl, incoming, s, state) == before
