"""``kubesched validate``: summary on good input, one error and exit code 2 on bad input."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from kubesched.cli import app

TESTS = Path(__file__).parent.parent
FIXTURES = TESTS / "fixtures"
QUICKSTART = TESTS.parent / "examples" / "quickstart"

runner = CliRunner()


def test_validate_kubectl_dump() -> None:
    result = runner.invoke(app, ["validate", str(FIXTURES / "kubectl-dump.yaml")])
    assert result.exit_code == 0, result.output
    assert "PersistentVolumeClaim" in result.output
    assert "pods: 3 bound, 1 pending, 1 terminating" in result.output
    # allocatable 8 + 7800m; bound requests 100m + 250m + 1 (terminating pods still hold theirs)
    assert "15800m" in result.output and "1350m" in result.output


def test_validate_quickstart_example() -> None:
    result = runner.invoke(app, ["validate", str(QUICKSTART)])
    assert result.exit_code == 0, result.output
    assert "pods: 5 bound, 8 pending" in result.output


def test_validate_stdin() -> None:
    manifest = "apiVersion: v1\nkind: Node\nmetadata: {name: n}\nstatus: {allocatable: {cpu: '2'}}\n"
    result = runner.invoke(app, ["validate", "-"], input=manifest)
    assert result.exit_code == 0, result.output
    assert "Node" in result.output


@pytest.mark.parametrize(
    ("text", "error"),
    [
        pytest.param(
            "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
            "spec: {priorityClassName: gold, containers: [{name: c}]}\n",
            "no PriorityClass with name gold was found",
            id="unknown-priority-class",
        ),
        pytest.param("a: [", "malformed YAML", id="malformed"),
    ],
)
def test_validate_bad_input_exit_code_2(tmp_path: Path, text: str, error: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    result = runner.invoke(app, ["validate", str(path)])
    assert result.exit_code == 2
    assert error in " ".join(result.output.split())
    assert "bad.yaml" in result.output


@pytest.mark.parametrize(
    ("config", "exit_code"),
    [
        pytest.param(
            "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n",
            0,
            id="valid-config",
        ),
        pytest.param("a: [", 2, id="invalid-config"),
    ],
)
def test_validate_checks_config(tmp_path: Path, config: str, exit_code: int) -> None:
    cfg = tmp_path / "config.yaml"
    cfg.write_text(config)
    result = runner.invoke(app, ["validate", str(FIXTURES / "kubectl-dump.yaml"), "--config", str(cfg)])
    assert result.exit_code == exit_code, result.output
    if exit_code:
        assert "config.yaml" in result.output


_PC = "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: %s}\nvalue: %d\n"
_NODE = "apiVersion: v1\nkind: Node\nmetadata: {name: n}\nstatus: {allocatable: {cpu: '2'}}\n---\n"
_POD = ("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
        "spec:\n  containers: [{name: c, resources: {requests: {cpu: 100m}}}]\n")


@pytest.mark.parametrize(
    ("text", "where", "error"),
    [
        pytest.param(_NODE + _POD + "---\n" + _POD, "document 3 (Pod default/p)",
                     "duplicate object, already defined at", id="duplicate-object"),
        pytest.param(_NODE + _POD.replace("100m", "lots"), "document 2 (Pod p)",
                     "requests.cpu: quantities must match", id="invalid-quantity"),
        pytest.param(_NODE + _PC % ("big", 1_000_000_001), "document 2 (PriorityClass big)",
                     "maximum allowed value of a user defined priority is 1000000000", id="user-value-limit"),
        pytest.param(_NODE + _PC % ("system-x", 10), "document 2 (PriorityClass system-x)",
                     "prefix are reserved for system use only", id="system-prefix-reserved"),
        pytest.param(_NODE + _PC % ("a", 1) + "globalDefault: true\n---\n" + _PC % ("b", 2)
                     + "globalDefault: true\n", "document 3 (PriorityClass b)",
                     "PriorityClass a is already marked as default", id="at-most-one-global-default"),
        pytest.param(_NODE + _PC % ("a", 1) + "---\n" + _POD + "  priorityClassName: a\n  priority: 5\n",
                     "document 3 (Pod default/p)", "the integer value of priority (5) must not be provided",
                     id="priority-disagrees-with-class"),
        pytest.param(_NODE + "apiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata: {name: b}\n",
                     "document 2 (PodDisruptionBudget b)", "apiVersion 'policy/v1beta1' is not supported",
                     id="unsupported-api-version"),
        pytest.param(_NODE + "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  affinity:\n"
                     "    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n"
                     "        nodeSelectorTerms: "
                     "[{matchExpressions: [{key: a, operator: Gt, values: [x]}]}]\n",
                     "document 2 (Pod p)", "must be an integer for Gt", id="invalid-node-selector"),
    ],
)
def test_validate_names_file_document_and_object_and_loads_nothing(
        tmp_path: Path, text: str, where: str, error: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    result = runner.invoke(app, ["validate", str(path)])
    assert result.exit_code == 2
    out = " ".join(result.output.split())
    assert f"bad.yaml: {where}" in out and error in out
    # One error, and no summary of a half-loaded cluster (the node before it is not reported).
    assert out.startswith("error:") and "allocatable" not in out and "count" not in out


def test_admission_error_names_the_object_once(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(_NODE + _POD + "  priorityClassName: gold\n")
    result = runner.invoke(app, ["validate", str(path)])
    assert result.exit_code == 2
    assert "bad.yaml: document 2 (Pod default/p): no PriorityClass with name gold was found" in \
        " ".join(result.output.split())
