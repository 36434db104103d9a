"""The Evaluator: preemption as numbered steps.

Mirrors Evaluator.Preempt and its helpers in pkg/scheduler/framework/preemption/preemption.go
(master 2026). The algorithm is fixed here; the policy comes from the plugin's
:class:`~kubesched.framework.preemption.Interface` and the API calls from the
:class:`~kubesched.framework.preemption.Executor`.

0. Fetch the latest version of the preemptor from the store.
1. Is it eligible (``PodEligibleToPreemptOthers``)?
2. Candidates: the nodes whose filter status is Unschedulable (never
   UnschedulableAndUnresolvable) are dry-run from a random offset; the search stops once at
   least one non-PDB-violating candidate exists and the shortlist is full.
3. Extenders with the preempt verb may trim the candidates.
4. Pick one candidate (``pickOneNodeForPreemption``).
5. Prepare it (evict victims, clear lower-priority nominations), now or asynchronously.

Upstream dry-runs nodes in parallel; we check them one by one in offset order and stop at the
same condition, which gives the same candidates upstream finds with one worker. A plugin may
offer a faster SelectVictimsOnNode through the optional ``prepare_dry_run`` hook (DefaultPreemption
answers many nodes at once with array operations when only resources decide); nodes it does not
answer go through ``select_victims_on_node`` on a copy, as upstream. Cross-node
preemption (evicting pods on another node to satisfy e.g. anti-affinity) is not supported, as
upstream: victims are always on the candidate node.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .._cycle_state import CycleState
from .._diagnosis import Diagnosis, FitError, NodeToStatus
from .._interface import (
    BulkDryRun,
    DryRunPreemption,
    PostFilterResult,
    PreemptionExtender,
    SkippedErrorLogger,
)
from .._status import Code, Status
from ._executor import Executor, _try_get_pod
from ._interface import Candidate, Interface
from ._util import VictimList, Victims, pick_one_node_for_preemption

if TYPE_CHECKING:
    from ...api import Pod, PodDisruptionBudget
    from ...cache import NodeInfo
    from ...cluster import Store
    from .._handle import Handle

__all__ = ["PREEMPTION_NOT_HELPFUL", "Evaluator"]

PREEMPTION_NOT_HELPFUL = "Preemption is not helpful for scheduling"
_MODE_OVERRIDE = "ModeOverride"


def _nominate(node_name: str) -> PostFilterResult:
    """NewPostFilterResultWithNominatedNode: ModeOverride; ``""`` clears the nomination."""
    return PostFilterResult(node_name, _MODE_OVERRIDE)


class _CandidateList:
    """candidateList: keeps at most ``size`` candidates; later additions are dropped."""

    __slots__ = ("items", "size")

    def __init__(self, size: int) -> None:
        self.size = size
        self.items: list[Candidate] = []

    def add(self, c: Candidate) -> None:
        if len(self.items) < self.size:
            self.items.append(c)

    def __len__(self) -> int:
        return len(self.items)


class Evaluator:
    """Runs preemption for ``plugin_name`` with the policy ``interface``."""

    def __init__(self, plugin_name: str, handle: Handle, interface: Interface, executor: Executor,
                 enable_async_preemption: bool = True) -> None:
        self.plugin_name = plugin_name
        self.handle = handle
        self.interface = interface
        self.executor = executor
        self.enable_async_preemption = enable_async_preemption

    @property
    def interface(self) -> Interface:
        """The preemption policy; whether it has the faster dry run (:class:`DryRunPreemption`)
        is resolved when it is set, not per preemption."""
        return self._interface

    @interface.setter
    def interface(self, interface: Interface) -> None:
        self._interface = interface
        self._dry_run = interface if isinstance(interface, DryRunPreemption) else None

    # -- Preempt ------------------------------------------------------------------------------
    def preempt(self, state: CycleState, pod: Pod,
                m: NodeToStatus) -> tuple[PostFilterResult | None, Status]:
        """Preempt: ``m`` is the NodeToStatus of the failed Filter phase.

        Returns <None, Error> for transient errors and <None, Unschedulable> when the pod is not
        eligible (both keep its nomination), <"" nomination, Unschedulable> with a FitError
        message when preemption cannot help (clears it), and <node, Success> on the happy path."""
        # 0) The latest version of the pod (its nominatedNodeName may have changed).
        latest = _try_get_pod(self.handle.store, pod.namespace, pod.name)
        if latest is None:
            return None, Status.from_error(RuntimeError(f'pods "{pod.name}" not found'))
        pod = latest

        # 1) Eligibility.
        ok, msg = self.interface.pod_eligible_to_preempt_others(pod, m.get(pod.nominated_node_name))
        if not ok:
            return None, Status.of(Code.UNSCHEDULABLE, msg)

        # 2) Candidates.
        all_nodes = self.handle.snapshot().node_info_list
        try:
            candidates, node_statuses, errs = self.find_candidates(state, all_nodes, pod, m)
        except Exception as err:
            return None, Status.from_error(err)
        if errs and not candidates:
            return None, Status.from_error(errs[0])
        if not candidates:

            node_statuses.set_absent_nodes_status(
                Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, PREEMPTION_NOT_HELPFUL))
            fit_error = FitError(pod, len(all_nodes), Diagnosis(node_to_status=node_statuses))
            return _nominate(""), Status.of(Code.UNSCHEDULABLE, fit_error.error())

        # 3) Extenders.
        candidates, status = self.call_extenders(pod, candidates)
        if not status.is_success():
            return None, status

        # 4) The best candidate.
        best = self.select_candidate(candidates)
        if best is None or not best.name:
            return None, Status.of(Code.UNSCHEDULABLE, "no candidate node for preemption")

        # 5) Evict (now or in a task after this cycle) and nominate.
        if self.enable_async_preemption:
            self.executor.prepare_candidate_async(best, pod, self.plugin_name)
        else:
            st = self.executor.prepare_candidate(best, pod, self.plugin_name)
            if not st.is_success():
                return None, st
        return _nominate(best.name), Status.success()

    def find_candidates(self, state: CycleState, all_nodes: Sequence[NodeInfo], pod: Pod,
                        m: NodeToStatus) -> tuple[list[Candidate], NodeToStatus, list[BaseException]]:
        """findCandidates: the potential nodes (filter status Unschedulable, snapshot order),
        the PDBs, then the dry run from the plugin's offset."""

        if not all_nodes:
            raise RuntimeError("no nodes available")
        snap = self.handle.snapshot()
        own = snap.node_info_list is all_nodes
        mask = m.rows_for_status_code(Code.UNSCHEDULABLE, snap.names_array(), len(all_nodes)) if own else None
        if mask is not None:  # the statuses know the snapshot rows: no name lookups
            potential = (list(all_nodes) if mask.all() else
                         list(map(all_nodes.__getitem__, np.flatnonzero(mask).tolist())))
        else:
            if own:  # the snapshot's own list: its names and index are kept aligned with it
                names, index = snap.node_names, snap.node_index
            else:
                names = [ni.name for ni in all_nodes]
                index = {name: i for i, name in enumerate(names)}
            wanted = m.nodes_for_status_code(names, Code.UNSCHEDULABLE)
            # Every node (a subset in snapshot order of the same size): no lookups needed.
            potential = (list(all_nodes) if len(wanted) == len(names) else
                         list(map(all_nodes.__getitem__, map(index.__getitem__, wanted))))
        if not potential:
            return [], NodeToStatus(), []
        pdbs = list_pdbs(self.handle.store)
        offset, num_candidates = self.interface.get_offset_and_num_candidates(len(potential))
        return self.dry_run_preemption(state, pod, potential, pdbs, offset, num_candidates, m)

    def dry_run_preemption(self, state: CycleState, pod: Pod, potential_nodes: Sequence[NodeInfo],
                           pdbs: Sequence[PodDisruptionBudget], offset: int,
                           num_candidates: int, node_statuses: NodeToStatus | None = None,
                           ) -> tuple[list[Candidate], NodeToStatus, list[BaseException]]:
        """DryRunPreemption: SelectVictimsOnNode on a copy of each node (and of the cycle state)
        from ``offset`` on, wrapping around. Non-violating candidates come first in the result.
        Nodes that are no candidate get their status in the returned NodeToStatus.

        ``node_statuses`` (the Filter phase's NodeToStatus) lets a plugin with the optional
        hook ``prepare_dry_run(state, pod, pdbs, node_statuses, nodes_in_visiting_order,
        num_candidates)`` decide nodes without copying them: the hook returns None or a
        function ``(i, node_info)`` answering for the i-th visited node, or None to leave that
        node to ``select_victims_on_node``. A victim list it returns as a
        :class:`~._util.VictimList` carries its ``summary`` (a :class:`~._util.VictimsSummary`),
        kept on the candidate's Victims for the node choice. A function that also has
        ``bulk(i)`` and ``known(j)`` (:class:`~kubesched.framework.BulkDryRun`) answers a run
        of nodes from the i-th on at once (:class:`~._decided.DecidedNodes`): the nodes it found
        no victims on are recorded without visiting them one by one."""

        non_violating = _CandidateList(num_candidates)
        violating = _CandidateList(num_candidates)
        statuses = NodeToStatus()
        errs: list[BaseException] = []
        n = len(potential_nodes)
        fast = None
        if self._dry_run is not None:
            visit = [*potential_nodes[offset % n:], *potential_nodes[:offset % n]] if n else []
            fast = self._dry_run.prepare_dry_run(state, pod, pdbs, node_statuses, visit, num_candidates)
        bulky = fast if isinstance(fast, BulkDryRun) else None  # once per preemption
        good, bad = non_violating.items, violating.items  # appended directly: the hot loop

        def visit_node(i: int) -> bool:
            """SelectVictimsOnNode for the i-th node; True once enough candidates are found."""
            ni = potential_nodes[(offset + i) % n]
            res = fast(i, ni) if fast is not None else None
            if res is None:
                ni = ni.snapshot_copy()
                res = self.interface.select_victims_on_node(state.clone(), pod, ni, pdbs)
            return take(ni.name, res)

        def take(name: str, res: tuple[list[Pod], int, Status]) -> bool:
            """Record node ``name``'s SelectVictimsOnNode result ``res``; True once enough
            candidates are found."""
            pods, num_violations, status = res
            if pods and status.code == Code.SUCCESS:
                summary = pods.summary if isinstance(pods, VictimList) else None
                c = Candidate(name, Victims(list(pods), num_violations, summary))
                if num_violations == 0:
                    if len(good) < num_candidates:
                        good.append(c)
                elif len(bad) < num_candidates:
                    bad.append(c)
                return bool(good) and len(good) + len(bad) >= num_candidates
            if status.is_success():
                status = Status.from_error(RuntimeError(f'expected at least one victim pod on node "{name}"'))
            if status.code == Code.ERROR:
                errs.append(status.as_error() or RuntimeError(status.message()))
            statuses.set(name, status)
            return False

        if bulky is None:
            for i in range(n):
                if visit_node(i):
                    break
        else:
            # The hook decided a run of nodes without victims at once: record those in one
            # step, visit the others in order, and stop where the per-node loop would.
            # ``known(j)``, when the hook has it: (name, result) of a node it answered,
            # without the per-node call.
            bulk, known = bulky.bulk, bulky.known
            i = 0
            enough = False
            while i < n and not enough:
                decided = bulk(i)
                stop = decided.end
                for j in decided.undecided(i):
                    hit = known(j)
                    if take(*hit) if hit is not None else visit_node(j):
                        stop, enough = j + 1, True
                        break
                decided.record(i, stop, statuses)
                i = stop
        return [*non_violating.items, *violating.items], statuses, errs

    def call_extenders(self, pod: Pod, candidates: list[Candidate]) -> tuple[list[Candidate], Status]:
        """callExtenders: each interested extender with the preempt verb may drop candidates or
        victims; an ignorable extender's error is skipped."""
        extenders = self.handle.extenders()
        if not extenders:
            return candidates, Status.success()
        victims_map: dict[str, Any] = self.interface.candidates_to_victims_map(candidates)
        if not victims_map:
            return candidates, Status.success()
        snap = self.handle.snapshot()
        for ext in extenders:
            if not ext.supports_preemption() or not ext.is_interested(pod):
                continue
            try:
                result = dict(ext.process_preemption(pod, victims_map, snap.get))
            except Exception as err:
                if ext.is_ignorable():
                    _log_skipped(ext, err)
                    continue
                return [], Status.from_error(err)
            for node_name, victims in list(result.items()):
                if victims is None or not victims.pods:
                    if ext.is_ignorable():
                        del result[node_name]
                        continue
                    return [], Status.from_error(
                        RuntimeError(f'expected at least one victim pod on node "{node_name}"'))
            victims_map = result
            if not victims_map:
                break
        return [Candidate(name, Victims(list(v.pods), v.num_pdb_violations))
                for name, v in victims_map.items()], Status.success()

    def select_candidate(self, candidates: Sequence[Candidate]) -> Candidate | None:
        """SelectCandidate: the only one, or pickOneNodeForPreemption's choice."""
        if not candidates:
            return None
        if len(candidates) == 1:
            return candidates[0]
        victims_map = self.interface.candidates_to_victims_map(candidates)
        funcs = self.interface.ordered_score_funcs(victims_map)
        node = pick_one_node_for_preemption(victims_map, funcs, self.handle.clock.now)
        victims = victims_map.get(node)
        if victims is not None:
            return Candidate(node, victims)
        return candidates[0]  # cannot happen; upstream logs and keeps going the same way


def list_pdbs(store: Store | None) -> list[PodDisruptionBudget]:
    """getPodDisruptionBudgets: every PDB the store knows (none without a store)."""
    if store is None:
        return []
    try:
        return list(store.list("PodDisruptionBudget"))
    except Exception:
        return []


def _log_skipped(ext: PreemptionExtender, err: Exception) -> None:
    """Upstream logs a skipped ignorable extender's error; the scheduler's HTTP extender does it
    (a warning the first time), other extender objects need not (once per error: no hot path)."""
    if isinstance(ext, SkippedErrorLogger):
        ext.log_skipped_error("preempt", err)
