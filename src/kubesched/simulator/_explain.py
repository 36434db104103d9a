"""Explain a pod that only exists in the simulation: one a controller creates.

``explain`` runs its dry-run cycle (:func:`kubesched.scheduler.explain_in`) on the loaded state,
which has no pod of a Deployment, StatefulSet, Job...: their controllers create them once the
simulation runs, with the names ``simulate`` prints (deterministic with the seed). Such a pod is
explained at its first scheduling attempt: the simulation ``simulate`` would run (same input,
configuration, feature gates and seed) goes on until the scheduler pops that pod for the first
time (an :class:`~kubesched.scheduler.AttemptHook` stops it there), and the dry-run cycle runs
on the state of that moment, in place of the real one.

A workload is explained through one of its pods (those it controls, directly or through a
Deployment's ReplicaSet): the first whose first scheduling attempt fails, in the order the
failures happen; when every one of its pods is scheduled at its first attempt, the first pod
attempted. Finding that pod takes a simulation of its own (the outcome of an attempt is known
only once it ran); it stops at the next attempt after the first failure. The explanation then
comes from a second simulation, stopped before that pod's first attempt: the dry run may
change the scheduler's state (its random choices), so a stopped simulation is never resumed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..api import Pod, kind_of
from ..api.loader import LoadedObjects
from ..api.start import start_time
from ..controllers import (
    WORKLOAD_KINDS,
    claims_waiting_for_binding,
    generate_claims,
    workload_kind,
    workload_owners,
)
from ..framework import QueuedPodInfo, Status
from ..scheduler import Explainer, ExplainError, Explanation, SchedulerOptions, WaitingClaim, explain_in
from ._simulation import Simulator

__all__ = [
    "PodExplainer",
    "SimulatedExplanation",
    "explain_pod",
    "explain_simulated_pod",
    "explain_workload",
    "split_pod_key",
]


@dataclass(frozen=True, slots=True)
class SimulatedExplanation:
    """An explanation taken inside the simulation, and where in it."""

    explanation: Explanation
    created_by: str | None
    """``Kind namespace/name`` of the top-level workload controlling the pod (None: none)."""
    time: float
    """Seconds of simulated time since the simulation's start."""
    attempted: bool
    """True: explained at its first scheduling attempt. False: the pod never had one (a
    scheduling gate, a PreEnqueue plugin): explained as it is at the end of the simulation."""
    workload: str | None = None
    """The workload asked about (``Kind namespace/name``); None when a pod was named."""
    first_attempt_failed: bool | None = None
    """For a workload: whether the explained pod's first attempt failed (False: none of the
    workload's pods failed its first attempt). None when a pod was named."""
    pod_group: str | None = None
    """``namespace/name`` of the PodGroup whose cycle the attempt was (gang scheduling): the
    group's pods are placed together or not at all, which the pod's own explained cycle does
    not show. None for a pod scheduled on its own."""

    @property
    def note(self) -> str:
        """One line saying what was explained and when."""
        e = self.explanation
        at = (f"explained at its first scheduling attempt (t={self.time:g}s of the simulation)"
              if self.attempted else f"explained at the end of the simulation (t={self.time:g}s)")
        if self.pod_group is not None:
            at += (f"; that attempt is PodGroup {self.pod_group}'s cycle, which places the group's "
                   "pods together or not at all: shown is the pod's own cycle, without the group's "
                   "constraints")
        if self.workload is not None:
            if self.first_attempt_failed:
                who = f"{e.pod} is the first pod of {self.workload} whose first scheduling attempt fails"
            elif self.attempted:
                who = (f"no pod of {self.workload} fails its first scheduling attempt; "
                       f"{e.pod} is the first one attempted")
            else:
                who = f"no pod of {self.workload} reached a scheduling attempt; {e.pod} is its first pod"
            return f"{who}; {at}"
        by = f"created by {self.created_by}" if self.created_by else "created in the simulation"
        if not self.attempted:
            return f"{e.pod} is {by} and never reached a scheduling attempt; {at}"
        return f"{e.pod} is {by}; {at}"


@dataclass(slots=True)
class _Attempt:
    """A pod's first scheduling attempt. ``incarnation`` counts the earlier pods of the same
    name (a StatefulSet's pod recreated after preemption has its predecessor's name)."""

    key: str
    incarnation: int
    mine: bool
    failed: bool = False
    over: bool = False


