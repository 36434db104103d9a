"""Deployments, DaemonSets and Jobs are read (no longer skipped), and their fields are
checked as the API server checks them: a malformed one is exit 2 naming object and field."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from kubesched.api import load_documents
from kubesched.cli import app

from ._manifests import node, runner, selector, template, workload, write


def _job() -> dict[str, Any]:
    return workload("Job", "j", {"template": template("j", restartPolicy="Never")})


def _deploy() -> dict[str, Any]:
    return workload("Deployment", "web", {"selector": selector("web"), "template": template("web")})


def _ds() -> dict[str, Any]:
    return workload("DaemonSet", "agent", {"selector": selector("agent"), "template": template("agent")})


def _sts() -> dict[str, Any]:
    return workload("StatefulSet", "db", {"selector": selector("db"), "template": template("db")})


def test_the_new_kinds_load_with_their_defaults() -> None:
    import yaml

    loaded = load_documents(yaml.safe_dump_all([_deploy(), _ds(), _job(), _sts()]), "x.yaml")
    assert loaded.skipped == {}
    [d], [ds], [j], [s] = loaded.deployments, loaded.daemon_sets, loaded.jobs, loaded.stateful_sets
    assert d.replicas == 1 and d.collision_count is None
    assert ds.template["metadata"]["labels"] == {"app": "agent"}
    assert (j.parallelism, j.completions, j.completion_mode) == (1, 1, "NonIndexed")
    assert (s.replicas, s.pod_management_policy, s.start_ordinal) == (1, "OrderedReady", 0)


def _set(doc: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    out = copy.deepcopy(doc)
    node_ = out
    for key in path[:-1]:
        node_ = node_[key]
    node_[path[-1]] = value
    return out


@pytest.mark.parametrize(
    ("doc", "error"),
    [
        pytest.param(
            _set(_deploy(), ("spec", "replicas"), "three"),
            '(Deployment default/web): spec.replicas: Invalid value: "three": must be an integer',
            id="deployment-replicas",
        ),
        pytest.param(
            _set(_deploy(), ("spec", "replicas"), -1),
            "(Deployment default/web): spec.replicas: Invalid value: -1: must be greater than or equal to 0",
            id="deployment-negative-replicas",
        ),
        pytest.param(
            _set(_deploy(), ("spec", "template", "spec", "containers", 0, "resources", "requests"), "x"),
            "(Deployment default/web): spec.template.spec.containers[0].resources.requests: Invalid value",
            id="deployment-template-requests",
        ),
        pytest.param(
            _set(_deploy(), ("spec", "strategy"), {"rollingUpdate": {"maxSurge": "200%"}}),
            '(Deployment default/web): spec.strategy.rollingUpdate.maxSurge: Invalid value: "200%": '
            "must not be greater than 100%",
            id="deployment-max-surge",
        ),
        pytest.param(
            _set(_ds(), ("spec", "template"), None),
            "(DaemonSet default/agent): spec.template: Required value",
            id="daemonset-template",
        ),
        pytest.param(
            _set(_ds(), ("spec", "template", "spec", "hostNetwork"), "yes"),
            '(DaemonSet default/agent): spec.template.spec.hostNetwork: Invalid value: "yes": '
            "must be a boolean",
            id="daemonset-host-network",
        ),
        pytest.param(
            _set(_job(), ("spec", "template", "spec", "restartPolicy"), "Always"),
            '(Job default/j): spec.template.spec.restartPolicy: Unsupported value: "Always"',
            id="job-restart-policy",
        ),
        pytest.param(
            _set(_job(), ("spec", "parallelism"), 2**31),
            "(Job default/j): spec.parallelism: Invalid value: 2147483648: must be an int32",
            id="job-parallelism",
        ),
        pytest.param(
            _set(_job(), ("spec", "completionMode"), "Sometimes"),
            '(Job default/j): spec.completionMode: Unsupported value: "Sometimes"',
            id="job-mode",
        ),
        pytest.param(
            _set(_sts(), ("spec", "podManagementPolicy"), "Random"),
            '(StatefulSet default/db): spec.podManagementPolicy: Unsupported value: "Random"',
            id="statefulset-policy",
        ),
        pytest.param(
            _set(
                _sts(),
                ("spec", "volumeClaimTemplates"),
                [{"metadata": {"name": "d"}, "spec": {"accessModes": "RWO"}}],
            ),
            "(StatefulSet default/db): spec.volumeClaimTemplates[0].spec.accessModes: Invalid value",
            id="statefulset-claim",
        ),
    ],
)
@pytest.mark.parametrize("command", ["validate", "simulate"])
def test_malformed_workload_fields_are_bad_input(
    tmp_path: Path, command: str, doc: dict[str, Any], error: str
) -> None:
    path = write(tmp_path, [node("n1"), doc])
    result = runner.invoke(app, [command, str(path)])
    assert result.exit_code == 2, result.output
    assert f"error: {path}: document 2 {error}" in " ".join(result.stderr.split())
