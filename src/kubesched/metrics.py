"""The Prometheus text every endpoint serves (``kubesched run``'s and the extender's
``/metrics``), shaped as kube-scheduler's:

- no ``<name>_created`` series: prometheus_client adds one per counter, histogram and summary
  (OpenMetrics' creation timestamp); prometheus/client_golang, which upstream's
  k8s.io/component-base/metrics builds on, has none in the text format. They are dropped when
  rendering (:func:`exposition`), not switched off process-wide (``disable_created_metrics``),
  so that a program embedding kubesched keeps its own;
- the ``process_*`` metrics of the process collector that component-base's legacyregistry
  registers (client_golang's collectors.NewProcessCollector): ``process_cpu_seconds_total``,
  ``process_open_fds``, ``process_max_fds``, ``process_virtual_memory_bytes``,
  ``process_resident_memory_bytes``, ``process_start_time_seconds`` and
  ``process_virtual_memory_max_bytes``, with the same names, types and help texts
  (:func:`process_registry`; Linux, from ``/proc`` and the address-space limit).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from prometheus_client import CollectorRegistry, Metric, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.process_collector import ProcessCollector

try:
    import resource
except ImportError:  # not a Unix: no address-space limit to read
    resource = None  # type: ignore[assignment]

__all__ = ["CONTENT_TYPE", "exposition", "process_registry"]

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
"""The Prometheus text format's type as Go's client serves it (every name here is a legacy
Prometheus name, so the text is the same in both format versions)."""

_WITH_CREATED = frozenset({"counter", "histogram", "summary", "gaugehistogram"})


class _VirtualMemoryMax:
    """client_golang's ``process_virtual_memory_max_bytes``: the address-space limit
    (RLIMIT_AS), "unlimited" read as procfs reads it, 2^64 - 1."""

    def collect(self) -> Iterator[Any]:
        if resource is None:
            return
        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
        value = float(2**64 - 1) if soft == resource.RLIM_INFINITY else float(soft)
        yield GaugeMetricFamily("process_virtual_memory_max_bytes",
                                "Maximum amount of virtual memory available in bytes.", value=value)


def process_registry() -> CollectorRegistry:
    """A registry holding this process's ``process_*`` metrics."""
    registry = CollectorRegistry(auto_describe=False)
    ProcessCollector(registry=registry)
    registry.register(_VirtualMemoryMax())
    return registry


class _WithoutCreated:
    """The families of ``registries``, each counter's, histogram's and summary's ``_created``
    samples left out."""

    def __init__(self, registries: Iterable[CollectorRegistry]) -> None:
        self._registries = list(registries)

    def collect(self) -> Iterator[Any]:
        for registry in self._registries:
            for family in registry.collect():
                if family.type in _WITH_CREATED:  # a copy: a collector may hand out its own
                    kept = Metric(family.name, family.documentation, family.type, family.unit)
                    kept.samples = [s for s in family.samples if not s.name.endswith("_created")]
                    family = kept
                yield family


def exposition(registries: Iterable[CollectorRegistry]) -> bytes:
    """The Prometheus text format of ``registries``, in order, without ``_created`` series."""
    merged = CollectorRegistry(auto_describe=False)
    merged.register(_WithoutCreated(registries))
    return generate_latest(merged)
