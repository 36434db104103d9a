"""kubesched as a given release, side by side with that release's real kube-scheduler.

For each control plane beside the repository (``../shared/k8s``: kube-scheduler v1.32;
``../shared/k8s-1.35``: v1.35.4), generated scenarios: nodes of assorted sizes in three zones
(some with a PreferNoSchedule taint), then pods (assorted requests; topology spread, preferred
pod (anti-)affinity or node affinity, tolerations) created one at a time, each bound by the
real kube-scheduler (default configuration: every default plugin on) before the next. Before
each pod is created, kubesched explains it on the same state with ``kube_version`` set to that
release; the real scheduler's node must be the one kubesched picked, or tie with it for the
highest total score (a tie is broken at random). Best-effort and single-resource pods are in
the mix: they are where the releases' formulas of NodeResourcesBalancedAllocation differ
(kubernetes PRs #130260 and #135573).
"""

from __future__ import annotations

import random
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import suppress
from pathlib import Path
from typing import Any

import pytest

from kubesched.api import KubeVersion, parse_object
from kubesched.cli._features import Release
from kubesched.cli._release import release_config
from kubesched.cluster import NotFound
from kubesched.cluster.live import RestClient
from kubesched.framework.config import default_config
from kubesched.scheduler import explain

from ._kube import condition, create, get_pod, node_manifest, rest_for, wait_for
from .conftest import REPO, ControlPlane, _missing

RELEASES = [pytest.param(("k8s", "1.32"), id="v1.32"), pytest.param(("k8s-1.35", "1.35"), id="v1.35")]
SEEDS = (1, 2, 3, 4)
PODS_PER_SCENARIO = 24


@pytest.fixture(scope="module", params=RELEASES)
def release_plane(request: pytest.FixtureRequest,
                  tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ControlPlane, KubeVersion]]:
    """A control plane of that release with its real kube-scheduler running."""
    folder, release = request.param
    script = REPO.parent / "shared" / folder / "control-plane"
    if not script.is_file():
        _missing(f"{script} not found")
    for tool in ("curl", "openssl", "xz"):
        if shutil.which(tool) is None:
            _missing(f"{tool} is not installed")
    d = tmp_path_factory.mktemp(f"cp-{release}") / "cp"
    started = subprocess.run([str(script), "start", str(d)], capture_output=True, text=True, timeout=600)
    if started.returncode != 0:
        _missing(f"control-plane start failed: {started.stderr.strip()[-2000:]}")
    env = dict(line.split("=", 1) for line in (d / "env").read_text().splitlines() if "=" in line)
    cp = ControlPlane(dir=d, script=script, kubeconfig=Path(env["KUBECONFIG"]),
                      api_url=env["API_URL"], token=env["TOKEN"])
    try:
        cp.run("scheduler")
        yield cp, KubeVersion.parse(release)
    finally:
        subprocess.run([str(script), "stop", str(d)], capture_output=True, text=True, timeout=180)


ZONE = "topology.kubernetes.io/zone"


def _nodes(rng: random.Random, seed: int) -> list[dict[str, Any]]:
    """3 to 6 nodes of assorted sizes in three zones, a quarter with a PreferNoSchedule taint."""
    return [node_manifest(f"s{seed}-n{i}", f"{rng.choice([2, 4, 8])}", f"{rng.choice([4, 8, 16, 32])}Gi",
                          labels={ZONE: f"z{rng.randint(0, 2)}"},
                          taints=[{"key": "t", "value": "x", "effect": "PreferNoSchedule"}]
                          if rng.random() < 0.25 else [])
            for i in range(rng.randint(3, 6))]


def _pod(rng: random.Random, name: str, namespace: str) -> dict[str, Any]:
    kind = rng.random()
    requests: dict[str, str] = {}
    if kind >= 0.15:  # else best-effort: no requests
        if kind < 0.3 or kind >= 0.45:
            requests["cpu"] = f"{rng.randint(1, 15) * 100}m"
        if kind >= 0.3:  # 0.15..0.3: cpu only; 0.3..0.45: memory only
            requests["memory"] = f"{rng.randint(1, 24) * 128}Mi"
    container = {"name": "c", "image": "registry.invalid/pause", "resources": {"requests": requests}}
    app = rng.choice(["a", "b", "c"])
    spec: dict[str, Any] = {"terminationGracePeriodSeconds": 0, "containers": [container]}
    same_app = {"matchLabels": {"app": app}}
    r = rng.random()
    if r < 0.25:
        spec["topologySpreadConstraints"] = [{
            "maxSkew": 1, "topologyKey": ZONE, "labelSelector": same_app,
            "whenUnsatisfiable": rng.choice(["ScheduleAnyway", "DoNotSchedule"])}]
    elif r < 0.45:
        spec["affinity"] = {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{
            "weight": rng.randint(1, 100),
            "podAffinityTerm": {"topologyKey": "kubernetes.io/hostname", "labelSelector": same_app}}]}}
    elif r < 0.6:
        spec["affinity"] = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{
            "weight": rng.randint(1, 100),
            "preference": {"matchExpressions": [
                {"key": ZONE, "operator": "In", "values": [f"z{rng.randint(0, 2)}"]}]}}]}}
    elif r < 0.7:
        spec["affinity"] = {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{
            "weight": rng.randint(1, 100),
            "podAffinityTerm": {"topologyKey": ZONE, "labelSelector": same_app}}]}}
    if rng.random() < 0.2:
        spec["tolerations"] = [{"key": "t", "operator": "Exists"}]
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": namespace, "labels": {"app": app}}, "spec": spec}


