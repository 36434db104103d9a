"""The scheduler's reads and writes of the cluster, through its store.

Upstream's scheduler reads pods through its informer's lister and writes through the client:
``updatePod`` (pkg/scheduler/schedule_one.go: the PodScheduled condition and
``nominatedNodeName``), the event recorder, and a binder extender's Binding (which the API
server applies). Here the store stands for both; :class:`StoreClient` is those few calls, typed,
handed to the cycles (:class:`~._schedule_one.ScheduleOne`) and to the queue.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING

from ..api import Namespace
from ._failure import MODE_OVERRIDE, PodCondition
from ._pod_informer import informer_selects

if TYPE_CHECKING:
    from ..api import Pod
    from ..cluster import Store
    from ..framework import PostFilterResult

__all__ = ["StoreClient"]

log = logging.getLogger(__name__)


class StoreClient:
    """The pod lister, ``updatePod``, the event recorder and an extender's Binding, over
    ``store``."""

    __slots__ = ("_store",)

    def __init__(self, store: Store) -> None:
        self._store = store

    def get_pod(self, namespace: str, name: str) -> Pod | None:
        """The pod lister of the scheduler's informer: a finished pod is not found."""
        pod = self._store.try_get("Pod", namespace, name)
        return pod if pod is not None and informer_selects(pod) else None

    def namespace_labels(self, namespace: str) -> Mapping[str, str] | None:
        """The namespace lister (the queue's namespace selectors)."""
        ns = self._store.try_get("Namespace", "", namespace)
        return ns.labels if isinstance(ns, Namespace) else None

    def update_pod(self, pod: Pod, condition: PodCondition | None,
                   nominating: PostFilterResult | None) -> None:
        """updatePod: the condition (the store skips an unchanged one) and, in ModeOverride,
        nominatedNodeName when it differs from ``pod``'s: upstream compares with the pod it was
        given (the one popped from the queue), not the current one, so a binding cycle's
        failure leaves the nominatedNodeName its NominatedNodeNameForExpectation step wrote."""
        nnn = None
        if nominating is not None and nominating.mode == MODE_OVERRIDE \
                and nominating.nominated_node_name != (pod.nominated_node_name or ""):
            nnn = nominating.nominated_node_name
        try:
            self._store.patch_pod_status(pod.namespace, pod.name, [condition] if condition else [], nnn)
        except Exception as err:  # the pod may be gone; upstream logs and moves on
            log.error('Error updating pod pod="%s/%s" err="%s"', pod.namespace, pod.name, err)

    def extender_binding(self, pod: Pod, node_name: str) -> None:
        """The Binding a binder extender created through the API server, as the store sees it:
        the pod bound to ``node_name`` (the informer's update then confirms the assumed pod).
        Nothing to do when the store already shows it (an extender that wrote to this store)."""
        current = self.get_pod(pod.namespace, pod.name)
        if current is not None and current.uid == pod.uid and current.node_name == node_name:
            return
        self._store.bind(pod.namespace, pod.name, node_name, uid=pod.meta.uid or None)

    def record_event(self, pod: Pod, type_: str, reason: str, action: str, message: str) -> None:
        """The event recorder: a failure is logged upstream, never raised. (try, not
        contextlib.suppress: this runs for every bound pod, and a suppress object per call
        costs more than the guarded call's own bookkeeping.)"""
        try:
            self._store.record_event(pod, reason, message, type=type_, action=action)
        except Exception:
            return
