"""The nominator: which pods preemption nominated to which node.

Mirrors pkg/scheduler/backend/queue/nominator.go (master 2026). Filters count nominated pods of
equal or higher priority as already placed on their node (RunFilterPluginsWithNominatedPods),
so the space preemption freed is not taken by someone else. The nominator is updated before
the API call that sets ``status.nominatedNodeName``, to avoid races with the next cycles.

Upstream keeps only a (name, namespace, uid) reference and rebuilds the pod from the queue;
we keep the latest pod object instead (our pods are immutable), and the queue still prefers the
version it holds.
"""

from __future__ import annotations

from collections.abc import Callable

from ..api import Pod
from ..framework import PostFilterResult

__all__ = ["MODE_NOOP", "MODE_OVERRIDE", "Nominator", "PodLookup"]

MODE_OVERRIDE = "ModeOverride"
MODE_NOOP = "ModeNoop"

PodLookup = Callable[[str, str], Pod | None]
"""(namespace, name) -> the pod as the store has it now, or None when it no longer exists."""

_CHANGE_LOG_LIMIT = 4096
"""Entries of the change log kept; a reader further behind rebuilds from scratch."""


class Nominator:
    def __init__(self, pod_lookup: PodLookup | None = None) -> None:
        self._pod_lookup = pod_lookup
        self._nominated_pods: dict[str, list[Pod]] = {}
        self._pod_to_node: dict[str, str] = {}
        # The change log (not upstream): ``version`` counts changes; ``_log[i]`` is the node of
        # change ``_log_base + i + 1``. Readers that keep per-node answers across cycles
        # (framework._nominated.NominatedColumns) re-read only the nodes named since.
        self.version = 0
        self._log: list[str] = []
        self._log_base = 0

    def _changed(self, node_name: str) -> None:
        self.version += 1
        self._log.append(node_name)
        if len(self._log) > _CHANGE_LOG_LIMIT:
            drop = len(self._log) // 2
            del self._log[:drop]
            self._log_base += drop

    def changes_since(self, version: int) -> list[str] | None:
        """The nodes whose nominated pods (or the version of one of them) may have changed
        since ``version`` (repeats possible); None when the log no longer reaches back."""
        if version < self._log_base:
            return None
        return self._log[version - self._log_base:]

    def touch(self, uid: str) -> None:
        """Log the node of a nominated pod whose queued version may have changed (the queue
        prefers its own version of a nominated pod: nominatedPodToInfo)."""
        node = self._pod_to_node.get(uid)
        if node is not None:
            self._changed(node)

    def add_nominated_pod(self, pod: Pod, nominating_info: PostFilterResult | None = None) -> None:
        """addNominatedPod: ModeOverride uses the given node, ModeNoop (or no info) the pod's
        own ``nominatedNodeName``; an empty node clears the nomination. A pod that no longer
        exists or is already bound is not nominated."""
        self.delete_nominated_pod_if_exists(pod)
        mode = nominating_info.mode if nominating_info is not None else MODE_NOOP
        if mode == MODE_OVERRIDE:
            assert nominating_info is not None
            node_name = nominating_info.nominated_node_name
        else:
            node_name = pod.nominated_node_name
        if not node_name:
            return
        if self._pod_lookup is not None:
            current = self._pod_lookup(pod.namespace, pod.name)
            if current is None or current.node_name:
                return
        self._pod_to_node[pod.uid] = node_name
        pods = self._nominated_pods.setdefault(node_name, [])
        if all(p.uid != pod.uid for p in pods):
            pods.append(pod)
        self._changed(node_name)

    def update_nominated_pod(self, old_pod: Pod, new_pod: Pod) -> None:
        """UpdateNominatedPod: an update that neither sets nor clears the nomination keeps the
        node reserved in memory (an update may arrive before the nomination reaches the API)."""
        info: PostFilterResult | None = None
        if not old_pod.nominated_node_name and not new_pod.nominated_node_name:
            node = self._pod_to_node.get(old_pod.uid)
            if node is not None:
                info = PostFilterResult(node, MODE_OVERRIDE)
        self.delete_nominated_pod_if_exists(old_pod)
        self.add_nominated_pod(new_pod, info)

    def delete_nominated_pod_if_exists(self, pod: Pod) -> None:
        node = self._pod_to_node.pop(pod.uid, None)
        if node is None:
            return
        pods = [p for p in self._nominated_pods.get(node, []) if p.uid != pod.uid]
        if pods:
            self._nominated_pods[node] = pods
        else:
            self._nominated_pods.pop(node, None)
        self._changed(node)

    def nominated_pods(self, node_name: str) -> list[Pod]:
        """The pods nominated to ``node_name``, in nomination order."""
        return list(self._nominated_pods.get(node_name, ()))

    def node_names(self) -> set[str]:
        """The nodes that have nominated pods."""
        return set(self._nominated_pods)

    def nominated_node(self, pod: Pod) -> str | None:
        return self._pod_to_node.get(pod.uid)

    def __len__(self) -> int:
        """How many pods are nominated (lets the scheduler skip nominated-pod checks when 0)."""
        return len(self._pod_to_node)
