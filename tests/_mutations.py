"""Mutating a parsed YAML document at one path, for the tests that feed kubesched every wrong
value at every place (manifests, configurations) and check it answers with an error, never a
crash."""

from __future__ import annotations

import copy
from collections.abc import Collection
from typing import Any

DELETE = object()
"""The value that removes the path's last key or item instead of setting it."""


def document_paths(node: Any, prefix: tuple[Any, ...] = (),
                   skip: Collection[str] = ()) -> list[tuple[Any, ...]]:
    """Every path below ``node`` (mapping keys and list indexes), depth first; a key in
    ``skip`` is left out with everything below it."""
    if isinstance(node, dict):
        items: Any = node.items()
    elif isinstance(node, list):
        items = enumerate(node)
    else:
        return []
    out: list[tuple[Any, ...]] = []
    for key, child in items:
        if key in skip:
            continue
        out.append((*prefix, key))
        out += document_paths(child, (*prefix, key), skip)
    return out


def mutated(doc: Any, path: tuple[Any, ...], value: Any) -> Any:
    """A copy of ``doc`` with ``value`` at ``path`` (:data:`DELETE`: the entry removed)."""
    out = copy.deepcopy(doc)
    node = out
    for key in path[:-1]:
        node = node[key]
    if value is DELETE:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return out
