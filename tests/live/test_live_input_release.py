"""With a cluster as input (``--kubeconfig``) and no ``--kube-version``, the commands that
schedule behave as the API server's release, as ``run`` and ``extender`` do: its ``/version``
minor (here v1.32), told in one line on stderr; ``--kube-version`` chooses another and the
line goes; ``snapshot``, which schedules nothing, says nothing of a release."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kubesched.cli import app

from ._kube import cleanup, create, node_manifest, pod_manifest, rest_for
from .conftest import ControlPlane

runner = CliRunner()
LINE = "kubesched: behaving as Kubernetes 1.32 (the API server's version; --kube-version chooses another)\n"


@pytest.fixture
def cluster(control_plane: ControlPlane, namespace_name: str) -> Iterator[str]:
    """A node and a pod too big for it (pending): v1.32's Fit says so as plain Unschedulable,
    so preemption's message is "No preemption victims found" (v1.34 made it unresolvable)."""
    rest = rest_for(control_plane)
    ns = namespace_name
    with cleanup(rest, ns) as nodes:
        create(rest, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
        create(rest, node_manifest(f"{ns}-n", "2", "4Gi"))
        nodes.append(f"{ns}-n")
        create(rest, pod_manifest("huge", ns, "default-scheduler", cpu="64"))
        yield ns


def _run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def _kubeconfig(cp: ControlPlane) -> tuple[str, str]:
    return "--kubeconfig", str(cp.kubeconfig)


def test_explain_and_simulate_behave_as_the_api_servers_release(control_plane: ControlPlane,
                                                                  cluster: str) -> None:
    ns = cluster
    code, out, err = _run("explain", "--pod", f"{ns}/huge", *_kubeconfig(control_plane), "-o", "json")
    assert code == 0, err
    # the shared cluster may hold other tests' objects, which add warnings of their own
    assert err.count("behaving as Kubernetes") == 1 and LINE in err
    as_server = json.loads(out)
    code, out, err = _run("explain", "--pod", f"{ns}/huge", *_kubeconfig(control_plane),
                          "--kube-version", "1.36", "-o", "json")
    assert code == 0 and "behaving as" not in err
    assert as_server != json.loads(out)  # v1.32's answer differs (see below)


def test_simulate_capacity_and_replay_say_the_release_once(control_plane: ControlPlane, cluster: str,
                                                            tmp_path: Path) -> None:
    kc = _kubeconfig(control_plane)
    code, _, err = _run("simulate", *kc, "-o", "json")
    assert code == 0, err
    assert err.count("behaving as Kubernetes") == 1 and LINE in err
    code, _, err = _run("simulate", *kc, "-o", "json", "--kube-version", "1.36")
    assert code == 0 and "behaving as" not in err
    pod = tmp_path / "pod.yaml"
    pod.write_text(json.dumps(pod_manifest("copy", "default", "default-scheduler")))
    code, _, err = _run("capacity", *kc, "--pod", str(pod))
    assert code == 0, err
    assert err.count("behaving as Kubernetes") == 1 and LINE in err
    code, _, err = _run("replay", "--format", "snapshot", *kc, "--out", str(tmp_path / "out"), "--no-plots")
    assert code == 0, err
    assert err.count("behaving as Kubernetes") == 1 and LINE in err
    code, _, err = _run("snapshot", *kc, "-o", str(tmp_path / "snap.yaml"))
    assert code == 0 and "behaving as" not in err


def test_the_release_shows_in_what_the_commands_answer(control_plane: ControlPlane, cluster: str) -> None:
    """v1.32's answer for a pod above any node's allocatable is preemption's "No preemption
    victims found"; the newest release's is that preemption is not helpful."""
    ns = cluster
    _, out, _ = _run("simulate", *_kubeconfig(control_plane), "-o", "json")
    as_server = next(p for p in json.loads(out)["pods"] if p["pod"] == f"{ns}/huge")
    _, out, _ = _run("simulate", *_kubeconfig(control_plane), "-o", "json", "--kube-version", "1.36")
    newest = next(p for p in json.loads(out)["pods"] if p["pod"] == f"{ns}/huge")
    assert "No preemption victims found" in as_server["message"], as_server
    assert as_server["message"] != newest["message"]
