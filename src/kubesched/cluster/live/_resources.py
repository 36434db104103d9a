"""REST paths of the kinds the scheduler reads (``api.loader.KINDS``)."""

from __future__ import annotations

from ...api.loader import KINDS

__all__ = ["collection_path", "object_path"]


def _prefix(kind: str) -> str:
    info = KINDS[kind]
    return f"/apis/{info.api_version}" if info.group else f"/api/{info.api_version}"


def collection_path(kind: str, namespace: str = "") -> str:
    """``/api/v1/pods`` (all namespaces) or ``/api/v1/namespaces/NS/pods``."""
    ns = f"/namespaces/{namespace}" if namespace and KINDS[kind].namespaced else ""
    return f"{_prefix(kind)}{ns}/{KINDS[kind].plural}"


def object_path(kind: str, namespace: str, name: str, subresource: str = "") -> str:
    tail = f"/{subresource}" if subresource else ""
    return f"{collection_path(kind, namespace)}/{name}{tail}"
