"""Go duration text, per-plugin timing, and non-rejection codes on the batch filter path."""

from __future__ import annotations

import numpy as np
import pytest

from kubesched.framework import BatchFilterResult, Code, CycleState, NodeBatch, Status
from kubesched.framework._duration import format_go_duration, parse_go_duration
from kubesched.testing import make_node, make_pod, snapshot_of

from ._toys import framework, pset, toy


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        pytest.param(0, "0s", id="zero"),
        pytest.param(10, "10s", id="seconds"),
        pytest.param(1.5, "1.5s", id="fraction"),
        pytest.param(90, "1m30s", id="minutes"),
        pytest.param(900, "15m0s", id="max-permit-timeout"),
        pytest.param(3600, "1h0m0s", id="hours"),
        pytest.param(0.5, "500ms", id="milliseconds"),
        pytest.param(0.0000015, "1.5µs", id="microseconds"),
    ],
)
def test_go_duration_round_trip(seconds: float, text: str) -> None:
    assert format_go_duration(seconds) == text
    assert parse_go_duration(text) == pytest.approx(seconds)


def test_parse_go_duration_rejects_garbage() -> None:
    with pytest.raises(ValueError, match="invalid duration"):
        parse_go_duration("5 minutes")


def test_plugin_observer_only_in_sampled_cycles() -> None:
    seen: list[tuple[str, str, str]] = []
    fw = framework(
        [toy("F", filter=Status.of(Code.UNSCHEDULABLE, "no"))],
        filter=pset("F"),
        plugin_observer=lambda point, plugin, code, secs: seen.append((point, plugin, code)),
        duration_clock=lambda: 0.0,
    )
    snap = snapshot_of([make_node().name("n").obj()])
    fw.run_filter_plugins(CycleState(), make_pod().name("p").obj(), snap.node_info_list[0])
    assert seen == []
    state = CycleState()
    state.record_plugin_metrics = True
    fw.run_filter_plugins(state, make_pod().name("p").obj(), snap.node_info_list[0])
    assert seen == [("Filter", "F", "Unschedulable")]


def test_batch_non_rejection_code_becomes_error() -> None:
    def batch(state: CycleState, pod: object, nodes: NodeBatch) -> BatchFilterResult:
        codes = np.array([0, int(Code.SKIP)], dtype=np.int8)
        return BatchFilterResult(codes, np.array([0, 1], dtype=np.int32), [(), ("odd",)])

    fw = framework(
        [toy("F", filter=None, filter_batch=batch)],
        filter=pset("F"),
        snapshot=snapshot_of([make_node().name("a").obj(), make_node().name("b").obj()]),
    )
    out = fw.run_filter_plugins_batch(CycleState(), make_pod().name("p").obj(), NodeBatch.all(fw.snapshot()))
    assert out.codes.tolist() == [0, int(Code.ERROR)]
    st = out.first_error()
    assert st is not None and (st.message(), st.plugin) == ('running "F" filter plugin: odd', "F")