@pytest.mark.parametrize("seed", SEEDS)
def test_placements_match_the_real_scheduler_of_the_release(
        release_plane: tuple[ControlPlane, KubeVersion], seed: int) -> None:
    cp, release = release_plane
    rest = rest_for(cp)
    rng = random.Random(f"side-by-side/{release}/{seed}")
    namespace = f"s{seed}"
    rest.request("POST", "/api/v1/namespaces",
                 {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}})
    nodes = _nodes(rng, seed)
    try:
        _compare(rest, release, rng, seed, namespace, nodes)
    finally:  # other scenarios share the cluster: take this one's nodes away again
        for n in nodes:
            with suppress(NotFound):
                rest.request("DELETE", f"/api/v1/nodes/{n['metadata']['name']}")


def _compare(rest: RestClient, release: KubeVersion, rng: random.Random, seed: int, namespace: str,
             nodes: list[dict[str, Any]]) -> None:
    for n in nodes:
        create(rest, n)
    config = default_config(kube_version=release)
    bound: list[dict[str, Any]] = []
    mismatches: list[str] = []
    compared = 0
    for i in range(PODS_PER_SCENARIO):
        manifest = _pod(rng, f"p{i}", namespace)
        state = [parse_object(o) for o in (*nodes, *bound, manifest)]
        ours = explain(state, namespace, f"p{i}", config=config, seed=seed)
        if ours.selected_node is None:
            continue  # fits nowhere: not created, the cluster stays as it is
        create(rest, manifest)
        theirs = wait_for(f"{namespace}/p{i} bound by kube-scheduler",
                          lambda i=i: get_pod(rest, namespace, f"p{i}")["spec"].get("nodeName"), timeout=30)
        compared += 1
        if theirs != ours.selected_node and theirs not in ours.tied_nodes:
            totals = {n.name: n.total_score for n in ours.nodes}
            mismatches.append(f"p{i} {manifest['spec']['containers'][0]['resources']['requests']}: "
                              f"kube-scheduler {theirs}, kubesched {ours.selected_node} (totals {totals})")
        bound.append({**manifest, "spec": {**manifest["spec"], "nodeName": theirs}})
    assert compared >= PODS_PER_SCENARIO // 2
    assert not mismatches, "\n".join(mismatches)


def test_failed_scheduling_message_matches_the_real_scheduler_of_the_release(
        release_plane: tuple[ControlPlane, KubeVersion]) -> None:
    """The PodScheduled=False message of a pod no node fits: which plugins the release's
    default profile has shows in it (DynamicResources' PostFilter, in the default plugins from
    1.34 on, adds "no new claims to deallocate")."""
    cp, release = release_plane
    rest = rest_for(cp)
    namespace = "too-big"
    rest.request("POST", "/api/v1/namespaces",
                 {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}})
    nodes = [node_manifest("big-n0", "2", "4Gi"), node_manifest("big-n1", "4", "8Gi")]
    manifest = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "huge", "namespace": namespace},
                "spec": {"containers": [{"name": "c", "image": "registry.invalid/pause",
                                         "resources": {"requests": {"cpu": "64"}}}]}}
    try:
        for n in nodes:
            create(rest, n)
        ours = explain([parse_object(o) for o in (*nodes, manifest)], namespace, "huge",
                       config=default_config(kube_version=release))
        create(rest, manifest)
        theirs = wait_for("the real scheduler's PodScheduled=False", lambda: (
            condition(get_pod(rest, namespace, "huge"), "PodScheduled") or {}).get("message"), timeout=30)
    finally:
        for n in nodes:
            with suppress(NotFound):
                rest.request("DELETE", f"/api/v1/nodes/{n['metadata']['name']}")
    assert ours.selected_node is None
    assert ours.message == theirs


def test_against_a_cluster_the_default_release_is_the_api_servers(
        release_plane: tuple[ControlPlane, KubeVersion], capsys: pytest.CaptureFixture[str]) -> None:
    """``run`` and ``extender`` without ``--kube-version``: the API server's ``/version`` minor
    (the v1.35.4 scheduler's plane has a v1.36 API server), told in one line."""
    cp, release = release_plane
    server = {"1.32": KubeVersion(1, 32), "1.35": KubeVersion(1, 36)}[str(release)]
    cfg = release_config(None, Release(), kubeconfig=str(cp.kubeconfig), live=True)
    assert cfg.kube_version == server
    assert capsys.readouterr().err == (f"kubesched: behaving as Kubernetes {server} (the API server's "
                                       "version; --kube-version chooses another)\n")
    chosen = release_config(None, Release(KubeVersion(1, 33)), kubeconfig=str(cp.kubeconfig), live=True)
    assert chosen.kube_version == KubeVersion(1, 33) and capsys.readouterr().err == ""
