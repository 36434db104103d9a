"""Object metadata and time stamps, shared by every kind.

Kubernetes objects carry RFC 3339 time stamps; the scheduler works in seconds on its clock
(:mod:`kubesched.clock`), so we keep them as float seconds since the Unix epoch.
"""

from __future__ import annotations

import copy
import dataclasses
import math
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Any, Final, Self, cast

from . import _fields
from ._cached import cached_property
from ._raw import Path, with_paths

__all__ = ["ManifestObject", "ObjectMeta", "format_time", "parse_time"]


def parse_int32(value: Any, path: str) -> int:
    """An int32 API field (``spec.priority``, a PriorityClass's ``value``): the API server's
    JSON decoding refuses anything else (a string, a fraction, ``.inf``, or a number out of range,
    e.g. ``cannot unmarshal number 1e+20 into Go struct field PodSpec.spec.priority of type int32``)."""
    return _fields.int32(value, path)


_TIME_RANGE: Final = (-62_135_596_800.0, 253_402_300_799.0)
"""0001-01-01T00:00:00Z .. 9999-12-31T23:59:59Z: what RFC 3339 (and metav1.Time) can write."""


def time_field(value: Any, path: str) -> float | None:
    """A metav1.Time field: :func:`parse_time`, with errors naming ``path``; a value that is no
    time at all (a list, a boolean, ``.inf``, a number beyond year 9999) is refused."""
    if value is None or type(value) is str:
        try:
            return parse_time(value)
        except ValueError:
            raise _fields.FieldValueError.invalid(path, value, "must be an RFC 3339 time") from None
    if isinstance(value, datetime):
        return parse_time(value)
    if isinstance(value, int | float) and not isinstance(value, bool):
        lo, hi = _TIME_RANGE
        if lo <= value <= hi:  # False for nan
            return float(value)
    raise _fields.FieldValueError.invalid(path, value, "must be an RFC 3339 time")


def parse_time(text: Any) -> float | None:
    """RFC 3339 (``2024-01-02T03:04:05Z``, with or without fraction/offset) -> epoch seconds."""
    if type(text) is str:  # the usual case first: one memoised lookup
        return _parse_time_str(text) if text else None
    if text is None:
        return None
    if isinstance(text, int | float):
        return float(text)
    if isinstance(text, datetime):
        dt = text if text.tzinfo else text.replace(tzinfo=UTC)
        return dt.timestamp()
    if isinstance(text, str):
        return _parse_time_str(text)
    return _parse_time_text(text)


def _parse_time_text(text: Any) -> float:
    s = str(text).strip()
    if s.endswith(("Z", "z")):
        s = s[:-1] + "+00:00"
    try:
        dt = datetime.fromisoformat(s)
    except ValueError as exc:
        raise ValueError(f"invalid RFC 3339 time {text!r}") from exc
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return dt.timestamp()


# Time stamps repeat (every object written in the same virtual second carries the same one).
_parse_time_str = lru_cache(maxsize=1024)(_parse_time_text)


def format_time(seconds: float) -> str:
    """Epoch seconds -> RFC 3339 in UTC, second precision as the API server writes it.

    Memoised per whole second (rounded to microseconds first, as ``datetime.fromtimestamp``
    does): a clock that moves on every cycle still writes the same stamp all second long.
    The rounding (a float-to-decimal conversion, the costliest step: the store stamps every
    binding) can only change the second within a microsecond of the next one."""
    second = math.floor(seconds)
    if seconds - second >= 0.999999:
        second = math.floor(round(seconds, 6))
    return _format_second(second)


_EPOCH: Final = datetime(1970, 1, 1)
_YEAR_1000: Final = -30_610_224_000
_YEAR_10000: Final = 253_402_300_800


@lru_cache(maxsize=1024)
def _format_second(second: int) -> str:
    """The stamp of a whole second. A replayed trace moves to a new second at nearly every
    event, so the cache rarely helps there; datetime arithmetic and ``isoformat`` give the
    same text as ``strftime`` at under half its cost (years 1000 to 9999, where ``%Y`` has
    four digits; outside them strftime's own text, or its error)."""
    if _YEAR_1000 <= second < _YEAR_10000:
        return (_EPOCH + timedelta(seconds=second)).isoformat() + "Z"
    return datetime.fromtimestamp(second, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True)
