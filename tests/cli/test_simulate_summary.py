"""simulate's summary counts what a user counts: every pod the run placed, those that ran to
completion since (a Job's) included and labelled; a pod finished in the input was not placed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from typer.testing import CliRunner

from kubesched.cli import app

runner = CliRunner()

EXAMPLES = Path(__file__).parent.parent.parent / "examples"

NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1"},
        "status": {"allocatable": {"cpu": "2", "memory": "4Gi", "pods": "10"}}}


def _pod(name: str, *, node: str = "", phase: str = "") -> dict[str, Any]:
    pod: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod",
                           "metadata": {"name": name, "namespace": "default"},
                           "spec": {"containers": [{"name": "c", "image": "busybox"}]}}
    if node:
        pod["spec"]["nodeName"] = node
    if phase:
        pod["status"] = {"phase": phase}
    return pod


def _simulate(*args: str) -> tuple[str, dict[str, Any]]:
    table = runner.invoke(app, ["simulate", *args])
    assert table.exit_code == 0, table.output
    report = runner.invoke(app, ["simulate", *args, "-o", "json"])
    assert report.exit_code == 0, report.output
    return table.stdout.splitlines()[-1], json.loads(report.stdout)


def test_job_pods_that_finished_count_as_scheduled() -> None:
    # 4 web + 3 db + 3 node-exporter running, 6 report shards and 3 train workers succeeded.
    summary, report = _simulate(str(EXAMPLES / "workloads"), "--seed", "1")
    assert summary.startswith("19 scheduled (9 since finished), 0 already bound, 0 not scheduled, ")
    assert (report["summary"]["scheduled"], report["summary"]["finished"]) == (19, 9)
    finished = [p for p in report["pods"] if p["status"] == "Succeeded"]
    assert len(finished) == 9 and all(p["node"] for p in finished)
    assert sum(w["placed"] for w in report["workloads"]) == 19


def test_no_label_when_nothing_finished() -> None:
    summary, report = _simulate(str(EXAMPLES / "quickstart"))
    assert summary.startswith(f"{report['summary']['scheduled']} scheduled, ")
    assert report["summary"]["finished"] == 0


def test_a_pod_finished_in_the_input_was_not_scheduled(tmp_path: Path) -> None:
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump_all([NODE, _pod("done", node="node-1", phase="Succeeded"),
                                        _pod("evicted", phase="Failed"), _pod("web"),
                                        _pod("old", node="node-1")]))
    summary, report = _simulate(str(path))
    assert summary.startswith("1 scheduled, 1 already bound, 0 not scheduled, ")
    assert (report["summary"]["scheduled"], report["summary"]["finished"]) == (1, 0)
