"""Pod signatures (KEP-5598): the signer names and the signers shared by several plugins.

Mirrors staging/src/k8s.io/kube-scheduler/framework/signers.go and the framework runtime's
``SignPod`` (pkg/scheduler/framework/runtime/framework.go, 1.35). A signature is the JSON of a
map signer name -> value: the scheduler name plus every SignPlugin's fragments. Two pods with
the same bytes are interchangeable for PreFilter, Filter, PreScore and Score, which is what lets
the opportunistic batch (``_opportunistic_batch.py``) reuse one pod's sorted nodes for the next.

Values are built from the pod's manifest (``Pod.raw``) and normalised the way upstream's
signers are (ports, tolerations, node selector terms and volumes sorted), then encoded with
sorted keys: equal meaning gives equal bytes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..api import Pod

__all__ = [
    "FEATURES_SIGNER_NAME",
    "HOST_PORTS_SIGNER_NAME",
    "IMAGE_NAMES_SIGNER_NAME",
    "LABELS_SIGNER_NAME",
    "NODE_AFFINITY_SIGNER_NAME",
    "NODE_NAME_SIGNER_NAME",
    "NODE_SELECTOR_SIGNER_NAME",
    "RESOURCES_SIGNER_NAME",
    "SCHEDULER_NAME_SIGNER_NAME",
    "TOLERATIONS_SIGNER_NAME",
    "VOLUMES_SIGNER_NAME",
    "encode_signature",
    "host_ports_signer",
    "node_affinity_signer",
    "tolerations_signer",
    "volumes_signer",
]

IMAGE_NAMES_SIGNER_NAME = "v1.Pod.Spec.CanonicalImageNames()"
LABELS_SIGNER_NAME = "v1.Pod.Labels"
NODE_NAME_SIGNER_NAME = "v1.Pod.Spec.NodeName"
NODE_AFFINITY_SIGNER_NAME = "v1.Pod.Spec.Affinity.NodeAffinity"
NODE_SELECTOR_SIGNER_NAME = "v1.Pod.Spec.Affinity.NodeSelector"
HOST_PORTS_SIGNER_NAME = "v1.Pod.Spec.HostPorts()"
RESOURCES_SIGNER_NAME = "v1.Pod.Spec.ContainerRequestsAndOverheads()"
SCHEDULER_NAME_SIGNER_NAME = "v1.Pod.Spec.SchedulerName"
TOLERATIONS_SIGNER_NAME = "v1.Pod.Spec.Tolerations"
VOLUMES_SIGNER_NAME = "v1.Pod.Spec.Volumes.NonSyntheticSources()"
FEATURES_SIGNER_NAME = "v1.Pod.Spec.RequiredFeatures()"


def _spec(pod: Pod) -> Mapping[str, Any]:
    spec = pod.raw.get("spec")
    return spec if isinstance(spec, Mapping) else {}


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def encode_signature(sig: Mapping[str, Any]) -> bytes:
    """The signature's bytes (json.Marshal of the map: keys sorted)."""
    return _json(sig).encode()


def host_ports_signer(pod: Pod) -> list[int]:
    """HostPortsSigner: the distinct host ports of all containers and init containers, sorted."""
    spec = _spec(pod)
    ports: set[int] = set()
    for key in ("containers", "initContainers"):
        for c in spec.get(key) or ():
            for p in (c.get("ports") or ()) if isinstance(c, Mapping) else ():
                hp = p.get("hostPort") if isinstance(p, Mapping) else None
                if isinstance(hp, int) and hp:
                    ports.add(hp)
    return sorted(ports)


def _requirements(reqs: Any) -> list[str]:
    """NodeSelectorRequirementsSigner: each requirement with its values sorted, the list sorted."""
    out = []
    for r in reqs or ():
        if isinstance(r, Mapping):
            r = {**r, "values": sorted(str(v) for v in r.get("values") or ())}
        out.append(_json(r))
    return sorted(out)


def _term(t: Any) -> dict[str, list[str]]:
    t = t if isinstance(t, Mapping) else {}
    return {"MatchExpressions": _requirements(t.get("matchExpressions")),
            "MatchFields": _requirements(t.get("matchFields"))}


def node_affinity_signer(pod: Pod) -> dict[str, list[str]] | None:
    """NodeAffinitySigner: the required terms and the weighted preferred terms, each normalised
    and sorted; None without node affinity."""
    aff = _spec(pod).get("affinity")
    na = aff.get("nodeAffinity") if isinstance(aff, Mapping) else None
    if not isinstance(na, Mapping):
        return None
    pref = sorted(_json({"Weight": p.get("weight"), "Preference": _term(p.get("preference"))})
                  for p in na.get("preferredDuringSchedulingIgnoredDuringExecution") or ()
                  if isinstance(p, Mapping))
    req_sel = na.get("requiredDuringSchedulingIgnoredDuringExecution")
    terms = req_sel.get("nodeSelectorTerms") if isinstance(req_sel, Mapping) else None
    req = sorted(_json(_term(t)) for t in terms or ())
    return {"Required": req, "Preferred": pref}


def tolerations_signer(pod: Pod) -> list[Any]:
    """TolerationsSigner: the pod's tolerations sorted by (key, value)."""
    tols = [t for t in _spec(pod).get("tolerations") or () if isinstance(t, Mapping)]
    return sorted(tols, key=lambda t: (str(t.get("key", "")), str(t.get("value", ""))))


def volumes_signer(pod: Pod) -> list[str]:
    """VolumesSigner: the volume sources except ConfigMap and Secret ones (they never change
    where a pod fits but differ per pod), sorted."""
    out = []
    for vol in _spec(pod).get("volumes") or ():
        if not isinstance(vol, Mapping) or "configMap" in vol or "secret" in vol:
            continue
        out.append(_json({k: v for k, v in vol.items() if k != "name"}))
    return sorted(out)
