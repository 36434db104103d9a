"""Equal branches of the manifests read, held once.

A large cluster's manifests repeat themselves: the pods of one ReplicaSet carry the same
containers, tolerations, volumes, owner and managedFields entries, the nodes the same images
and conditions. Decoded, each copy is its own dicts, lists and strings (a pod of a realistic
dump is some 20 KiB of Python objects), and holding 50,000 of them is most of what
``kubesched ui`` holds. Manifests are never changed in place (``raw`` is copy-on-write, see
``_raw.with_paths``), so equal branches can be one object. Nothing written out tells: branches
are matched on their serialization (key order and value types included, see :func:`_text`),
and the YAML writers write a branch met twice in full each time, never as an alias
(``simulator._yaml_out``), so the output is the same bytes as without sharing.
"""

from __future__ import annotations

import hashlib
import marshal
from collections.abc import Mapping
from typing import Any, Final

__all__ = ["BranchSharer"]

_DEPTH: Final = 4
"""How deep below an object's top level branches are matched: deep enough to reach a pod's
containers (``spec.containers``) and a node's images (``status.images``), shallow enough that
matching (one encoding per branch tried) stays a small part of reading."""

_MARSHAL_VERSION: Final = 2
"""marshal's format 2: from format 3 on, an object referenced twice (a string the interpreter
interned, a branch already shared) is written as a back-reference, so equal branches could
give different bytes."""


def _text(value: Any) -> bytes:
    """A branch's serialization, equal for equal branches (in order, of the same types) and
    only for them: marshal's, from the standard library and in C (as fast as orjson's JSON on
    a realistic dump, two to three times faster than ``repr``, and nothing to import: the
    offline commands never load the ``live`` extra's orjson). It tells every builtin type apart
    (``1``, ``1.0``, ``True``, ``"1"``; a tuple from a list) and raises ValueError for anything
    else (a date, a subclass: the YAML loader makes none) and for a branch nested 2000 deep."""
    return marshal.dumps(value, _MARSHAL_VERSION)


class BranchSharer:
    """Replaces, in each manifest given, the branches equal to one seen before (in this
    sharer's lifetime: one load, one list of a live cluster) by that one."""

    def __init__(self) -> None:
        self._seen: dict[bytes, Any] = {}  # a branch's serialization's digest -> the branch

    def share(self, manifest: dict[str, Any], *, learn: bool = True) -> None:
        """Shares ``manifest``'s branches in place (it is not read by anything yet). With
        ``learn`` False its branches are only matched against those seen, never kept: what a
        watch event carries shares the listed objects' branches, and the sharer holds no more
        than the list however long the watch runs (each event's new metadata, kept, would
        keep every version of every object alive)."""
        self._branches(manifest, _DEPTH, learn, True)

    def remember(self, manifest: Mapping[str, Any]) -> None:
        """Keeps ``manifest``'s branches for the manifests after it, never changing it (it is
        read already: an object listed before, kept as it was)."""
        if type(manifest) is dict:
            self._branches(manifest, _DEPTH, True, False)

    def _branches(self, node: Any, depth: int, learn: bool, replace: bool) -> None:  # a dict or a list
        items = node.items() if type(node) is dict else enumerate(node)
        for key, value in list(items):
            if (type(value) is not dict and type(value) is not list) or not value:
                continue
            try:
                text = _text(value)
            except ValueError:  # what marshal refuses: left as is
                continue
            # a 128-bit digest is held, not the text: the texts would outweigh what sharing saves
            digest = hashlib.blake2b(text, digest_size=16).digest()
            held = self._seen.get(digest)
            if held is not None:
                if replace:
                    node[key] = held
                continue
            if learn:
                self._seen[digest] = value
            if depth > 1:
                self._branches(value, depth - 1, learn, replace)
