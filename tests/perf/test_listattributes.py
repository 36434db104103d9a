"""Upstream's dra/listattributes test case (SchedulingWithResourceClaimTemplateListAttributes):
its Go-templated slices and claim template render as upstream's do, and its measured pods are
scheduled (DRAListTypeAttributes on, as the test case sets it)."""

from __future__ import annotations

import random
from typing import Any

from kubesched.api import ResourceClaimTemplate, ResourceSlice
from kubesched.perf import ObjectFactory, load_config, run_workload, select_workloads

NAME = "SchedulingWithResourceClaimTemplateListAttributes"


def _workload(size: str) -> Any:
    return select_workloads(load_config(), [f"{NAME}/{size}"])[0]


def _op(wl: Any, suffix: str) -> Any:
    return next(o for o in wl.ops if str(o.get("templatePath", "")).endswith(suffix))


def test_the_slice_template_loops_over_its_template_params() -> None:
    wl = _workload("fast")
    factory = ObjectFactory(random.Random(0))
    op = _op(wl, "resourceslice-list-attributes-devices.yaml")
    sl = factory.any(factory.template(op, "templatePath"), 3, "")
    assert isinstance(sl, ResourceSlice)
    assert sl.name == "resourceslice-3" and sl.node_name == "scheduler-perf-dra-3"
    assert [d.name for d in sl.devices] == [f"device-{i}" for i in range(64)]
    first, last = (sl.devices[i].attributes["dra.example.com/match"].value for i in (31, 32))
    # 47 device-specific values; from device 32 on the shared value comes first
    assert first == tuple(f"device-31-value-{v}" for v in range(47))
    assert last == ("shared-value", *(f"device-32-value-{v}" for v in range(47)))


def test_the_claim_template_has_the_requests_and_constraint_of_its_params() -> None:
    wl = _workload("fast")
    factory = ObjectFactory(random.Random(0))
    t = factory.any(factory.template(_op(wl, "resourceclaimtemplate.yaml"), "templatePath"), 0, "test")
    assert isinstance(t, ResourceClaimTemplate)
    spec = t.to_dict()["spec"]["spec"]["devices"]
    assert [r["name"] for r in spec["requests"]] == [f"req-{i}" for i in range(32)]
    assert spec["constraints"] == [{"matchAttribute": "dra.example.com/match"}]


def test_listattributes_schedules_its_measured_pods() -> None:
    r = run_workload(_workload("fast"), seed=1, pace=False)
    assert r.measured_pods == r.scheduled == 1
    assert set(r.placements.values()) == {"scheduler-perf-dra-0"}


def test_a_smaller_empty_cluster_schedules_in_steady_state() -> None:
    # empty_500nodes at 3 nodes and 1 s: every pod the steady state creates is scheduled.
    wl = _workload("empty_500nodes")
    ops = tuple(o if o.opcode not in ("createNodes", "createAny", "createPods") else
                type(o)(o.opcode, o.index, {**o.fields, **({"count": 3} if "count" in o.fields else {}),
                                            **({"duration": "1s"} if o.opcode == "createPods" else {})},
                        o.base_dir)
                for o in wl.ops)
    r = run_workload(type(wl)(wl.test_case, wl.name, ops, wl.params, wl.labels, wl.threshold,
                              wl.feature_gates), seed=1, pace=False)
    assert r.scheduled >= 3 and r.unschedulable == 0
