"""Names and hashes as the controllers make them.

Mirrors k8s.io/apimachinery/pkg/util/rand (``String``, ``SafeEncodeString``), the API server's
``generateName`` (k8s.io/apiserver/pkg/storage/names ``SimpleNameGenerator``),
pkg/controller/controller_utils.go ``ComputeHash`` and
pkg/controller/history/controller_history.go ``HashControllerRevision`` (master 2026).

The one deliberate difference: upstream's ``ComputeHash`` (the Deployment's
``pod-template-hash`` and the DaemonSet's ``controller-revision-hash``) feeds fnv32a with
``hashutil.DeepHashObject``: go-spew's printing of the Go ``PodTemplateSpec`` struct, every field
of every nested type written with its Go type name, zero values included. That printing depends
on the exact Go type definitions of the release and cannot be reproduced faithfully from a
manifest, so :func:`compute_hash` feeds fnv32a with the template's canonical JSON (Go's
``json.Marshal`` of a map: sorted keys, no spaces, ``<>&`` escaped) instead; collisionCount,
fnv32a and the rendering are upstream's. The hash is stable (same template, same hash) and has
upstream's alphabet and length range, but its value differs from a real cluster's.
``HashControllerRevision`` (a StatefulSet's revision) hashes JSON upstream too, and is exact when
the template is written as the API server stores it (defaults applied, canonical quantities).
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from typing import Any, Final

__all__ = [
    "ALPHANUMS",
    "MAX_GENERATED_NAME_LENGTH",
    "canonical_json",
    "compute_hash",
    "fnv32",
    "fnv32a",
    "generate_name",
    "hash_controller_revision",
    "random_string",
    "safe_encode_string",
]

ALPHANUMS: Final = "bcdfghjklmnpqrstvwxz2456789"
"""rand's alphabet: no vowels (no words) and no 0, 1, 3 (no look-alikes of o, l, e)."""
_IDX_BITS: Final = 5
_IDX_MASK: Final = (1 << _IDX_BITS) - 1
_PER_INT63: Final = 63 // _IDX_BITS

MAX_NAME_LENGTH: Final = 63
RANDOM_LENGTH: Final = 5
MAX_GENERATED_NAME_LENGTH: Final = MAX_NAME_LENGTH - RANDOM_LENGTH

_FNV32_OFFSET: Final = 2166136261
_FNV32_PRIME: Final = 16777619


def random_string(rng: random.Random, n: int) -> str:
    """rand.String: ``n`` characters of :data:`ALPHANUMS`, drawn as upstream draws them (5 bits
    at a time from a 63-bit random integer, values past the alphabet skipped), from the
    simulation's seeded generator instead of Go's."""
    out: list[str] = []
    bits = rng.getrandbits(63)
    remaining = _PER_INT63
    while len(out) < n:
        if remaining == 0:
            bits, remaining = rng.getrandbits(63), _PER_INT63
        idx = bits & _IDX_MASK
        if idx < len(ALPHANUMS):
            out.append(ALPHANUMS[idx])
        bits >>= _IDX_BITS
        remaining -= 1
    return "".join(out)


def generate_name(rng: random.Random, base: str) -> str:
    """SimpleNameGenerator.GenerateName: ``base`` (cut to 58 characters) + 5 random characters."""
    return base[:MAX_GENERATED_NAME_LENGTH] + random_string(rng, RANDOM_LENGTH)


def safe_encode_string(s: str) -> str:
    """rand.SafeEncodeString: each character mapped into the alphabet by its code point."""
    return "".join(ALPHANUMS[ord(c) % len(ALPHANUMS)] for c in s)


def fnv32a(data: bytes, h: int = _FNV32_OFFSET) -> int:
    """hash/fnv New32a: xor, then multiply."""
    for b in data:
        h = ((h ^ b) * _FNV32_PRIME) & 0xFFFFFFFF
    return h


def fnv32(data: bytes, h: int = _FNV32_OFFSET) -> int:
    """hash/fnv New32: multiply, then xor."""
    for b in data:
        h = ((h * _FNV32_PRIME) & 0xFFFFFFFF) ^ b
    return h


def canonical_json(value: Any) -> bytes:
    """Go's ``json.Marshal`` of a ``map[string]interface{}``: keys sorted, no spaces, and
    ``<``, ``>``, ``&``, U+2028, U+2029 escaped as Go escapes them for HTML safety."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    for ch, esc in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                    ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(ch, esc)
    return text.encode()


def compute_hash(template: Mapping[str, Any], collision_count: int | None) -> str:
    """controller.ComputeHash over the template's canonical JSON (see the module doc): fnv32a,
    then collisionCount as 8 bytes (its uint32 little-endian, then zeros) when set, rendered as
    the decimal of the sum through SafeEncodeString."""
    h = fnv32a(canonical_json(template))
    if collision_count is not None:
        h = fnv32a((collision_count & 0xFFFFFFFF).to_bytes(4, "little") + bytes(4), h)
    return safe_encode_string(str(h))


def hash_controller_revision(patch: Mapping[str, Any], probe: int | None) -> str:
    """history.HashControllerRevision of a revision whose Data.Raw is ``patch`` marshalled:
    fnv32 (not 32a) over the bytes, then the probe's decimal text."""
    h = fnv32(canonical_json(patch))
    if probe is not None:
        h = fnv32(str(probe).encode(), h)
    return safe_encode_string(str(h))
