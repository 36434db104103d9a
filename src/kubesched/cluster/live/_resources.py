"""REST paths of the kinds the scheduler reads (``api.loader.KINDS``)."""

from __future__ import annotations

from ...api.loader import KINDS

__all__ = ["collection_path", "object_path"]


def _prefix(kind: str, api_version: str | None) -> str:
    info = KINDS[kind]
    version = api_version or info.api_version
    return f"/apis/{version}" if info.group else f"/api/{version}"


def collection_path(kind: str, namespace: str = "", api_version: str | None = None) -> str:
    """``/api/v1/pods`` (all namespaces) or ``/api/v1/namespaces/NS/pods``; ``api_version``:
    another of the kind's versions than its preferred one."""
    ns = f"/namespaces/{namespace}" if namespace and KINDS[kind].namespaced else ""
    return f"{_prefix(kind, api_version)}{ns}/{KINDS[kind].plural}"


def object_path(kind: str, namespace: str, name: str, subresource: str = "") -> str:
    tail = f"/{subresource}" if subresource else ""
    return f"{collection_path(kind, namespace)}/{name}{tail}"
