"""One LIST per kind: the reflector's paginated list, shared by the informers (``run``) and by
the read-only cluster input (:mod:`._snapshot`).

A paginated list is one consistent snapshot of its kind: the first page fixes the
resourceVersion and every ``continue`` token reads at that version (upstream's
``ListPager``, k8s.io/client-go/tools/pager).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from ...api import BranchSharer
from ...api.loader import KINDS, ApiObject, parse_object, parse_update
from .._store import NotFound
from ._resources import collection_path
from ._rest import RestClient

__all__ = ["PAGE", "list_kind", "parse_listed"]

log = logging.getLogger(__name__)

PAGE: Final = 500
"""Items per page (the reflector's default page size)."""

def parse_listed(kind: str, raw: Any, prev: ApiObject | None = None,
                 api_version: str | None = None, sharer: BranchSharer | None = None,
                 learn: bool = True) -> ApiObject | None:
    """The api object for an item the server sent, or None (logged) for one kubesched cannot
    read. ``prev``: a cached earlier version of it, whose unchanged parts need not be parsed
    again (the same object results from any earlier version, so a stale one is fine).
    ``api_version``: the version it was listed from (list items carry none), default the
    kind's preferred one. ``sharer``: the list's (or the informer's)
    :class:`~kubesched.api.BranchSharer`, which replaces the item's branches equal to those of
    an item read before by those, as the loader does for manifests (``raw`` is the server's
    freshly decoded item: nothing else reads it); ``learn``: whether the item's own branches
    are kept for the items after it (see :meth:`~kubesched.api.BranchSharer.share`)."""
    try:
        doc = dict(raw)
        doc.setdefault("kind", kind)
        doc.setdefault("apiVersion", api_version or KINDS[kind].api_version)
        if sharer is not None:
            sharer.share(doc, learn=learn)
        return parse_object(doc) if prev is None else parse_update(prev, doc)
    except Exception as exc:
        md = (raw or {}).get("metadata") if isinstance(raw, Mapping) else None
        name = f"{md.get('namespace', '')}/{md.get('name', '')}" if isinstance(md, Mapping) else "?"
        log.warning("skipping %s %s from the API server: %s", kind, name.lstrip("/"), exc)
        return None


def list_kind(rest: RestClient, kind: str, on_page: Callable[[Sequence[Any], int], None], *,
              field_selector: str | None = None, optional: bool = False,
              api_version: str | None = None) -> str:
    """List every ``kind`` object, page by page: ``on_page(items, remaining)`` for each page
    (``remaining``: the server's ``remainingItemCount``, 0 when it does not say). Returns the
    list's resourceVersion. ``api_version``: the version to read (default the kind's preferred
    one). For an optional kind, API discovery first: a group version the server does not
    serve, or one without the kind's resource (a beta version served without the feature gate
    that adds the resource), raises NotFound without listing."""
    info = KINDS[kind]
    version = api_version or info.api_version
    if optional and version != "v1":
        try:
            found = rest.request("GET", f"/apis/{version}")
        except NotFound:
            raise NotFound(f"{version} is not served by the API server") from None
        resources = found.get("resources") if isinstance(found, Mapping) else None
        if isinstance(resources, list) and info.plural not in {
                r.get("name") for r in resources if isinstance(r, Mapping)}:
            raise NotFound(f"{version} is served without {info.plural}")
    cont: str | None = None
    rv = ""
    while True:
        body = rest.request("GET", collection_path(kind, api_version=version), query={
            "limit": PAGE, "continue": cont, "fieldSelector": field_selector})
        md = body.get("metadata") or {}
        on_page(body.get("items") or (), int(md.get("remainingItemCount") or 0))
        rv = str(md.get("resourceVersion") or rv)
        cont = md.get("continue") or None
        if not cont:
            return rv
