"""What a Filter plugin states about its inputs (``FilterInputs``) decides the fast paths.

The batch Filter pass with nominated pods and preemption's resource-only dry run used to
whitelist in-tree plugin classes inside the framework; now each plugin states the capability
about itself and the framework asks. An out-of-tree plugin can opt in, and a subclass that
changes the verdict without restating it loses it."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.api import Pod
from kubesched.cache import NodeInfo
from kubesched.framework import (
    CycleState,
    FilterInputs,
    PluginBase,
    Status,
    filter_inputs,
)
from kubesched.framework._nominated import resource_only_filters
from kubesched.plugins.imagelocality import ImageLocality
from kubesched.plugins.interpodaffinity import InterPodAffinity
from kubesched.plugins.nodeaffinity import NodeAffinity
from kubesched.plugins.nodename import NodeName
from kubesched.plugins.nodeports import NodePorts
from kubesched.plugins.noderesources import Fit
from kubesched.plugins.nodeunschedulable import NodeUnschedulable
from kubesched.plugins.tainttoleration import TaintToleration
from kubesched.testing.wrappers import make_pod

from ._sim import Sim
from .test_fast_dry_run import assert_same, dry_run_both, full_nodes


class ZoneOnly(PluginBase):
    """An out-of-tree filter that reads only the node's labels, and says so."""

    NAME = "ZoneOnly"
    FILTER_INPUTS = FilterInputs.NODE

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return None


class Silent(PluginBase):
    """The same filter without the statement: the fast paths must leave it alone."""

    NAME = "Silent"

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return None


class StrictTaints(TaintToleration):
    """Overrides the verdict without restating the capability."""

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return super().filter(state, pod, node_info)


class ScoredTaints(TaintToleration):
    """Changes only scoring: the Filter verdict, and its capability, are TaintToleration's."""

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Any:
        return super().score(state, pod, node_info)


@pytest.mark.parametrize(("cls", "want"), [
    pytest.param(NodeUnschedulable, FilterInputs.NODE, id="NodeUnschedulable"),
    pytest.param(NodeName, FilterInputs.NODE, id="NodeName"),
    pytest.param(TaintToleration, FilterInputs.NODE, id="TaintToleration"),
    pytest.param(NodeAffinity, FilterInputs.NODE, id="NodeAffinity"),
    pytest.param(Fit, FilterInputs.RESOURCES, id="NodeResourcesFit"),
    pytest.param(NodePorts, FilterInputs.ANY, id="NodePorts"),
    pytest.param(InterPodAffinity, FilterInputs.ANY, id="InterPodAffinity"),
    pytest.param(ImageLocality, FilterInputs.ANY, id="ImageLocality"),
    pytest.param(Silent, FilterInputs.ANY, id="out-of-tree-default"),
    pytest.param(ZoneOnly, FilterInputs.NODE, id="out-of-tree-stated"),
    pytest.param(StrictTaints, FilterInputs.ANY, id="subclass-overriding-filter"),
    pytest.param(ScoredTaints, FilterInputs.NODE, id="subclass-overriding-score"),
])
def test_plugins_state_their_filter_inputs(cls: type, want: FilterInputs) -> None:
    assert filter_inputs(cls.__new__(cls)) is want


def _shortcut(plugins: tuple[str, ...], registry: dict[str, Any] | None = None) -> bool:
    s = Sim(plugins=plugins, registry=registry)
    s.node("n0", cpu="4")
    fwk = s.scheduler.profiles["default-scheduler"]
    state = CycleState()
    fwk.run_pre_filter_plugins(state, make_pod().name("a").req({"cpu": "1"}).obj())
    return resource_only_filters(fwk, state)[0]


BASE = ("PrioritySort", "NodeResourcesFit", "DefaultPreemption", "DefaultBinder")


@pytest.mark.parametrize(("extra", "registry", "want"), [
    pytest.param("ZoneOnly", {"ZoneOnly": ZoneOnly}, True, id="out-of-tree-node-static"),
    pytest.param("Silent", {"Silent": Silent}, False, id="out-of-tree-silent"),
    pytest.param("TaintToleration", {"TaintToleration": StrictTaints}, False,
                 id="in-tree-name-other-class"),
    pytest.param("TaintToleration", None, True, id="in-tree"),
])
def test_the_framework_asks_the_plugins(extra: str, registry: dict[str, Any] | None, want: bool) -> None:
    assert _shortcut((*BASE, extra), registry) is want


def test_an_out_of_tree_node_static_filter_keeps_the_fast_dry_run() -> None:
    """With a plugin that states NODE, preemption's dry run still answers from the columns,
    and its answers are SelectVictimsOnNode's."""
    s = Sim(plugins=(*BASE, "ZoneOnly"), registry={"ZoneOnly": ZoneOnly})
    full_nodes(s)
    pod = make_pod().name("hi").uid("hi").priority(100).req({"cpu": "2"}).obj()
    got, want = dry_run_both(s, pod)
    assert got and assert_same(got, want) == len(got)
