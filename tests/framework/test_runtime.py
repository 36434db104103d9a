"""Extension-point semantics of the runtime (framework.go RunXPlugins), with toy plugins."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from kubesched.api import Pod
from kubesched.cache import PodInfo
from kubesched.framework import (
    Code,
    CycleState,
    FrameworkBuildError,
    NodeBatch,
    PostFilterResult,
    PreFilterResult,
    Status,
)
from kubesched.testing import make_node, make_pod, snapshot_of

from ._toys import framework, pset, toy

UNSCHED = Status.of(Code.UNSCHEDULABLE, "no")
UNRESOLVABLE = Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "never")
ERROR = Status.of(Code.ERROR, "boom")
SKIP = Status.of(Code.SKIP)


def _pod(name: str = "p", prio: int = 0) -> Pod:
    return make_pod().name(name).uid(name).priority(prio).obj()


def _snapshot(n: int = 3) -> Any:
    return snapshot_of(
        [make_node().name(f"node{i}").capacity({"cpu": "4", "memory": "4Gi"}).obj() for i in range(n)]
    )


# -- PreFilter ------------------------------------------------------------------------------


def _pf(result: PreFilterResult | None, status: Status | None) -> Any:
    return lambda *a: (result, status)


@pytest.mark.parametrize(
    ("plugins", "want_nodes", "want_code", "want_msg", "want_plugin"),
    [
        pytest.param([_pf(None, None), _pf(None, None)], None, Code.SUCCESS, "", "", id="all-nodes"),
        pytest.param(
            [
                _pf(PreFilterResult(frozenset({"a", "b"})), None),
                _pf(PreFilterResult(frozenset({"b", "c"})), None),
            ],
            {"b"},
            Code.SUCCESS,
            "",
            "",
            id="subsets-intersect",
        ),
        pytest.param(
            [_pf(PreFilterResult(frozenset({"a"})), None), _pf(PreFilterResult(frozenset({"b"})), None)],
            set(),
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
            "node(s) didn't satisfy plugin(s) [P0 P1] simultaneously",
            "",
            id="disjoint-subsets",
        ),
        pytest.param(
            [_pf(PreFilterResult(frozenset()), None), _pf(None, None)],
            set(),
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
            "node(s) didn't satisfy plugin P0",
            "",
            id="one-empty-subset",
        ),
        pytest.param(
            [_pf(None, UNSCHED), _pf(PreFilterResult(frozenset({"a"})), None)],
            {"a"},
            Code.UNSCHEDULABLE,
            "no",
            "P0",
            id="unschedulable-keeps-running-issue-119770",
        ),
        pytest.param(
            [_pf(None, UNRESOLVABLE), _pf(None, ERROR)],
            None,
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
            "never",
            "P0",
            id="unresolvable-stops",
        ),
        pytest.param(
            [_pf(None, ERROR)],
            None,
            Code.ERROR,
            'running PreFilter plugin "P0": boom',
            "P0",
            id="error-wrapped",
        ),
    ],
)
def test_run_pre_filter_plugins(
    plugins: list[Any], want_nodes: set[str] | None, want_code: Code, want_msg: str, want_plugin: str
) -> None:
    classes = [toy(f"P{i}", pre_filter=b) for i, b in enumerate(plugins)]
    fw = framework(classes, pre_filter=pset(*(c.NAME for c in classes)), snapshot=_snapshot())
    res, st, _ = fw.run_pre_filter_plugins(CycleState(), _pod())
    assert st.code == want_code
    assert st.message() == want_msg
    assert st.plugin == want_plugin
    got = None if res is None or res.node_names is None else set(res.node_names)
    assert got == want_nodes


def test_pre_filter_skip_skips_filter_and_extensions() -> None:
    log: list[str] = []
    a = toy("A", log, pre_filter=_pf(None, SKIP), filter=UNSCHED)
    b = toy("B", log, pre_filter=_pf(None, None), filter=None)
    fw = framework([a, b], pre_filter=pset("A", "B"), filter=pset("A", "B"), snapshot=_snapshot())
    state = CycleState()
    fw.run_pre_filter_plugins(state, _pod())
    assert state.skip_filter_plugins == {"A"}
    log.clear()
    st = fw.run_filter_plugins(state, _pod(), fw.snapshot().node_info_list[0])
    assert st.is_success()
    assert log == ["B.filter"]


# -- Filter ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("results", "want_code", "want_plugin", "want_calls"),
    [
        pytest.param([None, None], Code.SUCCESS, "", 2, id="all-pass"),
        pytest.param([UNSCHED, UNRESOLVABLE], Code.UNSCHEDULABLE, "F0", 1, id="first-failure-decides"),
        pytest.param([None, UNRESOLVABLE], Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "F1", 2, id="second-fails"),
        pytest.param([Status.of(Code.WAIT, "x")], Code.ERROR, "F0", 1, id="non-rejection-becomes-error"),
    ],
)
def test_run_filter_plugins(
    results: list[Status | None], want_code: Code, want_plugin: str, want_calls: int
) -> None:
    log: list[str] = []
    classes = [toy(f"F{i}", log, filter=r) for i, r in enumerate(results)]
    fw = framework(classes, filter=pset(*(c.NAME for c in classes)), snapshot=_snapshot(1))
    st = fw.run_filter_plugins(CycleState(), _pod(), fw.snapshot().node_info_list[0])
    assert (st.code, st.plugin, len(log)) == (want_code, want_plugin, want_calls)
    if want_code == Code.ERROR:
        assert st.message() == 'running "F0" filter plugin: x'


def test_filter_batch_runs_later_plugins_only_on_passing_nodes() -> None:
    seen: list[list[str]] = []

    def reject_node0(state: CycleState, pod: Pod, ni: Any) -> Status | None:
        return UNSCHED if ni.name == "node0" else None

    def record(state: CycleState, pod: Pod, ni: Any) -> Status | None:
        seen.append([ni.name])
        return None

    a, b = toy("A", filter=reject_node0), toy("B", filter=record)
    fw = framework([a, b], filter=pset("A", "B"), snapshot=_snapshot(3))
    out = fw.run_filter_plugins_batch(CycleState(), _pod(), NodeBatch.all(fw.snapshot()))
    assert seen == [["node1"], ["node2"]]
    assert out.codes.tolist() == [int(Code.UNSCHEDULABLE), 0, 0]
    assert out.status(0) == Status(Code.UNSCHEDULABLE, ("no",), "A")
    assert out.failed_statuses() == {"node0": Status(Code.UNSCHEDULABLE, ("no",), "A")}
    assert out.feasible().tolist() == [1, 2]


# -- Filter with nominated pods -------------------------------------------------------------


class _Nominator:
    def __init__(self, pods: dict[str, list[Pod]]) -> None:
        self.pods = pods

    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]:
        return [PodInfo(p) for p in self.pods.get(node_name, [])]


def _one_pod_per_node(state: CycleState, pod: Pod, ni: Any) -> Status | None:
    return UNSCHED if ni.pods else None


@pytest.mark.parametrize(
    ("nominated_prio", "pod_prio", "want"),
    [
        pytest.param(10, 5, Code.UNSCHEDULABLE, id="higher-priority-nominated-pod-reserves-space"),
        pytest.param(5, 5, Code.UNSCHEDULABLE, id="equal-priority-nominated-pod-reserves-space"),
        pytest.param(1, 5, Code.SUCCESS, id="lower-priority-nominated-pod-ignored"),
    ],
)
def test_run_filter_plugins_with_nominated_pods(nominated_prio: int, pod_prio: int, want: Code) -> None:
    added: list[str] = []

    class Ext:
        def add_pod(self, state: CycleState, pod: Pod, pi: PodInfo, ni: Any) -> Status | None:
            added.append(pi.pod.name)
            return None

        def remove_pod(self, state: CycleState, pod: Pod, pi: PodInfo, ni: Any) -> Status | None:
            return None

    ext = Ext()
    f = toy("OnePod", filter=_one_pod_per_node, pre_filter=_pf(None, None), pre_filter_extensions=lambda: ext)
    nominated = _pod("nominated", nominated_prio)
    fw = framework(
        [f],
        filter=pset("OnePod"),
        pre_filter=pset("OnePod"),
        snapshot=_snapshot(1),
        nominator=_Nominator({"node0": [nominated]}),
    )
    node = fw.snapshot().node_info_list[0]
    st = fw.run_filter_plugins_with_nominated_pods(CycleState(), _pod("p", pod_prio), node)
    assert st.code == want
    assert not node.pods, "the snapshot's node must not be changed"
    assert added == (["nominated"] if nominated_prio >= pod_prio else [])
    out = fw.run_filter_plugins_batch_with_nominated_pods(
        CycleState(), _pod("p", pod_prio), NodeBatch.all(fw.snapshot())
    )
    assert int(out.codes[0]) == int(want)


def test_nominated_pods_second_pass_without_them() -> None:
    """A filter that passes only *because of* the nominated pod must also pass without it."""
    needs_a_pod = toy("NeedsPod", filter=lambda s, p, ni: None if ni.pods else UNSCHED)
    fw = framework(
        [needs_a_pod],
        filter=pset("NeedsPod"),
        snapshot=_snapshot(1),
        nominator=_Nominator({"node0": [_pod("nominated", 10)]}),
    )
    st = fw.run_filter_plugins_with_nominated_pods(
        CycleState(), _pod("p", 1), fw.snapshot().node_info_list[0]
    )
    assert st.code == Code.UNSCHEDULABLE


# -- PostFilter -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("results", "want_code", "want_plugin", "want_reasons", "want_node"),
    [
        pytest.param([(PostFilterResult("n1"), None)], Code.SUCCESS, "", (), "n1", id="success"),
        pytest.param(
            [(None, UNSCHED), (None, Status.of(Code.UNSCHEDULABLE, "also"))],
            Code.UNSCHEDULABLE,
            "P0",
            ("no", "also"),
            None,
            id="reasons-aggregated-first-rejector",
        ),
        pytest.param(
            [(None, UNRESOLVABLE), (PostFilterResult("n1"), None)],
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
            "P0",
            ("never",),
            None,
            id="unresolvable-stops",
        ),
        pytest.param(
            [(PostFilterResult("n2"), UNSCHED), (None, UNSCHED)],
            Code.UNSCHEDULABLE,
            "P0",
            ("no", "no"),
            "n2",
            id="keeps-last-non-noop-result",
        ),
    ],
)
def test_run_post_filter_plugins(
    results: list[Any],
    want_code: Code,
    want_plugin: str,
    want_reasons: tuple[str, ...],
    want_node: str | None,
) -> None:
    classes = [toy(f"P{i}", post_filter=r) for i, r in enumerate(results)]
    fw = framework(classes, post_filter=pset(*(c.NAME for c in classes)))
    r, st = fw.run_post_filter_plugins(CycleState(), _pod(), {})
    assert (st.code, st.plugin, st.reasons) == (want_code, want_plugin, want_reasons)
    assert (r.nominated_node_name if r else None) == want_node


# -- Score ----------------------------------------------------------------------------------


class _Norm:
    def __init__(self, fn: Any) -> None:
        self.fn = fn

    def normalize_score(self, state: CycleState, pod: Pod, scores: np.ndarray, names: Any) -> Status | None:
        return self.fn(scores)


def _double(scores: np.ndarray) -> None:
    scores *= 2


def test_score_normalize_weights_and_sum() -> None:
    # A: raw = node index * 10, normalized x2 -> 0, 20, 40; weight 3 -> 0, 60, 120
    # B: raw 7 everywhere, weight 0 -> 1 -> 7
    a = toy(
        "A", score=lambda s, p, ni: (int(ni.name[-1]) * 10, None), score_extensions=lambda: _Norm(_double)
    )
    b = toy("B", score=(7, None))
    fw = framework([a, b], score=pset(("A", 3), "B"), snapshot=_snapshot(3))
    assert fw.score_weights == {"A": 3, "B": 1}
    res, st = fw.run_score_plugins(CycleState(), _pod(), NodeBatch.all(fw.snapshot()))
    assert st.is_success() and res is not None
    assert res.raw.tolist() == [[0, 10, 20], [7, 7, 7]]
    assert res.normalized.tolist() == [[0, 20, 40], [7, 7, 7]]
    assert res.totals.tolist() == [7, 67, 127]
    assert res.plugin_scores(2) == {"A": 120, "B": 7}


@pytest.mark.parametrize(
    ("score", "norm", "want"),
    [
        pytest.param(
            101,
            None,
            'applying score defaultWeights on Score plugins: plugin "A" returns an invalid '
            "score 101, it should in the range of [0, 100] after normalizing",
            id="above-max",
        ),
        pytest.param(
            -1,
            None,
            'applying score defaultWeights on Score plugins: plugin "A" returns an invalid '
            "score -1, it should in the range of [0, 100] after normalizing",
            id="below-min",
        ),
        pytest.param(
            60,
            _double,
            'applying score defaultWeights on Score plugins: plugin "A" returns an invalid '
            "score 120, it should in the range of [0, 100] after normalizing",
            id="out-of-range-after-normalize",
        ),
        pytest.param(
            (0, ERROR), None, 'running Score plugins: plugin "A" failed with: boom', id="score-error"
        ),
        pytest.param(
            1,
            lambda s: ERROR,
            'running Normalize on Score plugins: plugin "A" failed with: boom',
            id="normalize-error",
        ),
    ],
)
def test_score_errors(score: Any, norm: Any, want: str) -> None:
    behaviour: dict[str, Any] = {"score": score if isinstance(score, tuple) else (score, None)}
    if norm is not None:
        behaviour["score_extensions"] = lambda: _Norm(norm)
    fw = framework([toy("A", **behaviour)], score=pset("A"), snapshot=_snapshot(2))
    res, st = fw.run_score_plugins(CycleState(), _pod(), NodeBatch.all(fw.snapshot()))
    assert res is None
    assert (st.code, st.message()) == (Code.ERROR, want)


def test_pre_score_skip_skips_score() -> None:
    log: list[str] = []
    a = toy("A", log, pre_score=SKIP, score=(1, None))
    b = toy("B", log, pre_score=None, score=(2, None))
    fw = framework(
        [a, b], pre_score=pset("A", "B"), score=pset("A", "B"), snapshot=_snapshot(1), per_node=True
    )
    state = CycleState()
    nodes = fw.snapshot().node_info_list
    assert fw.run_pre_score_plugins(state, _pod(), nodes).is_success()
    assert state.skip_score_plugins == {"A"}
    res, _ = fw.run_score_plugins(state, _pod(), nodes)
    assert res is not None and res.plugin_names == ["B"] and "A.score" not in log


def test_score_weight_overflow_rejected() -> None:
    a, b = toy("A", score=(0, None)), toy("B", score=(0, None))
    with pytest.raises(FrameworkBuildError, match="total score of Score plugins could overflow"):
        framework([a, b], score=pset(("A", 2**62), ("B", 2**62)))


# -- Reserve / Bind -------------------------------------------------------------------------


def test_reserve_in_order_unreserve_in_reverse() -> None:
    log: list[str] = []
    classes = [toy(n, log, reserve=None, unreserve=None) for n in ("R1", "R2", "R3")]
    fw = framework(classes, reserve=pset("R1", "R2", "R3"))
    assert fw.run_reserve_plugins_reserve(CycleState(), _pod(), "n").is_success()
    fw.run_reserve_plugins_unreserve(CycleState(), _pod(), "n")
    assert log == ["R1.reserve", "R2.reserve", "R3.reserve", "R3.unreserve", "R2.unreserve", "R1.unreserve"]


def test_reserve_rejection_stamped() -> None:
    fw = framework([toy("R", reserve=UNSCHED, unreserve=None)], reserve=pset("R"))
    st = fw.run_reserve_plugins_reserve(CycleState(), _pod(), "n")
    assert (st.code, st.plugin) == (Code.UNSCHEDULABLE, "R")


@pytest.mark.parametrize(
    ("results", "want_code", "want_calls"),
    [
        pytest.param([SKIP, None], Code.SUCCESS, ["B0.bind", "B1.bind"], id="skip-asks-next-binder"),
        pytest.param([None, None], Code.SUCCESS, ["B0.bind"], id="first-binder-wins"),
        pytest.param([SKIP, SKIP], Code.SKIP, ["B0.bind", "B1.bind"], id="all-skip"),
        pytest.param([ERROR, None], Code.ERROR, ["B0.bind"], id="error-stops"),
    ],
)
def test_run_bind_plugins(results: list[Status | None], want_code: Code, want_calls: list[str]) -> None:
    log: list[str] = []
    classes = [toy(f"B{i}", log, bind=r) for i, r in enumerate(results)]
    fw = framework(classes, bind=pset("B0", "B1"))
    st = fw.run_bind_plugins(CycleState(), _pod(), "n")
    assert st.code == want_code and log == want_calls
    if want_code == Code.ERROR:
        assert (st.message(), st.plugin) == ('running Bind plugin "B0": boom', "B0")


def test_pre_bind_and_post_bind() -> None:
    log: list[str] = []
    fw = framework(
        [toy("PB", log, pre_bind=ERROR, post_bind=None)], pre_bind=pset("PB"), post_bind=pset("PB")
    )
    st = fw.run_pre_bind_plugins(CycleState(), _pod(), "n")
    assert (st.code, st.message(), st.plugin) == (Code.ERROR, 'running PreBind plugin "PB": boom', "PB")
    fw.run_post_bind_plugins(CycleState(), _pod(), "n")
    assert log == ["PB.pre_bind", "PB.post_bind"]


def test_pre_enqueue_rejection() -> None:
    gate = toy("Gate", pre_enqueue=UNRESOLVABLE)
    fw = framework([gate], pre_enqueue=pset("Gate"))
    st = fw.run_pre_enqueue_plugins(_pod())
    assert (st.code, st.plugin) == (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "Gate")


def test_observer_sees_extension_points() -> None:
    seen: list[tuple[str, str, str]] = []
    ticks = iter(range(100))
    fw = framework(
        [toy("R", reserve=UNSCHED, unreserve=None)],
        reserve=pset("R"),
        observer=lambda point, code, prof, secs: seen.append((point, code, prof)),
        duration_clock=lambda: float(next(ticks)),
    )
    fw.run_reserve_plugins_reserve(CycleState(), _pod(), "n")
    assert seen == [("Reserve", "Unschedulable", "toy-scheduler")]


@pytest.mark.parametrize(
    ("flights", "want_code", "want_pre_binds"),
    [
        pytest.param([SKIP, None], Code.SUCCESS, ["B.pre_bind"], id="one-has-work"),
        pytest.param([SKIP, SKIP], Code.SKIP, [], id="all-skip"),
        pytest.param([ERROR, None], Code.ERROR, None, id="error"),
    ],
)
def test_pre_bind_pre_flights(
    flights: list[Status | None], want_code: Code, want_pre_binds: list[str] | None
) -> None:
    log: list[str] = []
    classes = [toy(n, log, pre_bind=None, pre_bind_pre_flight=f) for n, f in zip("AB", flights, strict=True)]
    fw = framework(classes, pre_bind=pset("A", "B"))
    state = CycleState()
    st = fw.run_pre_bind_pre_flights(state, _pod(), "n")
    assert st.code == want_code
    if want_pre_binds is not None:
        log.clear()
        assert fw.run_pre_bind_plugins(state, _pod(), "n").is_success()
        assert log == want_pre_binds
