"""GangScheduling: a PodGroup with a ``gang`` policy is placed whole or not at all.

Mirrors pkg/scheduler/framework/plugins/gangscheduling/gangscheduling.go (master 2026, the
release whose pods name their group in ``spec.schedulingGroup.podGroupName``; KEP-4671):

- **PreEnqueue** keeps a pod of a gang out of activeQ while its PodGroup does not exist
  (``waiting for pods's pod group "g" to appear in scheduling queue``) or while fewer than
  ``minCount`` pods of the group are known to the scheduler (``waiting for minCount pods from a
  gang to appear in scheduling queue``). A basic-policy group, or a pod without a group, passes.
- **Permit** makes each assumed pod of a gang wait (``waiting for minCount pods from a gang to
  be scheduled``, at most 5 minutes) until ``minCount`` pods of the group are assumed or bound;
  the pod that completes the quorum allows every waiting one. While waiting, the group's
  unscheduled pods are activated (moved to activeQ) so that they are tried at once. A pod still
  waiting after 5 minutes is rejected (``rejected due to timeout after waiting 5m0s at plugin
  GangScheduling``): its reservation is undone, so a gang that cannot be placed whole holds no
  node and none of its pods is bound.
- **Events**: a pod of the same group added (unscheduled or assigned), its PodGroup added, or
  its ``minCount`` lowered may let a waiting pod in.

- **PlacementFeasible** (the pod-group scheduling cycle, ``scheduler/_schedule_pod_group.py``)
  tells the cycle, before its first pod and after each one, whether ``minCount`` can still be
  met: ``minCount (3) cannot be satisfied: 1 scheduled, 1 remaining`` (Unschedulable: stop),
  ``minCount (3) is not yet satisfied: 1 scheduled, 2 remaining`` (Wait: go on), or success. A
  basic group's ``minCount`` is 1. Since that cycle places a gang's pods together, Permit then
  finds the quorum assumed and lets them bind at once; its wait and timeout remain for pods
  scheduled outside the cycle, as upstream keeps them.
"""

from __future__ import annotations

from typing import Any

from kubesched.api import Pod, PodGroup
from kubesched.cache import PodGroupState
from kubesched.framework import (
    PODS_TO_ACTIVATE_KEY,
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    CycleState,
    EventResource,
    PlacementProgress,
    PluginBase,
    PodsToActivate,
    QueueingHint,
    Status,
)
from kubesched.plugins.names import GANG_SCHEDULING

__all__ = ["NAME", "PERMIT_TIMEOUT", "GangScheduling"]

NAME = GANG_SCHEDULING

PERMIT_TIMEOUT = 5 * 60.0
"""permitTimeoutDuration: how long gang pods wait at Permit for a quorum before rejection."""

WAITING_FOR_MIN_COUNT_PODS = "waiting for minCount pods from a gang to appear in scheduling queue"
WAITING_FOR_QUORUM = "waiting for minCount pods from a gang to be scheduled"


def waiting_for_pod_group(name: str) -> str:
    # Upstream's spelling ("pods's"), kept so that messages match kube-scheduler's.
    return f'waiting for pods\'s pod group "{name}" to appear in scheduling queue'


