"""Dynamic Resource Allocation against a real API server serving ``resource.k8s.io/v1``, side by
side with the real kube-scheduler v1.35.4 (``../shared/k8s-1.35``).

Each scenario is built twice on one control plane: once for the real scheduler
(``default-scheduler``, namespace ``<ns>-real``, nodes ``<ns>-real-n*``) and once for
``kubesched run`` (``--kube-version 1.35`` with the same feature gates; namespace ``<ns>-ours``,
nodes ``<ns>-ours-n*``). The nodes of a side carry a label its pods select, and each node's
ResourceSlice is the same on both sides (pool named after the node). Pods are created one at a
time; both sides must put each pod on the same node (by index), give its claims the same devices,
and write the same thing to the claims: finalizer, ``status.allocation``, ``status.reservedFor``,
and managedFields entries of the same operations, subresources and fields (the manager's name
aside: ``kube-scheduler`` there, ``kubesched`` here). An unschedulable pod gets the same
PodScheduled message on both sides.

No kube-controller-manager runs there: the test generates the claims of a pod's claim templates
as its resourceclaim controller does (``_dra_side_by_side.generate_claims``), after the pod exists,
and plays the driver that reports device binding conditions.
"""

from __future__ import annotations

import difflib
import json
import os
import random
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any

import pytest
import yaml

from kubesched.api import KubeVersion, ResourceClaim, parse_object
from kubesched.cluster import NotFound
from kubesched.cluster.live import RestClient
from kubesched.framework.config import default_config
from kubesched.scheduler import explain

from ._dra_side_by_side import (
    HOLD,
    RESOURCE,
    allocated_devices,
    claim_manifest,
    claim_names,
    cluster_state,
    device_class,
    generate_claims,
    get,
    merge_patch,
    post,
    resource_path,
    resource_slice,
    started_release_plane,
    template_manifest,
    written_by_scheduler,
)
from ._kube import KubeschedProcess, condition, get_pod, https_get, node_manifest, rest_for, wait_for
from .conftest import ControlPlane

GATES = "DRADeviceTaints=true,DRADeviceBindingConditions=true,DRADeviceTaintRules=true"
"""Alpha in v1.35, on in both schedulers (the v1.36 API server serves their fields and, with
:data:`APISERVER_ARGS`, DeviceTaintRules)."""
RULE_VERSION = "resource.k8s.io/v1alpha3"
"""The DeviceTaintRule version v1.35's scheduler reads (its ResourceSlice tracker's informer;
kubesched's KINDS say the same for 1.35)."""
RULES = f"/apis/{RULE_VERSION}/devicetaintrules"
APISERVER_ARGS = ("--runtime-config=resource.k8s.io/v1alpha3=true,resource.k8s.io/v1beta2=true",
                  "--feature-gates=DRADeviceTaintRules=true")
"""The v1.36 API server serves DeviceTaintRules only with these: the gate is beta and off, and
both versions that have them are off by default."""
OURS = "kubesched"
DRIVER = "gpu.example.com"


@pytest.fixture(scope="module")
def plane(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ControlPlane]:
    """A v1.36 API server serving DeviceTaintRules, with the real kube-scheduler v1.35.4 running."""
    yield from started_release_plane("k8s-1.35", tmp_path_factory, f"--feature-gates={GATES}", APISERVER_ARGS)


@pytest.fixture(scope="module")
def kubesched(plane: ControlPlane, tmp_path_factory: pytest.TempPathFactory) -> Iterator[KubeschedProcess]:
    """``kubesched run`` as v1.35 with the same gates, for the pods of scheduler ``kubesched``."""
    d = tmp_path_factory.mktemp("kubesched")
    config = d / "config.yaml"
    config.write_text(yaml.safe_dump({
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "leaderElection": {"leaderElect": False}, "profiles": [{"schedulerName": OURS}]}))
    with KubeschedProcess(d / "kubesched.log", "--config", str(config), "--kubeconfig", str(plane.kubeconfig),
                          "--kube-version", "1.35", "--feature-gates", GATES) as ks:
        wait_for("kubesched to be ready", lambda: _ready(ks), timeout=60, every=0.2)
        yield ks
        assert ks.proc.poll() is None, ks.log()[-3000:]


