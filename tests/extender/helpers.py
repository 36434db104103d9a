"""Shared by the extender server's tests: a real HTTP client, manifests, the example plugin."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml

from kubesched.cluster import Store
from kubesched.extender import ExtenderEngine, ExtenderServer
from kubesched.framework.config import SchedulerConfig, from_dict

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "extender"


def example_config() -> SchedulerConfig:
    """examples/extender/kubesched-config.yaml with the plugin enabled by import path (the
    entry point is only there once the example is pip-installed)."""
    doc = yaml.safe_load((EXAMPLE / "kubesched-config.yaml").read_text())
    for entry in doc["profiles"][0]["plugins"]["multiPoint"]["enabled"]:
        if entry["name"] == "AvoidLabel":
            entry["name"] = "kubesched_example_extender:AvoidLabel"
    return from_dict(doc)


def node(name: str, cpu: str = "4", labels: dict[str, str] | None = None,
         taints: list[dict[str, str]] | None = None, pods: str = "110") -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **(labels or {})},
                         "resourceVersion": "7", "uid": f"{name}-uid"},
            "spec": {"taints": taints or []},
            "status": {"allocatable": {"cpu": cpu, "memory": "8Gi", "pods": pods},
                       "capacity": {"cpu": cpu, "memory": "8Gi", "pods": pods}}}


def pod(name: str, cpu: str = "1", node_name: str = "", priority: int = 0,
        labels: dict[str, str] | None = None, namespace: str = "default") -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "x",
                                            "resources": {"requests": {"cpu": cpu}}}],
                            "priority": priority}
    if node_name:
        spec["nodeName"] = node_name
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": namespace, "uid": f"{name}-uid",
                         "labels": labels or {}},
            "spec": spec}


def post(url: str, verb: str, doc: Any = None, raw: bytes | None = None,
         timeout: float = 10) -> tuple[int, Any]:
    """POST JSON to ``url/verb``: (status, decoded body)."""
    body = raw if raw is not None else json.dumps(doc).encode()
    req = urllib.request.Request(f"{url}/{verb}", data=body, method="POST",
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"null")


def get(url: str, path: str) -> tuple[int, str]:
    with urllib.request.urlopen(f"{url}/{path}", timeout=10) as resp:
        return resp.status, resp.read().decode()


@contextmanager
def serving(config: SchedulerConfig | None = None, store: Store | None = None,
            **kwargs: Any) -> Iterator[ExtenderServer]:
    """An extender server on 127.0.0.1 (a free port), closed afterwards."""
    server = ExtenderServer(ExtenderEngine(config, store=store), "127.0.0.1", 0, **kwargs)
    server.start()
    try:
        yield server
    finally:
        server.close()
