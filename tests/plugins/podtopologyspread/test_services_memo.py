"""The Services read for system-default spreading are re-read when the store's Services change."""

from __future__ import annotations

from typing import Any

from kubesched.plugins.podtopologyspread import PodTopologySpread
from kubesched.plugins.podtopologyspread._args import SCHEDULE_ANYWAY
from kubesched.testing import make_pod

from .._harness import FakeHandle


class _ServiceStore:
    """A store holding raw Service objects, with a per-kind version like MemoryStore's."""

    def __init__(self) -> None:
        self.services: list[dict[str, Any]] = []
        self.version = 0
        self.reads = 0

    def add(self, selector: dict[str, str]) -> None:
        self.services.append({"metadata": {"namespace": "default"}, "spec": {"selector": selector}})
        self.version += 1

    def kind_version(self, kind: str) -> int:
        return self.version if kind == "Service" else 0

    def list(self, kind: str, namespace: str) -> list[dict[str, Any]]:
        self.reads += 1
        return list(self.services) if kind == "Service" else []


def test_default_constraints_follow_a_new_service() -> None:
    store = _ServiceStore()
    pl = PodTopologySpread(handle=FakeHandle(store=store))
    pod = make_pod().name("p").namespace("default").labels({"app": "web"}).obj()
    assert pl.build_default_constraints(pod, SCHEDULE_ANYWAY) == []
    assert pl.build_default_constraints(pod, SCHEDULE_ANYWAY) == []
    assert store.reads == 1  # unchanged Services: read once
    store.add({"app": "web"})
    cons = pl.build_default_constraints(pod, SCHEDULE_ANYWAY)
    assert cons and all(c.selector is not None and not c.selector.is_empty for c in cons)
    assert store.reads == 2
