"""Read (and, for PreBind, write) the storage objects the volume plugins need, through the store.

Upstream's volume plugins read PersistentVolumes, PersistentVolumeClaims, StorageClasses and
CSINodes through informer listers (``corelisters`` / ``storagelisters``); here they come from the
handle's cluster store. A missing object is ``None`` (the listers' NotFound error); the message
of that error is built by :func:`not_found` so reason strings match upstream's
(``persistentvolumeclaim "x" not found``).

The store (kubesched.cluster.Store) is reached only through ``try_get(kind, namespace, name)``,
``list(kind)``, ``create(obj)`` and ``update(obj)``; a plugin built without a handle sees an
empty cluster.
"""

from __future__ import annotations

from typing import Any

from kubesched.api import CSINode, Node, PersistentVolume, PersistentVolumeClaim, StorageClass
from kubesched.cluster import ControllerSimulation, Store

__all__ = ["CSI_NODE", "PV", "PVC", "SC", "VolumeListers", "not_found"]

PVC = "PersistentVolumeClaim"
PV = "PersistentVolume"
SC = "StorageClass"
CSI_NODE = "CSINode"

# The qualified resource names apierrors.NewNotFound prints (lister errors).
_RESOURCE = {
    PVC: "persistentvolumeclaim",
    PV: "persistentvolume",
    SC: "storageclass.storage.k8s.io",
    CSI_NODE: "csinode.storage.k8s.io",
}


def not_found(kind: str, name: str) -> str:
    """apierrors.NewNotFound(...).Error(): ``<resource> "<name>" not found``."""
    return f'{_RESOURCE.get(kind, kind.lower())} "{name}" not found'


class VolumeListers:
    """Typed getters over the store for the storage kinds (the listers upstream plugins hold)."""

    __slots__ = ("_store",)

    def __init__(self, store: Store | None) -> None:
        self._store = store

    @property
    def store(self) -> Store | None:
        return self._store

    @property
    def simulates_controllers(self) -> bool:
        """Whether PreBind must also do the PV controller's and provisioner's part (the
        embedded store: nothing else would) or, against a real cluster (a store that says
        ``simulates_controllers`` False, :class:`~kubesched.cluster.ControllerSimulation`),
        write upstream's updates and wait for them."""
        store = self._store
        return store.simulates_controllers if isinstance(store, ControllerSimulation) else True

    def _get(self, kind: str, namespace: str, name: str) -> Any:
        if self._store is None or not name:
            return None
        return self._store.try_get(kind, namespace, name)

    def _list(self, kind: str) -> list[Any]:
        if self._store is None:
            return []
        return list(self._store.list(kind))

    def pvc(self, namespace: str, name: str) -> PersistentVolumeClaim | None:
        obj = self._get(PVC, namespace, name)
        return obj if isinstance(obj, PersistentVolumeClaim) else None

    def pv(self, name: str) -> PersistentVolume | None:
        obj = self._get(PV, "", name)
        return obj if isinstance(obj, PersistentVolume) else None

    def pvs(self) -> list[PersistentVolume]:
        return [o for o in self._list(PV) if isinstance(o, PersistentVolume)]

    def storage_class(self, name: str) -> StorageClass | None:
        obj = self._get(SC, "", name)
        return obj if isinstance(obj, StorageClass) else None

    def node(self, name: str) -> Node | None:
        obj = self._get("Node", "", name)
        return obj if isinstance(obj, Node) else None

    def csi_node(self, name: str) -> CSINode | None:
        obj = self._get(CSI_NODE, "", name)
        return obj if isinstance(obj, CSINode) else None

    # -- writes (VolumeBinding's PreBind) -------------------------------------------------
    def update(self, obj: Any) -> Any:
        if self._store is None:
            raise RuntimeError("no cluster store to write to")
        return self._store.update(obj)

    def create(self, obj: Any) -> Any:
        if self._store is None:
            raise RuntimeError("no cluster store to write to")
        return self._store.create(obj)
