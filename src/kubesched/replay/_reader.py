"""kubesched's own trace format: JSON Lines or YAML, one event per line / list item.

An event (the schema is ``schemas/trace.schema.json`` in the repository)::

    {"time": 0, "op": "create", "object": {<a manifest>}, "runSeconds": 600}
    {"time": 30, "op": "delete", "kind": "Pod", "namespace": "default", "name": "web-1"}
    {"time": 60, "op": "scale", "kind": "Deployment", "name": "web", "replicas": 5}
    {"time": 90, "op": "cordon", "name": "node-3"}      # kind Node by default
    {"time": 95, "op": "drain", "name": "node-3"}
    {"time": 99, "op": "update", "object": {<the whole new manifest>}}

``time`` is seconds from the trace's start (non-decreasing within a file); ``runSeconds`` on a
created pod is its run time (it becomes the ``kubesched.io/run-seconds`` annotation the
simulated kubelet reads, and ``restartPolicy`` defaults to ``Never`` so that it can finish).
A YAML trace is one document ``{apiVersion: kubesched.io/v1alpha1, kind: Trace, events:
[...]}`` (or just the list). A JSON Lines file is streamed: it is read again for each pass,
never held in memory. Errors name ``FILE:LINE``.
"""

from __future__ import annotations

import heapq
import json
import math
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import yaml

from ..api import ExcessiveAliasing, safe_load_yaml
from ..api.loader import KINDS
from ..controllers import RUN_SECONDS_ANNOTATION
from ._trace import OPERATIONS, ObjectRef, Trace, TraceEvent

__all__ = ["TRACE_API_VERSION", "TraceError", "TraceFile", "parse_event", "read_trace"]

TRACE_API_VERSION: Final = "kubesched.io/v1alpha1"

_OBJECT_OPS: Final = frozenset({"create", "update"})
_NODE_OPS: Final = frozenset({"cordon", "uncordon", "drain"})
_FIELDS: Final = frozenset({"time", "op", "object", "runSeconds", "kind", "namespace", "name", "replicas"})
SCALABLE_KINDS: Final = ("Deployment", "ReplicaSet", "ReplicationController", "StatefulSet", "Job")


class TraceError(ValueError):
    """A bad trace: the message starts with ``FILE:LINE:``."""


def _fail(source: str, message: str) -> TraceError:
    return TraceError(f"{source}: {message}")


def parse_event(doc: Any, source: str) -> TraceEvent:
    """One event from its decoded JSON / YAML form; raises :class:`TraceError` naming ``source``."""
    if not isinstance(doc, Mapping):
        raise _fail(source, f"an event must be a mapping, got {type(doc).__name__}")
    unknown = sorted(set(doc) - _FIELDS)
    if unknown:
        raise _fail(source, f"unknown field(s) {', '.join(map(str, unknown))} "
                            f"(allowed: {', '.join(sorted(_FIELDS))})")
    t = doc.get("time")
    if isinstance(t, bool) or not isinstance(t, int | float) or not math.isfinite(t) or t < 0:
        raise _fail(source, f"time: must be a non-negative number of seconds, got {t!r}")
    op = doc.get("op")
    if op not in OPERATIONS:
        raise _fail(source, f"op: must be one of {', '.join(OPERATIONS)}, got {op!r}")
    if op in _OBJECT_OPS:
        return _object_event(doc, float(t), op, source)
    for f in ("object", "runSeconds"):
        if f in doc:
            raise _fail(source, f"{f}: only for create / update, not {op}")
    if op != "scale" and "replicas" in doc:
        raise _fail(source, f"replicas: only for scale, not {op}")
    kind = doc.get("kind", "Node" if op in _NODE_OPS else None)
    if op in _NODE_OPS and kind != "Node":
        raise _fail(source, f"kind: {op} acts on a Node, got {kind!r}")
    if op == "scale" and kind not in SCALABLE_KINDS:
        raise _fail(source, f"kind: scale acts on {', '.join(SCALABLE_KINDS)}, got {kind!r}")
    if not isinstance(kind, str) or kind not in KINDS:
        raise _fail(source, f"kind: required, one of the kinds kubesched reads, got {kind!r}")
    name = doc.get("name")
    if not isinstance(name, str) or not name:
        raise _fail(source, "name: required")
    namespace = doc.get("namespace", "default" if KINDS[kind].namespaced else "")
    if not isinstance(namespace, str):
        raise _fail(source, f"namespace: must be a string, got {namespace!r}")
    if not KINDS[kind].namespaced:
        namespace = ""
    replicas = None
    if op == "scale":
        replicas = doc.get("replicas")
        if isinstance(replicas, bool) or not isinstance(replicas, int) or replicas < 0:
            raise _fail(source, f"replicas: must be a non-negative integer, got {replicas!r}")
    return TraceEvent(float(t), op, ref=ObjectRef(kind, name, namespace), replicas=replicas, source=source)


