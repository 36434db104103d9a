"""The controller manager through the Python API: a MemoryStore, the virtual clock, no CLI."""

from __future__ import annotations

from typing import Any

from kubesched.api import Node, PersistentVolumeClaim, Pod, load_documents
from kubesched.clock import VirtualClock
from kubesched.cluster import MemoryStore
from kubesched.controllers import ControllerManager
from kubesched.scheduler import Scheduler

from ._manifests import node, selector, template, workload


def _store(*docs: dict[str, Any]) -> tuple[MemoryStore, VirtualClock]:
    import yaml

    clock = VirtualClock(1_700_000_000.0)
    store = MemoryStore(clock)
    store.load(load_documents(yaml.safe_dump_all(list(docs)), "test.yaml"))
    return store, clock


def _target(pod: Pod) -> str:
    aff = pod.raw["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    return str(aff["nodeSelectorTerms"][0]["matchFields"][0]["values"][0])


def test_a_node_added_later_gets_its_daemon_pod() -> None:
    ds = workload("DaemonSet", "agent", {"selector": selector("agent"), "template": template("agent")})
    store, clock = _store(node("n1"), ds)
    manager = ControllerManager(store, clock, seed=3)
    manager.start()
    clock.run()
    assert [_target(p) for p in store.list("Pod")] == ["n1"]
    store.create(Node.from_dict(node("n2")))
    tainted = node("n3", taints=[{"key": "dedicated", "value": "x", "effect": "NoExecute"}])
    store.create(Node.from_dict(tainted))
    clock.run()
    assert sorted(_target(p) for p in store.list("Pod")) == ["n1", "n2"]
    clock.run()  # nothing more to do: the reconcile is idempotent
    assert len(store.list("Pod")) == 2
    manager.close()


def test_ordered_ready_waits_for_the_scheduler_and_the_kubelet() -> None:
    claim = {
        "metadata": {"name": "data"},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
    }
    sts = workload(
        "StatefulSet",
        "db",
        {
            "replicas": 3,
            "selector": selector("db"),
            "template": template("db"),
            "volumeClaimTemplates": [claim],
        },
    )
    storage = {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {"name": "ssd", "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
        "provisioner": "ebs.csi.aws.com",
        "volumeBindingMode": "WaitForFirstConsumer",
    }
    claim["spec"]["storageClassName"] = "ssd"
    store, clock = _store(node("n1"), storage, sts)
    manager = ControllerManager(store, clock)
    manager.start()
    clock.run()
    # No scheduler yet: db-0 is created with its claim, and nothing else.
    assert [p.name for p in store.list("Pod")] == ["db-0"]
    assert [c.name for c in store.list("PersistentVolumeClaim")] == ["data-db-0"]
    assert all(isinstance(c, PersistentVolumeClaim) for c in manager.created if c.name.startswith("data"))
    sched = Scheduler(store, clock, seed=0)
    sched.run_until_idle()
    sched.close()
    manager.close()
    assert [p.name for p in store.list("Pod")] == ["db-0", "db-1", "db-2"]
    assert all(p.node_name == "n1" for p in store.list("Pod"))


def test_simulation_progress_counts_the_pods_controllers_create() -> None:
    import yaml

    from kubesched.simulator import run_simulation

    web = workload(
        "Deployment", "web", {"replicas": 3, "selector": selector("web"), "template": template("web")}
    )
    seen: list[tuple[int, int]] = []
    loaded = load_documents(yaml.safe_dump_all([node("n1"), web]), "x.yaml")
    sim = run_simulation(loaded, progress=lambda done, total: seen.append((done, total)))
    assert seen[0] == (0, 0) and seen[-1] == (3, 3)
    assert sim.count("Scheduled") == 3 and len(sim.generated) == 4


def test_a_refused_create_skips_that_workload_not_the_others() -> None:
    """A pod named db-0 that the StatefulSet does not select: creating its own db-0 fails with
    AlreadyExists, as on an API server; the error is the StatefulSet's alone (upstream logs it
    and syncs again later) and the Deployment's ReplicaSet still gets its pods."""
    stray = {"apiVersion": "v1", "kind": "Pod",
             "metadata": {"name": "db-0", "namespace": "default", "labels": {"app": "other"}},
             "spec": template("other")["spec"]}
    sts = workload("StatefulSet", "db",
                   {"replicas": 1, "selector": selector("db"), "template": template("db")})
    web = workload("Deployment", "web",
                   {"replicas": 2, "selector": selector("web"), "template": template("web")})
    store, clock = _store(node("n1"), stray, sts, web)
    manager = ControllerManager(store, clock, seed=3)
    manager.start()
    clock.run()
    labels = sorted(p.meta.labels["app"] for p in store.list("Pod"))
    assert labels == ["other", "web", "web"]
    manager.close()