class GangScheduling(PluginBase):
    NAME = NAME

    # -- listers -------------------------------------------------------------------------
    def _pod_group(self, namespace: str, name: str) -> PodGroup | None:
        store = self.handle.store if self.handle is not None else None
        obj = store.try_get("PodGroup", namespace, name) if store is not None else None
        return obj if isinstance(obj, PodGroup) else None

    def _state(self, namespace: str, name: str) -> PodGroupState:
        states = self.handle.pod_group_states() if self.handle is not None else None
        return states.get(namespace, name) if states is not None else PodGroupState()

    # -- EnqueueExtensions ---------------------------------------------------------------------
    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [
            # A new pod (unscheduled or pre-bound) may be the one completing the gang's minCount;
            # spec.schedulingGroup is immutable, so pod updates never matter.
            ClusterEventWithHint(ClusterEvent(EventResource.UNSCHEDULED_POD, ActionType.ADD),
                                 self.is_schedulable_after_pod_added),
            ClusterEventWithHint(ClusterEvent(EventResource.ASSIGNED_POD, ActionType.ADD),
                                 self.is_schedulable_after_pod_added),
            ClusterEventWithHint(ClusterEvent(EventResource.POD_GROUP, ActionType.ADD),
                                 self.is_schedulable_after_pod_group_added),
            ClusterEventWithHint(ClusterEvent(EventResource.POD_GROUP, ActionType.UPDATE),
                                 self.is_schedulable_after_pod_group_updated),
        ]

    def is_schedulable_after_pod_added(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        """MatchingSchedulingGroup: the added pod is of the same group."""
        if not isinstance(new_obj, Pod) or not pod.pod_group_name:
            return QueueingHint.QUEUE_SKIP
        same = new_obj.namespace == pod.namespace and new_obj.pod_group_name == pod.pod_group_name
        return QueueingHint.QUEUE if same else QueueingHint.QUEUE_SKIP

    def is_schedulable_after_pod_group_added(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        if not isinstance(new_obj, PodGroup) or not _is_group_of(pod, new_obj):
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE

    def is_schedulable_after_pod_group_updated(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        """Only a lowered minCount can let waiting pods in; a policy change (not expected: the
        policy kind is immutable) requeues to be safe."""
        if not isinstance(new_obj, PodGroup) or not isinstance(old_obj, PodGroup) \
                or not _is_group_of(pod, new_obj):
            return QueueingHint.QUEUE_SKIP
        if new_obj.gang is None or old_obj.gang is None:
            return QueueingHint.QUEUE
        lowered = new_obj.gang.min_count < old_obj.gang.min_count
        return QueueingHint.QUEUE if lowered else QueueingHint.QUEUE_SKIP

    # -- PreEnqueue ----------------------------------------------------------------------------
    def pre_enqueue(self, pod: Pod) -> Status | None:
        name = pod.pod_group_name
        if not name:
            return None
        pg = self._pod_group(pod.namespace, name)
        if pg is None:
            # The pod is unschedulable until its PodGroup object is created.
            return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, waiting_for_pod_group(name))
        if pg.gang is None:
            return None
        if self._state(pod.namespace, name).all_pods_count() < pg.gang.min_count:
            return Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, WAITING_FOR_MIN_COUNT_PODS)
        return None  # the quorum is met: the pod may enter the queue

    # -- Permit --------------------------------------------------------------------------------
    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]:
        name = pod.pod_group_name
        if not name:
            return None, 0.0
        pg = self._pod_group(pod.namespace, name)
        if pg is None:
            # Removed meanwhile: an error retries the pod once the group is added again.
            err = LookupError(f'failed to get podGroup {pod.namespace}/{name}: '
                              f'podgroup.scheduling.k8s.io "{name}" not found')
            return Status.from_error(err), 0.0
        if pg.gang is None:
            return None, 0.0
        group = self._state(pod.namespace, name)
        if group.scheduled_pods_count() < pg.gang.min_count:
            # Activate the group's unscheduled pods in case they wait for this one.
            _activate(state, group.unscheduled_pods())
            return Status.of(Code.WAIT, WAITING_FOR_QUORUM), PERMIT_TIMEOUT
        # The quorum is met: allow this pod and every pod of the gang waiting on Permit.
        if self.handle is not None:
            for uid in sorted(group.assumed_pods()):
                waiting = self.handle.get_waiting_pod(uid)
                if waiting is not None:
                    waiting.allow(NAME)
        return None, 0.0


    # -- PlacementFeasible ---------------------------------------------------------------------
    def placement_feasible(self, pod_group: PodGroup, progress: PlacementProgress) -> Status | None:
        """PlacementFeasible: enforce ``minCount`` inside the pod-group scheduling cycle."""
        min_count = pod_group.gang.min_count if pod_group.gang is not None else 1
        remaining, scheduled = progress.remaining, progress.scheduled
        if remaining + scheduled < min_count:
            # Not enough pods left to try for minCount to be met.
            return Status.of(Code.UNSCHEDULABLE, f"minCount ({min_count}) cannot be satisfied: "
                                                 f"{scheduled} scheduled, {remaining} remaining")
        if scheduled < min_count:
            # The pods still to try may meet it.
            return Status.of(Code.WAIT, f"minCount ({min_count}) is not yet satisfied: "
                                        f"{scheduled} scheduled, {remaining} remaining")
        return None


def _is_group_of(pod: Pod, pg: PodGroup) -> bool:
    return bool(pod.pod_group_name) and pod.namespace == pg.namespace and pod.pod_group_name == pg.name


def _activate(state: CycleState, pods: dict[str, Pod]) -> None:
    """handle.Activate through the cycle's PodsToActivate (moved to activeQ after Permit)."""
    if not pods:
        return
    to_activate = state.get(PODS_TO_ACTIVATE_KEY)
    if isinstance(to_activate, PodsToActivate):
        to_activate.map.update(pods)
