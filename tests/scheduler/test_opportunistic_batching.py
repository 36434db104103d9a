"""Opportunistic batching (KEP-5598): pod signatures, the kept nodes of the last cycle, when
they serve the next pod and when they are flushed, the metrics, and that a batchable profile
places pods where the scheduler without batching does.

The first tables are upstream's TestBatchBasic, TestBatchRescore and TestBatchRescoreChain
(pkg/scheduler/framework/runtime/batch_test.go, master), each case run as master and as v1.35
where the two differ (the release switches BatchSkipsNominatedPods, BatchRescoresLastChosenNode);
the plugin tables follow the plugins' SignPod tests (TestPodAffinitySignature, ...)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubesched.api import KubeVersion, Pod, PodGroup
from kubesched.framework import (
    BATCH_RESCORES_LAST_CHOSEN_NODE,
    BATCH_REUSED_WITHIN_POD_GROUP_CYCLE,
    BATCH_SKIPS_NOMINATED_PODS,
    LABELS_SIGNER_NAME,
    MAX_BATCH_AGE,
    Code,
    CycleState,
    OpportunisticBatch,
    ScoreResult,
    SignPlugin,
    SortedScoredNodes,
    Status,
    feature_gates_for,
)
from kubesched.framework.config import from_dict
from kubesched.plugins.dynamicresources import DynamicResources
from kubesched.plugins.interpodaffinity import InterPodAffinity, InterPodAffinityArgs
from kubesched.plugins.noderesources import Fit
from kubesched.plugins.podtopologyspread import PodTopologySpread, PodTopologySpreadArgs
from kubesched.testing.wrappers import make_node, make_pod

from .env import START, Env, plugin

GATE = "OpportunisticBatching"
V135 = KubeVersion(1, 35)
MASTER = KubeVersion(1, 37)


# -- the batch itself (TestBatchBasic, TestBatchRescore) ---------------------------------------
@dataclass
class _Node:
    name: str
    pods: list[str] = field(default_factory=list)


@dataclass
class _FakeHandle:
    """Signs a pod by its ``sig`` label; Filter rejects a "blocking" pod (uid b-...) on a node
    that already holds one (upstream's BatchTestPlugin). One score plugin, "configurableScore"
    (upstream's configurableScorePlugin): every node scores ``score``; its NormalizeScore fails
    for a node PreScore did not see; each step can be made to fail."""

    profile_name: str = "default-scheduler"
    score: int = 0
    filter_err: bool = False
    pre_score_err: bool = False
    score_err: bool = False
    norm_err: bool = False
    pre_scored: set[str] = field(default_factory=set)

    def sign_pod(self, pod: Pod, record_plugin_metrics: bool = False) -> bytes | None:
        sig = pod.labels.get("sig")
        return sig.encode() if sig else None

    def run_filter_plugins(self, state: CycleState, pod: Pod, node_info: Any) -> Status:
        if self.filter_err:
            return Status.from_error(RuntimeError("injected filter error"))
        if pod.uid.startswith("b") and any(p.startswith("b") for p in node_info.pods):
            return Status(Code.UNSCHEDULABLE, ("unsched",))
        return Status.success()

    def run_pre_score_plugins(self, state: CycleState, pod: Pod, nodes: Any) -> Status:
        if self.pre_score_err:
            return Status.from_error(RuntimeError("injected prescore error"))
        self.pre_scored = {n.name for n in nodes}
        return Status.success()

    def run_raw_score_plugins(self, state: CycleState, pod: Pod, nodes: Any) -> Any:
        if self.score_err:
            return None, Status.from_error(RuntimeError("injected score error"))
        names = [n.name for n in nodes]
        return (names, ["configurableScore"], np.full((1, len(names)), self.score, dtype=np.int64)), \
            Status.success()

    def normalize_scores(self, state: CycleState, pod: Pod, names: Any, plugin_names: Any,
                         raw: Any) -> tuple[ScoreResult | None, Status]:
        if self.norm_err or not set(names) <= self.pre_scored:
            return None, Status.from_error(RuntimeError("injected normalize error"))
        raw = np.asarray(raw, dtype=np.int64)
        return ScoreResult(list(names), list(plugin_names), [1] * len(plugin_names), raw, raw,
                           raw.sum(axis=0)), Status.success()


class _Recorder:
    def __init__(self) -> None:
        self.attempts: list[str] = []
        self.flushes: list[str] = []
        self.rescores = 0
        self.rescore_timings = 0

    def batch_attempt(self, profile: str, result: str) -> None:
        self.attempts.append(result)

    def batch_flushed(self, profile: str, reason: str) -> None:
        self.flushes.append(reason)

    def batch_rescore_attempt(self, profile: str) -> None:
        self.rescores += 1

    def observe_get_node_hint(self, hinted: str, profile: str, seconds: float) -> None:
        pass

    def observe_store_schedule_results(self, profile: str, seconds: float) -> None:
        pass

    def observe_batch_rescore(self, profile: str, seconds: float) -> None:
        self.rescore_timings += 1


def _lookup(nodes: dict[str, _Node]) -> Any:
    return lambda names: [nodes.get(n) for n in names]


def _p(uid: str, sig: str, nominated: str = "") -> Pod:
    b = make_pod().name(uid).uid(uid)
    if sig:
        b.label("sig", sig)
    if nominated:
        b.nominated_node_name(nominated)
    return Pod.from_dict(b.to_dict())


@dataclass
class _Case:
    first_pod: str = "b-1"
    first_sig: str = "sig"
    first_ok: bool = True
    first_chosen: str = "n3"
    first_others: list[str] | None = field(default_factory=lambda: ["n1"])
    skip_pod: bool = False
    same_cycle: bool = False  # both pods in one pod-group cycle (one cycle number)
    generic_workload: bool = False
    second_pod: str = "b-2"
    second_sig: str = "sig"
    second_nominated: str = ""
    second_chosen: str = "n1"
    expired: bool = False
    want_hint: str = ""
    want_flush: list[str] = field(default_factory=list)  # flushes before the second store
    want_state: list[str] | None = None
    v135: dict[str, Any] = field(default_factory=dict)  # what v1.35 does instead


CASES = {
    "a second pod with the same signature gets a hint": _Case(want_hint="n1"),
    "a second pod with a different signature doesn't get a hint": _Case(
        first_pod="a-1", second_pod="a-2", second_sig="sig2", want_flush=["pod_incompatible"]),
    # master re-scores the node that still fits (it ties with n1 at 0 and comes after it);
    # v1.35 flushes
    "a second pod that still fits the last chosen node gets a hint after re-scoring it": _Case(
        first_pod="a-1", second_pod="a-2", want_hint="n1", want_state=["n3"],
        v135={"want_hint": "", "want_flush": ["node_not_full"], "want_state": None}),
    "pod doesn't get hint if previous pod didn't schedule": _Case(first_ok=False),
    "empty list": _Case(first_others=[], second_chosen="n4", want_flush=["empty_list"]),
    "nil list": _Case(first_others=None, second_chosen="n4", want_flush=["empty_list"]),
    "pod doesn't get hint because the previous pod is to a different profile": _Case(
        skip_pod=True, want_flush=["pod_skipped"]),
    "pod doesn't use batch from preceding pod when they are from the same cycle state, but "
    "GenericWorkload is disabled": _Case(same_cycle=True, want_flush=["pod_skipped"]),
    "pod uses batch from preceding pod when they are from the same cycle state and GenericWorkload "
    "is enabled": _Case(same_cycle=True, generic_workload=True, want_hint="n1",
                        v135={"want_hint": "", "want_flush": ["pod_skipped"]}),
    "pod uses batch from preceding pod and leaves remaining batch to next pod": _Case(
        first_others=["n1", "n2"], want_hint="n1", want_state=["n2"]),
    "a second pod with a nominated node does not get a hint": _Case(
        second_nominated="n1", want_flush=["pod_nominated"],
        v135={"want_hint": "n1", "want_flush": []}),
    "an unsignable pod gets no hint": _Case(second_sig="", want_flush=["pod_incompatible"]),
    "kept nodes older than maxBatchAge are flushed": _Case(expired=True, want_flush=["expired"]),
}


@pytest.mark.parametrize("version", [MASTER, V135], ids=["master", "v1.35"])
@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_batch_basic(case: _Case, version: KubeVersion) -> None:
    want = {"want_hint": case.want_hint, "want_flush": case.want_flush, "want_state": case.want_state}
    if version == V135:
        want.update(case.v135)
    now = [0.0]
    nodes = {case.first_chosen: _Node(case.first_chosen, [case.first_pod]), "n1": _Node("n1")}
    rec = _Recorder()
    batch = OpportunisticBatch(_FakeHandle(), lambda: now[0], _lookup(nodes), rec,  # type: ignore[arg-type]
                               kube_version=version, generic_workload=case.generic_workload)
    state = CycleState()
    pod1 = _p(case.first_pod, case.first_sig)
    hint, sig = batch.get_node_hint(state, pod1, 1)
    assert hint == ""
    if case.first_ok:
        others = SortedScoredNodes.of(case.first_others) if case.first_others is not None else None
        batch.store_schedule_results(sig, hint, case.first_chosen, others, 1)
    if case.expired:
        now[0] += MAX_BATCH_AGE + 0.001
    cycle = 3 if case.skip_pod else 1 if case.same_cycle else 2
    pod2 = _p(case.second_pod, case.second_sig, case.second_nominated)
    hint, sig2 = batch.get_node_hint(state, pod2, cycle)
    assert hint == want["want_hint"]
    second_others = None if hint else SortedScoredNodes.of([])
    batch.store_schedule_results(sig2, hint, case.second_chosen, second_others, cycle)
    # the second cycle stores an empty list unless its hint was used
    assert rec.flushes == want["want_flush"] + ([] if hint else ["empty_list"])
    kept = (None if batch.state is None or not len(batch.state.sorted_nodes)
            else batch.state.sorted_nodes.remaining())
    assert kept == want["want_state"]
    assert rec.attempts[-1] == ("hint_used" if want["want_hint"] else "no_hint")


@dataclass
class _Rescore:
    score: int = 0  # the last chosen node's (n2's) fresh score; n1 keeps 50
    filter_err: bool = False
    pre_score_err: bool = False
    score_err: bool = False
    norm_err: bool = False
    chosen_missing: bool = False
    cached_missing: bool = False
    want_hint: str = ""
    want_remaining: list[str] | None = None
    want_flush: str = ""
    want_rescores: int = 1


RESCORE = {
    "rescored node wins": _Rescore(score=100, want_hint="n2", want_remaining=["n1"]),
    "rescored node loses": _Rescore(score=10, want_hint="n1", want_remaining=["n2"]),
    "filter error gives no hint": _Rescore(score=100, filter_err=True, want_flush="filter_error",
                                           want_rescores=0),
    "prescore error gives no hint": _Rescore(pre_score_err=True, want_flush="prescore_error"),
    "score error gives no hint": _Rescore(score_err=True, want_flush="rescore_error"),
    "normalize error gives no hint": _Rescore(norm_err=True, want_flush="normalize_error"),
    "chosen node missing from lister gives no hint": _Rescore(chosen_missing=True,
                                                              want_flush="node_missing", want_rescores=0),
    "cached node missing from lister gives no hint": _Rescore(score=100, cached_missing=True,
                                                              want_flush="node_missing"),
}


def _cached(name: str = "n1", score: int = 50) -> SortedScoredNodes:
    return SortedScoredNodes.of([name], np.array([[score]], dtype=np.int64), ["configurableScore"], [score])


@pytest.mark.parametrize("case", RESCORE.values(), ids=RESCORE.keys())
def test_batch_rescore(case: _Rescore) -> None:
    """TestBatchRescore: a first pod that does not block its node took n2, n1 kept (score 50);
    the second pod still fits n2, which is re-scored against n1 (kubernetes#140289)."""
    handle = _FakeHandle(score=case.score, filter_err=case.filter_err, pre_score_err=case.pre_score_err,
                         score_err=case.score_err, norm_err=case.norm_err)
    nodes: dict[str, _Node] = {}
    if not case.chosen_missing:
        nodes["n2"] = _Node("n2", ["a-1"])
        if not case.cached_missing:
            nodes["n1"] = _Node("n1")
    rec = _Recorder()
    batch = OpportunisticBatch(handle, lambda: 0.0, _lookup(nodes), rec)  # type: ignore[arg-type]
    batch.store_schedule_results(b"sig", "", "n2", _cached(), 1)
    hint, _ = batch.get_node_hint(CycleState(), _p("a-2", "sig"), 2)
    assert hint == case.want_hint
    assert rec.flushes == ([case.want_flush] if case.want_flush else [])
    assert rec.attempts == ([] if hint else ["no_hint"])
    assert rec.rescores == rec.rescore_timings == case.want_rescores
    if case.want_remaining is not None:
        assert batch.state is not None and batch.state.sorted_nodes.remaining() == case.want_remaining


def test_v1_35_does_not_rescore_a_node_that_still_fits() -> None:
    rec = _Recorder()
    nodes = {"n1": _Node("n1"), "n2": _Node("n2", ["a-1"])}
    batch = OpportunisticBatch(_FakeHandle(score=100), lambda: 0.0, _lookup(nodes), rec,  # type: ignore[arg-type]
                               kube_version=V135)
    batch.store_schedule_results(b"sig", "", "n2", _cached(), 1)
    assert batch.get_node_hint(CycleState(), _p("a-2", "sig"), 2)[0] == ""
    assert rec.flushes == ["node_not_full"] and rec.rescores == 0


def test_batch_rescore_chain() -> None:
    """TestBatchRescoreChain: n2 re-scores to 100 on every cycle, beating n1's 50; n1 stays kept."""
    nodes = {"n1": _Node("n1"), "n2": _Node("n2", ["a-1"])}
    rec = _Recorder()
    batch = OpportunisticBatch(_FakeHandle(score=100), lambda: 0.0, _lookup(nodes), rec)  # type: ignore[arg-type]
    batch.store_schedule_results(b"sig", "", "n2", _cached(), 1)
    hint2, sig = batch.get_node_hint(CycleState(), _p("a-2", "sig"), 2)
    assert hint2 == "n2"
    batch.store_schedule_results(sig, hint2, "n2", None, 2)
    hint3, _ = batch.get_node_hint(CycleState(), _p("a-3", "sig"), 3)
    assert hint3 == "n2"
    assert batch.state is not None and batch.state.sorted_nodes.remaining() == ["n1"]
    assert rec.attempts == ["hint_used"] and rec.flushes == [] and rec.rescores == 2


def test_release_switches_name_their_upstream_prs() -> None:
    assert (BATCH_SKIPS_NOMINATED_PODS.pr, BATCH_SKIPS_NOMINATED_PODS.since) == (138212, MASTER)
    assert (BATCH_RESCORES_LAST_CHOSEN_NODE.pr, BATCH_RESCORES_LAST_CHOSEN_NODE.since) == (140289, MASTER)
    assert (BATCH_REUSED_WITHIN_POD_GROUP_CYCLE.pr, BATCH_REUSED_WITHIN_POD_GROUP_CYCLE.since) == (138754,
                                                                                                 MASTER)
    assert not BATCH_RESCORES_LAST_CHOSEN_NODE.on(KubeVersion(1, 36))


def test_a_hint_that_fails_filter_is_counted_not_used() -> None:
    rec = _Recorder()
    batch = OpportunisticBatch(_FakeHandle(), lambda: 0.0, _lookup({"n3": _Node("n3", ["b-1"])}), rec)  # type: ignore[arg-type]
    state = CycleState()
    batch.store_schedule_results(b"sig", "", "n3", SortedScoredNodes.of(["n1", "n2"]), 1)
    hint, sig = batch.get_node_hint(state, _p("b-2", "sig"), 2)
    assert hint == "n1"
    batch.store_schedule_results(sig, hint, "n5", SortedScoredNodes.of(["n6"]), 2)
    assert rec.attempts == ["hint_not_used"]
    assert batch.state is not None and batch.state.sorted_nodes.remaining() == ["n6"]


def test_sorted_scored_nodes_pop_best_first_without_the_chosen_one() -> None:
    import numpy as np

    s = SortedScoredNodes(["a", "b", "c", "d"], np.array([10, 30, 20, 30], dtype=np.int64), "b")
    assert len(s) == 3
    assert [s.pop(), s.pop(), s.pop()] == ["d", "c", "a"]
    assert len(s) == 0


# -- signatures --------------------------------------------------------------------------------
def _pod(b: Any) -> Pod:
    return Pod.from_dict(b.to_dict())


def _sign(pl: SignPlugin, b: Any) -> tuple[Any, Status | None]:
    return pl.sign_pod(_pod(b))


def test_topology_spread_is_unsignable_with_constraints_or_defaults() -> None:
    system = PodTopologySpread()
    assert not _ok(_sign(system, make_pod().name("p")))  # the system default constraints
    listed = PodTopologySpread(PodTopologySpreadArgs(defaulting_type="List"))
    assert _sign(listed, make_pod().name("p")) == (None, None)
    with_constraint = make_pod().name("p").spread_constraint(1, "zone", "DoNotSchedule",
                                                             {"matchLabels": {"a": "b"}})
    assert not _ok(_sign(listed, with_constraint))


def _ok(res: tuple[Any, Status | None]) -> bool:
    return res[1] is None or res[1].is_success()


@pytest.mark.parametrize(("builder", "args", "want"), [
    pytest.param(make_pod().name("p").label("foo", "bar"), InterPodAffinityArgs(),
                 [(LABELS_SIGNER_NAME, {"foo": "bar"})], id="no affinity, default settings"),
    pytest.param(make_pod().name("p").label("foo", "bar"),
                 InterPodAffinityArgs(ignore_preferred_terms_of_existing_pods=True), None,
                 id="no affinity, ignore setting set"),
    pytest.param(make_pod().name("p").label("foo", "bar").pod_affinity_in("foo", "zone", ["bar"]),
                 InterPodAffinityArgs(), "unsignable", id="affinity set"),
    pytest.param(make_pod().name("p").pod_anti_affinity_in("foo", "zone", ["bar"], kind="preferred"),
                 InterPodAffinityArgs(), "unsignable", id="preferred anti-affinity set"),
])
def test_pod_affinity_signature(builder: Any, args: InterPodAffinityArgs, want: Any) -> None:
    frags, status = _sign(InterPodAffinity(args), builder)
    if want == "unsignable":
        assert status is not None and not status.is_success()
    else:
        assert _ok((frags, status)) and frags == want


def test_dra_claims_make_a_pod_unsignable() -> None:
    pl = DynamicResources()
    assert not _ok(_sign(pl, make_pod().name("p").resource_claims(["gpu"])))
    assert _ok(_sign(pl, make_pod().name("p")))


def test_fit_is_unsignable_while_dra_extended_resource_is_on() -> None:
    assert not _ok(_sign(Fit(), make_pod().name("p").req({"cpu": "1"})))  # no handle: newest, gate on
    env = Env({"schedulerName": "default-scheduler"}, features={"DRAExtendedResource": False})
    fwk = env.sched.profiles["default-scheduler"]
    a = fwk.sign_pod(_pod(make_pod().name("a").uid("a").req({"cpu": "1"})))
    b = fwk.sign_pod(_pod(make_pod().name("b").uid("b").req({"cpu": "1"})))
    c = fwk.sign_pod(_pod(make_pod().name("c").uid("c").req({"cpu": "2"})))
    # the default profile spreads by default: nothing is signable
    assert a is None and b is None and c is None


def _batchable_env(gate: bool | None = True, seed: int = 0, version: KubeVersion = MASTER,
                   **extra: Any) -> Env:
    """The default plugins with system default spreading off (what upstream's scheduler_perf
    batching workloads run), at a release where NodeResourcesFit can sign (DRAExtendedResource
    off); ``version``: the release kubesched behaves as."""
    prof: dict[str, Any] = {"schedulerName": "default-scheduler",
                            "pluginConfig": [{"name": "PodTopologySpread",
                                              "args": {"defaultingType": "List"}}]}
    prof.update(extra)
    features: dict[str, bool] = {"DRAExtendedResource": False}
    if gate is not None:
        features[GATE] = gate
    env = Env(prof, features=features, seed=seed)
    if version != MASTER:
        env.config = from_dict({"apiVersion": "kubescheduler.config.k8s.io/v1",
                                "kind": "KubeSchedulerConfiguration", "profiles": [prof]},
                               features=features, kube_version=version)
    return env


def test_signature_covers_what_the_plugins_read() -> None:
    fwk = _batchable_env().sched.profiles["default-scheduler"]
    assert fwk.enable_signatures

    def sig(b: Any) -> bytes | None:
        return fwk.sign_pod(_pod(b))

    base = sig(make_pod().name("a").uid("a").req({"cpu": "1"}))
    assert base is not None
    assert sig(make_pod().name("b").uid("b").req({"cpu": "1"})) == base  # name and uid do not count
    for other in (make_pod().name("c").req({"cpu": "2"}),
                  make_pod().name("c").req({"cpu": "1"}).label("app", "x"),
                  make_pod().name("c").req({"cpu": "1"}).node_selector({"zone": "a"}),
                  make_pod().name("c").req({"cpu": "1"}).toleration(key="k", operator="Exists"),
                  make_pod().name("c").req({"cpu": "1"}).host_port(80),
                  make_pod().name("c").req({"cpu": "1"}).container_image("nginx")):
        assert sig(other) not in (None, base)


def test_a_plugin_that_cannot_sign_or_an_extender_disables_signatures() -> None:
    noop = plugin("NoSign", filter=lambda self, st, pod, ni: None)
    env = Env({"schedulerName": "default-scheduler",
               "plugins": {"filter": {"enabled": [{"name": "NoSign"}]}},
               "pluginConfig": [{"name": "PodTopologySpread", "args": {"defaultingType": "List"}}]},
              registry={"NoSign": noop}, features={"DRAExtendedResource": False})
    fwk = env.sched.profiles["default-scheduler"]
    assert not fwk.enable_signatures
    assert fwk.sign_pod(_pod(make_pod().name("a"))) is None


# -- the gate ----------------------------------------------------------------------------------
def test_gate_is_beta_and_on_from_1_35() -> None:
    assert feature_gates_for(KubeVersion.parse("1.35"))[GATE] is True
    assert feature_gates_for(KubeVersion.parse("1.34"))[GATE] is False
    with pytest.raises(ValueError, match=r"OpportunisticBatching is not available in Kubernetes 1\.34"):
        feature_gates_for(KubeVersion.parse("1.34"), {GATE: True})


# -- end to end --------------------------------------------------------------------------------
def _nodes(env: Env, cpus: list[int]) -> None:
    for i, cpu in enumerate(cpus):
        env.add(make_node().name(f"n{i}").capacity({"cpu": str(cpu), "memory": "32Gi", "pods": "110"}))


def _burst(env: Env, n: int, port: int | None = 80, cpu: str = "1") -> None:
    for j in range(n):
        b = make_pod().name(f"p{j:02d}").uid(f"p{j:02d}").req({"cpu": cpu, "memory": "1Gi"})
        if port is not None:
            b.host_port(port)
        env.add(b)


def _placements(env: Env, n: int) -> dict[str, str]:
    return {f"p{j:02d}": env.node_of(f"p{j:02d}") for j in range(n)}


def _batch_metrics(env: Env) -> dict[str, float]:
    out: dict[str, float] = {}
    for fam in env.sched.metrics.registry.collect():
        if fam.name in ("scheduler_batch_attempts", "scheduler_batch_cache_flushed"):
            for s in fam.samples:
                if s.name.endswith("_total"):
                    out[s.labels.get("result") or s.labels["reason"]] = s.value
        if fam.name == "scheduler_batch_rescore_attempts":
            for s in fam.samples:
                if s.name.endswith("_total"):
                    out["rescore_attempts"] = s.value
    return out


DISTINCT_CPUS = [2, 3, 4, 5, 6, 8, 10, 16]  # LeastAllocated scores 50, 66, 75, 80, 83, 87, 90, 93


def test_default_profile_batches_nothing_and_counts_pod_not_batchable() -> None:
    env = Env({"schedulerName": "default-scheduler"}, features={"DRAExtendedResource": False})
    _nodes(env, DISTINCT_CPUS)
    _burst(env, 6)
    env.run()
    assert _batch_metrics(env) == {"no_hint": 6, "pod_not_batchable": 6}


def test_gate_off_keeps_no_batch_and_reports_nothing() -> None:
    env = _batchable_env(gate=False)
    assert env.sched.profiles["default-scheduler"].batch is None
    _nodes(env, DISTINCT_CPUS)
    _burst(env, 6)
    env.run()
    assert _batch_metrics(env) == {}


def test_one_pod_per_node_burst_reuses_the_first_cycle_and_places_as_without_batching() -> None:
    on, off = _batchable_env(True), _batchable_env(False)
    for env in (on, off):
        _nodes(env, DISTINCT_CPUS)
        _burst(env, 6)
        env.run()
    assert _placements(on, 6) == _placements(off, 6)
    assert _placements(on, 6)["p00"] == "n7"  # the biggest node first, then down the list
    assert _batch_metrics(on) == {"no_hint": 1, "hint_used": 5}
    assert on.sched.profiles["default-scheduler"].batch.batched_pods == 5  # type: ignore[union-attr]


def test_v1_35_flushes_when_the_last_chosen_node_still_fits() -> None:
    env = _batchable_env(version=V135)
    _nodes(env, DISTINCT_CPUS)
    _burst(env, 3, port=None)  # 1 CPU pods: the chosen node takes more
    env.run()
    m = _batch_metrics(env)
    assert m.get("node_not_full") == 2 and m.get("hint_used") is None


def test_master_rescores_the_last_chosen_node_and_places_as_without_batching() -> None:
    """Several pods per node (kubernetes#140289): the node the last pod took is re-scored against
    the kept nodes instead of flushing them; every cycle after the first filters and scores
    one node, and the placements are the full cycles' (distinct scores)."""
    on, off = _batchable_env(True), _batchable_env(False)
    for env in (on, off):
        _nodes(env, [2, 8, 16])  # no two nodes tie for the highest score in any cycle
        _burst(env, 8, port=None)
        env.run()
    assert _placements(on, 8) == _placements(off, 8)
    assert sorted(set(_placements(on, 8).values())) == ["n1", "n2"]
    m = _batch_metrics(on)
    assert m == {"no_hint": 1, "hint_used": 7, "rescore_attempts": 7}


def test_pods_with_other_signatures_in_between_flush_as_incompatible() -> None:
    env = _batchable_env()
    _nodes(env, DISTINCT_CPUS)
    for j in range(4):
        env.add(make_pod().name(f"p{j:02d}").uid(f"p{j:02d}").req({"cpu": "1"}).host_port(80 + j % 2))
    env.run()
    assert _batch_metrics(env).get("pod_incompatible") == 3  # every pod after the first


def test_a_burst_spread_over_time_expires() -> None:
    env = _batchable_env()
    _nodes(env, DISTINCT_CPUS)
    _burst(env, 1)
    env.run()
    env.clock.run(until=START + 10)
    env.add(make_pod().name("late").uid("late").req({"cpu": "1", "memory": "1Gi"}).host_port(80))
    env.run()
    assert _batch_metrics(env).get("expired") == 1


@settings(max_examples=20, deadline=None)
@given(cpus=st.lists(st.sampled_from(DISTINCT_CPUS), min_size=2, max_size=8, unique=True),
       pods=st.integers(1, 10), seed=st.integers(0, 3), v135=st.booleans())
def test_property_batching_places_as_without_it(cpus: list[int], pods: int, seed: int, v135: bool) -> None:
    """With one pod per node (a host port) and distinct node scores, the reuse is exact: every
    hinted node is the one a full cycle picks, so placements equal the gate-off run's (the only
    divergence upstream's batching can make is among nodes of equal score), as master and as
    v1.35."""
    version = V135 if v135 else MASTER
    on, off = _batchable_env(True, seed, version), _batchable_env(False, seed, version)
    for env in (on, off):
        _nodes(env, cpus)
        _burst(env, pods)
        env.run()
    assert _placements(on, pods) == _placements(off, pods)
    m = _batch_metrics(on)
    assert m.get("hint_used", 0) == max(0, min(pods, len(cpus)) - 1)


def test_metrics_are_exposed_under_upstream_names() -> None:
    env = _batchable_env()
    _nodes(env, DISTINCT_CPUS)
    _burst(env, 2)
    env.add(make_pod().name("q").uid("q").req({"cpu": "1", "memory": "1Gi"}))  # fits p01's node
    env.add(make_pod().name("r").uid("r").req({"cpu": "1", "memory": "1Gi"}))
    env.run()
    text = env.sched.metrics.exposition().decode()
    for name in ("scheduler_batch_attempts_total{profile=\"default-scheduler\",result=\"hint_used\"} 2.0",
                 "scheduler_get_node_hint_duration_seconds_bucket{hinted=\"hint\"",
                 'scheduler_store_schedule_results_duration_seconds_count{profile="default-scheduler"} 4.0',
                 "# HELP scheduler_store_schedule_results_duration_seconds Latency for storing scheduling"
                 " results.",
                 'scheduler_batch_rescore_attempts_total{profile="default-scheduler"} 1.0',
                 'scheduler_batch_rescore_duration_seconds_count{profile="default-scheduler"} 1.0'):
        assert name in text


@pytest.mark.parametrize(("version", "want"), [
    (MASTER, {"no_hint": 1, "hint_used": 4}),
    (KubeVersion(1, 36), {"no_hint": 5, "pod_skipped": 4})], ids=["master", "v1.36"])
def test_a_pod_group_cycle_reuses_the_batch_across_its_pods(version: KubeVersion,
                                                            want: dict[str, float]) -> None:
    """kubernetes#138754: the pods of one pod-group cycle share its cycle number; with
    GenericWorkload on, each one after the first takes the batch's hint. Before, each of them
    flushed it (pod_skipped) and ran a full cycle."""
    prof: dict[str, Any] = {"schedulerName": "default-scheduler",
                            "pluginConfig": [{"name": "PodTopologySpread",
                                              "args": {"defaultingType": "List"}}]}
    features = {"DRAExtendedResource": False, GATE: True, "GenericWorkload": True}
    env = Env(prof, features=features)
    env.config = from_dict({"apiVersion": "kubescheduler.config.k8s.io/v1",
                            "kind": "KubeSchedulerConfiguration", "profiles": [prof]},
                           features=features, kube_version=version)
    _nodes(env, DISTINCT_CPUS)
    env.store.create(PodGroup.from_dict({"apiVersion": "scheduling.k8s.io/v1alpha3", "kind": "PodGroup",
                                         "metadata": {"name": "pg", "namespace": "default"},
                                         "spec": {"schedulingPolicy": {"basic": {}}}}))
    for j in range(5):
        env.add(make_pod().name(f"p{j:02d}").uid(f"p{j:02d}").req({"cpu": "1", "memory": "1Gi"})
                .host_port(80).pod_group("pg"))
    env.run()
    assert sorted(_placements(env, 5).values()) == ["n3", "n4", "n5", "n6", "n7"]
    assert _batch_metrics(env) == want


@pytest.mark.parametrize(("version", "want"), [
    # kubernetes#138212: a pod with a nominatedNodeName bypasses the batch (pod_nominated) and
    # is tried on its nominated node; no hint was given, so none goes unused.
    (MASTER, {"no_hint": 2, "hint_used": 1, "pod_nominated": 1, "empty_list": 1}),
    # kubernetes#135163: evaluateNominatedNode tries the pod's nominated node, not the hint:
    # the hint goes unused and, one node feasible, nothing is kept.
    (V135, {"no_hint": 1, "hint_used": 1, "hint_not_used": 1, "empty_list": 1}),
], ids=["master", "v1.35"])
def test_a_nominated_pod_is_placed_on_its_nominated_node(version: KubeVersion,
                                                         want: dict[str, float]) -> None:
    """After a burst of two, a third pod nominated to n0 lands there at every release; how the
    batch counts it is the release's (the comments of the table)."""
    env = _batchable_env(version=version)
    _nodes(env, DISTINCT_CPUS)
    _burst(env, 2)
    env.add(make_pod().name("p02").uid("p02").req({"cpu": "1", "memory": "1Gi"}).host_port(80)
            .nominated_node_name("n0"))
    env.run()
    assert env.node_of("p02") == "n0"
    assert _batch_metrics(env) == want


def test_the_last_chosen_node_gone_flushes_as_node_missing() -> None:
    env = _batchable_env()
    _nodes(env, DISTINCT_CPUS)
    _burst(env, 1)
    env.run()
    env.store.delete("Node", "", env.node_of("p00"))
    env.add(make_pod().name("q").uid("q").req({"cpu": "1", "memory": "1Gi"}).host_port(80))
    env.run()
    assert _batch_metrics(env).get("node_missing") == 1


def test_kept_nodes_survive_a_snapshot_update_that_moves_rows() -> None:
    """The kept names are copied when kept: a node deleted between two cycles moves the
    snapshot's rows, and the hint must still name the node the first cycle ranked."""
    on, off = _batchable_env(True), _batchable_env(False)
    for env in (on, off):
        _nodes(env, DISTINCT_CPUS)
        _burst(env, 3)
        env.sched.schedule_one()  # p00 on the biggest node; the others kept, best first
        env.store.delete("Node", "", "n0")  # the smallest: every row after it moves
        env.run()
    assert _placements(on, 3) == _placements(off, 3) == {"p00": "n7", "p01": "n6", "p02": "n5"}
    assert _batch_metrics(on).get("hint_used") == 2


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_default_profile_places_as_with_the_gate_off_even_among_ties(seed: int) -> None:
    """Nothing is batched under the default profile, so nothing changes: the same random
    tie-breaks (identical nodes, pods that fit several to a node) and the same placements."""
    envs = [Env({"schedulerName": "default-scheduler"}, seed=seed,
                features={"DRAExtendedResource": False, GATE: gate}) for gate in (True, False)]
    for env in envs:
        _nodes(env, [4] * 6)
        _burst(env, 12, port=None)
        env.run()
    assert _placements(envs[0], 12) == _placements(envs[1], 12)
