"""Copy-on-write edits of a manifest dict.

Objects keep their manifest in ``raw`` and never mutate it. Deriving an updated object
(binding, a status patch, admission) copies only the dicts along the edited paths and shares
every other branch with the original, so a bind does not deep-copy the whole pod.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

__all__ = ["DELETE", "Path", "with_paths"]

Path = tuple[str, ...]


class _Delete:
    def __repr__(self) -> str:
        return "DELETE"


DELETE: Final = _Delete()
"""A change value that removes the key instead of setting it."""


def _copy_dict(old: Any) -> dict[str, Any]:
    if type(old) is dict:  # the usual case; the Mapping check below is an ABC lookup
        return old.copy()
    return dict(old) if isinstance(old, Mapping) else {}


def with_paths(raw: Mapping[str, Any], changes: Mapping[Path, Any]) -> dict[str, Any]:
    """A new manifest equal to ``raw`` with each ``path -> value`` of ``changes`` applied.

    Dicts along the changed paths are shallow-copied (missing ones are created); everything
    else is shared with ``raw``, which is left untouched. ``DELETE`` removes a key.
    """
    out = dict(raw)
    copied: set[Path] = set()
    for path, value in changes.items():
        if not path:
            raise ValueError("empty path")
        node: dict[str, Any] = out
        if len(path) == 2:  # the usual edit (metadata.x, status.x, spec.x): no prefix loop
            key = path[0]
            if path[:1] not in copied:
                old = node.get(key)
                node[key] = _copy_dict(old)
                copied.add(path[:1])
            node = node[key]
        else:
            for i, key in enumerate(path[:-1]):
                prefix = path[: i + 1]
                if prefix not in copied:
                    old = node.get(key)
                    node[key] = _copy_dict(old)
                    copied.add(prefix)
                node = node[key]
        if value is DELETE:
            node.pop(path[-1], None)
        else:
            node[path[-1]] = value
    return out
