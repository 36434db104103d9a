"""``kubesched run``: bad input (no kubeconfig, a bad configuration) exits 2 before anything
starts, naming what is wrong."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from kubesched.cli import app

runner = CliRunner()


def test_a_missing_kubeconfig_is_bad_input(tmp_path: Path) -> None:
    result = runner.invoke(app, ["run", "--kubeconfig", str(tmp_path / "missing")])
    assert result.exit_code == 2
    assert "missing: no such file" in result.output


def test_no_kubeconfig_anywhere_and_not_in_a_pod_is_bad_input(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KUBECONFIG", raising=False)
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    result = runner.invoke(app, ["run"])
    assert result.exit_code == 2
    assert "in-cluster service account" in result.output


def test_a_bad_configuration_is_bad_input(tmp_path: Path) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
                   "clientConnection: {qps: fast}\n")
    kc = tmp_path / "kc"
    kc.write_text("x")
    result = runner.invoke(app, ["run", "--config", str(cfg), "--kubeconfig", str(kc)])
    assert result.exit_code == 2
    assert "qps" in result.output
