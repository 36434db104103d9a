"""Opportunistic batching (KEP-5598) side by side with the real kube-scheduler v1.35.

``../shared/k8s-1.35``'s kube-scheduler (OpportunisticBatching beta, on by default) gets a burst
of identical pods created together: the nodes and the pods exist before it starts, so its
initial list holds them all and it schedules them back to back, as a burst arriving at once.
kubesched (``kube_version`` 1.35) schedules the same burst in a simulation. Each pod asks for
the same host port, so at most one fits per node: the case upstream's batch serves.

- under the **default profile** every pod is unsignable (the system default topology spread
  constraints): both schedulers count ``no_hint`` and ``pod_not_batchable`` once per pod;
- under a profile where upstream batches (``PodTopologySpread`` with ``defaultingType: List``),
  gate on: the same ``scheduler_batch_attempts_total`` / ``scheduler_batch_cache_flushed_total``
  counters (one ``no_hint``, then ``hint_used`` for every other pod) and the same nodes;
- the same profile, gate off (``--feature-gates=OpportunisticBatching=false``): no batch
  counter on either side, the same nodes.

The nodes are compared as a set (identical pods: which pod lands where is the queue's order,
not a decision), and where two nodes tie for the highest score either may be taken, as the
release side-by-side test allows. The real scheduler must place the whole burst within the
batch's 500 ms (``maxBatchAge``, wall time there), or it counts ``expired`` where kubesched, on
a virtual clock, does not. ``KUBESCHED_BATCHING_SEEDS`` (default 2) sets how many seeds run;
``benchmarks/live_batching_side_by_side.py`` runs more.
"""

from __future__ import annotations

import os
import random
import re
import subprocess
from collections.abc import Iterator
from contextlib import suppress
from typing import Any

import pytest
import yaml

from kubesched.api import KubeVersion, parse_object
from kubesched.clock import VirtualClock
from kubesched.cluster import MemoryStore, NotFound
from kubesched.cluster.live import RestClient
from kubesched.framework.config import from_dict
from kubesched.scheduler import Scheduler, SchedulerOptions

from ._kube import create, get_pod, https_get, node_manifest, pod_manifest, rest_for, wait_for
from .conftest import REPO, ControlPlane, started_control_plane

RELEASE = KubeVersion.parse("1.35")
GATE = "OpportunisticBatching"
SEEDS = range(1, 1 + int(os.environ.get("KUBESCHED_BATCHING_SEEDS", "2")))
BATCH_METRICS = ("scheduler_batch_attempts_total", "scheduler_batch_cache_flushed_total")

DEFAULT_PROFILE: dict[str, Any] = {"schedulerName": "default-scheduler"}
BATCHABLE_PROFILE: dict[str, Any] = {
    "schedulerName": "default-scheduler",
    "pluginConfig": [{"name": "PodTopologySpread", "args": {"defaultingType": "List"}}]}

MODES = [
    pytest.param(DEFAULT_PROFILE, True, id="default-profile"),
    pytest.param(BATCHABLE_PROFILE, True, id="no-default-spreading-gate-on"),
    pytest.param(BATCHABLE_PROFILE, False, id="no-default-spreading-gate-off"),
]


@pytest.fixture(scope="module")
def plane_135(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ControlPlane]:
    """A v1.35 control plane; each scenario starts and stops its own kube-scheduler."""
    yield from started_control_plane(REPO.parent / "shared" / "k8s-1.35" / "control-plane",
                                     tmp_path_factory)


def _config_doc(profile: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
            "leaderElection": {"leaderElect": False}, "profiles": [profile]}


def _start_real_scheduler(cp: ControlPlane, profile: dict[str, Any], gate: bool) -> int:
    """The real kube-scheduler with ``profile`` and the gate as asked; returns its port."""
    cfg = cp.dir / "batching-scheduler.yaml"
    cfg.write_text(yaml.safe_dump(_config_doc(profile)))  # the script appends clientConnection
    env = {**os.environ, "SCHED_ARGS": f"--feature-gates={GATE}={'true' if gate else 'false'}"}
    started = subprocess.run([str(cp.script), "scheduler", str(cp.dir), str(cfg)],
                             capture_output=True, text=True, timeout=180, env=env)
    assert started.returncode == 0, started.stderr[-2000:]
    ports = re.findall(r"^SCHED_PORT=(\d+)$", (cp.dir / "env").read_text(), re.M)
    return int(ports[-1])


def _batch_counters(text: str) -> dict[str, float]:
    """``{'<metric>{<labels>}': value}`` for the batch counters of a /metrics text."""
    out: dict[str, float] = {}
    for line in text.splitlines():
        if line.startswith(BATCH_METRICS):
            key, _, value = line.rpartition(" ")
            if float(value):
                out[key] = float(value)
    return out


