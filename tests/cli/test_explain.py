"""``kubesched explain`` end to end through the CLI: the JSON contract for a filter-only, a
score-only and a preemption case, the text tables, and exit codes; plus the engine's dry run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from kubesched.api.loader import load_paths
from kubesched.cli import app
from kubesched.clock import VirtualClock
from kubesched.cluster import MemoryStore
from kubesched.framework import Code, Status
from kubesched.framework.config import from_dict, load_config
from kubesched.scheduler import Scheduler, SchedulerOptions
from kubesched.scheduler._explain import explain, explain_in

HERE = Path(__file__).parent
FIXTURES = HERE / "fixtures"
SMALL = FIXTURES / "small-cluster.yaml"
FILTER_ONLY = FIXTURES / "filter-only.yaml"
SCORE_ONLY = FIXTURES / "score-only.yaml"
QUICKSTART = HERE.parent.parent / "examples" / "quickstart"
START = 1_767_225_600.0

runner = CliRunner()

CONTRACT_KEYS = ["pod", "profile", "preEnqueue", "nodes", "selectedNode", "tiedNodes", "postFilter",
                 "message", "waitingClaims", "simulation"]
NODE_KEYS = ["name", "filters", "feasible", "scores", "totalScore", "devices"]
CODES = {"Success", "Unschedulable", "UnschedulableAndUnresolvable", "Error", "Skip"}


def _explain_json(path: Path, pod: str, *extra: str) -> dict[str, Any]:
    result = runner.invoke(app, ["explain", str(path), "--pod", pod, "-o", "json", *extra])
    assert result.exit_code == 0, result.output
    out: dict[str, Any] = json.loads(result.stdout)
    assert list(out) == CONTRACT_KEYS
    for n in out["nodes"]:
        assert list(n) == NODE_KEYS
        assert all(list(f) == ["plugin", "code", "reasons"] and f["code"] in CODES for f in n["filters"])
        assert all(list(s) == ["plugin", "raw", "normalized", "weight", "weighted"] for s in n["scores"])
    return out


def _node(out: dict[str, Any], name: str) -> dict[str, Any]:
    found: dict[str, Any] = next(n for n in out["nodes"] if n["name"] == name)
    return found


def _failed(node: dict[str, Any]) -> list[tuple[str, str, list[str]]]:
    return [(f["plugin"], f["code"], f["reasons"]) for f in node["filters"]
            if f["code"] not in ("Success", "Skip")]


# -- filter only -------------------------------------------------------------------------------
def test_filter_only_every_plugin_on_every_node() -> None:
    out = _explain_json(SMALL, "default/ssd-1", "--config", str(FILTER_ONLY))
    assert out["pod"] == "default/ssd-1" and out["profile"] == "default-scheduler"
    # The scheduler stops at TaintToleration on node-a; explain also reports NodeAffinity there.
    a = _node(out, "node-a")
    assert _failed(a) == [
        ("TaintToleration", "UnschedulableAndUnresolvable", ["node(s) had untolerated taint(s)"]),
        ("NodeAffinity", "UnschedulableAndUnresolvable",
         ["node(s) didn't match Pod's node affinity/selector"]),
    ]
    assert [f["plugin"] for f in a["filters"]] == ["TaintToleration", "NodeResourcesFit", "NodeAffinity"]
    assert a["feasible"] is False and a["scores"] == [] and a["totalScore"] is None
    b = _node(out, "node-b")
    # The only feasible node is still scored (no Score plugin here: an empty list, total 0).
    assert b["feasible"] is True and b["scores"] == [] and b["totalScore"] == 0
    assert out["selectedNode"] == "node-b" and out["tiedNodes"] == ["node-b"]
    assert out["postFilter"] is None and out["message"] == ""


def test_filter_only_first_failing_filter_decides_the_message() -> None:
    # node-a fails TaintToleration and NodeResourcesFit: upstream counts it once, for the first.
    out = _explain_json(SMALL, "default/huge", "--config", str(FILTER_ONLY))
    assert all(not n["feasible"] for n in out["nodes"])
    assert [p for p, _, _ in _failed(_node(out, "node-a"))] == ["TaintToleration", "NodeResourcesFit"]
    assert out["message"] == ("0/3 nodes are available: 1 node(s) had untolerated taint(s), "
                              "2 Insufficient cpu.")
    assert out["postFilter"] is None  # no PostFilter plugin in this profile
    assert out["selectedNode"] is None and out["tiedNodes"] == []


# -- score only --------------------------------------------------------------------------------
def test_score_only_single_plugin_weights() -> None:
    out = _explain_json(SMALL, "default/web-1", "--config", str(SCORE_ONLY))
    # LeastAllocated, cpu and memory weight 1, pod 1 cpu / 2Gi:
    # node-b (2 cpu / 4Gi used of 4 / 8Gi): cpu (4000-3000)*100/4000 = 25, memory (8-6)*100/8 = 25 -> 25
    # node-c (empty):                        cpu (4000-1000)*100/4000 = 75, memory (8-2)*100/8 = 75 -> 75
    # weight 3: 75 and 225.
    assert _node(out, "node-b")["scores"] == [
        {"plugin": "NodeResourcesFit", "raw": 25, "normalized": 25, "weight": 3, "weighted": 75}]
    assert _node(out, "node-c")["scores"] == [
        {"plugin": "NodeResourcesFit", "raw": 75, "normalized": 75, "weight": 3, "weighted": 225}]
    assert _node(out, "node-c")["totalScore"] == 225 and _node(out, "node-b")["totalScore"] == 75
    assert out["selectedNode"] == "node-c" and out["tiedNodes"] == ["node-c"]
    assert _node(out, "node-a")["totalScore"] is None


def test_score_only_one_feasible_node_is_still_scored() -> None:
    out = _explain_json(SMALL, "default/ssd-1", "--config", str(SCORE_ONLY))
    assert [n["name"] for n in out["nodes"] if n["feasible"]] == ["node-b"]
    assert _node(out, "node-b")["scores"] == [
        {"plugin": "NodeResourcesFit", "raw": 25, "normalized": 25, "weight": 3, "weighted": 75}]
    assert out["selectedNode"] == "node-b"


def test_ties_are_listed_and_selection_is_seeded() -> None:
    # Filter-only: every feasible node totals 0, all tied; the choice follows --seed.
    picks = {_explain_json(SMALL, "default/web-1", "--config", str(FILTER_ONLY), "--seed", str(s))
             ["selectedNode"] for s in range(8)}
    assert picks == {"node-b", "node-c"}
    out = _explain_json(SMALL, "default/web-1", "--config", str(FILTER_ONLY), "--seed", "3")
    assert out["tiedNodes"] == ["node-b", "node-c"]
    again = _explain_json(SMALL, "default/web-1", "--config", str(FILTER_ONLY), "--seed", "3")
    assert again == out


# -- preemption --------------------------------------------------------------------------------
def test_preemption_dry_run() -> None:
    out = _explain_json(QUICKSTART, "default/db-0")
    assert [n["feasible"] for n in out["nodes"]] == [False] * 6
    assert _failed(_node(out, "node-a1")) == [("NodeResourcesFit", "Unschedulable", ["Insufficient cpu"])]
    assert out["postFilter"] == {"plugin": "DefaultPreemption", "nominatedNode": "node-b2",
                                 "victims": ["default/batch-4"], "message": ""}
    assert out["message"] == ("0/6 nodes are available: 1 node(s) had untolerated taint(s), "
                              "5 Insufficient cpu.")
    assert out["selectedNode"] is None


def test_preemption_not_eligible() -> None:
    out = _explain_json(SMALL, "default/huge")
    # RunPostFilterPlugins: every PostFilter plugin rejected the pod, so the status names the
    # first (DynamicResources, before DefaultPreemption) and joins their reasons, as upstream.
    assert out["postFilter"] == {
        "plugin": "DynamicResources", "nominatedNode": None, "victims": [],
        "message": "no new claims to deallocate, preemption: not eligible due to preemptionPolicy=Never."}
    assert out["message"].endswith(". no new claims to deallocate, preemption: not eligible due to "
                                   "preemptionPolicy=Never.")


@pytest.mark.parametrize("async_preemption", [pytest.param(True, id="async"), pytest.param(False, id="sync")])
def test_explain_changes_nothing_and_restores_preemption(async_preemption: bool) -> None:
    clock = VirtualClock(START)
    store = MemoryStore(clock)
    store.load(load_paths([QUICKSTART]))
    features = {"SchedulerAsyncPreemption": async_preemption}
    sched = Scheduler(store, clock, seed=0, options=SchedulerOptions(features=features))
    rv, events, next_timer = store.resource_version, len(store.events()), clock.peek()
    e = explain_in(sched, "default", "db-0")
    assert e.post_filter is not None and e.post_filter.victims == ("default/batch-4",)
    # No write, no event, and no asynchronous preemption task left on the clock.
    assert store.resource_version == rv and len(store.events()) == events
    assert clock.peek() == next_timer
    # The executor is the real one again: the scheduler itself still preempts.
    sched.run_until_idle()
    assert store.try_get("Pod", "default", "batch-4") is None
    assert store.get("Pod", "default", "db-0").node_name == "node-b2"


def test_library_entry_point_with_config() -> None:
    loaded = load_paths([SMALL])
    e = explain(loaded.objects, "default", "web-1", config=load_config(SCORE_ONLY), now=START)
    assert e.selected_node == "node-c"
    assert [n.name for n in e.nodes] == ["node-a", "node-b", "node-c"]


# -- text and errors ---------------------------------------------------------------------------
def test_text_output_tables() -> None:
    result = runner.invoke(app, ["explain", str(QUICKSTART), "--pod", "default/db-0"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    out = result.stdout
    for text in ("Filter", "NodeResourcesFit", "TaintToleration", "FEASIBLE", "Insufficient cpu",
                 "DefaultPreemption would nominate node-b2 and evict: default/batch-4"):
        assert text in out


def test_text_output_scores() -> None:
    args = ["explain", str(SMALL), "--pod", "default/web-1", "--config", str(SCORE_ONLY)]
    result = runner.invoke(app, args, env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "75 x 3 = 225 [75]" in result.stdout and "Selected node: node-c" in result.stdout


@pytest.mark.parametrize(
    ("pod", "error"),
    [
        pytest.param("default/nope", 'pod "default/nope" not found', id="unknown-pod"),
        pytest.param("default/running", "already bound", id="bound-pod"),
        pytest.param("a/b/c/d", "want NAMESPACE/NAME or KIND/NAMESPACE/NAME", id="bad-key"),
        pytest.param("default//x", "want NAMESPACE/NAME or KIND/NAMESPACE/NAME", id="empty-part"),
        pytest.param("a/b/c", "unknown workload kind 'a'", id="unknown-kind"),
    ],
)
def test_bad_pod_exit_2(pod: str, error: str) -> None:
    result = runner.invoke(app, ["explain", str(SMALL), "--pod", pod])
    assert result.exit_code == 2
    assert error in " ".join(result.stderr.split())


def test_bad_manifest_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "broken.yaml"
    bad.write_text("a: [")
    result = runner.invoke(app, ["explain", str(bad), "--pod", "default/x"])
    assert result.exit_code == 2
    assert "broken.yaml" in result.stderr


# -- PreFilter ---------------------------------------------------------------------------------
PREFILTER_PODS = FIXTURES / "prefilter-pods.yaml"


def test_prefilter_node_set_excludes_nodes() -> None:
    # NodeAffinity's PreFilter returns {node-a} (matchFields metadata.name): upstream never filters
    # node-b and node-c, whose status is the absent-nodes one naming the plugin.
    out = _explain_json(SMALL, "default/pinned", "--config", str(FILTER_ONLY), str(PREFILTER_PODS))
    cut = ("NodeAffinity", "UnschedulableAndUnresolvable",
           ["node(s) didn't satisfy plugin(s) [NodeAffinity]"])
    assert _failed(_node(out, "node-b")) == [cut] and _failed(_node(out, "node-c")) == [cut]
    assert [f["plugin"] for f in _node(out, "node-b")["filters"]] == [
        "TaintToleration", "NodeResourcesFit", "NodeAffinity"]
    assert out["message"] == ("0/3 nodes are available: 1 node(s) had untolerated taint(s), "
                              "2 node(s) didn't satisfy plugin(s) [NodeAffinity].")


def test_prefilter_rejection_applies_to_every_node() -> None:
    out = _explain_json(SMALL, "default/needs-pvc", str(PREFILTER_PODS))
    want = [{"plugin": "VolumeRestrictions", "code": "UnschedulableAndUnresolvable",
             "reasons": ['persistentvolumeclaim "data" not found']}]
    assert all(n["filters"] == want and not n["feasible"] for n in out["nodes"])
    # FitError names PreFilter's message once, not per node.
    assert out["message"].startswith('0/3 nodes are available: persistentvolumeclaim "data" not found. ')
    assert out["postFilter"]["nominatedNode"] is None


NOMINATED = """
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: v1
kind: Node
metadata: {name: node-x}
status: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}
---
apiVersion: v1
kind: Node
metadata: {name: node-y}
status: {allocatable: {cpu: '16', memory: 32Gi, pods: '110'}}
---
apiVersion: v1
kind: Pod
metadata: {name: preemptor, namespace: default}
spec:
  priorityClassName: high
  containers: [{name: c, image: pause, resources: {requests: {cpu: '3'}}}]
