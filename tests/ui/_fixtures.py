"""Inputs the what-if and over-time tests share."""

from __future__ import annotations

from pathlib import Path

from kubesched.api.loader import LoadedObjects, load_paths, manifest_files

REPO = Path(__file__).resolve().parents[2]
WEIGHTS = Path(__file__).parent / "fixtures" / "weights"
"""Two nodes and a pending pod ``default/web`` that goes to node-b under the default weights
and to node-a when NodeResourcesFit weighs 10 (the fixture's comment does the arithmetic)."""
QUICKSTART = REPO / "examples" / "quickstart"

CONFIG_HEAD = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
FIT_WEIGHS_10 = CONFIG_HEAD + """profiles:
- schedulerName: default-scheduler
  plugins:
    score:
      enabled:
      - name: NodeResourcesFit
        weight: 10
"""


def load(path: Path) -> LoadedObjects:
    return load_paths(manifest_files([path]))


def pod(name: str, cpu: str = "500m", extra: str = "") -> str:
    """A pod manifest (namespace default) requesting ``cpu``."""
    return f"""apiVersion: v1
kind: Pod
metadata:
  name: {name}
spec:{extra}
  containers:
  - name: main
    resources:
      requests:
        cpu: {cpu}
"""
