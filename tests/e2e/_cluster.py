"""A simulated cluster for end-to-end plugin tests: the public Scheduler on a MemoryStore and a
VirtualClock, configured with the default profile or a KubeSchedulerConfiguration file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kubesched.api import Pod, load_paths
from kubesched.clock import VirtualClock
from kubesched.cluster import MemoryStore
from kubesched.framework.config import SchedulerConfig, default_config, load_config
from kubesched.scheduler import RunSummary, Scheduler
from kubesched.testing import make_node, make_pod
from kubesched.testing.wrappers import NodeBuilder, PodBuilder

__all__ = ["FIXTURES", "Cluster", "node", "pod"]

FIXTURES = Path(__file__).parent / "fixtures"
ZONE = "topology.kubernetes.io/zone"
HOSTNAME = "kubernetes.io/hostname"


def node(name: str, cpu: str = "4", memory: str = "4Gi", zone: str = "") -> NodeBuilder:
    """A node with a hostname label (and a zone label when given)."""
    b = make_node().name(name).capacity({"cpu": cpu, "memory": memory}).label(HOSTNAME, name)
    return b.label(ZONE, zone) if zone else b


def pod(name: str, cpu: str = "1", memory: str = "1Gi") -> PodBuilder:
    """A pod whose cpu and memory requests keep a 4 cpu / 4Gi node's usage balanced, so that
    NodeResourcesBalancedAllocation scores every node alike unless a test wants otherwise."""
    return make_pod().name(name).uid(f"{name}-uid").req({"cpu": cpu, "memory": memory})


class Cluster:
    """Nodes, pods and storage objects in a MemoryStore, scheduled by one Scheduler."""

    def __init__(self, config: SchedulerConfig | None = None, seed: int = 0) -> None:
        self.clock = VirtualClock(1_700_000_000.0)
        self.store = MemoryStore(self.clock)
        self.scheduler = Scheduler(self.store, self.clock, config or default_config(), seed=seed)

    @classmethod
    def from_config_file(cls, name: str, seed: int = 0) -> Cluster:
        return cls(load_config(FIXTURES / name), seed)

    def add(self, *objs: NodeBuilder | PodBuilder) -> Cluster:
        for b in objs:
            self.store.create(b.obj())
        return self

    def load(self, name: str) -> Cluster:
        """Objects from a manifest file under ``fixtures/``."""
        self.store.load(load_paths([FIXTURES / name]))
        return self

    def run(self) -> RunSummary:
        return self.scheduler.run_until_idle()

    def pod(self, name: str) -> Pod:
        p: Pod = self.store.get("Pod", "default", name)
        return p

    def node_of(self, name: str) -> str:
        return self.pod(name).node_name

    def placements(self) -> dict[str, str]:
        return {p.name: p.node_name for p in self.store.list("Pod")}

    def failure(self, name: str) -> str:
        """The PodScheduled=False condition's message (the aggregated FailedScheduling text)."""
        cond: Any = self.pod(name).condition("PodScheduled")
        assert cond is not None and cond["status"] == "False", cond
        return str(cond["message"])
