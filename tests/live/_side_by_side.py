"""The side-by-side harness: kubesched as a given release against that release's real
kube-scheduler, on the same state, for every scenario kind.

A scenario (one seed of one kind) runs on a shared control plane whose real kube-scheduler
(default configuration: every default plugin on) places what the scenario creates; before (or,
for a burst, after) each placement, kubesched decides on the same state with ``kube_version``
set to that release. Each scenario returns an :class:`Outcome`: how many decisions were
compared and a line per mismatch. A placement matches when the real scheduler's node is
kubesched's or ties with it for the highest total score (upstream breaks ties at random).

Used by the ``test_*side_by_side*`` live tests (a few seeds each, in CI) and by
``benchmarks/side_by_side.py`` (many seeds, a table of mismatches). Scenario kinds:

- :func:`placements`: assorted pods created one at a time;
- :func:`bursts`: 5 to 40 identical pods created together;
- :func:`preemption`: a higher-priority pod that fits nowhere; the victims, the nominated node
  and what the bound preemptor's ``nominatedNodeName`` is afterwards;
- :func:`volumes`: pods with WaitForFirstConsumer claims, static PVs with node affinity and a
  provisioning class; the placement, the PV the scheduler picked and the selected-node
  annotation. No kube-controller-manager runs: :class:`PVController` plays the PV controller's
  (and the external provisioner's) part, as upstream's volume scheduling integration tests do.
"""

from __future__ import annotations

import hashlib
import os
import random
import shlex
import subprocess
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kubesched.api import KubeVersion, parse_object
from kubesched.api.loader import LoadedObjects
from kubesched.cluster import AlreadyExists, NotFound
from kubesched.cluster.live import RestClient
from kubesched.framework.config import default_config
from kubesched.scheduler import Explanation, explain
from kubesched.simulator import run_simulation

from ._kube import MERGE, condition, create, get_pod, node_manifest, wait_for
from .conftest import REPO, ControlPlane

FOLDERS = {"1.32": "k8s", "1.35": "k8s-1.35"}
"""The control-plane folder (beside the repository) of each release compared."""

ZONE = "topology.kubernetes.io/zone"
HOSTNAME = "kubernetes.io/hostname"


@dataclass
class Outcome:
    """What one scenario compared, and every difference found."""

    compared: int = 0
    mismatches: list[str] = field(default_factory=list)


@contextmanager
def running_plane(release: str, where: Path, sched_args: str = "",
                  apiserver_args: Sequence[str] = ()) -> Iterator[ControlPlane]:
    """A control plane of ``release`` in ``where`` with its real kube-scheduler (extra flags in
    ``sched_args``, the script's SCHED_ARGS), stopped after. Raises if it does not start.
    ``apiserver_args``: more kube-apiserver flags (``--runtime-config=...``): the script has
    none to pass, so they go through :func:`apiserver_with_args`."""
    script = REPO.parent / "shared" / FOLDERS[release] / "control-plane"
    env = {**os.environ, **(apiserver_with_args(script, where.parent / "bin", apiserver_args)
                            if apiserver_args else {})}
    started = subprocess.run([str(script), "start", str(where)], capture_output=True, text=True, timeout=600,
                             env=env)
    if started.returncode != 0:
        raise RuntimeError(f"control-plane start failed: {started.stderr.strip()[-2000:]}")
    try:
        cp = plane_in(where, script)
        start_scheduler(cp, sched_args, env)
        yield cp
    finally:
        subprocess.run([str(script), "stop", str(where)], capture_output=True, text=True, timeout=180,
                       env=env)


