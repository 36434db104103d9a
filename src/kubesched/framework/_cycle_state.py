"""CycleState: per-cycle data plugins share between extension points.

Mirrors pkg/scheduler/framework/cycle_state.go: keys are strings (by convention the phase plus
the plugin name, e.g. ``PreFilterNodeResourcesFit``), values implement ``clone()``; preemption
clones the state before dry runs. A missing key raises :class:`StateNotFound`, a KeyError whose
text is upstream's ``fwk.ErrNotFound``: "not found".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from ..api import Pod

__all__ = ["PODS_TO_ACTIVATE_KEY", "CycleState", "PodsToActivate", "StateData", "StateNotFound"]

PODS_TO_ACTIVATE_KEY = "kubernetes.io/pods-to-activate"
"""framework.PodsToActivateKey: plugins put pods here to have them moved to activeQ."""


@dataclass
class PodsToActivate:
    """framework.PodsToActivate: ``ns/name`` -> pod; shared (not copied) by CycleState.clone."""

    map: dict[str, Pod] = field(default_factory=dict)

    def clone(self) -> PodsToActivate:
        return self


class StateNotFound(KeyError):
    """CycleState.Read of a key nobody wrote: fwk.ErrNotFound, whose text is "not found".

    Upstream's messages carry that text as it is: a pod that VolumeBinding's PreFilter rejects
    (unbound immediate claims) never reaches DynamicResources' PreFilter, whose PostFilter then
    fails reading its state, and kube-scheduler reports ``0/N nodes are available: pod has
    unbound immediate PersistentVolumeClaims. not found``. The key stays in ``args`` (repr)."""

    def __str__(self) -> str:
        return "not found"


class StateData(Protocol):
    def clone(self) -> StateData: ...


T = TypeVar("T")


class CycleState:
    __slots__ = ("_data", "record_plugin_metrics", "skip_filter_plugins", "skip_pre_bind_plugins",
                 "skip_score_plugins")

    def __init__(self) -> None:
        self._data: dict[str, Any] = {}
        self.record_plugin_metrics = False
        self.skip_filter_plugins: set[str] = set()
        self.skip_score_plugins: set[str] = set()
        self.skip_pre_bind_plugins: set[str] = set()  # set by RunPreBindPreFlights

    def read(self, key: str) -> Any:
        try:
            return self._data[key]
        except KeyError:
            raise StateNotFound(key) from None

    def read_as(self, key: str, typ: type[T]) -> T:
        """Read and type-check, as upstream's per-plugin getState helpers do."""
        v = self.read(key)
        if not isinstance(v, typ):
            raise TypeError(f"{v!r} convert to {typ.__name__} error")
        return v

    def get(self, key: str, default: Any = None) -> Any:
        return self._data.get(key, default)

    def write(self, key: str, value: Any) -> None:
        self._data[key] = value

    def delete(self, key: str) -> None:
        self._data.pop(key, None)

    def __contains__(self, key: str) -> bool:
        return key in self._data

    def clone(self) -> CycleState:
        c = CycleState()
        for k, v in self._data.items():
            clone = getattr(v, "clone", None)
            c._data[k] = clone() if callable(clone) else v
        c.record_plugin_metrics = self.record_plugin_metrics
        c.skip_filter_plugins = set(self.skip_filter_plugins)
        c.skip_score_plugins = set(self.skip_score_plugins)
        c.skip_pre_bind_plugins = set(self.skip_pre_bind_plugins)
        return c