def _ready(ks: KubeschedProcess) -> bool:
    assert ks.proc.poll() is None, ks.log()[-3000:]
    with suppress(OSError):
        return https_get(ks.port, "/readyz")[0] == 200
    return False


def gpus(n: int, **extra: Any) -> list[dict[str, Any]]:
    return [{"name": f"gpu-{i}", "attributes": {"index": {"int": i}}, **extra} for i in range(n)]


def request(name: str = "gpu", count: int = 1, klass: str = "gpu", **extra: Any) -> dict[str, Any]:
    return {"name": name, "exactly": {"deviceClassName": klass, "count": count, **extra}}


@dataclass
class Side:
    """One side of a twin scenario: its scheduler, namespace, nodes and what it was given."""

    rest: RestClient
    prefix: str
    scheduler: str
    nodes: list[str] = field(default_factory=list)

    @property
    def namespace(self) -> str:
        return self.prefix

    def node(self, i: int) -> str:
        return f"{self.prefix}-n{i}"

    def pod(self, name: str, claims: Sequence[Mapping[str, str]], **spec: Any) -> dict[str, Any]:
        """A pod using ``claims`` (``{"name": ..., "resourceClaimName" | "resourceClaimTemplateName": ...}``),
        kept to this side's nodes."""
        return {"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": name, "namespace": self.namespace},
                "spec": {"schedulerName": self.scheduler, "terminationGracePeriodSeconds": 0,
                         "nodeSelector": {"side": self.prefix, **spec.pop("nodeSelector", {})},
                         "containers": [{"name": "c", "image": "registry.invalid/pause",
                                         "resources": {"requests": {"cpu": "100m"}}}],
                         "resourceClaims": list(claims), **spec}}

    def local(self, text: str) -> str:
        """``text`` with this side's prefix made generic (node, pool and namespace names)."""
        return text.replace(self.prefix, "<side>")