def apiserver_with_args(script: Path, cache: Path, args: Sequence[str]) -> dict[str, str]:
    """The environment that makes ``script`` start its kube-apiserver with ``args`` added: its
    binary cache (``KUBESCHED_K8S_CACHE``) pointed at ``cache``, where ``kube-apiserver`` is a
    wrapper running the real binary with ``args`` after the script's flags. The binaries are
    unpacked once per set (keyed on its ``SHA256SUMS``, as the script keys its own cache) into a
    folder of ``$XDG_CACHE_HOME`` (else the temporary directory), and linked from ``cache``."""
    key = hashlib.sha256((script.parent / "SHA256SUMS").read_bytes()).hexdigest()[:12]
    unpacked = Path(os.environ.get("XDG_CACHE_HOME") or tempfile.gettempdir()) / f"kubesched-k8s-bin-{key}"
    unpacked.mkdir(parents=True, exist_ok=True)
    cache.mkdir(parents=True, exist_ok=True)
    for binary in ("kube-apiserver", "kube-scheduler"):
        target = unpacked / binary
        if not os.access(target, os.X_OK):
            part = unpacked / f"{binary}.{os.getpid()}.part"
            with (script.parent / f"{binary}.xz").open("rb") as xz, part.open("wb") as out:
                subprocess.run(["xz", "-dc"], stdin=xz, stdout=out, check=True, timeout=300)
            part.chmod(0o755)
            os.replace(part, target)
    (cache / "kube-scheduler").symlink_to(unpacked / "kube-scheduler")
    wrapper = cache / "kube-apiserver"
    real = shlex.quote(str(unpacked / "kube-apiserver"))
    wrapper.write_text(f'#!/bin/sh\nexec {real} "$@" {shlex.join(args)}\n')
    wrapper.chmod(0o755)
    return {"KUBESCHED_K8S_CACHE": str(cache)}


def plane_in(where: Path, script: Path) -> ControlPlane:
    env = dict(line.split("=", 1) for line in (where / "env").read_text().splitlines() if "=" in line)
    return ControlPlane(dir=where, script=script, kubeconfig=Path(env["KUBECONFIG"]),
                        api_url=env["API_URL"], token=env["TOKEN"])


def start_scheduler(cp: ControlPlane, sched_args: str = "", env: Mapping[str, str] | None = None) -> None:
    """The real kube-scheduler, default configuration, ``sched_args`` as SCHED_ARGS (``env``:
    the script's environment, default this process's)."""
    subprocess.run([str(cp.script), "scheduler", str(cp.dir)], check=True, capture_output=True, text=True,
                   timeout=180, env={**(os.environ if env is None else env), "SCHED_ARGS": sched_args})


# --- generators ------------------------------------------------------------------------------

def random_nodes(rng: random.Random, prefix: str) -> list[dict[str, Any]]:
    """3 to 6 nodes of assorted sizes in three zones, a quarter with a PreferNoSchedule taint."""
    return [node_manifest(f"{prefix}-n{i}", f"{rng.choice([2, 4, 8])}", f"{rng.choice([4, 8, 16, 32])}Gi",
                          labels={ZONE: f"z{rng.randint(0, 2)}"},
                          taints=[{"key": "t", "value": "x", "effect": "PreferNoSchedule"}]
                          if rng.random() < 0.25 else [])
            for i in range(rng.randint(3, 6))]


def random_pod(rng: random.Random, name: str, namespace: str) -> dict[str, Any]:
    """Assorted requests (a sixth best-effort, some cpu- or memory-only: where the releases'
    BalancedAllocation formulas differ, kubernetes PRs #130260 and #135573), topology spread,
    preferred pod (anti-)affinity or node affinity, tolerations."""
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
            "podAffinityTerm": {"topologyKey": HOSTNAME, "labelSelector": same_app}}]}}
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


def renamed(manifest: Mapping[str, Any], name: str) -> dict[str, Any]:
    return {**manifest, "metadata": {**manifest["metadata"], "name": name}}


def bound_to(manifest: Mapping[str, Any], node: str) -> dict[str, Any]:
    return {**manifest, "spec": {**manifest["spec"], "nodeName": node}}


# --- comparing -------------------------------------------------------------------------------

def matches(ours: Explanation, theirs: str | None) -> bool:
    """The real scheduler's node is kubesched's, or ties with it for the highest total score."""
    return theirs == ours.selected_node or (theirs is not None and theirs in ours.tied_nodes)


