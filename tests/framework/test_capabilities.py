"""Optional plugin capabilities are found through framework._interface's protocols: a plugin
written outside the project, with no base class, that has a capability's methods is run
through it (and one without them through the required method only)."""

from __future__ import annotations

from typing import Any

from kubesched.api import Pod
from kubesched.cache import NodeInfo
from kubesched.framework import (
    BatchFilterPlugin,
    BatchFilterResult,
    Code,
    CycleState,
    Framework,
    NodeBatch,
    PreBindPreFlightPlugin,
    Status,
)
from kubesched.testing import make_node, make_pod, snapshot_of

from ._toys import Binder, QueueSort, profile, pset


class _OutOfTree:
    """No PluginBase: only the methods upstream's interfaces name."""

    NAME = ""

    def __init__(self, args: Any, handle: Any) -> None:
        self.calls: list[str] = []

    def name(self) -> str:
        return self.NAME


class BatchOnly(_OutOfTree):
    """Its per-node Filter rejects node "b", its batch Filter node "a": which one ran shows
    whether the batch capability was picked up."""

    NAME = "BatchOnly"

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return Status.of(Code.UNSCHEDULABLE, "per node") if node_info.name == "b" else None

    def filter_batch(self, state: CycleState, pod: Pod, nodes: NodeBatch) -> BatchFilterResult:
        return BatchFilterResult.from_statuses(
            [Status.of(Code.UNSCHEDULABLE, "batch") if ni.name == "a" else None for ni in nodes.node_infos()])


class PerNode(_OutOfTree):
    NAME = "PerNode"

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return Status.of(Code.UNSCHEDULABLE, "per node") if node_info.name == "b" else None


class NothingToDo(_OutOfTree):
    """A PreBind plugin whose pre-flight says it has no work (KEP-5278)."""

    NAME = "NothingToDo"

    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        self.calls.append("pre_bind")
        return None

    def pre_bind_pre_flight(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        self.calls.append("pre_flight")
        return Status.skip()


class NoPreFlight(_OutOfTree):
    NAME = "NoPreFlight"

    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        self.calls.append("pre_bind")
        return None


def _framework(**sets: Any) -> Framework:
    registry = {c.NAME: c for c in (BatchOnly, PerNode, NothingToDo, NoPreFlight, QueueSort, Binder)}
    snap = snapshot_of([make_node().name(n).obj() for n in ("a", "b")])
    return Framework(profile(**sets), registry, snapshot=snap)


def _rejected(fw: Framework) -> list[str]:
    snap = fw.snapshot()
    out = fw.run_filter_plugins_batch(CycleState(), make_pod().name("p").obj(), NodeBatch.all(snap))
    return [ni.name for row, ni in enumerate(snap.node_info_list) if not out.status(row).is_success()]


def test_out_of_tree_batch_filter_is_run_as_a_batch() -> None:
    fw = _framework(filter=pset("BatchOnly"))
    assert isinstance(fw.plugins_map["BatchOnly"], BatchFilterPlugin)
    assert _rejected(fw) == ["a"]


def test_plugin_without_batch_filter_runs_per_node() -> None:
    fw = _framework(filter=pset("PerNode"))
    assert not isinstance(fw.plugins_map["PerNode"], BatchFilterPlugin)
    assert _rejected(fw) == ["b"]


def test_out_of_tree_pre_flight_skips_its_pre_bind() -> None:
    fw = _framework(pre_bind=pset("NothingToDo"))
    pl = fw.plugins_map["NothingToDo"]
    assert isinstance(pl, PreBindPreFlightPlugin)
    state, pod = CycleState(), make_pod().name("p").obj()
    assert fw.run_pre_bind_pre_flights(state, pod, "a").is_skip()
    assert fw.run_pre_bind_plugins(state, pod, "a").is_success()
    assert pl.calls == ["pre_flight"]


def test_pre_bind_without_pre_flight_counts_as_having_work() -> None:
    fw = _framework(pre_bind=pset("NoPreFlight"))
    pl = fw.plugins_map["NoPreFlight"]
    assert not isinstance(pl, PreBindPreFlightPlugin)
    state, pod = CycleState(), make_pod().name("p").obj()
    assert fw.run_pre_bind_pre_flights(state, pod, "a").is_success()
    assert fw.run_pre_bind_plugins(state, pod, "a").is_success()
    assert pl.calls == ["pre_bind"]
