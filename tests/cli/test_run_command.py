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


def _kubeconfig(tmp_path: Path) -> Path:
    kc = tmp_path / "kubeconfig"
    kc.write_text("apiVersion: v1\nkind: Config\ncurrent-context: c\n"
                  "clusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]\n"
                  "users: [{name: u, user: {token: t}}]\n"
                  "contexts: [{name: c, context: {cluster: c, user: u}}]\n")
    return kc


@pytest.mark.parametrize(("args", "message"), [
    (["--leader-elect=maybe"], 'invalid argument "maybe" for "--leader-elect" flag'),
    (["--leader-elect=", "--x"], "invalid argument"),
    (["--lead"], "unknown flag: --lead"),
    (["--bind-address", "nowhere"], "expected HOST:PORT"),
    (["--tls-cert-file", "c.pem"], "--tls-cert-file and --tls-private-key-file go together"),
    (["--tls-cert-file", "c.pem", "--tls-private-key-file", "k.pem"], "No such file"),
    (["--authentication-token-webhook-cache-ttl", "ten"], "--authentication-token-webhook-cache-ttl 'ten'"),
    (["--authentication-tolerate-lookup-failure=maybe"],
     'invalid argument "maybe" for "--authentication-tolerate-lookup-failure" flag'),
    (["--authorization-always-allow-paths", "/a*b"], "only a trailing * is allowed"),
    (["--authorization-kubeconfig", "missing.kubeconfig"], "missing.kubeconfig"),
    (["--client-ca-file", "missing-ca.pem"], "--client-ca-file missing-ca.pem"),
    # the API server in the kubeconfig does not answer: the client CA cannot be looked up
    (["--authentication-kubeconfig", "KUBECONFIG", "--authentication-tolerate-lookup-failure=false"],
     "unable to load configmap based client CA file: configmap kube-system/extension-apiserver-auth"),
])
def test_bad_flags_are_bad_input(tmp_path: Path, args: list[str], message: str) -> None:
    kubeconfig = str(_kubeconfig(tmp_path))
    args = [kubeconfig if a == "KUBECONFIG" else a for a in args]
    result = runner.invoke(app, ["run", "--kubeconfig", kubeconfig, *args])
    assert result.exit_code == 2, result.output
    assert message in result.output


def test_leader_elect_flag_turns_election_on_over_the_configuration(tmp_path: Path) -> None:
    """The file says leaderElect: false, so its durations are not validated (component-base);
    ``--leader-elect`` turns election on, and the elector refuses them before anything starts
    (NewLeaderElector's message)."""
    cfg = tmp_path / "c.yaml"
    cfg.write_text("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
                   "leaderElection: {leaderElect: false, leaseDuration: 1s, renewDeadline: 2s}\n")
    result = runner.invoke(app, ["run", "--config", str(cfg), "--kubeconfig", str(_kubeconfig(tmp_path)),
                                 "--leader-elect", "--bind-address", "127.0.0.1:0"])
    assert result.exit_code == 2, result.output
    assert "leaseDuration must be greater than renewDeadline" in result.output