def agrees(ours: Explanation, decision: str | bool) -> bool:
    """kubesched's explanation agrees with the real scheduler's :func:`decided` decision."""
    if decision is True:
        return ours.selected_node is None
    return isinstance(decision, str) and matches(ours, decision)


def totals(ours: Explanation) -> dict[str, int | None]:
    return {n.name: n.total_score for n in ours.nodes}


def requests_of(manifest: Mapping[str, Any]) -> Any:
    return manifest["spec"]["containers"][0]["resources"].get("requests")


@contextmanager
def scenario(rest: RestClient, namespace: str) -> Iterator[list[tuple[str, str]]]:
    """A fresh namespace; yields a list to put the cluster-scoped objects created in, as
    ``(collection path, name)``; they are deleted after (other scenarios share the cluster),
    and so are the namespace's pods."""
    rest.request("POST", "/api/v1/namespaces",
                 {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}})
    owned: list[tuple[str, str]] = []
    try:
        yield owned
    finally:
        with suppress(NotFound):
            rest.request("DELETE", f"/api/v1/namespaces/{namespace}/pods",
                         {"apiVersion": "v1", "kind": "DeleteOptions", "gracePeriodSeconds": 0})
        for path, name in reversed(owned):
            with suppress(NotFound):
                rest.request("DELETE", f"{path}/{name}")


def create_nodes(rest: RestClient, nodes: list[dict[str, Any]], owned: list[tuple[str, str]]) -> None:
    for n in nodes:
        owned.append(("/api/v1/nodes", n["metadata"]["name"]))
        create(rest, n)


def decided(rest: RestClient, namespace: str, name: str, timeout: float = 30) -> str | bool:
    """Once the real scheduler decided on the pod: its node, or True when it found the pod
    unschedulable."""
    def settled() -> str | bool:
        pod = get_pod(rest, namespace, name)
        if pod["spec"].get("nodeName"):
            return str(pod["spec"]["nodeName"])
        cond = condition(pod, "PodScheduled")
        return cond is not None and cond.get("status") == "False"
    return wait_for(f"kube-scheduler's decision on {namespace}/{name}", settled, timeout=timeout)


def bound_node(rest: RestClient, namespace: str, name: str, timeout: float = 30) -> str:
    """The node the real scheduler binds the pod to (waits for it)."""
    return str(wait_for(f"{namespace}/{name} bound by kube-scheduler",
                        lambda: get_pod(rest, namespace, name)["spec"].get("nodeName"), timeout=timeout))


# --- scenario kinds --------------------------------------------------------------------------

PODS_PER_SCENARIO = 24


def placements(rest: RestClient, release: KubeVersion, seed: int, pods: int = PODS_PER_SCENARIO) -> Outcome:
    """Assorted pods created one at a time, each bound before the next is created; kubesched
    explains each on the state just before it is created. A pod kubesched finds no node for
    is not created (the cluster stays as it is)."""
    rng = random.Random(f"side-by-side/{release}/{seed}")
    namespace = f"s{seed}"
    out = Outcome()
    config = default_config(kube_version=release)
    with scenario(rest, namespace) as owned:
        nodes = random_nodes(rng, f"s{seed}")
        create_nodes(rest, nodes, owned)
        bound: list[dict[str, Any]] = []
        for i in range(pods):
            manifest = random_pod(rng, f"p{i}", namespace)
            state = [parse_object(o) for o in (*nodes, *bound, manifest)]
            ours = explain(state, namespace, f"p{i}", config=config, seed=seed)
            if ours.selected_node is None:
                continue
            create(rest, manifest)
            theirs = bound_node(rest, namespace, f"p{i}")
            out.compared += 1
            if not matches(ours, theirs):
                out.mismatches.append(f"{namespace}/p{i} {requests_of(manifest)}: kube-scheduler {theirs}, "
                                      f"kubesched {ours.selected_node} (totals {totals(ours)})")
            bound.append(bound_to(manifest, theirs))
    return out


