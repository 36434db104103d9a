"""Properties of the structured allocator and its fast path (the CEL verdict cache).

The verdict cache must never change a decision: a selector's verdict (or runtime error) read
through :class:`CELCache` equals a fresh evaluation, and allocation with a warm cache shared
across allocators equals allocation with a cold one. Every allocation returned is valid: the
devices exist on the node, match the class and request selectors, are not in use, are not
given twice, and a matchAttribute constraint holds.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubesched.api import DeviceClass, DeviceTaintRule, Node, ResourceClaim, ResourceSlice
from kubesched.dra.cel import Device as CELDevice
from kubesched.dra.cel import SelectorEvalError, get_compiler
from kubesched.dra.structured import (
    DEFAULT_FEATURES,
    AllocatedState,
    AllocatorError,
    CELCache,
    DeviceID,
    Features,
    TaintRulePatcher,
    is_device_allocated,
    new_allocator,
    node_matches,
)

DRIVER = "gpu.example.com"
SELECTORS = (
    'device.attributes["gpu.example.com"].model == "a"',
    'device.attributes["gpu.example.com"].mem >= 2',
    'device.capacity["gpu.example.com"].memory.compareTo(quantity("2Gi")) >= 0',
    'device.attributes["gpu.example.com"].missing == 1',  # a runtime error: no such key
)


class _Classes:
    def __init__(self, classes: list[DeviceClass]) -> None:
        self.by_name = {c.name: c for c in classes}

    def list(self) -> list[DeviceClass]:
        return list(self.by_name.values())

    def get(self, name: str) -> DeviceClass | None:
        return self.by_name.get(name)


GPU_CLASS = DeviceClass.from_dict(
    {
        "metadata": {"name": "gpu"},
        "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]},
    }
)
NODE = Node.from_dict({"metadata": {"name": "node-1"}})

device_spec = st.tuples(st.sampled_from(["a", "b"]), st.integers(1, 4))


def _slices(pools: list[list[tuple[str, int]]]) -> list[ResourceSlice]:
    out = []
    for p, devices in enumerate(pools):
        out.append(
            ResourceSlice.from_dict(
                {
                    "metadata": {"name": f"slice-{p}"},
                    "spec": {
                        "driver": DRIVER,
                        "nodeName": "node-1",
                        "pool": {"name": f"pool-{p}", "generation": 1, "resourceSliceCount": 1},
                        "devices": [
                            {
                                "name": f"dev-{i}",
                                "attributes": {"model": {"string": m}, "mem": {"int": mem}},
                                "capacity": {"memory": {"value": f"{mem}Gi"}},
                            }
                            for i, (m, mem) in enumerate(devices)
                        ],
                    },
                }
            )
        )
    return out


request_spec = st.tuples(st.integers(1, 3), st.sampled_from([None, *SELECTORS[:3]]))
claim_spec = st.tuples(st.lists(request_spec, min_size=1, max_size=2), st.booleans())


def _claim(i: int, requests: list[tuple[int, str | None]], match_model: bool) -> ResourceClaim:
    spec: dict[str, Any] = {
        "requests": [
            {
                "name": f"r{j}",
                "exactly": {
                    "deviceClassName": "gpu",
                    "count": count,
                    **({"selectors": [{"cel": {"expression": sel}}]} if sel else {}),
                },
            }
            for j, (count, sel) in enumerate(requests)
        ]
    }
    if match_model:
        spec["constraints"] = [{"matchAttribute": f"{DRIVER}/model"}]
    return ResourceClaim.from_dict(
        {"metadata": {"name": f"claim-{i}", "namespace": "default"}, "spec": {"devices": spec}}
    )


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.lists(device_spec, min_size=1, max_size=6), st.sampled_from(SELECTORS))
def test_verdict_cache_agrees_with_evaluation(devices: list[tuple[str, int]], expression: str) -> None:
    (s,) = _slices([devices])
    compiled = get_compiler().compile(expression)
    cache = CELCache()
    for _ in range(2):  # cold, then warm
        for d in s.devices:
            fresh = CELDevice(DRIVER, d.attributes, {n: c.value for n, c in d.capacity.items()})
            try:
                expected: bool | str = compiled.device_matches(fresh)
            except SelectorEvalError as exc:
                expected = str(exc)
            try:
                got: bool | str = cache.matches(compiled, DRIVER, d)
            except SelectorEvalError as exc:
                got = str(exc)
            assert got == expected


def _allocate(
    slices: list[ResourceSlice], claims: list[ResourceClaim], allocated: set[DeviceID], cache: CELCache | None
) -> Any:
    allocator = new_allocator(
        DEFAULT_FEATURES, AllocatedState(set(allocated)), _Classes([GPU_CLASS]), slices, cache
    )
    try:
        return allocator.allocate(NODE, claims)
    except AllocatorError as exc:
        return str(exc)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    st.lists(st.lists(device_spec, max_size=5), min_size=1, max_size=3),
    st.lists(claim_spec, min_size=1, max_size=2),
    st.sets(st.tuples(st.integers(0, 2), st.integers(0, 4)), max_size=4),
)
def test_allocations_are_valid_and_cache_independent(
    pools: list[list[tuple[str, int]]],
    claim_specs: list[tuple[list[tuple[int, str | None]], bool]],
    allocated_idx: set[tuple[int, int]],
) -> None:
    slices = _slices(pools)
    claims = [_claim(i, reqs, match) for i, (reqs, match) in enumerate(claim_specs)]
    allocated = {DeviceID(DRIVER, f"pool-{p}", f"dev-{d}") for p, d in allocated_idx}
    warm = CELCache()
    _allocate(slices, claims, allocated, warm)  # warm the cache up
    cold = _allocate(slices, claims, allocated, None)
    again = _allocate(slices, claims, allocated, warm)
    assert again == cold
    if not cold or isinstance(cold, str):
        return
    devices = {DeviceID(DRIVER, s.pool.name, d.name): d for s in slices for d in s.devices}
    used: set[DeviceID] = set()
    for claim, result in zip(claims, cold, strict=True):
        models = set()
        for r in result.results:
            device_id = DeviceID(r.driver, r.pool, r.device)
            assert device_id in devices and device_id not in allocated and device_id not in used
            used.add(device_id)
            d = devices[device_id]
            req = next(q for q in claim.devices.requests if q.name == r.request)
            assert req.exactly is not None
            for expr in req.exactly.selectors:
                assert (
                    get_compiler()
                    .compile(expr)
                    .device_matches(
                        CELDevice(DRIVER, d.attributes, {n: c.value for n, c in d.capacity.items()})
                    )
                )
            models.add(d.attributes["model"].value)
        assert sum(q.exactly.count for q in claim.devices.requests if q.exactly) == len(result.results)
        if claim.devices.constraints:
            assert len(models) == 1


def test_stable_channel_has_no_distinct_attribute() -> None:
    """Upstream's stable allocator (picked when only GA-era features are on) does not know
    distinctAttribute and refuses the claim; the incubating one honours it."""
    slices = _slices([[("a", 1), ("b", 1)]])
    claim = ResourceClaim.from_dict(
        {
            "metadata": {"name": "c"},
            "spec": {
                "devices": {
                    "requests": [{"name": "r", "exactly": {"deviceClassName": "gpu", "count": 2}}],
                    "constraints": [{"distinctAttribute": f"{DRIVER}/model"}],
                }
            },
        }
    )
    stable = new_allocator(Features(), AllocatedState(), _Classes([GPU_CLASS]), slices)
    assert stable.channel == "stable"
    with pytest.raises(AllocatorError, match="empty constraint"):
        stable.allocate(NODE, [claim])
    incubating = new_allocator(DEFAULT_FEATURES, AllocatedState(), _Classes([GPU_CLASS]), slices)
    assert incubating.channel == "incubating"
    (result,) = incubating.allocate(NODE, [claim])
    assert [r.device for r in result.results] == ["dev-0", "dev-1"]


def test_is_device_allocated_and_node_matches() -> None:
    d = DeviceID(DRIVER, "pool-0", "dev-0")
    assert not is_device_allocated(d, AllocatedState())
    assert is_device_allocated(d, AllocatedState({d}))
    assert is_device_allocated(d, AllocatedState(aggregated_capacity={d: {}}))
    assert node_matches(DEFAULT_FEATURES, NODE, "node-1", False, None)
    assert not node_matches(DEFAULT_FEATURES, NODE, "node-2", False, None)
    assert node_matches(DEFAULT_FEATURES, NODE, "", True, None)


def test_device_taint_rules_taint_devices_for_the_allocator() -> None:
    """A DeviceTaintRule's NoSchedule taint keeps its device from a claim that does not tolerate
    it (the tracker's patched slices); a patched slice stays the same object while nothing
    changes, so the verdict cache keeps serving it."""
    slices = _slices([[("a", 1), ("a", 2)]])
    rule = DeviceTaintRule.from_dict(
        {
            "metadata": {"name": "broken"},
            "spec": {
                "deviceSelector": {"driver": DRIVER, "pool": "pool-0", "device": "dev-0"},
                "taint": {"key": "broken", "effect": "NoSchedule"},
            },
        }
    )
    patcher = TaintRulePatcher()
    patched = patcher.patch(slices, [rule])
    assert patcher.patch(slices, [rule])[0] is patched[0]
    assert [len(d.taints) for d in patched[0].devices] == [1, 0]
    claim = _claim(0, [(1, None)], False)
    (result,) = new_allocator(DEFAULT_FEATURES, AllocatedState(), _Classes([GPU_CLASS]), patched).allocate(
        NODE, [claim]
    )
    assert [r.device for r in result.results] == ["dev-1"]
    untainted = new_allocator(DEFAULT_FEATURES, AllocatedState(), _Classes([GPU_CLASS]), slices)
    assert [r.device for r in untainted.allocate(NODE, [claim])[0].results] == ["dev-0"]


def _brute_force_fits(
    slices: list[ResourceSlice], claims: list[ResourceClaim], allocated: set[DeviceID]
) -> bool:
    """Whether some assignment of distinct free devices satisfies every request's selectors and
    every claim's model constraint: an exhaustive search independent of the allocator's."""
    devices = [(DeviceID(DRIVER, s.pool.name, d.name), d) for s in slices for d in s.devices]
    free = [(i, d) for i, d in devices if i not in allocated]
    compiler = get_compiler()

    def ok(d: Any, selectors: tuple[str, ...]) -> bool:
        cel = CELDevice(DRIVER, d.attributes, {n: c.value for n, c in d.capacity.items()})
        return all(compiler.compile(e).device_matches(cel) for e in selectors)

    slots = []  # (claim index, selectors) per device to allocate
    for ci, claim in enumerate(claims):
        for req in claim.devices.requests:
            assert req.exactly is not None
            slots += [(ci, req.exactly.selectors)] * req.exactly.count

    def search(k: int, used: frozenset[DeviceID], models: dict[int, str]) -> bool:
        if k == len(slots):
            return True
        ci, selectors = slots[k]
        for device_id, d in free:
            if device_id in used or not ok(d, selectors):
                continue
            model = d.attributes["model"].value
            if claims[ci].devices.constraints and models.get(ci, model) != model:
                continue
            if search(k + 1, used | {device_id}, {**models, ci: model}):
                return True
        return False

    return search(0, frozenset(), {})


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    st.lists(st.lists(device_spec, max_size=4), min_size=1, max_size=2),
    st.lists(claim_spec, min_size=1, max_size=2),
    st.sets(st.tuples(st.integers(0, 1), st.integers(0, 3)), max_size=2),
)
def test_allocator_finds_a_solution_whenever_one_exists(
    pools: list[list[tuple[str, int]]],
    claim_specs: list[tuple[list[tuple[int, str | None]], bool]],
    allocated_idx: set[tuple[int, int]],
) -> None:
    """Backtracking is complete: the claims fit (a result) exactly when an exhaustive search
    finds an assignment."""
    slices = _slices(pools)
    claims = [_claim(i, reqs, match) for i, (reqs, match) in enumerate(claim_specs)]
    allocated = {DeviceID(DRIVER, f"pool-{p}", f"dev-{d}") for p, d in allocated_idx}
    got = _allocate(slices, claims, allocated, None)
    assert not isinstance(got, str)
    assert bool(got) == _brute_force_fits(slices, claims, allocated)
