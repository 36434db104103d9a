"""The DaemonSet controller: one pod per node that should run it, nodes added later included.

Mirrors pkg/controller/daemon (master 2026): ``daemon_controller.go`` ``NewPod`` and
``nodeShouldRunDaemonPod`` (the template's nodeName, nodeSelector and required node affinity
must fit the node, and every NoSchedule/NoExecute taint must be tolerated once the daemon
tolerations are added), ``syncNodes`` (a pod for each such node without one, its required node
affinity replaced by a ``metadata.name`` matchFields term naming the node:
``util.ReplaceDaemonSetPodNodeNameNodeAffinity``) and ``util/daemonset_util.go``
(``CreatePodTemplate``: labels ``controller-revision-hash`` and ``pod-template-generation``;
``AddOrUpdateDaemonPodTolerations``). Pods on nodes that should not run them are not deleted
(out of scope).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any, Final

from ..api import DaemonSet, Node, Pod, find_untolerated_taint
from ._context import Context
from ._names import compute_hash
from ._pods import claim, is_active, pod_manifest

__all__ = ["DAEMON_TOLERATIONS", "DaemonSetController", "node_should_run", "target_node"]

_NO_SCHEDULE_OR_EXECUTE: Final = frozenset({"NoSchedule", "NoExecute"})
DAEMON_TOLERATIONS: Final[tuple[tuple[str, str], ...]] = (
    ("node.kubernetes.io/not-ready", "NoExecute"),
    ("node.kubernetes.io/unreachable", "NoExecute"),
    ("node.kubernetes.io/disk-pressure", "NoSchedule"),
    ("node.kubernetes.io/memory-pressure", "NoSchedule"),
    ("node.kubernetes.io/pid-pressure", "NoSchedule"),
    ("node.kubernetes.io/unschedulable", "NoSchedule"),
)
"""AddOrUpdateDaemonPodTolerations, in its order; hostNetwork pods also tolerate
``node.kubernetes.io/network-unavailable`` (NoSchedule)."""
NETWORK_UNAVAILABLE: Final = "node.kubernetes.io/network-unavailable"
TEMPLATE_GENERATION_LABEL: Final = "pod-template-generation"
REVISION_LABEL: Final = "controller-revision-hash"


def _with_daemon_tolerations(spec: dict[str, Any]) -> None:
    """AddOrUpdateTolerationInPodSpec for each daemon toleration: one equal in key, operator,
    value and effect is replaced, else it is appended."""
    wanted = list(DAEMON_TOLERATIONS)
    if spec.get("hostNetwork") is True:
        wanted.append((NETWORK_UNAVAILABLE, "NoSchedule"))
    tolerations = list(spec.get("tolerations") or [])
    for key, effect in wanted:
        t = {"key": key, "operator": "Exists", "effect": effect}
        same = [i for i, old in enumerate(tolerations) if isinstance(old, dict)
                and (old.get("key"), old.get("operator") or "Equal", old.get("value") or "",
                     old.get("effect") or "") == (key, "Exists", "", effect)]
        if same:
            tolerations[same[0]] = t
        else:
            tolerations.append(t)
    spec["tolerations"] = tolerations


def daemon_template(ds: DaemonSet) -> dict[str, Any]:
    """CreatePodTemplate: the template with the daemon tolerations added."""
    template = copy.deepcopy(dict(ds.template))
    spec = template["spec"] = dict(template.get("spec") or {})
    _with_daemon_tolerations(spec)
    return template


def node_should_run(template: Mapping[str, Any], node: Node) -> bool:
    """nodeShouldRunDaemonPod's ``shouldRun`` for the pod NewPod makes of ``template`` (daemon
    tolerations already added): fitsNodeName, fitsNodeAffinity (nodeSelector and required
    node affinity), fitsTaints (NoSchedule and NoExecute taints all tolerated)."""
    pod = Pod.from_dict({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "daemon"},
                         "spec": template.get("spec") or {}})
    if pod.node_name and pod.node_name != node.name:
        return False
    if any(node.labels.get(k) != v for k, v in pod.node_selector.items()):
        return False
    required = pod.affinity.node_required if pod.affinity is not None else None
    if required is not None and not required.matches(node.name, node.labels):
        return False
    return find_untolerated_taint(node.taints, pod.tolerations, _NO_SCHEDULE_OR_EXECUTE) is None


def target_node(pod: Pod) -> str:
    """util.GetTargetNodeName: spec.nodeName, else the node named by the required node
    affinity's ``metadata.name`` matchFields term; "" if neither."""
    if pod.node_name:
        return pod.node_name
    spec = pod.raw.get("spec") or {}
    required = (((spec.get("affinity") or {}).get("nodeAffinity") or {})
                .get("requiredDuringSchedulingIgnoredDuringExecution") or {})
    for term in required.get("nodeSelectorTerms") or []:
        for req in (term or {}).get("matchFields") or []:
            values = req.get("values") or []
            if req.get("key") == "metadata.name" and req.get("operator") == "In" and len(values) == 1:
                return str(values[0])
    return ""


def _pin_to_node(spec: dict[str, Any], node_name: str) -> None:
    """ReplaceDaemonSetPodNodeNameNodeAffinity: the required node affinity becomes one term
    ``metadata.name In [node]`` (the original terms were checked by node_should_run)."""
    term = {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node_name]}]}
    affinity = spec["affinity"] = dict(spec.get("affinity") or {})
    node_affinity = affinity["nodeAffinity"] = dict(affinity.get("nodeAffinity") or {})
    node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {"nodeSelectorTerms": [term]}


class DaemonSetController:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def pods(self, ds: DaemonSet) -> list[Pod]:
        return claim(self.ctx.store, ds, "Pod", ds.selector.matches)

    def eligible_nodes(self, ds: DaemonSet, nodes: Sequence[Node] | None = None) -> list[Node]:
        template = daemon_template(ds)
        nodes = nodes if nodes is not None else self.ctx.store.list("Node")
        return [n for n in nodes if node_should_run(template, n)]

    def sync(self, ds: DaemonSet) -> None:
        if ds.meta.deletion_timestamp is not None:
            return
        have = {target_node(p) for p in self.pods(ds) if is_active(p)}
        template = daemon_template(ds)
        labels = {REVISION_LABEL: compute_hash(ds.template, ds.collision_count),
                  TEMPLATE_GENERATION_LABEL: str(ds.meta.generation or 1)}
        base = f"{ds.name}-"
        for node in self.ctx.store.list("Node"):
            if node.name in have or not node_should_run(template, node):
                continue
            name = self.ctx.unique_name("Pod", ds.namespace, base)
            d = pod_manifest(template, ds, name, generate_name=base, labels=labels)
            _pin_to_node(d["spec"], node.name)
            self.ctx.create(Pod.from_dict(d))

    def wanted(self, ds: DaemonSet) -> int:
        return len(self.eligible_nodes(ds))
