"""PrioritySort: the default QueueSort plugin.

Mirrors pkg/scheduler/framework/plugins/queuesort/priority_sort.go (master 2026): higher
priority first (a pod without priority counts as 0, corev1helpers.PodPriority), then the pod
that entered the queue earlier.
"""

from __future__ import annotations

from kubesched.framework import PluginBase, QueuedPodInfo
from kubesched.plugins.names import PRIORITY_SORT

__all__ = ["NAME", "PrioritySort"]

NAME = PRIORITY_SORT


class PrioritySort(PluginBase):
    NAME = NAME

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        """Less: whether ``a`` pops before ``b`` from activeQ."""
        p1 = a.pod.priority_value
        p2 = b.pod.priority_value
        return p1 > p2 or (p1 == p2 and a.timestamp < b.timestamp)