@dataclass(slots=True)
class _FirstAttempts:
    """AttemptHook: records each pod's first attempt and whether it failed; ``stop`` decides,
    at each first attempt, whether the run stops before it. ``mine`` selects the pods whose
    failures count (``first_failure``)."""

    stop: Callable[[_Attempt], bool]
    mine: Callable[[Pod], bool] = lambda _: False
    attempts: list[_Attempt] = field(default_factory=list)
    first_failure: _Attempt | None = None
    _by_uid: dict[str, _Attempt] = field(default_factory=dict)
    _names: dict[str, int] = field(default_factory=dict)

    def before_attempt(self, pinfo: QueuedPodInfo) -> bool:
        pod = pinfo.pod
        seen = self._by_uid.get(pod.uid)
        if seen is not None:
            seen.over = True  # a second attempt: the first one is over
            return False
        n = self._names.get(pod.key, 0)
        self._names[pod.key] = n + 1
        attempt = _Attempt(pod.key, n, self.mine(pod))
        self._by_uid[pod.uid] = attempt
        self.attempts.append(attempt)
        return self.stop(attempt)

    def attempt_failed(self, pinfo: QueuedPodInfo, status: Status) -> None:
        attempt = self._by_uid.get(pinfo.pod.uid)
        if attempt is None or attempt.over:
            return
        attempt.failed = True
        if attempt.mine and self.first_failure is None:
            self.first_failure = attempt


_Build = Callable[[], Simulator]


def explain_simulated_pod(loaded: LoadedObjects, namespace: str, name: str, *, config: Any = None,
                          seed: int = 0, features: Mapping[str, bool] | None = None) -> SimulatedExplanation:
    """Explain pod ``namespace/name``, which the input does not hold, at its first scheduling
    attempt in the simulation; ExplainError when the simulation creates no such pod (or it is
    bound, gone or finished without an attempt)."""
    key = f"{namespace}/{name}"
    return _explain_at(lambda: Simulator(loaded, config, seed, features), key, 0, seed)


def explain_workload(loaded: LoadedObjects, kind: str, namespace: str, name: str, *, config: Any = None,
                     seed: int = 0, features: Mapping[str, bool] | None = None) -> SimulatedExplanation:
    """Explain workload ``kind namespace/name`` through one of its pods (see the module
    docstring); ExplainError when there is no such workload or it has no pod."""
    ref = f"{kind} {namespace}/{name}"

    def build() -> Simulator:
        return Simulator(loaded, config, seed, features)

    first = build()

    def mine(pod: Pod) -> bool:
        return any(kind_of(o) == kind and o.meta.namespace == namespace and o.meta.name == name
                   for o in workload_owners(first.store, pod))

    # Stop at the first attempt after the first failure of one of its pods: nothing later counts.
    hook = _FirstAttempts(stop=lambda _: hook.first_failure is not None, mine=mine)
    try:
        first.run_to_attempt(hook)
        exists = first.store.try_get(kind, namespace, name) is not None or any(
            kind_of(o) == kind and o.meta.namespace == namespace and o.meta.name == name
            for o in first.controllers.created)
        pods = [p for p in _pods_in_creation_order(first) if mine(p)]
    finally:
        first.close()
    if not exists:
        raise ExplainError(f'{kind} "{namespace}/{name}" not found: not in the input, and the simulation '
                           f"(seed {seed}) creates none")
    chosen = hook.first_failure or next((a for a in hook.attempts if a.mine), None)
    if chosen is None:
        if not pods:
            raise ExplainError(f'{kind} "{namespace}/{name}" has no pod in the simulation (seed {seed})')
        found = _explain_at(build, pods[0].key, 0, seed)
        return _with_workload(found, ref, None)
    found = _explain_at(build, chosen.key, chosen.incarnation, seed)
    return _with_workload(found, ref, chosen.failed)


def _with_workload(found: SimulatedExplanation, ref: str, failed: bool | None) -> SimulatedExplanation:
    return dataclasses.replace(found, workload=ref,
                               first_attempt_failed=bool(failed) if found.attempted else None)


def _explain_at(build: _Build, key: str, incarnation: int, seed: int) -> SimulatedExplanation:
    """Run a fresh simulation to the first attempt of the ``incarnation``-th pod named ``key``
    and explain it there; without such an attempt, explain the pod at the end of the run."""
    sim = build()
    hook = _FirstAttempts(stop=lambda a: a.key == key and a.incarnation == incarnation)
    try:
        stopped = sim.run_to_attempt(hook)
        namespace, _, name = key.partition("/")
        pod = stopped.pod if stopped is not None else sim.store.try_get("Pod", namespace, name)
        if pod is None:
            created = any(isinstance(o, Pod) and o.key == key for o in sim.controllers.created)
            if created:
                raise ExplainError(f'pod "{key}" never reached a scheduling attempt in the simulation '
                                   "and is gone at its end")
            raise ExplainError(f'pod "{key}" not found: not in the input, and the simulation '
                               f"(seed {seed}) creates no pod of that name")
        owners = workload_owners(sim.store, pod)
        created_by = f"{kind_of(owners[-1])} {owners[-1].meta.namespace}/{owners[-1].meta.name}" \
            if owners else None
        group = sim.sched.cycles.stopped_pod_group
        explanation = explain_in(sim.sched, namespace, name)
        return SimulatedExplanation(
            explanation, created_by, sim.clock.now - sim.start, stopped is not None,
            pod_group=f"{group.namespace}/{group.name}" if group is not None else None)
    finally:
        sim.close()


