"""The scheduler's view of pods: finished pods do not exist for it.

Upstream's ``newPodInformer`` (pkg/scheduler/scheduler.go, master 2026) lists and watches pods
with the field selector ``status.phase!=Succeeded,status.phase!=Failed``: a pod that has run to
completion holds no resources, so it is neither in the cache (node infos, the snapshot, hence
resource fit, pod counts, inter-pod affinity and topology spread counts, preemption victims) nor
in the scheduling queue, and the pod lister the nominator reads does not return it.

A watch with a field selector reports a change across the selector's boundary as the API
server's cacher does (``cacheWatcher.convertToWatchEvent``): an object that stops matching
arrives as DELETED with its previous content, one that starts matching as ADDED. So a bound pod
turning Succeeded leaves its node exactly as if it had been deleted (the event handlers in
eventhandlers.go need no case of their own), and a pending pod that is already finished is
never scheduled.
"""

from __future__ import annotations

from typing import Protocol

from ..api import Pod

__all__ = ["PodHandlers", "deliver_pod_event", "informer_selects"]


class PodHandlers(Protocol):
    """The pod event handlers (eventhandlers.go's addPod, updatePod, deletePod)."""

    def add_pod(self, pod: Pod) -> None: ...

    def update_pod(self, old: Pod, new: Pod) -> None: ...

    def delete_pod(self, pod: Pod) -> None: ...


def informer_selects(pod: Pod) -> bool:
    """``status.phase!=Succeeded,status.phase!=Failed``."""
    return not pod.is_terminal


def deliver_pod_event(handlers: PodHandlers, typ: str, old: Pod | None, new: Pod | None) -> None:
    """Hand a store event (``ADDED`` / ``MODIFIED`` / ``DELETED``) to ``handlers`` as the
    scheduler's informer sees it through its field selector (possibly not at all)."""
    new_in = typ != "DELETED" and new is not None and informer_selects(new)
    old_in = old is not None and informer_selects(old)
    if new is not None and new_in:
        if old is not None and old_in:
            handlers.update_pod(old, new)
        else:
            handlers.add_pod(new)
    elif old is not None and old_in:
        handlers.delete_pod(old)
