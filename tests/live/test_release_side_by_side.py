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
(kubernetes PRs #130260 and #135573). The harness is ``_side_by_side``; the other scenario
kinds are in ``test_side_by_side_*.py``.
"""

from __future__ import annotations

from contextlib import suppress

import pytest

from kubesched.api import KubeVersion, parse_object
from kubesched.cli._features import Release
from kubesched.cli._release import release_config
from kubesched.cluster import NotFound
from kubesched.framework.config import default_config
from kubesched.scheduler import explain

from . import _side_by_side as sbs
from ._kube import condition, create, get_pod, node_manifest, rest_for, wait_for
from .conftest import ControlPlane

SEEDS = (1, 2, 3, 4)


@pytest.mark.parametrize("seed", SEEDS)
def test_placements_match_the_real_scheduler_of_the_release(
        release_plane: tuple[ControlPlane, KubeVersion], seed: int) -> None:
    cp, release = release_plane
    out = sbs.placements(rest_for(cp), release, seed)
    assert out.compared >= sbs.PODS_PER_SCENARIO // 2
    assert not out.mismatches, "\n".join(out.mismatches)


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