class Twin:
    """A scenario built on both sides; ``compare`` checks a pod's outcome is the same."""

    def __init__(self, rest: RestClient, ns: str) -> None:
        self.rest = rest
        self.sides = (Side(rest, f"{ns}-real", "default-scheduler"), Side(rest, f"{ns}-ours", OURS))
        self.cluster_scoped: list[tuple[str, str]] = []
        for side in self.sides:
            post(rest, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": side.namespace}})

    def cluster_object(self, doc: Mapping[str, Any]) -> None:
        post(self.rest, doc)
        self.cluster_scoped.append((doc["kind"], doc["metadata"]["name"]))

    def node(self, i: int, cpu: str, devices: Sequence[Mapping[str, Any]]) -> None:
        """Node ``i`` on both sides, with a slice of ``devices`` when there are any."""
        for side in self.sides:
            name = side.node(i)
            self.cluster_object(node_manifest(name, cpu, "16Gi", labels={"side": side.prefix}))
            side.nodes.append(name)
            if devices:
                self.cluster_object(resource_slice(f"{name}-gpu", DRIVER, name, devices))

    def each(self, make: Callable[[Side], Mapping[str, Any]]) -> list[dict[str, Any]]:
        return [post(self.rest, make(side)) for side in self.sides]

    def claim(self, name: str, requests: Sequence[Mapping[str, Any]]) -> None:
        self.each(lambda s: claim_manifest(name, s.namespace, requests))

    def template(self, name: str, requests: Sequence[Mapping[str, Any]]) -> None:
        self.each(lambda s: template_manifest(name, s.namespace, requests))

    def create_pod(self, name: str, claims: Sequence[Mapping[str, str]], **spec: Any) -> None:
        """Create the pod on both sides; then the claims its templates give, as the resourceclaim
        controller would once it sees the pod."""
        pods = self.each(lambda s: s.pod(name, claims, **dict(spec)))
        for pod in pods:
            generate_claims(self.rest, pod)

    def outcome(self, side: Side, name: str, bound: bool = True) -> dict[str, Any]:
        """Where the pod went (or why not) and what its claims got, side-generic."""
        rest = self.rest
        if bound:
            pod = wait_for(f"{side.namespace}/{name} to be bound", lambda: (
                p if (p := get_pod(rest, side.namespace, name))["spec"].get("nodeName") else None),
                timeout=45)
        else:
            pod = wait_for(f"{side.namespace}/{name} to be unschedulable", lambda: (
                p if ((c := condition(p := get_pod(rest, side.namespace, name), "PodScheduled")) or {})
                .get("status") == "False" else None), timeout=45)
        claims = [get(rest, "ResourceClaim", side.namespace, c) for c in claim_names(pod)]
        manager = "kube-scheduler" if side.scheduler == "default-scheduler" else OURS
        generated = {s["resourceClaimName"]: f"{name}-{s['name']}-<generated>"
                     for s in pod.get("status", {}).get("resourceClaimStatuses") or ()}

        def local(text: str) -> str:
            for claim, generic in generated.items():
                text = text.replace(claim, generic)
            return side.local(text)

        return {"node": local(pod["spec"].get("nodeName", "")),
                "message": local((condition(pod, "PodScheduled") or {}).get("message", "")),
                "devices": [local(d) for c in claims for d in allocated_devices(c)],
                "claims": [json.loads(local(json.dumps(written_by_scheduler(c, manager)))) for c in claims]}

    def compare(self, name: str, bound: bool = True) -> dict[str, Any]:
        real, ours = (self.outcome(s, name, bound) for s in self.sides)
        assert ours == real, _diff(real, ours)
        return real

    def cleanup(self) -> None:
        for side in self.sides:
            with suppress(NotFound):
                self.rest.request("DELETE", f"/api/v1/namespaces/{side.namespace}/pods",
                                  {"apiVersion": "v1", "kind": "DeleteOptions", "gracePeriodSeconds": 0})
            _drop_claims(self.rest, side.namespace)
            with suppress(NotFound):
                self.rest.request("DELETE", f"/api/v1/namespaces/{side.namespace}")
        for kind, name in reversed(self.cluster_scoped):
            path = {"Node": "/api/v1/nodes", "ResourceSlice": f"/apis/{RESOURCE}/resourceslices",
                    "DeviceClass": f"/apis/{RESOURCE}/deviceclasses"}[kind]
            with suppress(NotFound):
                self.rest.request("DELETE", f"{path}/{name}")


def _diff(real: Any, ours: Any) -> str:
    def lines(x: Any) -> list[str]:
        return json.dumps(x, indent=1, sort_keys=True).splitlines()

    return "\n".join(difflib.unified_diff(lines(real), lines(ours), "kube-scheduler", "kubesched",
                                          lineterm=""))


def _drop_claims(rest: RestClient, namespace: str) -> None:
    """Delete the namespace's claims, lifting the finalizer no controller-manager lifts here."""
    path = f"/apis/{RESOURCE}/namespaces/{namespace}/resourceclaims"
    with suppress(NotFound):
        for claim in rest.request("GET", path).get("items") or ():
            name = claim["metadata"]["name"]
            with suppress(NotFound):
                rest.request("DELETE", f"{path}/{name}")
                merge_patch(rest, "ResourceClaim", namespace, name, {"metadata": {"finalizers": None}})


@pytest.fixture
def twin(plane: ControlPlane, kubesched: KubeschedProcess, namespace_name: str) -> Iterator[Twin]:
    t = Twin(rest_for(plane), namespace_name)
    try:
        yield t
    finally:
        t.cleanup()


def test_claims_and_templates_are_allocated_and_written_as_the_real_scheduler_does(twin: Twin) -> None:
    twin.cluster_object(device_class(f"{twin.sides[0].prefix}-gpu", f'device.driver == "{DRIVER}"'))
    klass = f"{twin.sides[0].prefix}-gpu"
    twin.node(0, "4", gpus(2))
    twin.node(1, "8", gpus(3))
    twin.claim("shared", [request(klass=klass)])
    twin.template("two", [request(count=2, klass=klass)])

    twin.create_pod("first", [{"name": "gpu", "resourceClaimName": "shared"}])
    first = twin.compare("first")
    assert len(first["devices"]) == 1 and first["claims"][0]["finalizers"] == [
        "resource.kubernetes.io/delete-protection"]
    # a second pod sharing the claim: on the same node, added to reservedFor
    twin.create_pod("second", [{"name": "gpu", "resourceClaimName": "shared"}])
    second = twin.compare("second")
    assert second["node"] == first["node"] and len(second["claims"][0]["status"]["reservedFor"]) == 2
    # a template's claim, generated after the pod was created (the pod waited for it)
    twin.create_pod("templated", [{"name": "pair", "resourceClaimTemplateName": "two"}])
    templated = twin.compare("templated")
    assert len(templated["devices"]) == 2
    # more than any node has left: unschedulable, with the same message
    twin.create_pod("too-many", [{"name": "pair", "resourceClaimTemplateName": "two"},
                                 {"name": "more", "resourceClaimTemplateName": "two"}])
    assert "cannot allocate all claims" in twin.compare("too-many", bound=False)["message"]


def _class(twin: Twin) -> str:
    name = f"{twin.sides[0].prefix}-gpu"
    twin.cluster_object(device_class(name, f'device.driver == "{DRIVER}"'))
    return name


def test_device_taints_are_honoured_as_the_real_scheduler_does(twin: Twin) -> None:
    """DRADeviceTaints: a device with a NoSchedule or NoExecute taint goes only to a request
    tolerating it (the taints published in the ResourceSlice)."""
    klass = _class(twin)
    twin.node(0, "8", [
        {"name": "gpu-0", "taints": [{"key": "maintenance", "value": "yes", "effect": "NoSchedule"}]},
        {"name": "gpu-1"},
        {"name": "gpu-2", "taints": [{"key": "broken", "effect": "NoExecute"}]}])
    for i, tolerations in enumerate(([], [], [{"key": "maintenance", "operator": "Exists"}], [],
                                     [{"operator": "Exists"}])):
        twin.claim(f"c{i}", [request(klass=klass, **({"tolerations": tolerations} if tolerations else {}))])
    twin.create_pod("plain", [{"name": "gpu", "resourceClaimName": "c0"}])
    assert twin.compare("plain")["devices"][0].endswith("/gpu-1")
    twin.create_pod("blocked", [{"name": "gpu", "resourceClaimName": "c1"}])
    assert "cannot allocate all claims" in twin.compare("blocked", bound=False)["message"]
    twin.create_pod("tolerant", [{"name": "gpu", "resourceClaimName": "c2"}])
    assert twin.compare("tolerant")["devices"][0].endswith("/gpu-0")
    twin.create_pod("still-blocked", [{"name": "gpu", "resourceClaimName": "c3"}])
    twin.compare("still-blocked", bound=False)
    twin.create_pod("tolerates-all", [{"name": "gpu", "resourceClaimName": "c4"}])
    assert twin.compare("tolerates-all")["devices"][0].endswith("/gpu-2")


def test_device_taint_rules_are_watched_as_the_real_scheduler_does(twin: Twin) -> None:
    """DRADeviceTaintRules: a rule with a NoSchedule taint on the only device keeps the pod
    from it, with the same message on both sides and the same one offline (``explain`` as
    v1.35 on the same objects, the rules read back from the API server); deleting the rule
    requeues the pod (a ResourceSlice update, as the slice tracker reports it) and both bind it
    to that device, well before the unschedulable pods' 5-minute flush."""
    klass = _class(twin)
    twin.node(0, "8", gpus(1))
    names = []
    for side in twin.sides:
        names.append(f"{side.prefix}-maintenance")
        twin.rest.request("POST", RULES, {
            "apiVersion": RULE_VERSION, "kind": "DeviceTaintRule", "metadata": {"name": names[-1]},
            "spec": {"deviceSelector": {"driver": DRIVER, "pool": side.node(0), "device": "gpu-0"},
                     "taint": {"key": "maintenance", "value": "planned", "effect": "NoSchedule"}}})
    try:
        time.sleep(1)  # both schedulers' rule informers see them before the pod exists
        twin.claim("c", [request(klass=klass)])
        twin.create_pod("waits", [{"name": "gpu", "resourceClaimName": "c"}])
        refused = twin.compare("waits", bound=False)
        assert "cannot allocate all claims" in refused["message"]

        real = twin.sides[0]  # default-scheduler: the default configuration's profile
        rules = [parse_object({"apiVersion": RULE_VERSION, "kind": "DeviceTaintRule", **item})
                 for item in twin.rest.request("GET", RULES)["items"]]
        config = default_config({g.split("=")[0]: True for g in GATES.split(",")}, KubeVersion(1, 35))
        state = cluster_state(twin.rest, real.namespace) + rules
        offline = explain(state, real.namespace, "waits", config=config)
        assert offline.selected_node is None
        live = (condition(get_pod(twin.rest, real.namespace, "waits"), "PodScheduled") or {})["message"]
        assert offline.message == live
        without = explain(cluster_state(twin.rest, real.namespace), real.namespace, "waits", config=config)
        assert without.selected_node == real.node(0)

        started = time.monotonic()
        for name in names:
            twin.rest.request("DELETE", f"{RULES}/{name}")
        bound = twin.compare("waits")
        assert bound["devices"] == ["<side>/c: gpu -> gpu.example.com/<side>-n0/gpu-0"]
        assert time.monotonic() - started < 60
    finally:
        for name in names:
            with suppress(NotFound):
                twin.rest.request("DELETE", f"{RULES}/{name}")


def test_a_rule_without_a_device_selector_taints_every_device_on_both_sides(twin: Twin) -> None:
    """The API server accepts a DeviceTaintRule without ``deviceSelector`` (validation has
    nothing to say about a nil selector) and the real scheduler's slice tracker then taints
    every device (applyPatches), whatever the API comment says: kubesched does the same, so
    the pod waits on both sides, and is bound on both once the rule is gone."""
    klass = _class(twin)
    twin.node(0, "8", gpus(1))
    name = "kubesched-test-everything"
    created = twin.rest.request("POST", RULES, {
        "apiVersion": RULE_VERSION, "kind": "DeviceTaintRule", "metadata": {"name": name},
        "spec": {"taint": {"key": "everything", "effect": "NoSchedule"}}})
    try:
        assert "deviceSelector" not in created["spec"]
        time.sleep(1)  # both schedulers' rule informers see it before the pod exists
        twin.claim("c", [request(klass=klass)])
        twin.create_pod("waits", [{"name": "gpu", "resourceClaimName": "c"}])
        assert "cannot allocate all claims" in twin.compare("waits", bound=False)["message"]
        twin.rest.request("DELETE", f"{RULES}/{name}")
        assert twin.compare("waits")["devices"] == ["<side>/c: gpu -> gpu.example.com/<side>-n0/gpu-0"]
    finally:
        with suppress(NotFound):
            twin.rest.request("DELETE", f"{RULES}/{name}")


def test_binding_conditions_are_waited_for_as_the_real_scheduler_does(twin: Twin) -> None:
    """DRADeviceBindingConditions: the claim is allocated (with the device's binding conditions
    and the allocation time) and the pod waits in PreBind until the driver reports the
    condition, then is bound."""
    klass = _class(twin)
    twin.node(0, "8", [{"name": "gpu-0", "bindingConditions": ["attached"],
                        "bindingFailureConditions": ["failed"]}])
    twin.claim("c", [request(klass=klass)])
    twin.create_pod("waits", [{"name": "gpu", "resourceClaimName": "c"}])
    claims = [wait_for(f"{s.namespace}/c to be allocated", lambda s=s: (
        c if (c := get(twin.rest, "ResourceClaim", s.namespace, "c")).get("status", {}).get("allocation")
        else None), timeout=45) for s in twin.sides]
    real, ours = (written_by_scheduler(c, m) for c, m in zip(claims, ("kube-scheduler", OURS), strict=True))
    assert ours == real, _diff(real, ours)
    assert real["status"]["allocation"]["devices"]["results"][0]["bindingConditions"] == ["attached"]
    assert real["status"]["allocation"]["allocationTimestamp"] == "<time>"
    time.sleep(1)  # still waiting a while later
    assert not any(get_pod(twin.rest, s.namespace, "waits")["spec"].get("nodeName") for s in twin.sides)
    for side in twin.sides:  # the driver: the device is attached
        merge_patch(twin.rest, "ResourceClaim", side.namespace, "c", {"status": {"devices": [{
            "driver": DRIVER, "pool": side.node(0), "device": "gpu-0", "conditions": [{
                "type": "attached", "status": "True", "reason": "Attached", "message": "",
                "lastTransitionTime": "2026-01-01T00:00:00Z"}]}]}}, "status")
    out = twin.compare("waits")
    assert out["node"] == "<side>-n0"


def test_claims_of_other_pods_are_left_alone_and_unused_ones_deallocated_as_upstream(twin: Twin) -> None:
    """A claim allocated and reserved by another scheduler's pod is never freed (a pod that
    cannot reach it stays pending, the claim untouched);
    a claim allocated but reserved for nobody, where the pod cannot go, is deallocated by
    PostFilter and allocated again where the pod fits, as upstream's PostFilter does."""
    klass = _class(twin)
    twin.node(0, "8", gpus(2))
    twin.node(1, "8", gpus(1))
    for side in twin.sides:
        doc = side.pod("other", [{"name": "gpu", "resourceClaimName": "taken"}], nodeName=side.node(0))
        doc["spec"]["schedulerName"] = "someone-else"  # bound by another scheduler
        other = post(twin.rest, doc)
        for name, device, reserved in (("taken", "gpu-0", [other]), ("stale", "gpu-1", [])):
            post(twin.rest, claim_manifest(name, side.namespace, [request(klass=klass)]))
            merge_patch(twin.rest, "ResourceClaim", side.namespace, name, {"status": {
                "allocation": {"devices": {"results": [{"request": "gpu", "driver": DRIVER,
                                                        "pool": side.node(0), "device": device}]},
                               "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [{
                                   "key": "metadata.name", "operator": "In", "values": [side.node(0)]}]}]}},
                "reservedFor": [{"resource": "pods", "name": p["metadata"]["name"],
                                 "uid": p["metadata"]["uid"]} for p in reserved]}}, "status")
    before = [get(twin.rest, "ResourceClaim", s.namespace, "taken") for s in twin.sides]

    twin.create_pod("elsewhere", [{"name": "gpu", "resourceClaimName": "taken"}],
                    nodeSelector={"n": "1"})  # no node has it: cannot reach the claim's node
    twin.compare("elsewhere", bound=False)
    time.sleep(1)
    assert [get(twin.rest, "ResourceClaim", s.namespace, "taken") for s in twin.sides] == before

    # A pod may share the claim, but v1.35's bindClaim with DRADeviceBindingConditions adds the
    # allocation time to an allocation that has none, which the API server refuses (a populated
    # allocation is immutable): the same error on both sides, the claim left as it was.
    twin.create_pod("joins", [{"name": "gpu", "resourceClaimName": "taken"}])
    joined = twin.compare("joins", bound=False)
    assert joined["message"].startswith(
        'running PreBind plugin "DynamicResources": add reservation to claim ')
    assert joined["message"].endswith(": field is immutable")
    assert [get(twin.rest, "ResourceClaim", s.namespace, "taken") for s in twin.sides] == before

    for side in twin.sides:  # only n1 may take the pod: the stale allocation on n0 is given up
        merge_patch(twin.rest, "Node", "", side.node(1), {"metadata": {"labels": {"n": "1"}}})
    twin.create_pod("moves", [{"name": "gpu", "resourceClaimName": "stale"}], nodeSelector={"n": "1"})
    moved = twin.compare("moves")
    assert moved["node"] == "<side>-n1"
    assert moved["devices"] == ["<side>/stale: gpu -> gpu.example.com/<side>-n1/gpu-0"]


