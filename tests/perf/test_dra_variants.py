"""Upstream's DRA scheduler_perf variants without a CI threshold, bundled at their
integration-test sizes: each runs to the end with every measured pod scheduled, devices as the
claims ask (a sub-request's fallback, a tolerated DeviceTaintRule, partitionable devices with
shared counters, consumable capacity)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from kubesched.api import ResourceSlice
from kubesched.perf import load_config, run_workload, select_workloads
from kubesched.perf._objects import ObjectFactory


def _workload(name: str) -> Any:
    return select_workloads(load_config(), [name])[0]


@pytest.mark.parametrize("name", [
    "SteadyStateClusterResourceClaimTemplateFirstAvailable/fast",
    "SchedulingWithResourceClaimTemplateToleration/fast_QueueingHintsEnabled",
    "SteadyStateClusterResourceClaimTemplatePartitionable/fast",
    "SteadyStateClusterResourceClaimTemplatePartitionableBacktracking/fast",
    "SteadyStateClusterResourceClaimTemplateConsumableCapacity/fast_with_DRAPartitionableDevices",
])
def test_variant_schedules_every_measured_pod(name: str) -> None:
    r = run_workload(_workload(name), seed=1, pace=False)
    assert r.measured_pods == r.scheduled > 0
    assert set(r.placements.values()) <= {"scheduler-perf-dra-0"}  # the node without DRA has no devices


def test_a_bare_placeholder_renders_as_a_number() -> None:
    # ``int: {{.Index}}`` (Go's text templating renders it before the YAML is read): the slice's
    # attribute is an int, as the partitionable-device templates need; a quoted one stays a string.
    wl = _workload("SteadyStateClusterResourceClaimTemplatePartitionable/fast")
    op = next(o for o in wl.ops if str(o.get("templatePath", "")).endswith("partitionable-devices.yaml"))
    factory = ObjectFactory(random.Random(0))
    sl = factory.any(factory.template(op, "templatePath"), 7, "")
    assert isinstance(sl, ResourceSlice)
    assert sl.devices[0].attributes["dra.example.com/slice"].value == 7
    assert sl.name == "resourceslice-devices-7" and sl.pool.name == "resourceslice-7"
