"""A test case's ``schedulerConfigPath`` (upstream scheduler_perf's testCase field): the
scheduler of its workloads runs that KubeSchedulerConfiguration, read relative to the
performance config, with ``--kube-version`` and the gates applied to it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from kubesched.cli import app
from kubesched.perf import ConfigError, parse_config

_POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"generateName": "pod-"},
        "spec": {"containers": [{"name": "c", "image": "pause",
                                 "ports": [{"containerPort": 80, "hostPort": 80}],
                                 "resources": {"requests": {"cpu": "100m"}}}]}}
_NO_NODE_PORTS = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
                  "profiles": [{"schedulerName": "default-scheduler",
                                "plugins": {"multiPoint": {"disabled": [{"name": "NodePorts"}]}}}]}


def _perf_config(tmp_path: Path, scheduler_config: str | None) -> Path:
    tc: dict[str, object] = {
        "name": "HostPorts", "defaultPodTemplatePath": "pod.yaml",
        "workloadTemplate": [{"opcode": "createNodes", "countParam": "$nodes"},
                             {"opcode": "createPods", "countParam": "$pods", "collectMetrics": True}],
        "workloads": [{"name": "1Node", "params": {"nodes": 1, "pods": 2}}]}
    if scheduler_config is not None:
        tc["schedulerConfigPath"] = scheduler_config
    (tmp_path / "pod.yaml").write_text(yaml.safe_dump(_POD))
    p = tmp_path / "performance-config.yaml"
    p.write_text(yaml.safe_dump([tc]))
    return p


def test_scheduler_config_path_is_relative_to_the_performance_config(tmp_path: Path) -> None:
    [tc] = parse_config([{"name": "T", "schedulerConfigPath": "sched.yaml", "workloads": [{"name": "w"}]}],
                        tmp_path)
    assert tc.workloads[0].scheduler_config == tmp_path / "sched.yaml"
    [tc] = parse_config([{"name": "T", "workloads": [{"name": "w"}]}], tmp_path)
    assert tc.workloads[0].scheduler_config is None
    with pytest.raises(ConfigError, match="schedulerConfigPath: a file path is required"):
        parse_config([{"name": "T", "schedulerConfigPath": 3, "workloads": [{"name": "w"}]}], tmp_path)


def _scheduled(args: list[str]) -> int:
    res = CliRunner().invoke(app, ["bench", *args, "-o", "json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    return int(out["results"][0]["scheduled"])


def test_the_workloads_scheduler_runs_the_test_cases_config(tmp_path: Path) -> None:
    """Two pods asking for the same host port, one node: the default configuration places one;
    a configuration without NodePorts places both."""
    (tmp_path / "sched.yaml").write_text(yaml.safe_dump(_NO_NODE_PORTS))
    assert _scheduled([str(_perf_config(tmp_path, None))]) == 1
    assert _scheduled([str(_perf_config(tmp_path, "sched.yaml")), "--kube-version", "1.35"]) == 2


def test_a_bad_scheduler_config_is_bad_input_naming_the_file(tmp_path: Path) -> None:
    (tmp_path / "sched.yaml").write_text("apiVersion: kubescheduler.config.k8s.io/v1\nkind: Nope\n")
    res = CliRunner().invoke(app, ["bench", str(_perf_config(tmp_path, "sched.yaml"))])
    assert res.exit_code == 2
    assert "sched.yaml" in res.output and "Traceback" not in res.output