# -- generated scenarios, pod by pod against the real scheduler ------------------------------------

SEEDS = tuple(range(1, 1 + int(os.environ.get("KUBESCHED_DRA_SEEDS", "3"))))
"""Scenarios run (``KUBESCHED_DRA_SEEDS=N``: the first N seeds; benchmarks/dra_side_by_side.py
runs more)."""
PODS_PER_SCENARIO = 12
NIC = "nic.example.com"


def _generated_cluster(rng: random.Random, prefix: str) -> list[dict[str, Any]]:
    """Three DeviceClasses, 3 to 5 nodes with 0, 2 or 4 GPUs (model and memory attributes, a few
    with a NoSchedule taint) and 0 to 2 NICs each (a second driver, in its own slice)."""
    objects: list[dict[str, Any]] = [
        device_class(f"{prefix}-gpu", f'device.driver == "{DRIVER}"'),
        device_class(f"{prefix}-big", f'device.driver == "{DRIVER}" && '
                                      f'device.capacity["{DRIVER}"].memory.compareTo(quantity("64Gi")) >= 0'),
        device_class(f"{prefix}-nic", f'device.driver == "{NIC}"'),
    ]
    for i in range(rng.randint(3, 5)):
        node = f"{prefix}-n{i}"
        objects.append(node_manifest(node, str(rng.choice([2, 4, 8])), "16Gi"))
        devices = []
        for g in range(rng.choice([0, 2, 2, 4, 4])):
            device: dict[str, Any] = {
                "name": f"gpu-{g}",
                "attributes": {"model": {"string": rng.choice(["a100", "h100"])}, "index": {"int": g}},
                "capacity": {"memory": {"value": rng.choice(["40Gi", "80Gi"])}}}
            if rng.random() < 0.15:
                device["taints"] = [{"key": "maintenance", "effect": "NoSchedule"}]
            devices.append(device)
        if devices:
            objects.append(resource_slice(f"{node}-gpu", DRIVER, node, devices))
        nics = rng.randint(0, 2)
        if nics:
            objects.append(resource_slice(f"{node}-nic", NIC, node,
                                          [{"name": f"nic-{n}"} for n in range(nics)]))
    return objects