class ObjectMeta:
    """metav1.ObjectMeta: the fields the scheduler reads.

    Not slotted: every store write stamps a new resourceVersion, and :meth:`updated` derives
    the new meta by copying ``__dict__`` (one C call) instead of re-running the frozen
    ``__init__`` field by field."""

    name: str
    namespace: str = ""
    uid: str = ""
    labels: Mapping[str, str] = field(default_factory=dict)
    annotations: Mapping[str, str] = field(default_factory=dict)
    resource_version: str = ""
    creation_timestamp: float | None = None
    deletion_timestamp: float | None = None
    deletion_grace_period_seconds: int | None = None
    owner_references: tuple[Mapping[str, Any], ...] = ()
    generation: int = 0

    @cached_property
    def key(self) -> str:
        """``namespace/name`` for namespaced objects, ``name`` otherwise (cache.MetaNamespaceKeyFunc).
        Cached: the queue and the store key every pod operation by it; :meth:`updated` carries
        it over, as it re-reads only fields other than name and namespace."""
        return f"{self.namespace}/{self.name}" if self.namespace else self.name

    @staticmethod
    def from_dict(d: Mapping[str, Any]) -> ObjectMeta:
        """Parse ``metadata``; a field of the wrong type raises FieldValueError naming it."""
        d = _fields.mapping(d, "metadata")
        return ObjectMeta(
            name=_fields.string(d.get("name"), "metadata.name"),
            namespace=_fields.string(d.get("namespace"), "metadata.namespace"),
            uid=_fields.string(d.get("uid"), "metadata.uid"),
            labels=_fields.string_map(d.get("labels"), "metadata.labels"),
            annotations=_fields.string_map(d.get("annotations"), "metadata.annotations"),
            resource_version=_fields.string(d.get("resourceVersion"), "metadata.resourceVersion"),
            creation_timestamp=time_field(d.get("creationTimestamp"), "metadata.creationTimestamp"),
            deletion_timestamp=time_field(d.get("deletionTimestamp"), "metadata.deletionTimestamp"),
            deletion_grace_period_seconds=_fields.opt_int64(
                d.get("deletionGracePeriodSeconds"), "metadata.deletionGracePeriodSeconds"),
            owner_references=tuple(
                r for r, _ in _fields.objects(d.get("ownerReferences"), "metadata.ownerReferences")),
            generation=_fields.int64(d.get("generation"), "metadata.generation"),
        )

    def updated(self, d: Mapping[str, Any], keys: Collection[str | None]) -> ObjectMeta:
        """The meta of the edited ``metadata`` dict ``d``, whose ``keys`` changed (None: the
        whole dict, or something below a key). Scalar fields (resourceVersion, uid, time stamps,
        generation: what every store write touches) are re-read alone; anything else parses
        ``d`` again."""
        new = object.__new__(ObjectMeta)  # dataclasses.replace, without its per-call field checks
        state = new.__dict__
        state.update(self.__dict__)
        for key in keys:
            scalar = _SCALAR_FIELDS.get(key) if key is not None else None
            if scalar is None:
                return ObjectMeta.from_dict(d)
            name, parse = scalar
            state[name] = parse(d.get(key))  # type: ignore[arg-type]
        return new


_SCALAR_FIELDS: dict[str, tuple[str, Callable[[Any], Any]]] = {
    key: (name, parse)
    for key, name, parse in (
        ("resourceVersion", "resource_version", lambda v: _fields.string(v, "metadata.resourceVersion")),
        ("uid", "uid", lambda v: _fields.string(v, "metadata.uid")),
        ("creationTimestamp", "creation_timestamp", lambda v: time_field(v, "metadata.creationTimestamp")),
        ("deletionTimestamp", "deletion_timestamp", lambda v: time_field(v, "metadata.deletionTimestamp")),
        ("deletionGracePeriodSeconds", "deletion_grace_period_seconds",
         lambda v: _fields.opt_int64(v, "metadata.deletionGracePeriodSeconds")),
        ("generation", "generation", lambda v: _fields.int64(v, "metadata.generation")),
    )
}
"""metadata keys parsed on their own by :meth:`ObjectMeta.from_dict`: field name, parser."""


def _changed_keys(changes: Collection[tuple[str, ...]], top: str) -> set[str | None] | None:
    """The second-level keys of the ``top``-level paths in ``changes`` (None for a path that is
    ``(top,)`` alone or goes deeper than two levels); None when some path is outside ``top``."""
    keys: set[str | None] = set()
    for path in changes:
        if path[0] != top:
            return None
        keys.add(path[1] if len(path) == 2 else None)
    return keys


def scalar_metadata_only(changes: Collection[tuple[str, ...]]) -> bool:
    """Whether ``changes`` edit scalar metadata only (what a store write stamps), which
    :meth:`ManifestObject.with_changes` re-reads without parsing the manifest again."""
    keys = _changed_keys(changes, "metadata")
    return keys is not None and None not in keys and keys <= _SCALAR_FIELDS.keys()


class ManifestObject:
    """What every API kind shares: identity read from ``meta`` and round trips through ``raw``.

    A slot-less mixin, so slotted dataclasses (Node, the kinds in ``_objects``) stay slotted;
    each kind declares ``raw`` and ``meta`` as its first two fields and a ``from_dict``.
    """

    __slots__ = ()
    raw: Mapping[str, Any]
    meta: ObjectMeta

    @property
    def name(self) -> str:
        return self.meta.name

    @property
    def namespace(self) -> str:
        return self.meta.namespace

    @property
    def key(self) -> str:
        return self.meta.key

    def to_dict(self) -> dict[str, Any]:
        """A deep copy of the manifest, unknown fields included."""
        return copy.deepcopy(dict(self.raw))

    def with_changes(self, changes: Mapping[Path, Any]) -> Self:
        """A new object with ``changes`` (manifest path -> value or ``DELETE``) applied; only the
        dicts along the changed paths are copied. Edits of scalar metadata (what a store write
        stamps: resourceVersion, uid, time stamps) re-read those fields only; any other edit
        parses the manifest again."""
        raw = with_paths(self.raw, changes)
        keys = _changed_keys(changes, "metadata")
        if keys is not None and None not in keys and keys <= _SCALAR_FIELDS.keys():
            meta = self.meta.updated(raw.get("metadata") or {}, keys)
            return dataclasses.replace(self, raw=raw, meta=meta)  # type: ignore[type-var]
        return cast(Self, self.from_dict(raw))  # type: ignore[attr-defined]
