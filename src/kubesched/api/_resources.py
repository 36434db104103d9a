"""Pod resource requests as the scheduler computes them.

Mirrors k8s.io/component-helpers/resource/helpers.go ``PodRequests`` (master 2026):
app containers and restartable init containers (sidecars) are summed; each regular init
container runs alone with the sidecars started before it, so the pod needs the max of the two;
pod-level ``spec.resources.requests`` (cpu, memory, hugepages) replace the container aggregate
where set; ``spec.overhead`` is added last. The "non-zero" variant used by scoring fills a
container's *missing* cpu/memory request with 100m / 200Mi
(pkg/scheduler/util/pod_resources.go DefaultMilliCPURequest / DefaultMemoryRequest).

Each amount is an int64, saturated: upstream sums ``resource.Quantity`` values exactly and
reads the total through Value()/MilliValue(), so a pod whose containers together ask for more
than an int64 holds needs the int64 maximum (see :func:`~kubesched.api.saturate`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ._quantity import INT64_MAX, saturate

__all__ = [
    "DEFAULT_MEMORY_REQUEST",
    "DEFAULT_MILLI_CPU_REQUEST",
    "ResourceList",
    "add_resources",
    "max_resources",
    "pod_requests",
]

ResourceList = dict[str, int]
"""Resource name -> integer amount (millicores for cpu, bytes, counts)."""

DEFAULT_MILLI_CPU_REQUEST = 100  # 0.1 core
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024  # 200 MiB

_NON_MISSING = {"cpu": DEFAULT_MILLI_CPU_REQUEST, "memory": DEFAULT_MEMORY_REQUEST}


def add_resources(into: ResourceList, other: Mapping[str, int]) -> None:
    for k, v in other.items():
        into[k] = into.get(k, 0) + v


def max_resources(into: ResourceList, other: Mapping[str, int]) -> None:
    for k, v in other.items():
        if v > into.get(k, 0) or k not in into:
            into[k] = max(v, into.get(k, v))


def _with_non_missing(reqs: Mapping[str, int]) -> ResourceList:
    out = dict(reqs)
    for k, v in _NON_MISSING.items():
        if k not in reqs:
            out[k] = v
    return out


def is_supported_pod_level_resource(name: str) -> bool:
    """IsSupportedPodLevelResource: cpu, memory and (newest upstream) hugepages-*."""
    return name in ("cpu", "memory") or name.startswith("hugepages-")


def pod_requests(
    containers: Iterable[tuple[Mapping[str, int], bool]],
    init_containers: Iterable[tuple[Mapping[str, int], bool]],
    pod_level: Mapping[str, int] | None,
    overhead: Mapping[str, int] | None,
    non_missing: bool = False,
) -> ResourceList:
    """PodRequests. ``containers`` / ``init_containers`` are (requests, restartable) pairs;
    with ``non_missing`` the scoring defaults fill missing container cpu/memory requests."""
    reqs: ResourceList = {}
    for r, _ in containers:
        add_resources(reqs, _with_non_missing(r) if non_missing else r)
    restartable: ResourceList = {}
    init_max: ResourceList = {}
    for r, is_sidecar in init_containers:
        creqs = _with_non_missing(r) if non_missing else dict(r)
        if is_sidecar:
            add_resources(reqs, creqs)
            add_resources(restartable, creqs)
            step = dict(restartable)
        else:
            step = dict(creqs)
            add_resources(step, restartable)
        max_resources(init_max, step)
    max_resources(reqs, init_max)
    if pod_level:
        for name, q in pod_level.items():
            if is_supported_pod_level_resource(name):
                reqs[name] = q
    if overhead:
        add_resources(reqs, overhead)
    for name, q in reqs.items():
        if q > INT64_MAX:  # (only a sum can be: every amount added is an int64)
            reqs[name] = saturate(q)
    return reqs
