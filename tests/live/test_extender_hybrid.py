"""``kubesched extender --no-cache --kubeconfig``'s view against a real API server: the nodes
are each request's Node objects, the pods on them come from the informers."""

from __future__ import annotations

import sys
from typing import Any

from kubesched.api import Node, Pod
from kubesched.api.extenderv1 import ExtenderArgs
from kubesched.extender._live import InformerView
from kubesched.framework.config import from_dict

from . import test_extender as e2e
from .conftest import ControlPlane
from .test_extender import EXAMPLE, _until

core = e2e.core  # the fixtures, shared
cluster = e2e.cluster


def _node(name: str, group: str) -> Node:
    """A node as a request carries it: the group's label, no AVOID label, 8 cpu."""
    res = {"cpu": "8", "memory": "16Gi", "pods": "50"}
    labels = {"e2e-group": group, "kubernetes.io/hostname": name}
    return Node.from_dict({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels},
                           "status": {"capacity": res, "allocatable": res}})


def test_nodes_from_the_request_pods_from_the_informers(control_plane: ControlPlane, core: Any,
                                                        cluster: tuple[str, str]) -> None:
    ns, group = cluster
    sys.path.insert(0, str(EXAMPLE))
    view = None
    try:
        cfg = from_dict({"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
                         "profiles": [{"schedulerName": "default-scheduler", "plugins": {"multiPoint": {
                             "enabled": [{"name": "kubesched_example_extender:AvoidLabel"}]}}}]})
        view = InformerView(cfg, str(control_plane.kubeconfig))
        view.start()
        assert view.wait_for_sync(30), "informers did not sync"
        engine = view.engine(nodes_from_request=True)
        # A pod already on G-plain takes all its cpu (in the cluster, not in any request).
        core.create_namespaced_pod(ns, {
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "full"},
            "spec": {"nodeName": f"{group}-plain", "terminationGracePeriodSeconds": 0,
                     "containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "8"}}}]}})
        pod = Pod.from_dict({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": ns},
                             "spec": {"containers": [{"name": "c", "image": "x",
                                                      "resources": {"requests": {"cpu": "1"}}}]}})
        # G-avoid as the request sends it (without the AVOID label); G-phantom: unknown to the cluster.
        nodes = [_node(f"{group}-{s}", group) for s in ("plain", "avoid", "phantom")]

        def answer() -> Any:
            res = engine.filter(ExtenderArgs(pod=pod, nodes=nodes))
            return res if res.failed_nodes else None

        res = _until("the bound pod seen", answer)
        assert res.failed_nodes == {f"{group}-plain": "Insufficient cpu"}
        assert not res.failed_and_unresolvable_nodes
        assert [n.name for n in res.nodes or []] == [f"{group}-avoid", f"{group}-phantom"]
    finally:
        if view is not None:
            view.close()
        sys.path.remove(str(EXAMPLE))
