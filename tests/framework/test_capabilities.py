"""Optional capabilities are declared interfaces the core checks with ``isinstance`` (as upstream
asserts ``pl.(framework.PreFilterExtensions)``), never attributes looked up by name: an
out-of-tree plugin or nominator opts in by implementing the protocol."""

from __future__ import annotations

from typing import Any

import numpy as np

from kubesched.api import Pod
from kubesched.cache import NodeInfo
from kubesched.clock import VirtualClock
from kubesched.framework import (
    CandidatePreparer,
    Code,
    CycleState,
    NodeBatch,
    PluginBase,
    PreemptingPlugin,
    Status,
    new_profile_map,
)
from kubesched.framework._nominated import NominatedColumns
from kubesched.framework.config import default_config
from kubesched.queue import PriorityQueue
from kubesched.testing import make_node, make_pod, snapshot_of


class _Preparer:
    def prepare_candidate(self, c: Any, pod: Pod, plugin_name: str) -> Status:
        return Status.success()

    def prepare_candidate_async(self, c: Any, pod: Pod, plugin_name: str) -> None:
        return None


class _OutOfTreePreemption(PluginBase):
    NAME = "OutOfTreePreemption"

    def __init__(self, args: Any = None, handle: Any = None) -> None:
        super().__init__(args, handle)
        self.executor = _Preparer()


class _NoExecutor(PluginBase):
    NAME = "NoExecutor"


def test_default_preemption_and_an_out_of_tree_plugin_are_preempting_plugins() -> None:
    fwk = new_profile_map(default_config())["default-scheduler"]
    default_preemption = fwk.plugins_map["DefaultPreemption"]
    assert isinstance(default_preemption, PreemptingPlugin)
    assert isinstance(default_preemption.executor, CandidatePreparer)
    assert isinstance(_OutOfTreePreemption(), PreemptingPlugin)
    assert isinstance(_OutOfTreePreemption().executor, CandidatePreparer)
    assert not isinstance(_NoExecutor(), PreemptingPlugin)


class _FilterOnly(PluginBase):
    NAME = "FilterOnly"

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return None if node_info.name == "a" else Status.of(Code.UNSCHEDULABLE, "not a")


def test_the_batch_fallbacks_loop_the_per_node_methods_a_plugin_has() -> None:
    snap = snapshot_of([make_node().name("a").obj(), make_node().name("b").obj()], [])
    batch = NodeBatch(snap, np.arange(2, dtype=np.int64))
    pod = make_pod().name("p").obj()
    codes = _FilterOnly().filter_batch(CycleState(), pod, batch).codes
    assert [bool(c) for c in codes] == [False, True]  # a passes, b is rejected
    assert not any(_NoExecutor().filter_batch(CycleState(), pod, batch).codes)  # no filter: all pass


class _PlainNominator:
    def nominated_pods_for_node(self, node_name: str) -> list[Any]:
        return []


def test_the_scheduling_queue_offers_the_nominated_columns_its_change_log() -> None:
    queue = PriorityQueue(VirtualClock(), lambda a, b: False, {}, {})
    assert NominatedColumns.supported(queue)
    assert not NominatedColumns.supported(_PlainNominator())


def test_a_plugin_names_its_args_type_by_the_protocol() -> None:
    from kubesched.framework import ArgsDecoder, PluginArgs, PluginWithArgs
    from kubesched.plugins.registry import in_tree_registry

    fit = in_tree_registry()["NodeResourcesFit"]
    assert isinstance(fit, PluginWithArgs) and isinstance(fit.Args, ArgsDecoder)
    assert issubclass(fit.Args, PluginArgs)
    assert not isinstance(in_tree_registry()["NodeName"].Args, ArgsDecoder)  # PluginBase: None


def test_the_framework_asks_a_nominator_that_names_its_nodes_once() -> None:
    from kubesched.framework import NodeNamesNominator

    fwk = new_profile_map(default_config())["default-scheduler"]
    queue = PriorityQueue(VirtualClock(), lambda a, b: False, {}, {})
    assert isinstance(queue, NodeNamesNominator)
    fwk.set_nominator(queue)
    assert fwk.nominated_node_names() == set()
    fwk.set_nominator(_PlainNominator())  # it cannot tell: any node may hold nominated pods
    assert not isinstance(_PlainNominator(), NodeNamesNominator)
    assert fwk.nominated_node_names() is None


def test_a_rows_view_of_the_columns_gathers_rows_and_starts_its_label_caches_empty() -> None:
    nodes = [make_node().name(n).label("zone", n).obj() for n in ("a", "b", "c")]
    cols = snapshot_of(nodes, []).columns
    assert cols.label_column("zone")[1] == ["a", "b", "c"]
    rows = np.array([2, 0], dtype=np.int64)
    requested = cols.requested[rows].copy()
    requested[0, cols.resource_index["pods"]] = 3
    view = cols.rows_view(rows, requested)
    assert view.has_node.shape == (2,) and view.pod_count.tolist() == [3, 0]
    assert view._label_cache == {} and view._label_domains == {}
    assert cols.label_column("zone")[1] == ["a", "b", "c"]  # the full columns keep theirs


def test_preempting_a_victim_already_gone_is_no_error_but_other_store_errors_are() -> None:
    from kubesched.cluster import Conflict, MemoryStore
    from kubesched.framework.preemption import Candidate, Executor, Victims

    store = MemoryStore()
    fwk = new_profile_map(default_config(), store=store)["default-scheduler"]
    preemptor = make_pod().name("high").priority(10).obj()
    gone = make_pod().name("gone").node("n").obj()  # never created: NotFound
    executor = Executor(fwk)
    candidate = Candidate("n", Victims([gone]))
    assert executor.prepare_candidate(candidate, preemptor, "DefaultPreemption").is_success()

    def conflict(*args: Any, **kwargs: Any) -> Any:
        raise Conflict("stale")

    store.patch_pod_status = conflict  # type: ignore[method-assign]
    st = executor.prepare_candidate(candidate, preemptor, "DefaultPreemption")
    assert st.code == Code.ERROR and "stale" in st.message()


def test_a_scheduler_without_a_clock_runs_on_its_stores() -> None:
    from kubesched.cluster import Clocked, MemoryStore
    from kubesched.scheduler import Scheduler

    clock = VirtualClock()
    store = MemoryStore(clock=clock)
    assert isinstance(store, Clocked)
    assert Scheduler(store).clock is clock
    own = VirtualClock()
    assert Scheduler(store, clock=own).clock is own
