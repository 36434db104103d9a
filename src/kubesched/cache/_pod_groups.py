"""Per pod group: which pods the scheduler knows, which are assumed, which are assigned.

Mirrors the pod group state upstream keeps beside its cache (pkg/scheduler/backend/cache,
podGroupState / podGroupStateData, master 2026), which the GangScheduling plugin reads through
``PodGroupManager.PodGroupStates()``: a pod with ``spec.schedulingGroup`` is added when the
scheduler first sees it (an unscheduled pod entering the queue, or an assigned pod), moves to
*assumed* when the cache assumes it, back to unscheduled when it is forgotten, to *assigned*
when its binding is seen, and leaves when it is deleted. Pods without a group cost nothing.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..api import Pod

__all__ = ["PodGroupState", "PodGroupStates"]


@dataclass(slots=True)
class PodGroupState:
    """podGroupStateData: uid -> pod of every member; the assumed and assigned uids."""

    all_pods: dict[str, Pod] = field(default_factory=dict)
    assumed: set[str] = field(default_factory=set)
    assigned: set[str] = field(default_factory=set)

    def all_pods_count(self) -> int:
        """AllPodsCount: every pod of the group the scheduler knows."""
        return len(self.all_pods)

    def scheduled_pods_count(self) -> int:
        """ScheduledPodsCount: assumed plus assigned pods."""
        return len(self.assumed) + len(self.assigned)

    def assumed_pods(self) -> set[str]:
        """AssumedPods: the uids of pods past Reserve, not bound yet."""
        return set(self.assumed)

    def unscheduled_pods(self) -> dict[str, Pod]:
        """UnscheduledPods: ``namespace/name`` -> pod for members neither assumed nor assigned
        (the argument of Activate)."""
        return {p.key: p for uid, p in self.all_pods.items()
                if uid not in self.assumed and uid not in self.assigned}


class PodGroupStates:
    """(namespace, pod group name) -> :class:`PodGroupState`; thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._groups: dict[tuple[str, str], PodGroupState] = {}

    def get(self, namespace: str, name: str) -> PodGroupState:
        """PodGroupStates().Get: an empty state for a group no pod has joined yet."""
        with self._lock:
            st = self._groups.get((namespace, name))
            if st is None:
                return PodGroupState()
            return PodGroupState(dict(st.all_pods), set(st.assumed), set(st.assigned))

    def _state(self, pod: Pod) -> PodGroupState | None:
        name = pod.pod_group_name
        if not name:
            return None
        return self._groups.setdefault((pod.namespace, name), PodGroupState())

    def add_pod(self, pod: Pod) -> None:
        """A pod the scheduler sees (queued, or assigned when ``spec.nodeName`` is set)."""
        if not pod.pod_group_name:
            return  # the common case: no lock taken
        with self._lock:
            st = self._state(pod)
            if st is None:
                return
            st.all_pods[pod.uid] = pod
            if pod.node_name:
                st.assumed.discard(pod.uid)
                st.assigned.add(pod.uid)

    def assume_pod(self, pod: Pod) -> None:
        if not pod.pod_group_name:
            return
        with self._lock:
            st = self._state(pod)
            if st is not None:
                st.all_pods.setdefault(pod.uid, pod)
                st.assumed.add(pod.uid)

    def forget_pod(self, pod: Pod) -> None:
        """Back from assumed to unscheduled."""
        if not pod.pod_group_name:
            return
        with self._lock:
            st = self._state(pod)
            if st is not None:
                st.assumed.discard(pod.uid)

    def delete_pod(self, pod: Pod) -> None:
        name = pod.pod_group_name
        if not name:
            return
        with self._lock:
            st = self._groups.get((pod.namespace, name))
            if st is None:
                return
            st.all_pods.pop(pod.uid, None)
            st.assumed.discard(pod.uid)
            st.assigned.discard(pod.uid)
            if not st.all_pods:
                del self._groups[(pod.namespace, name)]