def bursts(rest: RestClient, release: KubeVersion, seed: int, rounds: int = 2) -> Outcome:
    """``rounds`` bursts of 5 to 40 identical pods (one template from :func:`random_pod`)
    created together. The real scheduler takes them in creation order (activeQ is FIFO among
    equal priorities), one cycle at a time; since the pods are identical, the state before its
    k-th placement is the nodes of its first k-1, whichever pods they were. Each placement must
    be one kubesched chooses (or ties with) on that state; the pods it left unschedulable must
    fit nowhere on the final state."""
    rng = random.Random(f"side-by-side-burst/{release}/{seed}")
    namespace = f"b{seed}"
    out = Outcome()
    config = default_config(kube_version=release)
    with scenario(rest, namespace) as owned:
        nodes = random_nodes(rng, f"b{seed}")
        create_nodes(rest, nodes, owned)
        bound: list[dict[str, Any]] = []
        for r in range(rounds):
            template = random_pod(rng, "x", namespace)
            names = [f"r{r}-p{i}" for i in range(rng.randint(5, 40))]
            for name in names:
                create(rest, renamed(template, name))
            outcome = {name: decided(rest, namespace, name, timeout=60) for name in names}
            left = Counter(node for node in outcome.values() if isinstance(node, str))
            placed = sum(left.values())
            for k, name in enumerate(names):
                manifest = renamed(template, name)
                ours = explain([parse_object(o) for o in (*nodes, *bound, manifest)], namespace, name,
                               config=config, seed=seed)
                if k >= placed:  # the rest stayed pending
                    out.compared += 1
                    if ours.selected_node is not None:
                        out.mismatches.append(f"{namespace}/{name} (burst {r}, {requests_of(template)}): "
                                              f"kube-scheduler left it pending, kubesched "
                                              f"{ours.selected_node}")
                    continue
                out.compared += 1
                mine = outcome[name]
                candidates = sorted(n for n in left if left[n] and matches(ours, n))
                if not candidates:
                    out.mismatches.append(f"{namespace}/{name} (burst {r} pod {k}, {requests_of(template)}): "
                                          f"kube-scheduler placed the rest on {dict(left)}, kubesched "
                                          f"{ours.selected_node} (totals {totals(ours)})")
                    node = str(mine) if isinstance(mine, str) else min(n for n in left if left[n])
                else:
                    node = str(mine) if mine in candidates else candidates[0]
                left[node] -= 1
                bound.append(bound_to(manifest, node))
            for name in (n for n, node in outcome.items() if node is True):
                # a pending pod could fit once the next burst changes the spreading: out of the way
                rest.request("DELETE", f"/api/v1/namespaces/{namespace}/pods/{name}",
                             {"apiVersion": "v1", "kind": "DeleteOptions", "gracePeriodSeconds": 0})
            # the real pods keep their own nodes from here on
            bound = [o for o in bound if not o["metadata"]["name"].startswith(f"r{r}-")]
            bound += [bound_to(renamed(template, name), str(node)) for name, node in outcome.items()
                      if isinstance(node, str)]
    return out


PRIORITY_CLASSES = {"sbs-low": 100, "sbs-mid": 200, "sbs-high": 1000}


def _priority_classes() -> list[dict[str, Any]]:
    return [{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
             "value": value} for name, value in PRIORITY_CLASSES.items()]


def _ensure(rest: RestClient, docs: list[dict[str, Any]]) -> None:
    for doc in docs:
        with suppress(AlreadyExists):
            create(rest, doc)


def _list(rest: RestClient, path: str, kind: str) -> list[dict[str, Any]]:
    """The objects of a collection, each with its kind and apiVersion (a list's items lack them)."""
    got = rest.request("GET", path)
    return [{**o, "kind": kind, "apiVersion": got["apiVersion"]} for o in got["items"]]


def _live_pods(rest: RestClient, namespace: str) -> list[dict[str, Any]]:
    return _list(rest, f"/api/v1/namespaces/{namespace}/pods", "Pod")