def _pods_in_creation_order(sim: Simulator) -> list[Pod]:
    """The pods of the input, then those the controllers created, each name once."""
    out: dict[str, Pod] = {}
    for p in [*sim.initial, *(o for o in sim.controllers.created if isinstance(o, Pod))]:
        out.setdefault(p.key, p)
    return list(out.values())


# -- explain's entry point: one pod key, whichever kind of pod it names -----------------------
def split_pod_key(key: str) -> tuple[str | None, str, str]:
    """``explain --pod``: ``NAMESPACE/NAME`` (``NAME``: namespace default) -> (None, ns, name);
    ``KIND/NAMESPACE/NAME`` -> (the workload kind, ns, name), the kind as kubectl accepts it.
    ValueError naming the key when it is neither."""
    parts = key.split("/")
    if len(parts) == 1:
        parts = ["default", key]
    if len(parts) == 3 and all(parts):
        kind = workload_kind(parts[0])
        if kind is None:
            raise ValueError(f"--pod {key!r}: unknown workload kind {parts[0]!r} "
                             f"(one of {', '.join(WORKLOAD_KINDS)})")
        return kind, parts[1], parts[2]
    if len(parts) != 2 or not all(parts):
        raise ValueError(f"--pod {key!r}: want NAMESPACE/NAME or KIND/NAMESPACE/NAME")
    return None, parts[0], parts[1]


class PodExplainer:
    """What ``kubesched explain`` answers, for several keys of :func:`split_pod_key` on one
    input: a workload through one of its pods, a pod a controller creates at its first attempt
    in the simulation (each a simulation of its own), a pod of the input against the loaded
    state. The loaded state (its store, with the pods' ResourceClaims generated from their
    templates as the resourceclaim controller would, and a scheduler on it) is built at the
    first pod of the input asked about and kept: each such pod is then one dry run on it
    (:class:`~kubesched.scheduler.Explainer`), with the answer a fresh ``explain`` gives."""

    def __init__(self, loaded: LoadedObjects, *, config: Any = None, seed: int = 0,
                 features: Mapping[str, bool] | None = None) -> None:
        self.loaded = loaded
        self.config = config
        self.seed = seed
        self.features = features
        self._pods = {(o.namespace, o.name) for o in loaded.objects if isinstance(o, Pod)}
        self._explainer: Explainer | None = None

    def explain(self, kind: str | None, namespace: str, name: str,
                ) -> tuple[Explanation, SimulatedExplanation | None]:
        """The explanation (and where in the simulation, second; None for a pod of the input).
        ExplainError for an unknown, bound or deleted pod."""
        if kind is not None:
            simulated = explain_workload(self.loaded, kind, namespace, name, config=self.config,
                                         seed=self.seed, features=self.features)
            return simulated.explanation, simulated
        if (namespace, name) not in self._pods:
            simulated = explain_simulated_pod(self.loaded, namespace, name, config=self.config,
                                              seed=self.seed, features=self.features)
            return simulated.explanation, simulated
        return self._explain_loaded(namespace, name), None

    def _explain_loaded(self, namespace: str, name: str) -> Explanation:
        """A pod of the input, against the loaded state. No controller runs: what the
        PersistentVolume controller would do with the pod's unbound claims is only reported
        (that controller runs in simulations, not here)."""
        if self._explainer is None:
            seed = self.seed
            self._explainer = Explainer(
                self.loaded.objects, config=self.config, seed=seed, now=start_time(self.loaded.objects),
                options=SchedulerOptions(features=self.features or {}),
                prepare=lambda store: generate_claims(store, store.clock, seed))
        explainer = self._explainer
        e = explainer.explain(namespace, name)
        store = explainer.store
        found = store.try_get("Pod", namespace, name)
        if isinstance(found, Pod):
            e.waiting_claims = [WaitingClaim(c, m) for c, m in claims_waiting_for_binding(store, found)]
        return e

    def close(self) -> None:
        if self._explainer is not None:
            self._explainer.close()
            self._explainer = None


def explain_pod(loaded: LoadedObjects, kind: str | None, namespace: str, name: str, *, config: Any = None,
                seed: int = 0, features: Mapping[str, bool] | None = None,
                ) -> tuple[Explanation, SimulatedExplanation | None]:
    """One :class:`PodExplainer`'s one answer: what ``kubesched explain`` prints."""
    explainer = PodExplainer(loaded, config=config, seed=seed, features=features)
    try:
        return explainer.explain(kind, namespace, name)
    finally:
        explainer.close()
