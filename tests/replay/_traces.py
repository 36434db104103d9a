"""Builders for hand-made traces: manifests and event lines."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any


def node(name: str, cpu: str = "4", memory: str = "8Gi", **extra: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"name": name}},
        "status": {"allocatable": {"cpu": cpu, "memory": memory, "pods": "110", **extra}},
    }


def pod(
    name: str,
    cpu: str = "1",
    *,
    labels: Mapping[str, str] | None = None,
    priority: str = "",
    grace: int | None = None,
    **extra: str,
) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "c", "resources": {"requests": {"cpu": cpu, **extra}}}]}
    if priority:
        spec["priorityClassName"] = priority
    if grace is not None:
        spec["terminationGracePeriodSeconds"] = grace
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "labels": dict(labels or {})},
        "spec": spec,
    }


def create(t: float, obj: Mapping[str, Any], **extra: Any) -> dict[str, Any]:
    return {"time": t, "op": "create", "object": dict(obj), **extra}


def ref(t: float, op: str, name: str, **extra: Any) -> dict[str, Any]:
    return {"time": t, "op": op, "name": name, **extra}


def write_jsonl(path: Path, events: Sequence[Mapping[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    return path
