"""A small cluster simulation for preemption tests: MemoryStore + VirtualClock + Scheduler.

Profiles name their plugins explicitly (PrioritySort, NodeResourcesFit, DefaultPreemption,
DefaultBinder and whatever a test adds), so that a test exercises preemption and not the
defaults of unrelated plugins.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kubesched.api import Pod, PodDisruptionBudget
from kubesched.cache import Snapshot
from kubesched.clock import VirtualClock
from kubesched.cluster import Event, MemoryStore
from kubesched.framework import CycleState
from kubesched.framework.config import from_dict
from kubesched.scheduler import Scheduler, SchedulerOptions
from kubesched.testing.wrappers import make_node, make_pod

BASE_PLUGINS = ("PrioritySort", "NodeResourcesFit", "DefaultPreemption", "DefaultBinder")
ASYNC = "SchedulerAsyncPreemption"


def config(plugins: Sequence[str] = BASE_PLUGINS, preemption_args: Mapping[str, Any] | None = None,
           registry: Mapping[str, Any] | None = None) -> Any:
    profile: dict[str, Any] = {
        "schedulerName": "default-scheduler",
        "plugins": {"multiPoint": {"enabled": [{"name": n} for n in plugins], "disabled": [{"name": "*"}]}},
    }
    if preemption_args is not None:
        profile["pluginConfig"] = [{"name": "DefaultPreemption", "args": dict(preemption_args)}]
    return from_dict({"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
                      "profiles": [profile]}, registry=registry)


class Sim:
    def __init__(self, *, async_preemption: bool = True, plugins: Sequence[str] = BASE_PLUGINS,
                 preemption_args: Mapping[str, Any] | None = None, seed: int = 0,
                 registry: Mapping[str, Any] | None = None) -> None:
        self.clock = VirtualClock()
        self.store = MemoryStore(self.clock)
        self._config = config(plugins, preemption_args, registry)
        self._options = SchedulerOptions(features={ASYNC: async_preemption}, registry=registry)
        self._seed = seed
        self._sched: Scheduler | None = None

    # -- building ---------------------------------------------------------------------------
    def node(self, name: str, cpu: str = "2", unschedulable: bool = False,
             labels: Mapping[str, str] | None = None) -> None:
        b = make_node().name(name).capacity({"cpu": cpu, "memory": "8Gi", "pods": "110"})
        for k, v in (labels or {}).items():
            b.label(k, v)
        if unschedulable:
            b.unschedulable()
        self.store.create(b.obj())

    def pod(self, name: str, cpu: str = "1", priority: int = 0, *, node: str = "", grace: int = 30,
            labels: Mapping[str, str] | None = None, policy: str | None = None, start: float | None = None,
            **extra: Any) -> Pod:
        b = make_pod().name(name).priority(priority).req({"cpu": cpu}).termination_grace_period(grace)
        for k, v in (labels or {}).items():
            b.label(k, v)
        if policy is not None:
            b.preemption_policy(policy)
        for method, arg in extra.items():
            getattr(b, method)(*arg) if isinstance(arg, tuple) else getattr(b, method)(arg)
        created: Pod = self.store.create(b.obj())
        if node:
            created = self.store.bind("default", name, node)
            if start is not None:
                created = self.store.update(created.with_changes({("status", "startTime"): _rfc(start)}))
        return created

    def pdb(self, name: str, selector: Mapping[str, str], *, min_available: int | str | None = None,
            max_unavailable: int | str | None = None, status: Mapping[str, Any] | None = None) -> None:
        spec: dict[str, Any] = {"selector": {"matchLabels": dict(selector)}}
        if min_available is not None:
            spec["minAvailable"] = min_available
        if max_unavailable is not None:
            spec["maxUnavailable"] = max_unavailable
        d: dict[str, Any] = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                             "metadata": {"name": name, "namespace": "default"}, "spec": spec}
        if status is not None:
            d["status"] = dict(status)
        self.store.create(PodDisruptionBudget.from_dict(d))

    # -- running ----------------------------------------------------------------------------
    @property
    def scheduler(self) -> Scheduler:
        if self._sched is None:
            self._sched = Scheduler(self.store, self.clock, config=self._config, seed=self._seed,
                                    options=self._options)
        return self._sched

    def pre_filtered(self, pod: Pod) -> tuple[Any, CycleState, Snapshot]:
        """The start of a scheduling cycle for ``pod``, without scheduling it: the snapshot
        updated and PreFilter run. Returns (framework, cycle state, snapshot)."""
        sched = self.scheduler
        sched._update_snapshot()
        fwk = sched.profiles["default-scheduler"]
        state = CycleState()
        fwk.run_pre_filter_plugins(state, pod)
        return fwk, state, sched.snapshot

    def run(self, until: float | None = None) -> None:
        self.scheduler.run_until_idle(until=until)

    @property
    def plugin(self) -> Any:
        return self.scheduler.profiles["default-scheduler"].plugins_map["DefaultPreemption"]

    # -- reading ----------------------------------------------------------------------------
    def get(self, name: str) -> Pod | None:
        found: Pod | None = self.store.try_get("Pod", "default", name)
        return found

    def node_of(self, name: str) -> str:
        p = self.get(name)
        return p.node_name if p is not None else "<deleted>"

    def nominated(self, name: str) -> str:
        p = self.get(name)
        return p.nominated_node_name if p is not None else "<deleted>"

    def events(self, reason: str, name: str | None = None) -> list[Event]:
        return [e for e in self.store.events()
                if e.reason == reason and (name is None or e.involved_name == name)]

    def last_failure(self, name: str) -> str:
        evs = self.events("FailedScheduling", name)
        assert evs, f"no FailedScheduling event for {name}"
        order = {id(e): i for i, e in enumerate(self.store.events())}
        return max(evs, key=lambda e: (e.last_timestamp, order[id(e)])).message

    def first_failure(self, name: str) -> str:
        evs = self.events("FailedScheduling", name)
        assert evs, f"no FailedScheduling event for {name}"
        return evs[0].message

    def metric(self, name: str) -> float:
        return self.scheduler.metrics.value(name)


def _rfc(seconds: float) -> str:
    from kubesched.api import format_time

    return format_time(seconds)
