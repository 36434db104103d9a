"""Quantities beyond int64 (the API server accepts ``cpu: 1E``, ``memory: 16Ei``, a twenty-digit
``pods``) are read as upstream reads them, saturated to int64, and every command schedules the
other pods around them: no SchedulerError, no traceback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from kubesched.cli import app

runner = CliRunner()
INT64_MAX = 2**63 - 1

CLUSTER = """\
apiVersion: v1
kind: Node
metadata: {name: huge, labels: {kubernetes.io/hostname: huge}}
status:
  capacity: {cpu: 1E, memory: 16Ei, pods: "99999999999999999999", example.com/foo: 10E}
  allocatable: {cpu: 1E, memory: 16Ei, pods: "99999999999999999999", example.com/foo: 10E}
---
apiVersion: v1
kind: Node
metadata: {name: small, labels: {kubernetes.io/hostname: small}}
status: {allocatable: {cpu: "4", memory: 16Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: bound-a, namespace: default}
spec:
  nodeName: huge
  containers: [{name: c, image: x, resources: {requests: {memory: 8Ei}}}]
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata: {name: bound-b, namespace: default}
spec:
  nodeName: huge
  containers:
  - {name: c, image: x, resources: {requests: {memory: 8Ei}}}
  - {name: d, image: x, resources: {requests: {memory: 8Ei}}}
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default}
spec:
  containers: [{name: c, image: x, resources: {requests: {cpu: 500m, memory: 1Gi}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: greedy, namespace: default}
spec:
  containers:
  - name: c
    image: x
    resources:
      requests: {cpu: 1E, example.com/foo: 10E}
      limits: {example.com/foo: 10E}
---
apiVersion: v1
kind: Pod
metadata: {name: tiny, namespace: default}
spec:
  containers: [{name: c, image: x, resources: {requests: {cpu: "0.0000001", memory: "0.5"}}}]
"""


def _write(tmp_path: Path) -> str:
    path = tmp_path / "cluster.yaml"
    path.write_text(CLUSTER)
    return str(path)


def _ok(args: list[str]) -> Any:
    result = runner.invoke(app, args)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 0, result.output
    return result


def test_validate_accepts_what_the_api_server_accepts(tmp_path: Path) -> None:
    _ok(["validate", _write(tmp_path)])


def test_simulate_schedules_every_pod_around_huge_amounts(tmp_path: Path) -> None:
    report = json.loads(_ok(["simulate", _write(tmp_path), "-o", "json"]).stdout)
    placed = {p["pod"]: (p["status"], p["node"]) for p in report["pods"]}
    # greedy asks for all of huge's cpu and example.com/foo (both saturate to the int64
    # maximum, which is also what huge has); web and tiny still schedule.
    assert placed["default/greedy"] == ("Scheduled", "huge")
    assert placed["default/web"][0] == "Scheduled" and placed["default/tiny"][0] == "Scheduled"
    huge = next(n for n in report["nodes"] if n["name"] == "huge")["resources"]
    assert huge["cpu"]["allocatable"] == INT64_MAX and huge["pods"]["allocatable"] == INT64_MAX
    # three containers of 8Ei each: the node's requested memory saturates instead of overflowing
    assert huge["memory"] == {"requested": INT64_MAX, "allocatable": INT64_MAX}


def test_explain_and_capacity_answer(tmp_path: Path) -> None:
    path = _write(tmp_path)
    out = _ok(["explain", path, "--pod", "default/web"]).stdout
    assert "Selected node: small" in out  # huge's memory is all requested by the bound pods
    pod = tmp_path / "copy.yaml"
    pod.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: copy}\n"
                   "spec: {containers: [{name: c, image: x, resources: {requests: {cpu: '1'}}}]}\n")
    report = json.loads(_ok(["capacity", path, "--pod", str(pod), "--max", "3", "-o", "json"]).stdout)
    # huge's cpu is all taken by greedy: the copies go to small
    assert report["fits"] == 3 and report["placements"] == {"small": 3}


PREEMPTION = """\
apiVersion: v1
kind: Node
metadata: {name: huge, labels: {kubernetes.io/hostname: huge}}
status: {allocatable: {cpu: 1E, memory: 16Ei, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: low-a, namespace: default}
spec:
  nodeName: huge
  priority: 1
  containers: [{name: c, image: x, resources: {requests: {cpu: 1E}}}]
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata: {name: low-b, namespace: default}
spec:
  nodeName: huge
  priority: 1
  containers: [{name: c, image: x, resources: {requests: {cpu: 1E}}}]
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata: {name: high, namespace: default}
spec:
  priority: 1000
  containers: [{name: c, image: x, resources: {requests: {cpu: 1E}}}]
"""


def test_preemption_takes_victims_off_the_exact_sum(tmp_path: Path) -> None:
    """The node's requested cpu is 2 x the int64 maximum (saturated in its column): evicting
    both lower-priority pods frees all of it, as upstream's int64 arithmetic (which wraps, and
    so comes back exactly) finds."""
    path = tmp_path / "cluster.yaml"
    path.write_text(PREEMPTION)
    report = json.loads(_ok(["simulate", str(path), "-o", "json"]).stdout)
    assert sorted(e["victim"] for e in report["preemptions"]) == ["default/low-a", "default/low-b"]
    assert {p["pod"]: p["node"] for p in report["pods"]}["default/high"] == "huge"