def preemption(rest: RestClient, release: KubeVersion, seed: int, rounds: int = 3) -> Outcome:
    """Nodes full of low- and mid-priority pods (bound by the test, each with its own start
    time, as a kubelet would report it), then ``rounds`` times a high-priority pod that fits
    nowhere until pods are evicted. kubesched simulates the same state as that release: the
    victims must be the pods the real scheduler deleted, the node the one the preemptor is
    bound to, and the bound pod's ``nominatedNodeName`` the real one's (kept by v1.32, cleared
    at binding by v1.35: KEP-5278)."""
    rng = random.Random(f"side-by-side-preemption/{release}/{seed}")
    namespace = f"e{seed}"
    out = Outcome()
    config = default_config(kube_version=release)
    _ensure(rest, _priority_classes())
    start = time.time() - 86400
    with scenario(rest, namespace) as owned:
        nodes = [node_manifest(f"e{seed}-n{i}", rng.choice(["2", "4"]), "8Gi", labels={ZONE: f"z{i % 3}"})
                 for i in range(rng.randint(2, 4))]
        create_nodes(rest, nodes, owned)
        free = {}
        for n in nodes:
            left = int(n["status"]["allocatable"]["cpu"]) * 1000
            for j in range(rng.randint(2, 4)):
                cpu = min(left, rng.randint(2, 8) * 100) if j < 3 else left
                if cpu <= 0:
                    break
                left -= cpu
                name = f"{n['metadata']['name']}-v{j}"
                pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": namespace},
                       "spec": {"nodeName": n["metadata"]["name"], "terminationGracePeriodSeconds": 0,
                                "priorityClassName": rng.choice(["sbs-low", "sbs-mid"]),
                                "containers": [{"name": "c", "image": "registry.invalid/pause",
                                                "resources": {"requests": {"cpu": f"{cpu}m"}}}]}}
                create(rest, pod)
                started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(start + rng.randint(0, 80000)))
                rest.request("PATCH", f"/api/v1/namespaces/{namespace}/pods/{name}/status",
                             {"status": {"phase": "Running", "startTime": started}}, content_type=MERGE)
            free[n["metadata"]["name"]] = left
        for r in range(rounds):
            capacity = {n["metadata"]["name"]: int(n["status"]["allocatable"]["cpu"]) * 1000 for n in nodes}
            most_free = max(free.values())
            if most_free >= max(capacity.values()):
                break
            cpu = rng.randint(most_free // 100 + 1, max(capacity.values()) // 100) * 100
            name = f"high-{r}"
            manifest = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": namespace},
                        "spec": {"priorityClassName": "sbs-high", "terminationGracePeriodSeconds": 0,
                                 "containers": [{"name": "c", "image": "registry.invalid/pause",
                                                 "resources": {"requests": {"cpu": f"{cpu}m"}}}]}}
            before = _live_pods(rest, namespace)
            state = [parse_object(o) for o in (*_priority_classes(), *nodes, *before, manifest)]
            sim = run_simulation(LoadedObjects(objects=state), config, seed=seed)
            ours = next(p for p in sim.pods if p.pod == f"{namespace}/{name}")
            our_victims = sorted(p.victim.split("/")[1] for p in sim.preemptions)
            create(rest, manifest)
            if not ours.node:  # kubesched finds no victims: the real scheduler must not preempt
                decided(rest, namespace, name)
                time.sleep(3)  # what a preemption would do shows within its retry
                pod = get_pod(rest, namespace, name)
                gone = sorted({p["metadata"]["name"] for p in before}
                              - {p["metadata"]["name"] for p in _live_pods(rest, namespace)
                                 if not p["metadata"].get("deletionTimestamp")})
                theirs_none = (pod["spec"].get("nodeName"), gone, pod["status"].get("nominatedNodeName"))
                out.compared += 1
                if theirs_none != (None, [], None):
                    out.mismatches.append(f"{namespace}/{name} cpu {cpu}m (node, victims, nominated): "
                                          f"kube-scheduler {theirs_none}, kubesched preempts nothing")
                break
            try:
                node = bound_node(rest, namespace, name, timeout=60)
            except AssertionError as err:
                pod = get_pod(rest, namespace, name)
                out.mismatches.append(f"{namespace}/{name} cpu {cpu}m: {err}: nominatedNodeName "
                                      f"{pod['status'].get('nominatedNodeName')}, PodScheduled "
                                      f"{condition(pod, 'PodScheduled')}; kubesched {ours.node} "
                                      f"victims {our_victims}")
                break
            pod = get_pod(rest, namespace, name)
            after = {p["metadata"]["name"] for p in _live_pods(rest, namespace)
                     if not p["metadata"].get("deletionTimestamp")}
            victims = sorted(p["metadata"]["name"] for p in before if p["metadata"]["name"] not in after)
            theirs = (node, victims, pod["status"].get("nominatedNodeName"))
            mine = (ours.node, our_victims, ours.nominated_node or None)
            out.compared += 1
            if theirs != mine:
                out.mismatches.append(f"{namespace}/{name} cpu {cpu}m (node, victims, nominatedNodeName): "
                                      f"kube-scheduler {theirs}, kubesched {mine}")
            for v in victims:  # a victim may linger as terminating: no kubelet runs
                with suppress(NotFound):
                    rest.request("DELETE", f"/api/v1/namespaces/{namespace}/pods/{v}",
                                 {"apiVersion": "v1", "kind": "DeleteOptions", "gracePeriodSeconds": 0})
            for p in before:
                if p["metadata"]["name"] in victims:
                    free[p["spec"]["nodeName"]] += _milli(p)
            free[node] -= cpu
    return out


