"""SelectVictimsOnNode without re-running the filter chain, when only resources can change.

Upstream's ``SelectVictimsOnNode`` (default_preemption.go) removes every lower-priority pod
from a copy of the node, runs ``RunFilterPluginsWithNominatedPods`` once, then adds the
victims back one at a time (PDB-violating ones first, most important first), running the whole
filter chain after each. For most preemptors, though, every Filter plugin that is not skipped
in this cycle states about itself (``framework.FilterInputs``) that it is either

- *node-static* (``NODE``): its verdict reads only the node object and the cycle state written
  in PreFilter, never the pods on the node (NodeUnschedulable, NodeName, TaintToleration,
  NodeAffinity), and it has no PreFilter extensions; or
- *resource-only* (``RESOURCES``: NodeResourcesFit, called Fit below), whose verdict reads only
  the node's allocatable, the summed requests of the pods on it and their number, and which is
  monotone: fewer pods never fit worse.

Then each filter run of the dry run is decided by Fit alone, on a node whose pods are known
without copying it: the static plugins passed on this node in the Filter phase (the node's
status came from Fit itself; those plugins reject with UnschedulableAndUnresolvable, which
would have kept the node out of preemption), and they read nothing that the dry run changes.
Nominated pods of equal or higher priority count as upstream's first pass; by monotonicity the
second pass (without them) passes whenever the first does, so one check decides.

:class:`ResourceVictimSelector` does exactly that: it keeps a small usage record (allocatable,
requested sums, pod list) per node and asks Fit's own ``filter`` about it, so the statuses,
reasons and victims are the ones the generic path computes. Anything outside that shape (other
plugins active, a node whose status came from another plugin, the per-node reference mode of
the decision check) returns None and the Evaluator runs the generic path.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, cast

import numpy as np
import numpy.typing as npt

from kubesched.framework import (
    GE_NOMINATED_KEY,
    BatchFilterPlugin,
    Code,
    CycleState,
    Framework,
    GENominatedPods,
    Handle,
    NodeToStatus,
    Status,
    resource_only_filters,
)

from ._victim_rule import (
    IsEligiblePodFn,
    VictimsResult,
    no_victims_result,
    potential_victims,
    reprieve,
)

if TYPE_CHECKING:
    from kubesched.api import Pod, PodDisruptionBudget
    from kubesched.cache import NodeInfo, PodInfo, Snapshot

__all__ = ["ResourceVictimSelector"]


def _no_pods(_node_name: str) -> list[PodInfo]:
    return []


def _nominated_lookup(fh: Framework, state: CycleState, pod: Pod,
                      ) -> tuple[Callable[[str], list[PodInfo]], set[str] | None, GENominatedPods | None]:
    """The nominated pods of a node, as the nominator's NominatedPodsForNode, the nodes that
    may have any (None: unknown, any node may), and the batch Filter pass's answers when they
    can be read.

    The batch Filter pass of this cycle kept, in the cycle state, the nominated pods of
    priority >= ``pod``'s (the only ones the dry run counts) for every snapshot node: read
    those while the nominator has not changed since; else the framework builds them anew
    (``ge_nominated_pods``), or, for a nominator without a change log, ask it node by node
    (only the nodes it names, when it is a ``NodeNamesNominator``)."""
    nom = fh.nominator()
    if nom is None:
        return _no_pods, set(), None
    seen = state.get(GE_NOMINATED_KEY)
    if not (isinstance(seen, GENominatedPods) and seen.matches(pod) and seen.is_current()):
        seen = fh.ge_nominated_pods(state, pod)  # the framework's, from the queue now
    if seen is not None:
        return seen.pods, None, seen
    ask = nom.nominated_pods_for_node
    known = fh.nominated_node_names()
    if known is None:
        return ask, None, None
    # Most nodes have no nominated pod: ask the queue once, not once per node.
    names = set(known)

    def nominated(name: str) -> list[PodInfo]:
        return ask(name) if name in names else []
    return nominated, names, None


class _Usage:
    """What Fit's ``fitsRequest`` reads of a NodeInfo: allocatable, requested, pods."""

    __slots__ = ("allocatable", "pods", "requested")

    def __init__(self, allocatable: dict[str, int], requested: dict[str, int], pods: list[PodInfo]) -> None:
        self.allocatable = allocatable
        self.requested = requested
        self.pods = pods

    def add(self, pi: PodInfo) -> None:
        req = self.requested
        for k, v in pi.resource.items():
            req[k] = req.get(k, 0) + v
        self.pods.append(pi)

    def remove_last(self, pi: PodInfo) -> None:
        req = self.requested
        for k, v in pi.resource.items():
            req[k] = req.get(k, 0) - v
        self.pods.pop()


