"""Workload / PodGroup manifests and ``--feature-gates`` on the command line: loaded and
validated as the API server does (bad ones refused, file and object named, exit 2), and what
``simulate`` reports for a gang held back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from kubesched.api import PodGroup, Workload, load_paths
from kubesched.cli import app

runner = CliRunner()
GATES = "GenericWorkload=true,GangScheduling=true"


def node(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}


def pod(name: str, group: str | None = "train", cpu: str = "1") -> dict[str, Any]:
    container = {"name": "c", "image": "i", "resources": {"requests": {"cpu": cpu}}}
    spec: dict[str, Any] = {"containers": [container]}
    if group is not None:
        spec["schedulingGroup"] = {"podGroupName": group}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": spec}


def pod_group(name: str = "train", policy: Any = None,
              api: str = "scheduling.k8s.io/v1alpha3") -> dict[str, Any]:
    return {"apiVersion": api, "kind": "PodGroup", "metadata": {"name": name, "namespace": "default"},
            "spec": {"schedulingPolicy": policy if policy is not None else {"gang": {"minCount": 2}}}}


def workload(templates: Any) -> dict[str, Any]:
    return {"apiVersion": "scheduling.k8s.io/v1alpha3", "kind": "Workload",
            "metadata": {"name": "train", "namespace": "default"}, "spec": {"podGroupTemplates": templates}}


def write(tmp_path: Path, docs: list[dict[str, Any]]) -> Path:
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump_all(docs, sort_keys=False))
    return path


def test_workload_and_pod_group_load_in_both_served_versions(tmp_path: Path) -> None:
    wl = workload([{"name": "workers", "schedulingPolicy": {"gang": {"minCount": 4}}},
                   {"name": "driver", "schedulingPolicy": {"basic": {}}}])
    docs = [wl, pod_group("a"), pod_group("b", api="scheduling.k8s.io/v1beta1", policy={"basic": {}})]
    objs = load_paths([write(tmp_path, docs)]).objects
    w, a, b = objs
    assert isinstance(w, Workload)
    assert [(t.name, t.gang) for t in w.pod_group_templates][1] == ("driver", None)
    assert w.pod_group_templates[0].gang is not None and w.pod_group_templates[0].gang.min_count == 4
    assert isinstance(a, PodGroup) and a.gang is not None and a.gang.min_count == 2
    assert isinstance(b, PodGroup) and b.gang is None


@pytest.mark.parametrize(("doc", "want"), [
    pytest.param(pod_group(policy={"gang": {"minCount": 0}}),
                 "PodGroup default/train): spec.schedulingPolicy.gang.minCount: Invalid value: 0: "
                 "must be greater than or equal to 1", id="minCount-0"),
    pytest.param(pod_group(policy={}), "spec.schedulingPolicy: Invalid value: \"\": must specify one of: "
                 "`basic`, `gang`", id="no-policy-member"),
    pytest.param(pod_group(policy={"basic": {}, "gang": {"minCount": 1}}),
                 "must specify exactly one of: `basic`, `gang`", id="two-policy-members"),
    pytest.param(pod_group(api="scheduling.k8s.io/v1"),
                 "apiVersion 'scheduling.k8s.io/v1' is not supported for PodGroup (expected "
                 "'scheduling.k8s.io/v1alpha3' or 'scheduling.k8s.io/v1beta1')", id="bad-version"),
    pytest.param(workload([{"name": "a", "schedulingPolicy": {"basic": {}}},
                           {"name": "a", "schedulingPolicy": {"basic": {}}}]),
                 'spec.podGroupTemplates[1]: Duplicate value: {"name": "a"}', id="duplicate-template"),
    pytest.param(workload([{"name": "Bad_Name", "schedulingPolicy": {"basic": {}}}]),
                 "spec.podGroupTemplates[0].name: Invalid value: \"Bad_Name\"", id="template-name"),
    pytest.param(workload([]), "must specify one of: `compositePodGroupTemplates`, `podGroupTemplates`",
                 id="no-templates"),
    pytest.param(workload([{"name": f"t{i}", "schedulingPolicy": {"basic": {}}} for i in range(9)]),
                 "spec.podGroupTemplates: Too many: 9: must have at most 8 items", id="too-many-templates"),
    pytest.param(pod("p", group="Not A Name"),
                 "Pod default/p): spec.schedulingGroup.podGroupName: Invalid value: \"Not A Name\"",
                 id="pod-group-name"),
])
def test_invalid_objects_are_refused_naming_file_and_object(tmp_path: Path, doc: dict[str, Any],
                                                            want: str) -> None:
    path = write(tmp_path, [node("n1"), doc])
    result = runner.invoke(app, ["simulate", str(path)])
    assert result.exit_code == 2, result.output
    out = " ".join(result.output.split())
    assert str(path.name) in out
    assert want in out


@pytest.mark.parametrize(("gates", "want"), [
    pytest.param("GangScheduling=true", "GangScheduling feature gate requires GenericWorkload to be enabled",
                 id="dependency"),
    pytest.param("GenericWorkload=yes", 'invalid value of GenericWorkload=yes, err: strconv.ParseBool: '
                 'parsing "yes": invalid syntax', id="not-a-bool"),
    pytest.param("GenericWorkload", "missing bool value for GenericWorkload", id="no-value"),
])
def test_bad_feature_gates_are_bad_input(tmp_path: Path, gates: str, want: str) -> None:
    result = runner.invoke(app, ["simulate", str(write(tmp_path, [node("n1")])), "--feature-gates", gates])
    assert result.exit_code == 2
    assert want in " ".join(result.output.split())


def test_simulate_tells_why_gang_pods_were_never_attempted(tmp_path: Path) -> None:
    docs = [node("n1"), pod_group("train", {"gang": {"minCount": 3}}), pod("w0"), pod("w1"),
            pod("x0", group="missing")]
    result = runner.invoke(app, ["simulate", str(write(tmp_path, docs)), "-o", "json",
                                 "--feature-gates", GATES, "--fail-on-unschedulable"])
    assert result.exit_code == 1  # left without a node
    pods = {p["pod"]: p for p in json.loads(result.stdout)["pods"]}
    assert pods["default/w0"]["status"] == "Pending"
    assert pods["default/w0"]["message"] == \
        "waiting for minCount pods from a gang to appear in scheduling queue"
    assert pods["default/x0"]["message"] == \
        'waiting for pods\'s pod group "missing" to appear in scheduling queue'


def test_simulate_with_the_gates_off_ignores_pod_groups(tmp_path: Path) -> None:
    docs = [node("n1"), pod_group("train", {"gang": {"minCount": 3}}), pod("w0"), pod("w1")]
    result = runner.invoke(app, ["simulate", str(write(tmp_path, docs)), "-o", "json"])
    assert result.exit_code == 0
    assert json.loads(result.stdout)["summary"]["scheduled"] == 2


def test_a_config_file_gets_the_gang_plugin_from_the_gates(tmp_path: Path) -> None:
    """The default plugins a KubeSchedulerConfiguration's profile starts from depend on the gates."""
    cfg = tmp_path / "config.yaml"
    cfg.write_text("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
                   "profiles: [{schedulerName: default-scheduler}]\n")
    docs = [node("n1"), pod_group("train", {"gang": {"minCount": 3}}), pod("w0"), pod("w1")]
    result = runner.invoke(app, ["simulate", str(write(tmp_path, docs)), "-o", "json", "--config", str(cfg),
                                 "--feature-gates", GATES])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["summary"]["scheduled"] == 0
