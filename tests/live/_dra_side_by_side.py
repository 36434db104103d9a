"""Helpers for the side-by-side tests against a release's real kube-scheduler: a control plane
of that release (``../shared/k8s`` or ``../shared/k8s-1.35``) with its scheduler running, the
cluster's state read back as kubesched's input, and DRA objects created the way a user, a
driver's kubelet plugin or kube-controller-manager's resourceclaim controller would."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import pytest

from kubesched.api import ApiObject, parse_object
from kubesched.cluster.live import RestClient
from kubesched.cluster.live._resources import collection_path, object_path

from ._kube import MERGE
from ._side_by_side import FOLDERS, running_plane
from .conftest import REPO, ControlPlane, _missing

RESOURCE = "resource.k8s.io/v1"
HOLD = "kubesched.test/hold"
"""The scheduling gate the tests create pods with, lifted once the pod's claims exist."""

POD_CLAIM_NAME = "resource.kubernetes.io/pod-claim-name"
"""The annotation the resourceclaim controller puts on a claim it generates from a template
(resourceclaim.go: podResourceClaimAnnotation)."""


def started_release_plane(folder: str, tmp_path_factory: pytest.TempPathFactory,
                          sched_args: str = "", apiserver_args: Sequence[str] = ()) -> Iterator[ControlPlane]:
    """A control plane from ``../shared/<folder>`` with its real kube-scheduler (default
    configuration, ``sched_args`` as more flags; ``apiserver_args``: more kube-apiserver flags),
    for a fixture to yield from; skipped (or failed, in CI) when absent, stopped after (the
    side-by-side harness's ``running_plane``)."""
    release = {folder: release for release, folder in FOLDERS.items()}[folder]
    script = REPO.parent / "shared" / folder / "control-plane"
    if not script.is_file():
        _missing(f"{script} not found")
    for tool in ("curl", "openssl", "xz"):
        if shutil.which(tool) is None:
            _missing(f"{tool} is not installed")
    try:
        plane = running_plane(release, tmp_path_factory.mktemp(f"cp-{folder}") / "cp", sched_args,
                              apiserver_args)
        cp = plane.__enter__()
    except RuntimeError as e:
        _missing(str(e))
    try:
        yield cp
    finally:
        plane.__exit__(None, None, None)


TEST_MANAGER = {"fieldManager": "test-client"}
"""The field manager of the test's own writes, apart from the scheduler's in managedFields."""


def resource_path(kind: str, namespace: str = "", name: str = "") -> str:
    path = collection_path(kind, namespace)
    return f"{path}/{name}" if name else path


def post(rest: RestClient, doc: Mapping[str, Any]) -> dict[str, Any]:
    """Create ``doc``; a status (a node's) through the status subresource afterwards, as the
    kubelet writes it."""
    md = doc["metadata"]
    path = collection_path(doc["kind"], md.get("namespace", ""))
    out: dict[str, Any] = rest.request("POST", path, {k: v for k, v in doc.items() if k != "status"},
                                       query=TEST_MANAGER)
    if "status" in doc and doc["kind"] != "Pod":
        out = merge_patch(rest, doc["kind"], md.get("namespace", ""), out["metadata"]["name"],
                          {"status": doc["status"]}, "status")
    return out


def merge_patch(rest: RestClient, kind: str, namespace: str, name: str, patch: Mapping[str, Any],
                subresource: str = "") -> dict[str, Any]:
    out: dict[str, Any] = rest.request("PATCH", object_path(kind, namespace, name, subresource), patch,
                                       content_type=MERGE, query=TEST_MANAGER)
    return out


def get(rest: RestClient, kind: str, namespace: str, name: str) -> dict[str, Any]:
    out: dict[str, Any] = rest.request("GET", resource_path(kind, namespace, name))
    return out


def listed(rest: RestClient, kind: str, namespace: str = "") -> list[dict[str, Any]]:
    """Every object of ``kind`` (in ``namespace``, or everywhere), with its kind and apiVersion
    filled in as a manifest has them."""
    doc = rest.request("GET", resource_path(kind, namespace))
    api_version = doc.get("apiVersion", "v1")
    return [{"apiVersion": api_version, "kind": kind, **item} for item in doc.get("items") or []]


STATE_KINDS = ("Node", "Pod", "DeviceClass", "ResourceSlice", "ResourceClaim", "ResourceClaimTemplate")


def cluster_state(rest: RestClient, namespace: str, ungate: str = "") -> list[ApiObject]:
    """The cluster as kubesched's input: the nodes, the DRA objects and ``namespace``'s pods,
    claims and templates; pod ``ungate``'s scheduling gates dropped (the test lifts them
    next)."""
    out: list[ApiObject] = []
    for kind in STATE_KINDS:
        ns = namespace if kind in ("Pod", "ResourceClaim", "ResourceClaimTemplate") else ""
        for doc in listed(rest, kind, ns):
            doc["metadata"].pop("managedFields", None)
            if kind == "Pod" and doc["metadata"]["name"] == ungate:
                doc["spec"].pop("schedulingGates", None)
            out.append(parse_object(doc))
    return out


