"""Properties: the recorder's running totals equal a recount of the store at every row."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubesched.api import Pod
from kubesched.replay import Replay, Trace, parse_event

from ._traces import create, node, pod

NODES = ["n0", "n1", "n2"]


@st.composite
def traces(draw: st.DrawFn) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = [create(0, node(n, cpu="4")) for n in NODES]
    t, live, n = 0.0, [], 0
    for _ in range(draw(st.integers(1, 25))):
        t += draw(st.sampled_from([0, 1, 5, 40]))
        op = draw(st.sampled_from(["create", "create", "create", "delete", "cordon", "uncordon", "drain"]))
        if op == "create":
            cpu = draw(st.sampled_from(["500m", "1", "2", "3"]))
            extra = {"runSeconds": draw(st.sampled_from([10, 100]))} if draw(st.booleans()) else {}
            events.append(create(t, pod(f"p{n}", cpu, grace=draw(st.sampled_from([0, 30]))), **extra))
            live.append(f"p{n}")
            n += 1
        elif op == "delete":
            if live:
                events.append({"time": t, "op": "delete", "kind": "Pod", "name": live.pop(0)})
        else:
            events.append({"time": t, "op": op, "name": draw(st.sampled_from(NODES))})
    return events


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(traces(), st.integers(0, 3), st.sampled_from([None, 7.0]))
def test_running_totals_match_a_recount(events: list[dict[str, Any]], seed: int, every: float | None) -> None:
    trace = Trace(events=[parse_event(e, f"t:{i + 1}") for i, e in enumerate(events)], name="prop")
    checked = [0]

    def check(row: Sequence[float]) -> None:
        pods: list[Pod] = rep.store.list("Pod")
        r = dict(zip(rep.recorder.columns, row, strict=True))
        if every is not None and r["time"] != rep.clock.now - rep.start:
            return  # an interval row for an earlier instant: the store has moved on
        bound = [p for p in pods if p.node_name and not p.is_terminal]
        assert r["running"] == len(bound)
        assert r["pending"] == sum(1 for p in pods if not p.node_name and not p.is_terminal)
        assert r["requested:cpu"] == sum(p.requests.get("cpu", 0) for p in bound)
        assert r["allocatable:cpu"] == sum(nd.allocatable["cpu"] for nd in rep.store.list("Node"))
        assert r["nodes"] == len(rep.store.list("Node"))
        checked[0] += 1

    rep = Replay(trace, seed=seed, sample_every=every, sink=check)
    res = rep.run()
    assert checked[0] >= 1
    assert res.summary["events"] == len(events)
