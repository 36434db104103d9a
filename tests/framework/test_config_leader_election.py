"""``leaderElection`` and ``clientConnection`` of a KubeSchedulerConfiguration: upstream's v1
defaults (SetDefaults_KubeSchedulerConfiguration, component-base's
RecommendedDefaultLeaderElectionConfiguration) and validation (component-base's
ValidateLeaderElectionConfiguration / ValidateClientConnectionConfiguration, and the scheduler's
leases-only rule), through the library and ``kubesched validate``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from kubesched.cli import app
from kubesched.framework.config import (
    ClientConnectionConfiguration,
    ConfigError,
    LeaderElectionConfiguration,
    default_config,
    from_dict,
)

REPO = Path(__file__).resolve().parents[2]


def test_defaults_are_the_schedulers() -> None:
    cfg = default_config()
    assert cfg.leader_election == LeaderElectionConfiguration(
        leader_elect=True, lease_duration=15.0, renew_deadline=10.0, retry_period=2.0,
        resource_lock="leases", resource_name="kube-scheduler", resource_namespace="kube-system")
    assert cfg.client_connection == ClientConnectionConfiguration(
        kubeconfig="", accept_content_types="", content_type="application/vnd.kubernetes.protobuf",
        qps=50.0, burst=100)


def test_fields_decoded() -> None:
    cfg = from_dict({
        "leaderElection": {"leaderElect": False, "leaseDuration": "1m", "renewDeadline": "45s",
                           "retryPeriod": "500ms", "resourceLock": "leases", "resourceName": "kubesched",
                           "resourceNamespace": "scheduling"},
        "clientConnection": {"kubeconfig": "/etc/kubesched/kubeconfig", "qps": 200.5, "burst": 400,
                             "contentType": "application/json", "acceptContentTypes": "application/json"},
    })
    assert cfg.leader_election == LeaderElectionConfiguration(
        leader_elect=False, lease_duration=60.0, renew_deadline=45.0, retry_period=0.5,
        resource_lock="leases", resource_name="kubesched", resource_namespace="scheduling")
    assert cfg.client_connection == ClientConnectionConfiguration(
        kubeconfig="/etc/kubesched/kubeconfig", accept_content_types="application/json",
        content_type="application/json", qps=200.5, burst=400)


def test_zero_values_mean_unset() -> None:
    """Go's defaulting compares with the zero value: ``0s``, qps 0, burst 0 and empty names
    are replaced by the defaults."""
    cfg = from_dict({"leaderElection": {"leaseDuration": "0s", "resourceName": "", "resourceLock": ""},
                     "clientConnection": {"qps": 0, "burst": 0, "contentType": ""}})
    assert cfg.leader_election == LeaderElectionConfiguration()
    assert cfg.client_connection == ClientConnectionConfiguration()


@pytest.mark.parametrize(("doc", "want"), [
    pytest.param({"leaderElection": {"leaseDuration": "10s"}},
                 "leaderElection.leaseDuration: Invalid value: 10s: must be greater than `RenewDeadline`",
                 id="lease-not-longer-than-renew-deadline"),
    pytest.param({"leaderElection": {"leaseDuration": "5s", "renewDeadline": "8s"}},
                 "leaderElection.leaseDuration: Invalid value: 8s: must be greater than `RenewDeadline`",
                 id="the-error-shows-the-renew-deadline-as-upstream"),
    pytest.param({"leaderElection": {"retryPeriod": "-2s"}},
                 "leaderElection.retryPeriod: Invalid value: -2s: must be greater than zero",
                 id="negative-retry-period"),
    pytest.param({"leaderElection": {"renewDeadline": "-1s"}},
                 "leaderElection.renewDeadline: Invalid value: -1s: must be greater than zero",
                 id="negative-renew-deadline"),
    pytest.param({"leaderElection": {"resourceLock": "endpointsleases"}},
                 'leaderElection.resourceLock: Invalid value: "endpointsleases": resourceLock value must be '
                 '"leases"', id="only-leases"),
    pytest.param({"clientConnection": {"burst": -1}},
                 "clientConnection.burst: Invalid value: -1: must be non-negative", id="negative-burst"),
    pytest.param({"leaderElection": {"leaseDuration": 15}},
                 'leaderElection.leaseDuration: Invalid value: 15: must be a duration string such as "15s"',
                 id="duration-not-a-string"),
    pytest.param({"leaderElection": {"leaseDuration": "15 seconds"}},
                 "leaderElection.leaseDuration: Invalid value: \"15 seconds\": time: invalid duration",
                 id="duration-malformed"),
    pytest.param({"leaderElection": {"leaseDurationSeconds": 15}},
                 "leaderElection.leaseDurationSeconds: unknown field", id="unknown-field"),
    pytest.param({"clientConnection": {"qps": "fast"}},
                 'clientConnection.qps: Invalid value: "fast": must be a number', id="qps-not-a-number"),
])
def test_invalid(doc: dict[str, Any], want: str) -> None:
    with pytest.raises(ConfigError) as err:
        from_dict(doc)
    assert want in str(err.value)


def test_nothing_checked_without_leader_election() -> None:
    """ValidateLeaderElectionConfiguration returns early when leaderElect is false."""
    cfg = from_dict({"leaderElection": {"leaderElect": False, "leaseDuration": "1s", "renewDeadline": "5s",
                                        "resourceLock": "configmaps"}})
    assert cfg.leader_election.resource_lock == "configmaps"


def test_validate_command_rejects_a_bad_leader_election(tmp_path: Path) -> None:
    cfg = tmp_path / "config.yaml"
    cfg.write_text("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
                   "leaderElection:\n  leaseDuration: 10s\n  renewDeadline: 10s\n")
    quickstart = str(REPO / "examples" / "quickstart")
    result = CliRunner().invoke(app, ["validate", quickstart, "--config", str(cfg)])
    assert result.exit_code == 2
    assert f"{cfg}: leaderElection.leaseDuration: Invalid value: 10s" in result.output
