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
            "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n", "unknown kind 'Secret'", id="unknown-kind"
        ),
        pytest.param(
            "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {priorityClassName: gold}\n",
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
