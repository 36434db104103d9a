"""ProcessPreemption, server side: check kube-scheduler's preemption candidates with the profile.

kube-scheduler calls an extender's ``preemptVerb`` with, per candidate node, the victims its
own preemption chose (callExtenders in pkg/scheduler/framework/preemption/preemption.go, master
2026); the extender answers the nodes it accepts and, per node, the victims it requires (by UID;
extenderv1.ExtenderPreemptionResult). For each candidate this server:

1. removes the proposed victims from a copy of the node (with the PreFilter extensions'
   RemovePod, as SelectVictimsOnNode) and runs the profile's Filter plugins: the pod fits,
   the candidate is kept with its victims unchanged;
2. otherwise removes every other pod the preemptor may preempt (strictly lower priority): the
   pod still does not fit, the node is dropped;
3. otherwise adds those pods back one at a time as DefaultPreemption's SelectVictimsOnNode does
   (PDB-violating pods first, most important first: :func:`reprieve`): the ones the pod does
   not fit with become extra victims, counted in ``NumPDBViolations`` when they violate a PDB.

A candidate node the view does not know (always in the ``request`` view: preemption requests
carry no Node objects, and the extender sees no pods) is returned unchanged. A proposed victim
the view does not see on its node (an informer behind kube-scheduler's) stays a victim, and the
check runs without it. Both are reported to ``engine.blind`` (the server's metric and log).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..api.extenderv1 import ExtenderPreemptionArgs, ExtenderPreemptionResult, MetaPod, MetaVictims
from ..framework import CycleState
from ..plugins.defaultpreemption import importance_sorter, potential_victims, reprieve

if TYPE_CHECKING:
    from ..api import Pod
    from ..cache import NodeInfo, PodInfo
    from ._engine import ExtenderEngine

__all__ = ["process_preemption"]


def process_preemption(engine: ExtenderEngine, args: ExtenderPreemptionArgs) -> ExtenderPreemptionResult:
    """The candidates the profile accepts, with the victims it needs (see the module doc)."""
    from ._engine import EngineError

    pod = args.pod
    candidates: dict[str, tuple[list[str], int]] = {}
    if args.node_name_to_victims is not None:
        candidates = {n: ([p.uid for p in v.pods], v.num_pdb_violations)
                      for n, v in args.node_name_to_victims.items()}
    elif args.node_name_to_meta_victims is not None:
        candidates = {n: ([mp.uid for mp in v.pods], v.num_pdb_violations)
                      for n, v in args.node_name_to_meta_victims.items()}
    out: dict[str, MetaVictims] = {}
    if not candidates:
        return ExtenderPreemptionResult(out)
    state = CycleState()
    _, st, _ = engine.fwk.run_pre_filter_plugins(state, pod)
    if st is not None and not st.is_success():
        if not st.is_rejected():
            raise EngineError(st.message())
        return ExtenderPreemptionResult(out)  # the pod fits nowhere, whatever is evicted
    for name, (uids, violations) in candidates.items():
        ni = engine.node_info(name)
        if ni is None:
            engine.blind("preempt", "nodes", f'candidate node "{name}" returned unchanged')
            out[name] = MetaVictims([MetaPod(u) for u in uids], violations)
            continue
        decided = _on_node(engine, state.clone(), pod, ni.snapshot_copy(), uids, violations)
        if decided is not None:
            out[name] = decided
    return ExtenderPreemptionResult(out)


def _on_node(engine: ExtenderEngine, state: CycleState, pod: Pod, node: NodeInfo, uids: list[str],
             violations: int) -> MetaVictims | None:
    from ._engine import EngineError

    fwk = engine.fwk

    def remove(pi: PodInfo) -> None:
        node.remove_pod(pi.pod)
        st = fwk.run_pre_filter_extension_remove_pod(state, pod, pi, node)
        if not st.is_success():
            raise EngineError(st.message())

    def add(pi: PodInfo) -> None:
        node.add_pod_info(pi)
        st = fwk.run_pre_filter_extension_add_pod(state, pod, pi, node)
        if not st.is_success():
            raise EngineError(st.message())

    def fits() -> bool:
        return fwk.run_filter_plugins_with_nominated_pods(state, pod, node).is_success()

    by_uid = {pi.pod.uid: pi for pi in node.pods}
    for uid in uids:
        pi = by_uid.get(uid)
        if pi is None:
            engine.blind("preempt", "victims", f'pod UID "{uid}" is not on node "{node.name}"')
            continue
        remove(pi)
    if fits():
        return MetaVictims([MetaPod(u) for u in uids], violations)
    potential, _ = potential_victims(node, pod, None)
    if not potential:
        return None
    for pi in potential:
        remove(pi)
    if not fits():
        return None

    def keep(pi: PodInfo) -> bool:
        add(pi)
        if fits():
            return True
        remove(pi)
        return False

    sort = importance_sorter(lambda a, b: False, True, engine.sched.clock.now)
    extra, extra_violating = reprieve(potential, engine.pdbs(), sort, keep)
    return MetaVictims([MetaPod(u) for u in [*uids, *(pi.pod.uid for pi in extra)]],
                       violations + extra_violating)