def _generated_request(rng: random.Random, prefix: str, name: str) -> dict[str, Any]:
    kind = rng.random()
    if kind < 0.2:
        return request(name, klass=f"{prefix}-nic")
    exactly: dict[str, Any] = {"deviceClassName": f"{prefix}-big" if kind < 0.35 else f"{prefix}-gpu"}
    if rng.random() < 0.08:
        exactly["allocationMode"] = "All"
    else:
        exactly["count"] = rng.choice([1, 1, 1, 2])
    if rng.random() < 0.25:
        exactly["selectors"] = [{"cel": {"expression": f'device.attributes["{DRIVER}"].model == '
                                                       f'"{rng.choice(["a100", "h100"])}"'}}]
    if rng.random() < 0.3:
        exactly["tolerations"] = [{"key": "maintenance", "operator": "Exists", "effect": "NoSchedule"}]
    return {"name": name, "exactly": exactly}


@dataclass
class Tally:
    placed: int = 0
    ties: int = 0
    unschedulable: int = 0
    devices: int = 0
    mismatches: list[str] = field(default_factory=list)


@pytest.mark.parametrize("seed", SEEDS)
def test_generated_dra_placements_match_the_real_scheduler(plane: ControlPlane, seed: int) -> None:
    """Pods with one or two claims (their own, one shared with an earlier pod, or from a
    template; GPUs by class, model or memory, all of a node's, NICs; tolerating tainted
    devices or not), created one at a time: before each is let go, kubesched explains it on the
    cluster's state as v1.35 with the same gates; the real scheduler must pick kubesched's node
    or one tied with it, allocate on it the devices kubesched's explanation shows for that
    node, or refuse it with the same message."""
    rest = rest_for(plane)
    rng = random.Random(f"dra-side-by-side/{seed}")
    prefix = f"g{seed}"
    ns = prefix
    post(rest, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
    cluster = _generated_cluster(rng, prefix)
    config = default_config({g.split("=")[0]: True for g in GATES.split(",")}, KubeVersion(1, 35))
    tally = Tally()
    try:
        for obj in cluster:
            post(rest, obj)
        direct: list[str] = []
        for i in range(PODS_PER_SCENARIO):
            _one_generated_pod(rest, rng, prefix, ns, f"p{i}", direct, config, seed, tally)
    finally:
        with suppress(NotFound):
            rest.request("DELETE", f"/api/v1/namespaces/{ns}/pods",
                         {"apiVersion": "v1", "kind": "DeleteOptions", "gracePeriodSeconds": 0})
        _drop_claims(rest, ns)
        for obj in reversed(cluster):
            with suppress(NotFound):
                rest.request("DELETE", resource_path(obj["kind"], "", obj["metadata"]["name"]))
    _report(seed, tally)
    assert tally.placed >= PODS_PER_SCENARIO // 4, tally
    assert not tally.mismatches, "\n".join(tally.mismatches)


def _one_generated_pod(rest: RestClient, rng: random.Random, prefix: str, ns: str, name: str,
                       direct: list[str], config: Any, seed: int, tally: Tally) -> None:
    entries: list[dict[str, str]] = []
    for c in range(rng.choice([1, 1, 2])):
        entry = f"c{c}"
        r = rng.random()
        if r < 0.15 and direct:
            entries.append({"name": entry, "resourceClaimName": rng.choice(direct)})
        elif r < 0.55:
            claim = f"{name}-{entry}"
            post(rest, claim_manifest(claim, ns, [_generated_request(rng, prefix, "r")]))
            direct.append(claim)
            entries.append({"name": entry, "resourceClaimName": claim})
        else:
            template = f"{name}-{entry}"
            post(rest, template_manifest(template, ns, [_generated_request(rng, prefix, "r")]))
            entries.append({"name": entry, "resourceClaimTemplateName": template})
    if len({e.get("resourceClaimName") for e in entries if "resourceClaimName" in e}) \
            < sum("resourceClaimName" in e for e in entries):
        entries = entries[:1]  # the same claim twice in one pod: keep one
    pod = post(rest, {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns},
                      "spec": {"terminationGracePeriodSeconds": 0, "schedulingGates": [{"name": HOLD}],
                               "containers": [{"name": "c", "image": "registry.invalid/pause", "resources": {
                                   "requests": {"cpu": f"{rng.randint(1, 15) * 100}m"}}}],
                               "resourceClaims": entries}})
    generate_claims(rest, pod)
    pod = get_pod(rest, ns, name)
    state = cluster_state(rest, ns, ungate=name)
    allocated_before = {c.meta.name for c in state
                        if isinstance(c, ResourceClaim) and c.allocation is not None}
    ours = explain(state, ns, name, config=config, seed=seed)
    merge_patch(rest, "Pod", ns, name, {"spec": {"schedulingGates": None}})
    what = f"seed {seed} {ns}/{name} {json.dumps(entries)}"
    theirs = wait_for(f"{name} bound or refused by kube-scheduler", lambda: (
        get_pod(rest, ns, name)["spec"].get("nodeName") or _refused(rest, ns, name)), timeout=45)
    if ours.selected_node is None or theirs.startswith("refused: "):
        tally.unschedulable += 1
        if theirs != f"refused: {ours.message}":
            tally.mismatches.append(f"{what}: kube-scheduler {theirs!r}, kubesched "
                                    f"{ours.selected_node or 'refused'}: {ours.message!r}")
        if theirs.startswith("refused: "):  # let go: it would take what later pods are compared on
            rest.request("DELETE", f"/api/v1/namespaces/{ns}/pods/{name}",
                         {"apiVersion": "v1", "kind": "DeleteOptions", "gracePeriodSeconds": 0})
        return
    tally.placed += 1
    if theirs != ours.selected_node:
        if theirs not in ours.tied_nodes:
            totals = {n.name: n.total_score for n in ours.nodes}
            tally.mismatches.append(f"{what}: kube-scheduler {theirs}, kubesched {ours.selected_node} "
                                    f"(totals {totals})")
            return
        tally.ties += 1
    got = sorted(d for c in claim_names(pod) if c not in allocated_before
                 for d in allocated_devices(get(rest, "ResourceClaim", ns, c)))
    want = sorted(next(n.devices for n in ours.nodes if n.name == theirs))
    tally.devices += len(got)
    if got != want:
        tally.mismatches.append(f"{what} on {theirs}: kube-scheduler allocated {got}, kubesched {want}")


def _refused(rest: RestClient, ns: str, name: str) -> str | None:
    c = condition(get_pod(rest, ns, name), "PodScheduled") or {}
    refused = c.get("status") == "False" and c.get("reason") != "SchedulingGated"
    return f"refused: {c.get('message')}" if refused else None


def _report(seed: int, tally: Tally) -> None:
    """One JSON line per scenario in ``$KUBESCHED_DRA_REPORT`` (the benchmark script's tally)."""
    out = os.environ.get("KUBESCHED_DRA_REPORT")
    if out:
        with open(out, "a") as f:
            f.write(json.dumps({"seed": seed, "placed": tally.placed, "ties": tally.ties,
                                "unschedulable": tally.unschedulable, "devices": tally.devices,
                                "mismatches": tally.mismatches}) + "\n")
