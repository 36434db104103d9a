"""A small simulated cluster for scheduler tests: VirtualClock + MemoryStore + Scheduler,
with configs built from KubeSchedulerConfiguration dicts and test plugins registered by name."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kubesched.api import Pod
from kubesched.clock import VirtualClock
from kubesched.cluster import MemoryStore
from kubesched.framework.config import from_dict
from kubesched.scheduler import Scheduler, SchedulerOptions
from kubesched.testing.wrappers import NodeBuilder, PodBuilder

BASIC = ("PrioritySort", "SchedulingGates", "NodeUnschedulable", "TaintToleration", "NodeAffinity",
         "NodeResourcesFit", "DefaultBinder")
"""The in-tree plugins most tests run with (multiPoint, everything else disabled)."""

START = 1_700_000_000.0


def profile(name: str = "default-scheduler", plugins: Sequence[str] = BASIC,
            **extra: Any) -> dict[str, Any]:
    """A profile enabling exactly ``plugins`` through multiPoint; ``extra`` adds profile keys
    (``percentageOfNodesToScore``, ``pluginConfig``) or per-point plugin sets."""
    p: dict[str, Any] = {"schedulerName": name, "plugins": {"multiPoint": {
        "enabled": [{"name": n} for n in plugins], "disabled": [{"name": "*"}]}}}
    for k, v in extra.items():
        if k in ("percentageOfNodesToScore", "pluginConfig"):
            p[k] = v
        else:
            p["plugins"][k] = v
    return p


def config(*profiles: dict[str, Any], registry: Mapping[str, Any] | None = None,
           features: Mapping[str, bool] | None = None, **top: Any) -> Any:
    d = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
         "profiles": list(profiles) or [profile()], **top}
    return from_dict(d, registry=registry, features=features)


class Env:
    """One simulated cluster and its scheduler."""

    def __init__(self, *profiles: dict[str, Any], registry: Mapping[str, Any] | None = None,
                 seed: int = 0, features: Mapping[str, bool] | None = None,
                 options: Mapping[str, Any] | None = None, **top: Any) -> None:
        self.clock = VirtualClock(START)
        self.store = MemoryStore(self.clock)
        self.registry = dict(registry or {})
        self.config = config(*profiles, registry=self.registry, features=features, **top)
        self._seed = seed
        self._features = dict(features or {})
        self._options = dict(options or {})
        self._sched: Scheduler | None = None

    @property
    def sched(self) -> Scheduler:
        if self._sched is None:
            self._sched = Scheduler(self.store, self.clock, self.config, seed=self._seed,
                                    options=SchedulerOptions(registry=self.registry,
                                                             features=self._features, **self._options))
        return self._sched

    def add(self, *builders: NodeBuilder | PodBuilder) -> Env:
        for b in builders:
            self.store.create(b.obj())
        return self

    def run(self, **kw: Any) -> Any:
        return self.sched.run_until_idle(**kw)

    def pod(self, name: str, namespace: str = "default") -> Pod:
        p: Pod = self.store.get("Pod", namespace, name)
        return p

    def node_of(self, name: str) -> str:
        return self.pod(name).node_name

    def placements(self) -> dict[str, str]:
        return {p.name: p.node_name for p in self.store.list("Pod")}

    def scheduled_condition(self, name: str) -> Mapping[str, Any] | None:
        return self.pod(name).condition("PodScheduled")

    def events(self, reason: str | None = None, name: str | None = None) -> list[Any]:
        return [e for e in self.store.events()
                if (reason is None or e.reason == reason) and (name is None or e.involved_name == name)]


class Recorder:
    """Collects calls made by test plugins, with the virtual time they happened at."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str, float]] = []

    def add(self, what: str, pod: Pod, now: float) -> None:
        self.calls.append((what, pod.name, now))

    def of(self, what: str, pod: str | None = None) -> list[tuple[str, str, float]]:
        return [c for c in self.calls if c[0] == what and (pod is None or c[1] == pod)]


class DynPlugin:
    """A test plugin assembled from functions: ``plugin("P", filter=fn)`` implements Filter with
    ``fn(self, state, pod, node_info)``; ``self.handle`` is the framework handle."""

    def __init__(self, name: str, handle: Any, methods: Mapping[str, Any]) -> None:
        self._name = name
        self.handle = handle
        for k, fn in methods.items():
            setattr(self, k, fn.__get__(self))

    def name(self) -> str:
        return self._name


def plugin(name: str, **methods: Any) -> Any:
    """A registry factory for a :class:`DynPlugin`."""
    return lambda args, handle: DynPlugin(name, handle, methods)
