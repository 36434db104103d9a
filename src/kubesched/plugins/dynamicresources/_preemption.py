"""Preemption dry runs with claims: the devices the victims' claims would free (DRAPreemption).

Mirrors the PreFilterExtensions of pkg/scheduler/framework/plugins/dynamicresources/
dynamicresources.go (master 2026; KEP-5690, gate DRAPreemption, alpha in 1.37 and off by
default). DefaultPreemption's SelectVictimsOnNode removes the lower-priority pods of a node from
a copy of the cycle state (RemovePod) and adds them back one by one (AddPod); the plugin follows:

- RemovePod records the pod as removed for each of its claims (looked up by name, each claim
  once); a claim whose every ``reservedFor`` entry is a pod recorded as removed is *released*:
  its devices (shares and consumed capacity too) leave the dry run's allocated state. A claim
  reserved for anything but pods (a PodGroup) is never released, nor one shared with a pod that
  stays;
- AddPod undoes that: the pod is no longer removed, and a released claim of it is allocated
  again;
- Filter, while some claim is released, asks a new allocator built over that allocated state;
  the preemptor's own claims that were released count as unallocated there.

Without the gate both are no-ops, as upstream: the devices of victims' claims stay in use, so
a node where only the devices are missing never yields a preemption candidate.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from kubesched.api import Pod, ResourceClaim
from kubesched.dra.structured import AllocatedState
from kubesched.plugins.helper.dra import apply_claim

from ._claims import ClaimLookupError, claim_name

__all__ = ["DryRun", "copy_allocated"]


def copy_allocated(state: AllocatedState) -> AllocatedState:
    """A deep copy (Clone deep-copies allocatedState: dry runs of different nodes mutate
    their own)."""
    return AllocatedState(allocated_devices=set(state.allocated_devices),
                          allocated_shared_device_ids=set(state.allocated_shared_device_ids),
                          aggregated_capacity={d: dict(c) for d, c in state.aggregated_capacity.items()},
                          allocated_compatibility_groups={
                              d: dict(g) for d, g in state.allocated_compatibility_groups.items()})


@dataclass
class DryRun:
    """simulatedReleasedClaims and simulatedRemovedPodsForClaim of one dry run, with the
    allocated state they changed (copied on the first change)."""

    released: set[str] = field(default_factory=set)  # claim uids
    removed_pods: dict[str, set[str]] = field(default_factory=dict)  # claim uid -> pod uids
    allocated: AllocatedState | None = None
    _own: bool = False  # whether ``allocated`` is this dry run's copy

    def copy(self) -> DryRun:
        """The clone's dry run: the allocated state is shared until either side changes it
        (both copy it on their next change)."""
        self._own = False
        return DryRun(set(self.released), {k: set(v) for k, v in self.removed_pods.items()},
                      self.allocated, False)

    def _writable(self) -> AllocatedState | None:
        if self.allocated is not None and not self._own:
            self.allocated = copy_allocated(self.allocated)
            self._own = True
        return self.allocated

    def remove_pod(self, pod: Pod, get_claim: GetClaim, consumable_capacity: bool) -> None:
        """RemovePod."""
        for claim in _pod_claims(pod, get_claim):
            removed = self.removed_pods.setdefault(claim.meta.uid, set())
            removed.add(pod.uid)
            reserved = claim.reserved_for
            if len(removed) < len(reserved):
                continue
            # Every reserving consumer must be a pod recorded as removed: a PodGroup (any
            # non-pod consumer) or a pod that stays keeps the claim.
            if all(r.resource == "pods" and not r.api_group and r.uid in removed for r in reserved):
                self.released.add(claim.meta.uid)
                state = self._writable()
                if state is not None:
                    apply_claim(state, claim, consumable_capacity, add=False)

    def add_pod(self, pod: Pod, get_claim: GetClaim, consumable_capacity: bool) -> None:
        """AddPod."""
        for claim in _pod_claims(pod, get_claim):
            removed = self.removed_pods.get(claim.meta.uid)
            if removed is not None:
                removed.discard(pod.uid)
            if claim.meta.uid in self.released:
                self.released.discard(claim.meta.uid)
                state = self._writable()
                if state is not None:
                    apply_claim(state, claim, consumable_capacity, add=True)


GetClaim = Callable[[str, str], "ResourceClaim | None"]


def _pod_claims(pod: Pod, get_claim: GetClaim) -> list[ResourceClaim]:
    """The pod's claims that exist, each once (by uid); a claim not generated yet or gone
    is skipped (nothing to free or restore)."""
    out: list[ResourceClaim] = []
    seen: set[str] = set()
    for pod_claim in pod.resource_claims:
        try:
            name, _ = claim_name(pod, pod_claim)
        except ClaimLookupError:
            continue
        if name is None:
            continue
        claim = get_claim(pod.namespace, name)
        if claim is None or claim.meta.uid in seen:
            continue
        seen.add(claim.meta.uid)
        out.append(claim)
    return out