def _milli(pod: Mapping[str, Any]) -> int:
    cpu = str(pod["spec"]["containers"][0]["resources"]["requests"]["cpu"])
    return int(cpu[:-1]) if cpu.endswith("m") else int(cpu) * 1000


CLAIM = "PersistentVolumeClaim"
ANN_SELECTED_NODE = "volume.kubernetes.io/selected-node"
ANN_BIND_COMPLETED = "pv.kubernetes.io/bind-completed"
ANN_BOUND_BY_CONTROLLER = "pv.kubernetes.io/bound-by-controller"
PROVISIONER = "example.com/side-by-side"


class PVController:
    """The PV controller's part (and an external provisioner's) while a scenario runs, as
    upstream's volume scheduling integration tests run them: a claim the scheduler bound a PV
    to (the PV's claimRef) gets ``spec.volumeName``, the bind-completed annotation and phase
    Bound; a claim of :data:`PROVISIONER`'s class with the selected-node annotation gets a PV
    ``pvc-<claim uid>`` provisioned for it and bound to it. Provisioned PVs are added to
    ``owned``."""

    def __init__(self, rest: RestClient, namespace: str, owned: list[tuple[str, str]]) -> None:
        self.rest, self.namespace, self.owned = rest, namespace, owned
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self.errors: list[str] = []

    def __enter__(self) -> PVController:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def _loop(self) -> None:
        while not self._stop.wait(0.05):
            try:
                self.sync()
            except Exception as err:  # reported by the scenario
                self.errors.append(repr(err))

    def sync(self) -> None:
        claims = _list(self.rest, f"/api/v1/namespaces/{self.namespace}/persistentvolumeclaims", CLAIM)
        by_claim = {(pv["spec"].get("claimRef") or {}).get("uid"): pv
                    for pv in _list(self.rest, "/api/v1/persistentvolumes", "PersistentVolume")}
        for pvc in claims:
            if pvc["spec"].get("volumeName"):
                continue
            pv = by_claim.get(pvc["metadata"]["uid"])
            annotations = pvc["metadata"].get("annotations") or {}
            if pv is None and annotations.get(ANN_SELECTED_NODE) and self._provisioned(pvc):
                pv = self._provision(pvc)
            if pv is not None:
                self._bind(pvc, pv)

    def _provisioned(self, pvc: Mapping[str, Any]) -> bool:
        cls = pvc["spec"].get("storageClassName") or ""
        sc = self.rest.request("GET", f"/apis/storage.k8s.io/v1/storageclasses/{cls}")
        return bool(sc.get("provisioner") == PROVISIONER)

    def _provision(self, pvc: Mapping[str, Any]) -> dict[str, Any]:
        md = pvc["metadata"]
        name = f"pvc-{md['uid']}"
        self.owned.append(("/api/v1/persistentvolumes", name))
        pv: dict[str, Any] = create(self.rest, {
            "apiVersion": "v1", "kind": "PersistentVolume",
            "metadata": {"name": name, "annotations": {"pv.kubernetes.io/provisioned-by": PROVISIONER}},
            "spec": {"capacity": {"storage": pvc["spec"]["resources"]["requests"]["storage"]},
                     "accessModes": pvc["spec"]["accessModes"],
                     "storageClassName": pvc["spec"]["storageClassName"],
                     "persistentVolumeReclaimPolicy": "Delete", "hostPath": {"path": f"/tmp/{name}"},
                     "claimRef": {"apiVersion": "v1", "kind": CLAIM, "namespace": md["namespace"],
                                  "name": md["name"], "uid": md["uid"]}}})
        return pv

    def _bind(self, pvc: Mapping[str, Any], pv: Mapping[str, Any]) -> None:
        md = pvc["metadata"]
        path = f"/api/v1/namespaces/{md['namespace']}/persistentvolumeclaims/{md['name']}"
        pv_path = f"/api/v1/persistentvolumes/{pv['metadata']['name']}"
        self.rest.request("PATCH", f"{pv_path}/status", {"status": {"phase": "Bound"}}, content_type=MERGE)
        self.rest.request("PATCH", path, {"metadata": {"annotations": {ANN_BIND_COMPLETED: "yes",
                                                                        ANN_BOUND_BY_CONTROLLER: "yes"}},
                                          "spec": {"volumeName": pv["metadata"]["name"]}}, content_type=MERGE)
        self.rest.request("PATCH", f"{path}/status", {"status": {
            "phase": "Bound", "accessModes": pv["spec"]["accessModes"], "capacity": pv["spec"]["capacity"]}},
            content_type=MERGE)


