"""What PodTopologySpread's filtering and scoring share: the processed constraints, the node
inclusion policies, default constraints and pod counting.

Mirrors pkg/scheduler/framework/plugins/podtopologyspread/common.go (master 2026); the default
constraints' selector is helper.DefaultSelector (:func:`kubesched.plugins.helper.default_selector`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ...api import LabelSelector, LabelSelectorRequirement, Node, Pod, TopologySpreadConstraint
from ...api import find_untolerated_taint as _find_untolerated_taint
from ...cache import NodeInfo
from ..helper import merge_label_requirements

__all__ = [
    "HONOR",
    "IGNORE",
    "Constraint",
    "count_pods_match_selector",
    "filter_constraints",
    "node_labels_match_spread_constraints",
    "required_node_affinity_matches",
]

HONOR = "Honor"
IGNORE = "Ignore"
_DO_NOT_SCHEDULE_EFFECTS = frozenset({"NoSchedule", "NoExecute"})


@dataclass(frozen=True, slots=True)
class Constraint:
    """topologySpreadConstraint: ``selector`` None is labels.Nothing(); an empty selector is
    labels.Everything()."""

    max_skew: int
    topology_key: str
    selector: LabelSelector | None
    min_domains: int = 1
    node_affinity_policy: str = HONOR
    node_taints_policy: str = IGNORE

    def matches_pod(self, labels: Mapping[str, str]) -> bool:
        return self.selector is not None and self.selector.matches(labels)

    def match_node_inclusion_policies(self, pod: Pod, node: Node) -> bool:
        """matchNodeInclusionPolicies: Honor the pod's required node affinity / the node's
        NoSchedule and NoExecute taints when the policy says so."""
        if self.node_affinity_policy == HONOR and not required_node_affinity_matches(pod, node):
            return False
        return not (self.node_taints_policy == HONOR and _find_untolerated_taint(
            node.taints, pod.tolerations, _DO_NOT_SCHEDULE_EFFECTS) is not None)


def required_node_affinity_matches(pod: Pod, node: Node) -> bool:
    """nodeaffinity.GetRequiredNodeAffinity(pod).Match(node): nodeSelector and required node
    affinity terms."""
    labels = node.labels
    for k, v in pod.node_selector.items():
        if labels.get(k) != v:
            return False
    a = pod.affinity
    if a is not None and a.node_required is not None:
        return a.node_required.matches(node.name, labels)
    return True


def node_labels_match_spread_constraints(labels: Mapping[str, str],
                                         constraints: Sequence[Constraint]) -> bool:
    """nodeLabelsMatchSpreadConstraints: every topology key is present."""
    return all(c.topology_key in labels for c in constraints)


def filter_constraints(constraints: Sequence[TopologySpreadConstraint], pod_labels: Mapping[str, str],
                       action: str, enable_match_label_keys: bool = True,
                       enable_node_inclusion_policy: bool = True) -> list[Constraint]:
    """filterTopologySpreadConstraints: the constraints for ``action``, matchLabelKeys merged into
    the selector (as ``key in (value)`` for the keys the pod has), minDomains defaulting to 1,
    nodeAffinityPolicy Honor and nodeTaintsPolicy Ignore unless set."""
    out = []
    for c in constraints:
        if c.when_unsatisfiable != action:
            continue
        selector = c.label_selector
        if enable_match_label_keys and c.match_label_keys and selector is not None:
            reqs = [LabelSelectorRequirement(k, "In", frozenset((pod_labels[k],)))
                    for k in c.match_label_keys if k in pod_labels]
            selector = merge_label_requirements(selector, reqs)
        out.append(Constraint(
            max_skew=c.max_skew,
            topology_key=c.topology_key,
            selector=selector,
            min_domains=c.min_domains if c.min_domains is not None else 1,
            node_affinity_policy=(c.node_affinity_policy or HONOR) if enable_node_inclusion_policy else HONOR,
            node_taints_policy=(c.node_taints_policy or IGNORE) if enable_node_inclusion_policy else IGNORE,
        ))
    return out


def count_pods_match_selector(node_info: NodeInfo, selector: LabelSelector | None, namespace: str) -> int:
    """countPodsMatchSelector: pods in ``namespace``, not terminating (kubernetes issue 87621),
    matching the selector. An empty selector (labels.Everything) counts nothing, as upstream."""
    if selector is None or selector.is_empty:
        return 0
    n = 0
    for pi in node_info.pods:
        p = pi.pod
        if p.meta.deletion_timestamp is not None or p.namespace != namespace:
            continue
        if selector.matches(p.labels):
            n += 1
    return n