def _burst(rng: random.Random, seed: int, namespace: str
           ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """6 to 42 nodes of distinct CPU sizes, and 5 to 40 identical pods (fewer than the nodes)
    asking for one host port."""
    n_nodes = rng.randint(6, 42)
    cpus = sorted(rng.sample(range(2, 65), n_nodes))
    nodes = [node_manifest(f"{namespace}-n{i}", str(cpu), f"{rng.choice([8, 16, 32])}Gi")
             for i, cpu in enumerate(cpus)]
    n_pods = rng.randint(5, min(40, n_nodes - 1))
    pods = [pod_manifest(f"p{j:02d}", namespace, "default-scheduler", cpu="500m", memory="256Mi",
                         containers=[{"name": "c", "image": "registry.invalid/pause",
                                      "ports": [{"containerPort": 8080, "hostPort": 8080}],
                                      "resources": {"requests": {"cpu": "500m", "memory": "256Mi"}}}])
            for j in range(n_pods)]
    return nodes, pods


def _kubesched(nodes: list[dict[str, Any]], pods: list[dict[str, Any]], profile: dict[str, Any],
               gate: bool, seed: int) -> tuple[set[str], dict[str, float], Scheduler]:
    """kubesched as v1.35 on the same burst: the nodes it chose and its batch counters."""
    clock = VirtualClock(0.0)
    store = MemoryStore(clock)
    for doc in (*nodes, *pods):
        store.create(parse_object(doc))
    config = from_dict(_config_doc(profile), kube_version=RELEASE)
    sched = Scheduler(store, clock, config, seed=seed, options=SchedulerOptions(features={GATE: gate}))
    sched.run_until_idle()
    chosen = {p.node_name for p in store.list("Pod") if p.node_name}
    return chosen, _batch_counters(sched.metrics.exposition().decode()), sched


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(("profile", "gate"), MODES)
def test_burst_batching_matches_the_real_scheduler(plane_135: ControlPlane, profile: dict[str, Any],
                                                    gate: bool, seed: int) -> None:
    cp = plane_135
    rest = rest_for(cp)
    rng = random.Random(f"batching/{seed}")
    namespace = f"batch-{seed}-{'default' if profile is DEFAULT_PROFILE else 'list'}-{int(gate)}"
    nodes, pods = _burst(rng, seed, namespace)
    rest.request("POST", "/api/v1/namespaces",
                 {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}})
    for n in nodes:
        create(rest, n)
    for p in pods:
        create(rest, p)
    try:
        port = _start_real_scheduler(cp, profile, gate)
        try:
            try:
                theirs_by_pod = {name: _bound_node(rest, namespace, name)
                                 for name in (p["metadata"]["name"] for p in pods)}
            except AssertionError as err:
                log = (cp.dir / "logs" / "kube-scheduler.log").read_text()[-3000:]
                raise AssertionError(f"{err}\nkube-scheduler's log:\n{log}") from None
            status, text = https_get(port, "/metrics", cp.token)
            assert status == 200, text[:500]
        finally:
            cp.run("stop-scheduler", check=False)
        theirs = set(theirs_by_pod.values())
        ours, our_counters, sched = _kubesched(nodes, pods, profile, gate, seed)
        _assert_same_nodes(theirs, ours, sched, pods)
        assert _batch_counters(text) == our_counters
        assert our_counters == _expected_counters(profile, gate, len(pods))
    finally:
        _cleanup(rest, namespace, nodes, pods)


def _expected_counters(profile: dict[str, Any], gate: bool, pods: int) -> dict[str, float]:
    if not gate:
        return {}
    attempts = 'scheduler_batch_attempts_total{profile="default-scheduler",result="%s"}'
    if profile is DEFAULT_PROFILE:
        return {attempts % "no_hint": pods,
                'scheduler_batch_cache_flushed_total{profile="default-scheduler",'
                'reason="pod_not_batchable"}': pods}
    return {attempts % "no_hint": 1, attempts % "hint_used": pods - 1}


def _bound_node(rest: RestClient, namespace: str, name: str) -> str:
    node: str = wait_for(f"{namespace}/{name} bound by kube-scheduler",
                         lambda: get_pod(rest, namespace, name)["spec"].get("nodeName"), timeout=30)
    return node


def _assert_same_nodes(theirs: set[str], ours: set[str], sched: Scheduler,
                       pods: list[dict[str, Any]]) -> None:
    """The same set of nodes, unless the difference is between nodes of equal score for this
    pod on the empty nodes (every node is empty before the burst and scores do not depend on the
    other pods: the burst fills the best nodes in score order, ties either way)."""
    if theirs == ours:
        return
    from kubesched.scheduler import explain

    state = list(sched.store.list("Node"))
    probe = {**pods[0], "metadata": {**pods[0]["metadata"], "name": "probe"}}
    res = explain([*state, parse_object(probe)], probe["metadata"]["namespace"], "probe",
                  config=sched.config, seed=0)
    totals = {n.name: n.total_score or 0 for n in res.nodes}
    cut = sorted(totals.values(), reverse=True)[len(theirs) - 1]
    boundary = {n for n, t in totals.items() if t == cut}
    assert (theirs ^ ours) <= boundary, (
        f"kube-scheduler {sorted(theirs)}, kubesched {sorted(ours)}, totals {totals}")


def _cleanup(rest: RestClient, namespace: str, nodes: list[dict[str, Any]],
             pods: list[dict[str, Any]]) -> None:
    """Pods first, at once (no kubelet confirms a graceful deletion), then nodes, namespace."""
    for p in pods:
        with suppress(NotFound):
            rest.request("DELETE", f"/api/v1/namespaces/{namespace}/pods/{p['metadata']['name']}"
                                   "?gracePeriodSeconds=0")
    for n in nodes:
        with suppress(NotFound):
            rest.request("DELETE", f"/api/v1/nodes/{n['metadata']['name']}")
    with suppress(NotFound):
        rest.request("DELETE", f"/api/v1/namespaces/{namespace}")
