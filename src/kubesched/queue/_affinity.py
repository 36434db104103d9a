"""Which parked pods an assigned-pod event can help: the cross-topology pre-filter.

Mirrors getUnschedulablePodsWithCrossTopologyTerm (pkg/scheduler/backend/queue/
scheduling_queue.go) and AffinityTerm.Matches (pkg/scheduler/framework/types.go, master 2026):
a pod event only matters to pods rejected by PodTopologySpread in the same namespace, or to
pods with a required affinity term that selects the event's pod.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ..api import LabelSelector, LabelSelectorRequirement, Pod, PodAffinityTerm
from ..cache import PodInfo

__all__ = ["NamespaceLabels", "affinity_term_matches", "has_cross_topology_term"]

NamespaceLabels = Callable[[str], Mapping[str, str] | None]
"""namespace -> its labels (None when unknown), for namespaceSelector terms."""


def _term_selector(term: PodAffinityTerm, owner: Pod) -> LabelSelector | None:
    """The term's selector with matchLabelKeys / mismatchLabelKeys merged in, as the API server
    does at admission (MatchLabelKeysInPodAffinity)."""
    sel = term.label_selector
    if sel is None or not (term.match_label_keys or term.mismatch_label_keys):
        return sel
    extra = [LabelSelectorRequirement(k, "In", frozenset({owner.labels[k]}))
             for k in term.match_label_keys if k in owner.labels]
    extra += [LabelSelectorRequirement(k, "NotIn", frozenset({owner.labels[k]}))
              for k in term.mismatch_label_keys if k in owner.labels]
    return LabelSelector(sel.match_labels, (*sel.match_expressions, *extra))


def affinity_term_matches(term: PodAffinityTerm, owner: Pod, pod: Pod,
                          ns_labels: Mapping[str, str] | None) -> bool:
    """AffinityTerm.Matches: ``pod`` is in the term's namespaces (the owner's own namespace when
    neither namespaces nor namespaceSelector is set) and matches its label selector."""
    namespaces = set(term.namespaces)
    if not namespaces and term.namespace_selector is None:
        namespaces = {owner.namespace}
    ns_ok = pod.namespace in namespaces or (
        term.namespace_selector is not None and term.namespace_selector.matches(ns_labels or {}))
    if not ns_ok:
        return False
    sel = _term_selector(term, owner)
    return sel is not None and sel.matches(pod.labels)


def has_cross_topology_term(parked: Pod, rejected_by_spread: bool, pod: Pod,
                            ns_labels: Mapping[str, str] | None) -> bool:
    """Whether an event about assigned ``pod`` may make ``parked`` schedulable."""
    if rejected_by_spread and pod.namespace == parked.namespace:
        return True
    # Only required *affinity* terms: a new pod never resolves an anti-affinity rejection.
    return any(affinity_term_matches(t, parked, pod, ns_labels)
               for t in PodInfo(parked).required_affinity_terms)