def _object_event(doc: Mapping[str, Any], t: float, op: Any, source: str) -> TraceEvent:
    for f in ("kind", "name", "namespace", "replicas"):
        if f in doc:
            raise _fail(source, f"{f}: not for {op} (the object says it)")
    obj = doc.get("object")
    if not isinstance(obj, Mapping):
        raise _fail(source, f"object: {op} needs the manifest as a mapping")
    run = doc.get("runSeconds")
    if run is not None:
        if isinstance(run, bool) or not isinstance(run, int | float) or not math.isfinite(run) or run < 0:
            raise _fail(source, f"runSeconds: must be a non-negative number, got {run!r}")
        if obj.get("kind") != "Pod":
            raise _fail(source, "runSeconds: only for a Pod")
        obj = _with_run_seconds(obj, float(run))
    return TraceEvent(t, op, obj=obj, source=source)


def _with_run_seconds(obj: Mapping[str, Any], run: float) -> dict[str, Any]:
    md = dict(obj.get("metadata") or {})
    md["annotations"] = {**(md.get("annotations") or {}), RUN_SECONDS_ANNOTATION: f"{run:g}"}
    spec = dict(obj.get("spec") or {})
    spec.setdefault("restartPolicy", "Never")
    return {**obj, "metadata": md, "spec": spec}


class TraceFile:
    """The events of one trace file, read again on each iteration (JSON Lines streams)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise TraceError(f"{path}: no such trace file")

    def __iter__(self) -> Iterator[TraceEvent]:
        last = 0.0
        for ev in self._events():
            if ev.time < last:
                raise _fail(ev.source, f"time {ev.time:g} is before the previous event's ({last:g}): "
                                       "events must come in time order")
            last = ev.time
            yield ev

    def _events(self) -> Iterator[TraceEvent]:
        if self.path.suffix in (".yaml", ".yml"):
            yield from self._yaml()
            return
        with self.path.open("rb") as f:
            for lineno, line in enumerate(f, 1):
                if not line.strip() or line.lstrip().startswith(b"#"):
                    continue
                source = f"{self.path}:{lineno}"
                try:
                    doc = json.loads(line)
                except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                    raise _fail(source, f"not JSON: {exc}") from None
                yield parse_event(doc, source)

    def _yaml(self) -> Iterator[TraceEvent]:
        try:
            text = self.path.read_text()
            data = safe_load_yaml(text)  # refuses an alias bomb before anything walks it
            root = yaml.compose(text, Loader=yaml.SafeLoader)
        except ExcessiveAliasing as exc:
            raise TraceError(f"{self.path}: {exc}") from None
        except (yaml.YAMLError, UnicodeDecodeError) as exc:
            raise TraceError(f"{self.path}: not YAML: {exc}") from None
        items_node: Any = root
        items: Any = data
        if isinstance(data, Mapping):
            if data.get("kind") != "Trace" or data.get("apiVersion") != TRACE_API_VERSION:
                raise TraceError(f"{self.path}:1: a YAML trace is kind: Trace, "
                                 f"apiVersion: {TRACE_API_VERSION} (or a list of events)")
            extra = sorted(set(data) - {"kind", "apiVersion", "events", "metadata"})
            if extra:
                raise TraceError(f"{self.path}:1: unknown field(s) {', '.join(map(str, extra))}")
            items = data.get("events") or []
            items_node = next((v for k, v in getattr(root, "value", ()) if k.value == "events"), None)
        if not isinstance(items, list):
            raise TraceError(f"{self.path}:1: events: must be a list")
        nodes = items_node.value if isinstance(items_node, yaml.SequenceNode) else []
        for i, doc in enumerate(items):
            line = nodes[i].start_mark.line + 1 if i < len(nodes) else 1
            yield parse_event(doc, f"{self.path}:{line}")


class _Merged:
    """Several files' events merged by time (ties keep file order); re-iterable."""

    def __init__(self, files: Sequence[TraceFile]) -> None:
        self.files = list(files)

    def __iter__(self) -> Iterator[TraceEvent]:
        if len(self.files) == 1:
            return iter(self.files[0])
        return heapq.merge(*self.files, key=lambda e: e.time)


def read_trace(paths: Sequence[str | Path], name: str = "") -> Trace:
    """kubesched's own trace format: one or more files merged by time; the cluster comes from
    ``--cluster`` (any input ``simulate`` takes)."""
    files = [TraceFile(p) for p in paths]
    return Trace(events=_Merged(files), name=name or ",".join(Path(p).stem for p in paths))
