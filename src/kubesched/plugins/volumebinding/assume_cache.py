"""The PV and PVC assume caches: the store's objects overlaid with this scheduler's decisions.

Mirrors assume_cache.go (PVAssumeCache / PVCAssumeCache over
pkg/scheduler/util/assumecache, master 2026). Reserve assumes the bindings it chose (a PV
pre-bound to its claim, a claim annotated with the selected node) so that the next scheduling
cycles, which run before PreBind has written anything, do not hand the same PV to another pod.
Unreserve restores the store's version; PreBind restores after writing, when the store holds
the same decision. Upstream also drops an assumed object once the informer delivers a newer
version; our PreBind writes synchronously, so restoring after the write is equivalent. A lock
guards the caches: binding cycles may run in their own threads, like upstream's goroutines.
"""

from __future__ import annotations

import threading

from ...api import PersistentVolume, PersistentVolumeClaim
from ..helper.volume.listers import VolumeListers
from ..helper.volume.storage_helpers import pv_class

__all__ = ["PVAssumeCache", "PVCAssumeCache"]


class PVAssumeCache:
    """PVs by name; ``list_pvs(class)`` serves the pre-provisioned PVs of one storage class."""

    def __init__(self, listers: VolumeListers) -> None:
        self._listers = listers
        self._assumed: dict[str, PersistentVolume] = {}
        self._lock = threading.Lock()

    def get_pv(self, name: str) -> PersistentVolume | None:
        with self._lock:
            hit = self._assumed.get(name)
        return hit if hit is not None else self._listers.pv(name)

    def list_pvs(self, storage_class_name: str) -> list[PersistentVolume]:
        """ListPVs: the store's PVs of the class (the "storageclass" index), assumed versions
        replacing stored ones, in name order for determinism."""
        out: dict[str, PersistentVolume] = {pv.name: pv for pv in self._listers.pvs()
                                            if pv_class(pv) == storage_class_name}
        with self._lock:
            assumed = list(self._assumed.items())
        for name, pv in assumed:
            if pv_class(pv) == storage_class_name:
                out[name] = pv
        return [out[k] for k in sorted(out)]

    def assume(self, pv: PersistentVolume) -> None:
        with self._lock:
            self._assumed[pv.name] = pv

    def restore(self, name: str) -> None:
        with self._lock:
            self._assumed.pop(name, None)

    def is_assumed(self, name: str) -> bool:
        with self._lock:
            return name in self._assumed


class PVCAssumeCache:
    """PVCs by ``namespace/name``."""

    def __init__(self, listers: VolumeListers) -> None:
        self._listers = listers
        self._assumed: dict[str, PersistentVolumeClaim] = {}
        self._lock = threading.Lock()

    def get_pvc(self, namespace: str, name: str) -> PersistentVolumeClaim | None:
        with self._lock:
            hit = self._assumed.get(f"{namespace}/{name}")
        return hit if hit is not None else self._listers.pvc(namespace, name)

    def assume(self, pvc: PersistentVolumeClaim) -> None:
        with self._lock:
            self._assumed[pvc.key] = pvc

    def restore(self, key: str) -> None:
        with self._lock:
            self._assumed.pop(key, None)

    def is_assumed(self, key: str) -> bool:
        with self._lock:
            return key in self._assumed