status: {nominatedNodeName: node-x}
---
apiVersion: v1
kind: Pod
metadata: {name: small, namespace: default}
spec:
  containers: [{name: c, image: pause, resources: {requests: {cpu: '2'}}}]
"""


def test_nominated_pods_of_higher_priority_count(tmp_path: Path) -> None:
    # RunFilterPluginsWithNominatedPods: node-x is reserved for the nominated 3-cpu preemptor, so a
    # lower-priority 2-cpu pod does not fit there although the node is empty.
    path = tmp_path / "nominated.yaml"
    path.write_text(NOMINATED)
    out = _explain_json(path, "default/small")
    assert _failed(_node(out, "node-x")) == [("NodeResourcesFit", "Unschedulable", ["Insufficient cpu"])]
    assert _node(out, "node-x")["feasible"] is False
    assert _node(out, "node-y")["feasible"] is True


def test_feasible_nominated_node_is_selected(tmp_path: Path) -> None:
    # The preemptor is not blocked by its own nomination, and its nominated node is taken as soon
    # as it fits (schedulePod's fast path), although the bigger node-y scores higher.
    path = tmp_path / "nominated.yaml"
    path.write_text(NOMINATED)
    out = _explain_json(path, "default/preemptor")
    assert _node(out, "node-y")["totalScore"] > _node(out, "node-x")["totalScore"]
    assert out["selectedNode"] == "node-x" and out["tiedNodes"] == ["node-x"]


class _Broken:
    """A Filter plugin that fails with an internal error on node-c."""

    def __init__(self, args: Any, handle: Any) -> None:
        pass

    def name(self) -> str:
        return "Broken"

    def filter(self, state: Any, pod: Any, node_info: Any) -> Status:
        if node_info.name == "node-c":
            return Status.from_error(RuntimeError("boom"))
        return Status.success()


def test_filter_error_aborts_the_cycle() -> None:
    registry = {"Broken": _Broken}
    cfg = from_dict({"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
                     "profiles": [{"schedulerName": "default-scheduler",
                                   "plugins": {"filter": {"enabled": [{"name": "Broken"}]}}}]},
                    registry=registry)
    e = explain(load_paths([SMALL]).objects, "default", "web-1", config=cfg, now=START,
                options=SchedulerOptions(registry=registry))
    broken = {n.name: next(f for f in n.filters if f.plugin == "Broken") for n in e.nodes}
    assert broken["node-c"].code == Code.ERROR
    assert broken["node-c"].reasons == ('running "Broken" filter plugin: boom',)
    assert broken["node-b"].code == Code.SUCCESS
    # Upstream aborts the cycle on an Error: no host is selected, no PostFilter runs.
    assert e.selected_node is None and e.post_filter is None
    assert e.message == 'running "Broken" filter plugin: boom'
