"""The live cluster as a simulation's input, read-only: one consistent LIST per kind
(:func:`list_kind`), never a watch, never a write.

``simulate``, ``explain``, ``capacity`` and ``snapshot`` answer about the cluster as it is:
the objects are decoded exactly as the informers of ``kubesched run`` decode them
(:func:`parse_listed`) into the loader's :class:`~kubesched.api.loader.LoadedObjects`, so
what follows (admission into the embedded store, the simulation) is the same as for files.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any, Final

from ...api import BranchSharer, KubeVersion
from ...api.loader import KINDS, LoadedObjects, ProgressFn
from .._store import Invalid, NotFound
from ._pager import list_kind, parse_listed
from ._rest import RestClient
from ._store import POD_FIELD_SELECTOR, watched_kinds

__all__ = ["READ_KINDS", "list_cluster", "read_kinds"]

log = logging.getLogger(__name__)

READ_KINDS: Final[tuple[str, ...]] = tuple(k for k, info in KINDS.items() if info.live and not info.gates)
"""What the cluster input lists (``KindInfo.live``): the kinds ``run`` watches in every
release and with any gates (not DeviceTaintRules), and PriorityClasses, which a simulation's
admission resolves ``priorityClassName`` against (the scheduler itself reads only
``spec.priority``, so ``run`` has no informer for them). In dependency order."""

_OPTIONAL_READ: Final = frozenset(k for k, info in KINDS.items() if info.live and info.optional)
"""Kinds listed as empty (``KindInfo.optional``) when the server does not serve them or the
token may not list them: the DRA kinds (see OPTIONAL_KINDS) and PriorityClasses
(``system:kube-scheduler`` grants none, so a scheduler's token still reads a cluster; pods keep
their admitted priority)."""


def read_kinds(release: KubeVersion, features: Mapping[str, bool]) -> dict[str, str]:
    """Kind -> apiVersion the cluster input lists for a simulation as ``release`` with
    ``features``: :data:`READ_KINDS`, and the kinds only some releases' schedulers watch
    (DeviceTaintRules, see :func:`watched_kinds`) in that release's version, in dependency
    order: what ``run`` as that release would see."""
    gated = watched_kinds(release, features)
    return {k: gated.get(k, info.api_version) for k, info in KINDS.items() if k in READ_KINDS or k in gated}


def list_cluster(rest: RestClient, kinds: Sequence[str] | Mapping[str, str] = READ_KINDS,
                 progress: ProgressFn | None = None) -> LoadedObjects:
    """Every object of ``kinds`` on the server (kind -> apiVersion, :func:`read_kinds`, or
    kinds in their preferred versions), one list per kind, as loaded objects (origin:
    ``<server>: <plural>``): what the scheduler's informers would hold once synced (pods that
    finished are left out, as ``newPodInformer`` does). Reads only. An optional kind the
    server does not serve or grant is empty (logged); any other API error is raised."""
    out = LoadedObjects()
    versions: Mapping[str, str] = kinds if isinstance(kinds, Mapping) else {}
    sharer = BranchSharer()  # equal branches held once, across kinds, as the loader holds them
    for kind in kinds:
        version = versions.get(kind) or KINDS[kind].api_version
        where = f"{rest.host}: {KINDS[kind].plural}"
        done = 0

        def page(items: Sequence[Any], remaining: int, kind: str = kind, where: str = where,
                 version: str = version) -> None:
            nonlocal done
            for item in items:
                obj = parse_listed(kind, item, api_version=version, sharer=sharer)
                if obj is not None:
                    out.add(obj, where)
            done += len(items)
            if progress is not None:
                progress(f"listing {KINDS[kind].plural}", done, done + remaining if remaining else 0)

        if progress is not None:
            progress(f"listing {KINDS[kind].plural}", 0, 0)
        try:
            list_kind(rest, kind, page, field_selector=POD_FIELD_SELECTOR if kind == "Pod" else None,
                      optional=kind in _OPTIONAL_READ, api_version=version)
        except (NotFound, Invalid) as exc:
            if kind not in _OPTIONAL_READ:
                raise
            # Not served (404: nothing of it can exist) is no news; not granted (403) is.
            (log.info if isinstance(exc, NotFound) else log.warning)(
                "%s: %s cannot be listed (%s); treating it as empty", kind, version, exc)
    return out
