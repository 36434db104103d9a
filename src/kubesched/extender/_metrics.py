"""The extender server's Prometheus metrics, in a registry of its own (no global state).

- ``kubesched_extender_requests_total{verb, code}``: requests answered, by HTTP status;
- ``kubesched_extender_request_duration_seconds{verb}``: latency, from the body read to the
  answer written;
- ``kubesched_extender_errors_total{verb, kind}``: requests refused (``bad_request``,
  ``too_large``, ``not_found``, ``method``, ``not_ready``) or failed (``internal``);
- ``kubesched_extender_unseen_total{verb, what}``: answers given without seeing something they
  depend on: ``pods`` (``--no-cache``: no pod on any node), ``nodes`` (a preemption candidate
  the view does not know, returned unchanged), ``victims`` (a proposed victim not on its node
  in the view);
- ``kubesched_extender_prioritize_ahead_total{result}``: how each ``/prioritize`` met the scores
  computed ahead after its ``/filter``: ``hit`` (answered from them), ``stale`` (the cluster
  changed in between), ``other`` (another pod or other names), ``none`` (nothing ahead: another
  view, no filter before).

and the process's ``process_*`` metrics (:mod:`kubesched.metrics`); no ``_created`` series.
"""

from __future__ import annotations

from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram

from ..metrics import exposition, process_registry

__all__ = ["ExtenderMetrics"]

_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)


class ExtenderMetrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.process = process_registry()
        self.requests = Counter("kubesched_extender_requests", "Extender requests answered.",
                                ["verb", "code"], registry=self.registry)
        self.latency = Histogram("kubesched_extender_request_duration_seconds",
                                 "Extender request latency.", ["verb"], buckets=_BUCKETS,
                                 registry=self.registry)
        self.errors = Counter("kubesched_extender_errors", "Extender requests refused or failed.",
                              ["verb", "kind"], registry=self.registry)
        self.unseen = Counter("kubesched_extender_unseen",
                              "Answers given without seeing state they depend on.", ["verb", "what"],
                              registry=self.registry)

        self.ahead = Counter("kubesched_extender_prioritize_ahead",
                             "How /prioritize met the scores computed ahead after /filter.", ["result"],
                             registry=self.registry)

        self._answered: dict[tuple[str, int], tuple[Any, Any]] = {}
        self._ahead: dict[str, Any] = {}

    def answered(self, verb: str, code: int, seconds: float) -> None:
        """One request of ``verb`` answered with ``code`` after ``seconds``. The labelled
        children are looked up once per label set (``labels()`` takes a lock and builds a
        key per call: a few microseconds on every request)."""
        pair = self._answered.get((verb, code))
        if pair is None:
            pair = (self.latency.labels(verb), self.requests.labels(verb, str(code)))
            self._answered[(verb, code)] = pair
        pair[0].observe(seconds)
        pair[1].inc()

    def ahead_result(self, result: str) -> None:
        child = self._ahead.get(result)
        if child is None:
            child = self._ahead[result] = self.ahead.labels(result)
        child.inc()

    def exposition(self) -> bytes:
        return exposition([self.registry, self.process])