def _storage_classes(seed: int) -> list[dict[str, Any]]:
    return [{"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
             "metadata": {"name": f"v{seed}-{kind}"},
             "provisioner": provisioner, "volumeBindingMode": "WaitForFirstConsumer"}
            for kind, provisioner in (("local", "kubernetes.io/no-provisioner"), ("dyn", PROVISIONER))]


def volumes(rest: RestClient, release: KubeVersion, seed: int, pods: int = 10) -> Outcome:
    """Static local PVs (distinct sizes: upstream picks the smallest that fits, in cache order
    among equal ones) with node affinity to one node each, in a WaitForFirstConsumer class
    without a provisioner, and a WaitForFirstConsumer class with one; pods created one at a
    time, each with a new claim of either class. Per pod: the node (or a tie), then, when
    kubesched's simulation of the same state chose that node too, the binding written: the
    PV whose claimRef the scheduler set (static) or the selected-node annotation (provisioning)."""
    rng = random.Random(f"side-by-side-volumes/{release}/{seed}")
    namespace = f"v{seed}"
    out = Outcome()
    config = default_config(kube_version=release)
    classes = _storage_classes(seed)
    with scenario(rest, namespace) as owned, PVController(rest, namespace, owned) as controller:
        for sc in classes:
            owned.append(("/apis/storage.k8s.io/v1/storageclasses", sc["metadata"]["name"]))
            create(rest, sc)
        nodes = random_nodes(rng, f"v{seed}")
        create_nodes(rest, nodes, owned)
        for j, size in enumerate(rng.sample(range(1, 21), rng.randint(3, 8))):
            name = f"v{seed}-pv{j}"
            owned.append(("/api/v1/persistentvolumes", name))
            host = rng.choice(nodes)["metadata"]["name"]
            create(rest, {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name},
                          "spec": {"capacity": {"storage": f"{size}Gi"}, "accessModes": ["ReadWriteOnce"],
                                   "storageClassName": f"v{seed}-local",
                                   "persistentVolumeReclaimPolicy": "Retain",
                                   "local": {"path": f"/mnt/{name}"},
                                   "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                                       {"key": HOSTNAME, "operator": "In", "values": [host]}]}]}}},
                          # the PV controller's syncVolume makes an unclaimed PV Available; a
                          # Pending one is not a candidate (FindMatchingVolume)
                          "status": {"phase": "Available"}})
        for i in range(pods):
            claim = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                     "metadata": {"name": f"c{i}", "namespace": namespace},
                     "spec": {"accessModes": ["ReadWriteOnce"],
                              "storageClassName": f"v{seed}-{'dyn' if rng.random() < 0.3 else 'local'}",
                              "resources": {"requests": {"storage": f"{rng.randint(1, 12)}Gi"}}}}
            manifest = random_pod(rng, f"p{i}", namespace)
            manifest["spec"]["volumes"] = [{"name": "data", "persistentVolumeClaim": {"claimName": f"c{i}"}}]
            live = [*_list(rest, "/api/v1/persistentvolumes", "PersistentVolume"),
                    *_list(rest, f"/api/v1/namespaces/{namespace}/persistentvolumeclaims", CLAIM),
                    *(p for p in _live_pods(rest, namespace) if p["spec"].get("nodeName"))]
            state = [parse_object(o) for o in (*classes, *nodes, *live, claim, manifest)]
            ours = explain(state, namespace, f"p{i}", config=config, seed=seed)
            if ours.selected_node is None:  # the real scheduler must refuse it too
                create(rest, claim)
                create(rest, manifest)
                got = decided(rest, namespace, f"p{i}")
                out.compared += 1
                if got is not True:
                    out.mismatches.append(f"{namespace}/p{i} claim {claim['spec']}: kube-scheduler {got}, "
                                          f"kubesched: {ours.message}")
                for path in (f"pods/p{i}", f"persistentvolumeclaims/c{i}"):
                    with suppress(NotFound):
                        rest.request("DELETE", f"/api/v1/namespaces/{namespace}/{path}",
                                     {"apiVersion": "v1", "kind": "DeleteOptions", "gracePeriodSeconds": 0})
                continue
            sim = run_simulation(LoadedObjects(objects=state), config, seed=seed)
            create(rest, claim)
            create(rest, manifest)
            theirs = bound_node(rest, namespace, f"p{i}", timeout=60)
            out.compared += 1
            if not matches(ours, theirs):
                out.mismatches.append(f"{namespace}/p{i} claim {claim['spec']}: kube-scheduler {theirs}, "
                                      f"kubesched {ours.selected_node} (totals {totals(ours)})")
                continue
            sim_pod = next(p for p in sim.pods if p.pod == f"{namespace}/p{i}")
            if sim_pod.node != theirs:
                continue  # a tie broken the other way: the binding would differ with it
            real_claim = rest.request("GET", f"/api/v1/namespaces/{namespace}/persistentvolumeclaims/c{i}")
            our_claim = sim.store.get("PersistentVolumeClaim", namespace, f"c{i}")
            theirs_b = _binding(real_claim["metadata"].get("annotations") or {},
                                real_claim["spec"].get("volumeName"))
            mine_b = _binding(our_claim.annotations, our_claim.volume_name)
            if theirs_b != mine_b:
                out.mismatches.append(f"{namespace}/c{i} {claim['spec']} on {theirs} (selected node, "
                                      f"volume): kube-scheduler {theirs_b}, kubesched {mine_b}")
        if controller.errors:
            out.mismatches.append(f"the test's PV controller failed: {controller.errors[0]}")
    return out


def _binding(annotations: Mapping[str, str], volume: str | None) -> tuple[str | None, str | None]:
    """The selected node and the volume, a provisioned one as ``provisioned`` (its name has
    the claim's uid, which differs between the two stores)."""
    if volume and volume.startswith("pvc-"):
        volume = "provisioned"
    return annotations.get(ANN_SELECTED_NODE), volume or None


KINDS: dict[str, Callable[[RestClient, KubeVersion, int], Outcome]] = {
    "placements": placements, "bursts": bursts, "preemption": preemption, "volumes": volumes}
"""Every scenario kind, by name (the benchmark's ``--kinds``)."""