class ResourceVictimSelector:
    """The resource-only dry run of one preemption (one pod, one cycle state)."""

    __slots__ = ("_fit_nodes", "_fit_rows", "_importance", "_is_eligible", "_pdbs", "fit",
                 "fit_name", "ge_nominated", "nominated_for", "nominated_nodes", "pod", "state", "statuses")

    def __init__(self, fit: BatchFilterPlugin, state: CycleState, pod: Pod,
                 pdbs: Sequence[PodDisruptionBudget], statuses: NodeToStatus,
                 nominated: Callable[[str], list[PodInfo]],
                 is_eligible: IsEligiblePodFn | None,
                 importance: Callable[[list[PodInfo]], None]) -> None:
        self.fit = fit
        self.fit_name = fit.name()
        self.state = state
        self.pod = pod
        self._pdbs = pdbs
        self.statuses = statuses
        self.nominated_for = nominated
        self.nominated_nodes: set[str] | None = None  # nodes that may have nominated pods (None: any)
        self.ge_nominated: GENominatedPods | None = None  # the Filter pass's, when current
        self._fit_nodes: set[str] | None = None
        self._fit_rows: tuple[object, npt.NDArray[np.bool_]] | None = None
        self._is_eligible = is_eligible
        self._importance = importance

    @staticmethod
    def prepare(fh: Handle | None, state: CycleState, pod: Pod, pdbs: Sequence[PodDisruptionBudget],
                statuses: NodeToStatus | None, is_eligible: IsEligiblePodFn | None,
                importance: Callable[[list[PodInfo]], None]) -> ResourceVictimSelector | None:
        """A selector when this cycle's active Filter plugins have the shape above, else None.

        ``is_eligible`` is the plugin's IsEligiblePod hook (besides lower priority), None when it
        admits every pod; ``importance`` sorts pod infos most important first (see
        :mod:`._victim_rule`)."""
        if statuses is None or not isinstance(fh, Framework):
            return None
        ok, fit, _ = resource_only_filters(fh, state)
        if not ok or fit is None:
            return None
        nominated, nominated_nodes, ge = _nominated_lookup(fh, state, pod)
        selector = ResourceVictimSelector(fit, state, pod, pdbs, statuses, nominated, is_eligible,
                                          importance)
        selector.nominated_nodes = nominated_nodes
        selector.ge_nominated = ge
        return selector

    def fit_nodes(self) -> set[str]:
        """The nodes Fit rejected in the Filter pass (the ones this model takes), asked of the
        statuses once per preemption."""
        if self._fit_nodes is None:
            self._fit_nodes = self.statuses.names_with_plugin(self.fit_name)
        return self._fit_nodes

    def fit_rows(self, snapshot: Snapshot) -> npt.NDArray[np.bool_]:
        """:meth:`fit_nodes` as a mask over ``snapshot``'s rows (built once per preemption)."""
        if self._fit_rows is None or self._fit_rows[0] is not snapshot:
            mask = np.zeros(len(snapshot.node_info_list), dtype=bool)
            rows = self.statuses.rows_with_plugin(self.fit_name, snapshot.names_array())
            if rows is None:  # statuses without rows: look the names up
                index = snapshot.node_index
                names = [n for n in self.fit_nodes() if n in index]
                rows = np.fromiter(map(index.__getitem__, names), dtype=np.int64, count=len(names))
            mask[rows] = True
            self._fit_rows = (snapshot, mask)
        return self._fit_rows[1]

    def _fit_status(self, usage: _Usage) -> Status | None:
        """Fit's own Filter on the usage record; None when the pod fits."""
        st = self.fit.filter(self.state, self.pod, cast("NodeInfo", usage))
        if st is None or st.code == Code.SUCCESS:
            return None
        return st

    def select(self, node_info: NodeInfo) -> VictimsResult | None:
        """SelectVictimsOnNode for ``node_info`` (not modified), or None for the generic path."""
        st = self.statuses.get(node_info.name)
        if st.plugin != self.fit_name:
            return None
        pod = self.pod
        prio = pod.priority_value
        potential, remaining = potential_victims(node_info, pod, self._is_eligible)
        if not potential:
            return no_victims_result()
        req = dict(node_info.requested)
        for pi in potential:
            for k, v in pi.resource.items():
                req[k] = req.get(k, 0) - v
        usage = _Usage(node_info.allocatable, req, remaining)
        uid = pod.uid
        for pi in self.nominated_for(node_info.name):
            if pi.pod.priority_value >= prio and pi.pod.uid != uid:
                usage.add(pi)
        st0 = self._fit_status(usage)
        if st0 is not None:
            if not st0.is_rejected():
                return None
            return [], 0, st0.with_plugin(self.fit_name)

        def keep(pi: PodInfo) -> bool:
            usage.add(pi)
            if self._fit_status(usage) is None:
                return True
            usage.remove_last(pi)
            return False

        victims, num_violating = reprieve(potential, self._pdbs, self._importance, keep)
        return [pi.pod for pi in victims], num_violating, Status.success()

