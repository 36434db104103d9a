"""Equal branches of the manifests read, held once.

A large cluster's manifests repeat themselves: the pods of one ReplicaSet carry the same
containers, tolerations, volumes, owner and managedFields entries, the nodes the same images
and conditions. Decoded, each copy is its own dicts, lists and strings (a pod of a realistic
dump is some 20 KiB of Python objects), and holding 50,000 of them is most of what
``kubesched ui`` holds. Manifests are never changed in place (``raw`` is copy-on-write, see
``_raw.with_paths``), so equal branches can be one object: the output (``snapshot``'s export,
``to_dict``) is the same, dict key order included, since branches are matched on their text
(JSON, in order; held as a 128-bit digest, not the text: the texts would outweigh what
sharing saves).
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable
from typing import Any, Final

from ._json import _fast

__all__ = ["BranchSharer"]

_DEPTH: Final = 4
"""How deep below an object's top level branches are matched: deep enough to reach a pod's
containers (``spec.containers``) and a node's images (``status.images``), shallow enough that
matching (one encoding per branch tried) stays a small part of reading."""


def _repr_bytes(value: Any) -> bytes:
    return repr(value).encode("utf-8", "surrogatepass")


def _encoder() -> Callable[[Any], bytes]:
    """A branch's text, equal for equal branches (in order) and only for them: orjson's JSON
    when installed (reading 50,000 pods encodes every branch a few times: it is five times
    faster than the alternatives), else ``repr``. orjson refuses (TypeError) what would pass
    for something else (a non-string key, a date: the YAML loader makes none); ``repr`` tells
    every builtin type apart, as JSON's standard encoder does not (``{1: x}`` and ``{"1": x}``)."""
    fast = _fast()
    if fast is None:
        return _repr_bytes
    return functools.partial(fast.dumps, option=fast.OPT_PASSTHROUGH_DATETIME)


class BranchSharer:
    """Replaces, in each manifest given, the branches equal to one seen before (in this
    sharer's lifetime: one load) by that one."""

    def __init__(self) -> None:
        self._encode = _encoder()
        self._seen: dict[bytes, Any] = {}  # a branch's text's digest -> the branch

    def share(self, manifest: dict[str, Any]) -> None:
        """Shares ``manifest``'s branches in place (it is not read by anything yet)."""
        self._branches(manifest, _DEPTH)

    def _branches(self, node: Any, depth: int) -> None:  # a dict or a list
        items = node.items() if type(node) is dict else enumerate(node)
        for key, value in list(items):
            if (type(value) is not dict and type(value) is not list) or not value:
                continue
            try:
                text = self._encode(value)
            except TypeError:  # what orjson refuses: left as is
                continue
            digest = hashlib.blake2b(text, digest_size=16).digest()
            held = self._seen.get(digest)
            if held is not None:
                node[key] = held
            else:
                self._seen[digest] = value
                if depth > 1:
                    self._branches(value, depth - 1)
