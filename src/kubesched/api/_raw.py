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
    tops: set[str] = set()  # top-level keys already copied (copied's one-element prefixes)
    for path, value in changes.items():
        if len(path) == 2:  # the usual edit (metadata.x, status.x, spec.x): no prefix loop
            key, leaf = path
            if key in tops:
                node = out[key]
            else:
                node = out[key] = _copy_dict(out.get(key))
                tops.add(key)
                copied.add(path[:1])
        elif not path:
            raise ValueError("empty path")
        else:
            node = out
            for i, key in enumerate(path[:-1]):
                prefix = path[: i + 1]
                if prefix not in copied:
                    node[key] = _copy_dict(node.get(key))
                    copied.add(prefix)
                    if i == 0:
                        tops.add(key)
                node = node[key]
            leaf = path[-1]
        if value is DELETE:
            node.pop(leaf, None)
        else:
            node[leaf] = value
    return out
