"""The selector verdict cache: a verdict is shared by devices with the same content (what a
selector can see), never by devices that differ in it."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.api import ResourceSlice
from kubesched.dra.cel import CompilationResult
from kubesched.dra.structured import CELCache

SELECTOR = ('device.attributes["gpu.example.com"].model == "a100" && '
            'device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0')


def _slice(node: str, devices: list[tuple[str, str]]) -> ResourceSlice:
    out: list[dict[str, Any]] = [
        {"name": f"d{i}", "attributes": {"model": {"string": model}}, "capacity": {"memory": {"value": mem}}}
        for i, (model, mem) in enumerate(devices)
    ]
    return ResourceSlice.from_dict({
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": node},
        "spec": {"driver": "gpu.example.com", "nodeName": node,
                 "pool": {"name": node, "resourceSliceCount": 1}, "devices": out},
    })


def test_identical_devices_share_one_evaluation(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    original = CompilationResult.device_matches

    def counting(self: CompilationResult, device: Any) -> bool:
        calls.append(self.expression)
        return original(self, device)

    monkeypatch.setattr(CompilationResult, "device_matches", counting)
    cache = CELCache()
    compiled = cache.compile(SELECTOR)
    slices = [_slice(f"n{i}", [("a100", "80Gi"), ("a100", "20Gi"), ("h100", "80Gi")]) for i in range(50)]
    verdicts = [[cache.matches(compiled, s.driver, d) for d in s.devices] for s in slices]
    assert verdicts == [[True, False, False]] * 50
    assert len(calls) == 3  # one per kind of device, not 150


def test_devices_that_differ_in_a_value_get_their_own_verdict() -> None:
    cache = CELCache()
    compiled = cache.compile(SELECTOR)
    first = _slice("n0", [("a100", "80Gi")]).devices[0]
    other_model = _slice("n1", [("h100", "80Gi")]).devices[0]
    other_memory = _slice("n2", [("a100", "20Gi")]).devices[0]
    assert cache.matches(compiled, "gpu.example.com", first)
    assert not cache.matches(compiled, "gpu.example.com", other_model)
    assert not cache.matches(compiled, "gpu.example.com", other_memory)
    # The driver is part of what a selector sees (a name without domain is the driver's).
    assert not cache.matches(cache.compile('device.driver == "gpu.example.com"'), "other.example.com", first)
