"""A Service created while the scheduler runs drives the next pod's default spreading: the
plugin reads Services from the scheduler's store on every cycle (upstream's informer listers)."""

from __future__ import annotations

from kubesched.api import Service
from kubesched.testing import make_node, make_pod

from .env import Env, profile

HOSTNAME = "kubernetes.io/hostname"
PLUGINS = ("PrioritySort", "SchedulingGates", "NodeUnschedulable", "TaintToleration", "NodeAffinity",
           "PodTopologySpread", "DefaultBinder")


def test_a_service_created_mid_simulation_spreads_the_next_pods() -> None:
    env = Env(profile(plugins=PLUGINS), seed=1)
    env.add(*(make_node().name(f"n{i}").label(HOSTNAME, f"n{i}") for i in range(4)))
    env.add(*(make_pod().name(f"e{i}{j}").label("app", "web").node(f"n{i}")
              for i in range(3) for j in range(2)))
    env.run()
    # Without the Service this seed places w1 on n1 and w2 on n0 (all nodes tie at 0).
    env.store.create(Service.from_dict({"apiVersion": "v1", "kind": "Service",
                                        "metadata": {"name": "web", "namespace": "default"},
                                        "spec": {"selector": {"app": "web"}}}))
    env.add(make_pod().name("w1").label("app", "web"))
    env.run()
    assert env.node_of("w1") == "n3"  # the only node without a pod the Service selects
    env.add(make_pod().name("w2").label("app", "web"))
    env.run()
    assert env.node_of("w2") == "n3"  # 2/2/2/1: n3 still holds the fewest