def device_class(name: str, expression: str) -> dict[str, Any]:
    return {"apiVersion": RESOURCE, "kind": "DeviceClass", "metadata": {"name": name},
            "spec": {"selectors": [{"cel": {"expression": expression}}]}}


def resource_slice(name: str, driver: str, node: str, devices: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """A driver's slice of one pool (named after the node) published for ``node``."""
    return {"apiVersion": RESOURCE, "kind": "ResourceSlice", "metadata": {"name": name},
            "spec": {"driver": driver, "nodeName": node, "devices": list(devices),
                     "pool": {"name": node, "generation": 1, "resourceSliceCount": 1}}}


def claim_manifest(name: str, namespace: str, requests: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    return {"apiVersion": RESOURCE, "kind": "ResourceClaim",
            "metadata": {"name": name, "namespace": namespace},
            "spec": {"devices": {"requests": list(requests)}}}


def template_manifest(name: str, namespace: str, requests: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    return {"apiVersion": RESOURCE, "kind": "ResourceClaimTemplate",
            "metadata": {"name": name, "namespace": namespace},
            "spec": {"spec": {"devices": {"requests": list(requests)}}}}


def generate_claims(rest: RestClient, pod: Mapping[str, Any]) -> list[dict[str, Any]]:
    """What kube-controller-manager's resourceclaim controller does for a pod with claim
    templates (resourceclaim.go handleClaim): for each ``spec.resourceClaims`` entry with a
    template, a claim from the template's spec, generateName ``<pod>-<entry>-``, owned by
    the pod (controller, blockOwnerDeletion), annotated with the entry's name; then the pod's
    ``status.resourceClaimStatuses`` records the generated names."""
    md = pod["metadata"]
    ns = md["namespace"]
    created: list[dict[str, Any]] = []
    statuses: list[dict[str, str]] = []
    for entry in pod["spec"].get("resourceClaims") or ():
        template_name = entry.get("resourceClaimTemplateName")
        if not template_name:
            continue
        template = get(rest, "ResourceClaimTemplate", ns, template_name)
        claim = {"apiVersion": RESOURCE, "kind": "ResourceClaim",
                 "metadata": {"generateName": f"{md['name']}-{entry['name']}-", "namespace": ns,
                              "annotations": {POD_CLAIM_NAME: entry["name"]},
                              "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": md["name"],
                                                   "uid": md["uid"], "controller": True,
                                                   "blockOwnerDeletion": True}]},
                 "spec": template["spec"]["spec"]}
        out = post(rest, claim)
        created.append(out)
        statuses.append({"name": entry["name"], "resourceClaimName": out["metadata"]["name"]})
    if statuses:
        merge_patch(rest, "Pod", ns, md["name"], {"status": {"resourceClaimStatuses": statuses}}, "status")
    return created


def claim_names(pod: Mapping[str, Any]) -> list[str]:
    """The names of the claims a pod uses (its own or the generated ones, from its status)."""
    generated = {s["name"]: s.get("resourceClaimName")
                 for s in (pod.get("status") or {}).get("resourceClaimStatuses") or ()}
    names = []
    for entry in pod["spec"].get("resourceClaims") or ():
        name = entry.get("resourceClaimName") or generated.get(entry["name"])
        if name:
            names.append(name)
    return names


def allocated_devices(claim: Mapping[str, Any]) -> list[str]:
    """A claim's allocation in explain's notation: ``<ns>/<claim>: <request> -> <driver>/<pool>/<device>``."""
    md = claim["metadata"]
    allocation = (claim.get("status") or {}).get("allocation") or {}
    return [f"{md['namespace']}/{md['name']}: {r['request']} -> {r['driver']}/{r['pool']}/{r['device']}"
            for r in (allocation.get("devices") or {}).get("results") or ()]


def written_by_scheduler(claim: Mapping[str, Any], manager: str) -> dict[str, Any]:
    """What a scheduler wrote to a claim, comparable between two schedulers: its finalizers,
    its status with the pod's uid and name made generic (the devices are compared on their
    own), and its own managedFields entries (operation, subresource, fields)."""
    def generic(text: str) -> str:
        for uid, name in uids.items():
            text = text.replace(uid, "<pod-uid>").replace(f'"{name}"', '"<pod>"')
        return text

    uids = {r["uid"]: r["name"] for r in (claim.get("status") or {}).get("reservedFor") or ()}
    status = json.loads(generic(json.dumps(claim.get("status") or {})))
    for r in (status.get("allocation") or {}).get("devices", {}).get("results") or ():
        r.pop("pool", None), r.pop("device", None)  # compared on their own
    allocation = status.get("allocation") or {}
    allocation.pop("nodeSelector", None)
    if "allocationTimestamp" in allocation:
        allocation["allocationTimestamp"] = "<time>"
    fields = [{"operation": m["operation"], "subresource": m.get("subresource", ""),
               "fields": json.loads(generic(json.dumps(m.get("fieldsV1"))))}
              for m in claim["metadata"].get("managedFields") or () if m["manager"] == manager]
    return {"finalizers": claim["metadata"].get("finalizers"), "status": status, "managedFields": fields}
