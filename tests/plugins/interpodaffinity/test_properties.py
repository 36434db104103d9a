"""Property: the batch and per-node paths of InterPodAffinity agree on random clusters, for
Filter (also after AddPod/RemovePod) and Score."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubesched.api import Namespace, Pod
from kubesched.cache import PodInfo
from kubesched.plugins.interpodaffinity import InterPodAffinity, InterPodAffinityArgs

from ._paths import FakeHandle, FakeStore, check_add_remove_pod, run_filter, run_score
from ._strategies import SpreadCluster, affinity_clusters, affinity_pods

NAMESPACES = [Namespace.from_dict({"metadata": {"name": "default", "labels": {"team": "a"}}}),
              Namespace.from_dict({"metadata": {"name": "other", "labels": {"team": "b"}}})]
SETTINGS = settings(max_examples=20, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@SETTINGS
@given(cluster=affinity_clusters(), pod=affinity_pods("incoming"), hard=st.integers(0, 3),
       ignore=st.booleans(), data=st.data())
def test_batch_agrees_with_per_node(cluster: SpreadCluster, pod: Pod, hard: int, ignore: bool,
                                    data: st.DataObject) -> None:
    s = cluster.snapshot()
    pl = InterPodAffinity(InterPodAffinityArgs(hard_pod_affinity_weight=hard,
                                               ignore_preferred_terms_of_existing_pods=ignore),
                          FakeHandle(s, FakeStore(NAMESPACES)))
    run_filter(pl, pod, s)
    feasible = data.draw(st.lists(st.sampled_from([n.name for n in cluster.nodes]), min_size=1, unique=True))
    run_score(pl, pod, s, feasible)

    # AddPod / RemovePod keep both paths in agreement, and remove undoes add.
    ni = s.node_info_list[data.draw(st.integers(0, len(cluster.nodes) - 1))]
    check_add_remove_pod(pl, pod, s, ni, PodInfo(data.draw(affinity_pods("added", node_name=ni.name))))
