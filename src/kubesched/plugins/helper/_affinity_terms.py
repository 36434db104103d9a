"""Processed pod (anti-)affinity terms: namespaces, selectors and the topology key.

Mirrors framework.AffinityTerm / WeightedAffinityTerm and getAffinityTerms in
pkg/scheduler/framework/types.go (master 2026), schedutil.GetNamespacesFromPodAffinityTerm,
and the kube-apiserver's merge of ``matchLabelKeys`` / ``mismatchLabelKeys`` into the label
selector (pkg/registry/core/pod/strategy.go applyMatchLabelKeysAndMismatchLabelKeys, KEP-3633).
Upstream the API server rewrites the selector when the pod is created; kubesched reads manifests
that never went through that admission, so the merge happens here, when a pod's terms are first
processed (the merge is idempotent, so manifests already rewritten by a real API server give the
same selector semantics).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass, field, replace

from ...api import LabelSelector, LabelSelectorRequirement, Namespace, Pod, PodAffinityTerm

__all__ = [
    "AffinityTerm",
    "PodTerms",
    "PodTermsCache",
    "WeightedAffinityTerm",
    "match_key",
    "merge_label_requirements",
    "pod_matches_all_terms",
    "term_matcher",
]

_EMPTY_LABELS: Mapping[str, str] = {}


def merge_label_requirements(selector: LabelSelector,
                             reqs: Iterable[LabelSelectorRequirement]) -> LabelSelector:
    """``selector`` ANDed with ``reqs`` (labels.Selector.Add)."""
    extra = tuple(reqs)
    if not extra:
        return selector
    return replace(selector, match_expressions=selector.match_expressions + extra)


@dataclass(frozen=True, slots=True)
class AffinityTerm:
    """framework.AffinityTerm. ``selector``/``namespace_selector`` ``None`` is labels.Nothing();
    an empty :class:`LabelSelector` is labels.Everything()."""

    namespaces: frozenset[str]
    selector: LabelSelector | None
    topology_key: str
    namespace_selector: LabelSelector | None = None

    def matches(self, pod: Pod, ns_labels: Mapping[str, str] | None) -> bool:
        """AffinityTerm.Matches: the pod's namespace is listed or selected, and its labels match."""
        if pod.namespace in self.namespaces or (
            self.namespace_selector is not None
            and self.namespace_selector.matches(ns_labels if ns_labels is not None else _EMPTY_LABELS)
        ):
            return self.selector is not None and self.selector.matches(pod.labels)
        return False

    @staticmethod
    def of(pod: Pod, term: PodAffinityTerm) -> AffinityTerm:
        """newAffinityTerm: namespaces default to the pod's own when neither ``namespaces`` nor
        ``namespaceSelector`` is set; matchLabelKeys/mismatchLabelKeys merged as the API server
        does (ignored when the label selector is nil, which matches nothing anyway)."""
        if not term.namespaces and term.namespace_selector is None:
            namespaces = frozenset((pod.namespace,))
        else:
            namespaces = frozenset(term.namespaces)
        selector = term.label_selector
        if selector is not None and (term.match_label_keys or term.mismatch_label_keys):
            labels = pod.labels
            reqs = [LabelSelectorRequirement(k, "In", frozenset((labels[k],)))
                    for k in term.match_label_keys if k in labels]
            reqs += [LabelSelectorRequirement(k, "NotIn", frozenset((labels[k],)))
                     for k in term.mismatch_label_keys if k in labels]
            selector = merge_label_requirements(selector, reqs)
        return AffinityTerm(namespaces, selector, term.topology_key, term.namespace_selector)

    def merge_namespaces(self, namespaces: Iterable[Namespace]) -> AffinityTerm:
        """mergeAffinityTermNamespacesIfNotEmpty (interpodaffinity/plugin.go): a non-empty
        namespace selector is resolved against the cluster's namespaces once, at PreFilter /
        PreScore, so the incoming pod's terms need no namespace labels later. An empty
        selector (all namespaces) is left as it is."""
        sel = self.namespace_selector
        if sel is not None and sel.is_empty:
            return self
        names = set(self.namespaces)
        if sel is not None:
            names.update(ns.name for ns in namespaces if sel.matches(ns.labels))
        return AffinityTerm(frozenset(names), self.selector, self.topology_key, None)


@dataclass(frozen=True, slots=True)
class WeightedAffinityTerm:
    term: AffinityTerm
    weight: int


def term_matcher(term: AffinityTerm) -> Callable[[Pod], bool]:
    """``term.matches(pod, None)`` as a one-argument predicate (for the incoming pod's terms,
    whose namespace selectors are merged)."""
    return lambda pod: term.matches(pod, None)


def match_key(pod: Pod, ns_labels: Mapping[str, str] | None) -> Hashable:
    """Everything ``AffinityTerm.matches(pod, ns_labels)`` reads of its arguments: pods with equal
    keys are matched by the same terms (the pod index keys its term views by it)."""
    return (pod.namespace, frozenset(pod.labels.items()),
            None if ns_labels is None else frozenset(ns_labels.items()))


def pod_matches_all_terms(terms: tuple[AffinityTerm, ...], pod: Pod) -> bool:
    """podMatchesAllAffinityTerms: true iff there are terms and the pod matches all of them.
    The incoming pod's namespace selectors are merged, so no namespace labels are needed."""
    if not terms:
        return False
    return all(t.matches(pod, None) for t in terms)


@dataclass(frozen=True, slots=True)
class PodTerms:
    """The four processed term lists of one pod (framework.PodInfo's Required*/Preferred*)."""

    required_affinity: tuple[AffinityTerm, ...] = ()
    required_anti_affinity: tuple[AffinityTerm, ...] = ()
    preferred_affinity: tuple[WeightedAffinityTerm, ...] = ()
    preferred_anti_affinity: tuple[WeightedAffinityTerm, ...] = ()

    @staticmethod
    def of(pod: Pod) -> PodTerms:
        a = pod.affinity
        if a is None:
            return _NO_TERMS
        return PodTerms(
            tuple(AffinityTerm.of(pod, t) for t in a.pod_affinity_required),
            tuple(AffinityTerm.of(pod, t) for t in a.pod_anti_affinity_required),
            tuple(WeightedAffinityTerm(AffinityTerm.of(pod, w.term), w.weight)
                  for w in a.pod_affinity_preferred),
            tuple(WeightedAffinityTerm(AffinityTerm.of(pod, w.term), w.weight)
                  for w in a.pod_anti_affinity_preferred),
        )

    def all_terms(self) -> tuple[AffinityTerm, ...]:
        return (*self.required_affinity, *self.required_anti_affinity,
                *(w.term for w in self.preferred_affinity), *(w.term for w in self.preferred_anti_affinity))

    @property
    def has_preferred(self) -> bool:
        return bool(self.preferred_affinity or self.preferred_anti_affinity)


_NO_TERMS = PodTerms()


@dataclass
class PodTermsCache:
    """Processed terms per pod object, so existing pods' terms are parsed once, not every cycle
    (upstream keeps them in framework.PodInfo). Pods are immutable; entries go with the pod."""

    _by_pod: weakref.WeakKeyDictionary[Pod, PodTerms] = field(default_factory=weakref.WeakKeyDictionary)

    def get(self, pod: Pod) -> PodTerms:
        t = self._by_pod.get(pod)
        if t is None:
            t = self._by_pod[pod] = PodTerms.of(pod)
        return t
