"""Namespace lookups for namespaceSelector terms, through the handle's store.

Upstream reads namespaces through a NamespaceLister (plugin.go GetNamespaceLabelsSnapshot and
mergeAffinityTermNamespacesIfNotEmpty). Here they come from ``handle.store.list("Namespace")``;
a plugin built without a handle (or a store without namespaces) sees none, so a namespace
selector then selects nothing, and an unknown namespace has no labels, as upstream.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from ...api import Namespace

if TYPE_CHECKING:
    from ...framework import Handle

__all__ = ["NamespaceReader"]

NAMESPACE = "Namespace"


class NamespaceReader:
    __slots__ = ("_handle",)

    def __init__(self, handle: Handle | None) -> None:
        self._handle = handle

    def list(self) -> list[Namespace]:
        store = self._handle.store if self._handle is not None else None
        if store is None:
            return []
        try:
            items = store.list(NAMESPACE)
        except (LookupError, AttributeError, TypeError, ValueError):
            return []
        return [n for n in items if isinstance(n, Namespace)]

    def labels(self, name: str) -> Mapping[str, str]:
        """GetNamespaceLabelsSnapshot: a copy of the namespace's labels, empty when unknown."""
        for ns in self.list():
            if ns.name == name:
                return dict(ns.labels)
        return {}
