"""The nominated pods kept per snapshot row across cycles (``framework._nominated.NominatedColumns``).

The rows are updated from the nominator's change log, so after any sequence of nominations,
deletions, re-nominations, bindings and pops/requeues they must equal both a fresh read of
the queue and, per node, the queue's own NominatedPodsForNode answer restricted to the pods
addGENominatedPods adds."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubesched.framework import CycleState
from kubesched.framework._nominated import (
    GE_NOMINATED_KEY,
    NominatedColumns,
    ge_nominated_pods,
    requests_row,
)
from kubesched.queue import _nominator
from kubesched.testing.wrappers import make_node, make_pod

from ._sim import Sim

PLUGINS = ("PrioritySort", "NodeResourcesFit", "DefaultPreemption", "DefaultBinder")
NODES = 4

# (op, node, priority, cpu, gpu): op 0 nominates a new pod, 1 deletes one, 2 re-nominates one
# to ``node``, 3 binds one, 4 pops the head of activeQ and requeues it as unschedulable.
op_spec = st.tuples(st.integers(0, 4), st.integers(0, NODES - 1), st.integers(0, 6), st.integers(1, 3),
                    st.booleans())


def _sim() -> Sim:
    s = Sim(plugins=PLUGINS)
    for i in range(NODES):
        s.store.create(make_node().name(f"n{i}").capacity({"cpu": "8", "memory": "8Gi", "pods": "110"}).obj())
    return s


def _apply(s: Sim, op: tuple[int, int, int, int, bool], k: int, live: list[str]) -> None:
    kind, node, prio, cpu, gpu = op
    if kind == 0 or not live:
        req = {"cpu": str(cpu)}
        if gpu:
            req["example.com/gpu"] = "1"  # no column: left to the per-node path
        s.store.create(make_pod().name(f"nom{k}").priority(prio).req(req).nominated_node_name(f"n{node}").obj())
        live.append(f"nom{k}")
        return
    name = live[k % len(live)]
    if kind == 1:
        s.store.delete("Pod", "default", name, 0)
        live.remove(name)
    elif kind == 2:
        pod = s.get(name)
        assert pod is not None
        s.store.update(dataclasses.replace(pod, nominated_node_name=f"n{node}"))
    elif kind == 3:
        s.store.bind("default", name, f"n{node}")
        live.remove(name)
    else:
        q = s.scheduler.queue
        p = q.pop()
        if p is not None:
            p.unschedulable_plugins = {"NodeResourcesFit"}
            q.add_unschedulable_if_not_present(p, q.scheduling_cycle)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(op_spec, min_size=1, max_size=14), st.integers(0, 6), st.booleans())
def test_kept_rows_equal_the_queue_after_any_changes(ops: list[tuple[int, int, int, int, bool]],
                                                     prio: int, nominated_self: bool) -> None:
    s = _sim()
    fwk = s.scheduler.profiles["default-scheduler"]
    nom = fwk.nominator()
    cols = fwk._nominated_columns
    live: list[str] = []
    for k, op in enumerate(ops):
        _apply(s, op, k, live)
        s.scheduler._update_snapshot()
        snap = s.scheduler.snapshot
        # The cycle's pod: sometimes one of the nominated pods itself (its own node excluded).
        pod = s.get(live[0]) if nominated_self and live else None
        if pod is None:
            pod = make_pod().name("hi").uid("hi").priority(prio).obj()
        state = CycleState()
        ge = ge_nominated_pods(nom, cols, snap, pod, state)
        assert state.get(GE_NOMINATED_KEY) is ge and ge.is_current()
        fresh = NominatedColumns()
        fresh.sync(nom, snap)
        for attr in ("requests", "min_prio", "max_prio", "exotic"):
            assert np.array_equal(getattr(cols, attr), getattr(fresh, attr)), attr
        assert cols.uid_row == fresh.uid_row and cols.count == fresh.count
        ridx = snap.columns.resource_index
        rows = np.arange(len(snap.node_info_list), dtype=np.int64)
        hit, adds, undecided = ge.additions(rows, ridx)
        got_adds = dict(zip(hit.tolist(), adds.tolist(), strict=True))
        for row, ni in enumerate(snap.node_info_list):
            want = [pi for pi in nom.nominated_pods_for_node(ni.name)
                    if pi.pod.priority_value >= pod.priority_value and pi.pod.uid != pod.uid]
            assert [pi.pod.uid for pi in ge.pods(ni.name)] == [pi.pod.uid for pi in want]
            add = requests_row(want, ridx, ridx["pods"], len(ridx)) if want else None
            if not want:
                assert row not in got_adds and row not in undecided
            elif add is None:
                assert row in undecided and row not in got_adds
            else:
                assert got_adds.get(row) == add


def test_a_reader_behind_the_trimmed_log_reads_everything_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """More changes than the log keeps: the next sync rebuilds from the queue."""
    monkeypatch.setattr(_nominator, "_CHANGE_LOG_LIMIT", 4)
    s = _sim()
    fwk = s.scheduler.profiles["default-scheduler"]
    nom = fwk.nominator()
    cols = fwk._nominated_columns
    s.scheduler._update_snapshot()
    cols.sync(nom, s.scheduler.snapshot)
    for k in range(12):
        s.store.create(make_pod().name(f"p{k}").priority(1).req({"cpu": "1"})
                       .nominated_node_name(f"n{k % NODES}").obj())
    assert nom.nominated_changes_since(cols.version)[1] is None
    cols.sync(nom, s.scheduler.snapshot)
    assert cols.count == NODES and len(cols.uid_row) == 12
    assert cols.requests[:, s.scheduler.snapshot.columns.resource_index["pods"]].tolist() == [3] * NODES
