"""Helpers shared by the in-tree plugins (pkg/scheduler/framework/plugins/helper upstream):
score normalization, the broken-linear shape function, Go integer arithmetic, feature gates,
and what InterPodAffinity and PodTopologySpread share: processed affinity terms
(framework.AffinityTerm upstream) and the incremental index of the snapshot's pods; and the
default spreading selector (DefaultSelector) with the listers it reads."""

from ._affinity_terms import (
    AffinityTerm,
    PodTerms,
    PodTermsCache,
    WeightedAffinityTerm,
    match_key,
    merge_label_requirements,
    pod_matches_all_terms,
    term_matcher,
)
from ._features import feature_enabled
from ._gomath import go_div, go_div_array, go_mod
from ._index_views import per_value_sums
from ._normalize_score import default_normalize_score
from ._pod_index import NodeView, PodIndex, TermKind, ValueCodes, cycle_snapshot
from ._shape_score import FunctionShapePoint, broken_linear, build_broken_linear_function
from ._spread import WorkloadListers, default_selector, get_pod_services, parse_group_version
from ._topology_counts import TopologyValueCounts

__all__ = [
    "AffinityTerm",
    "FunctionShapePoint",
    "NodeView",
    "PodIndex",
    "PodTerms",
    "PodTermsCache",
    "TermKind",
    "TopologyValueCounts",
    "ValueCodes",
    "WeightedAffinityTerm",
    "WorkloadListers",
    "broken_linear",
    "build_broken_linear_function",
    "cycle_snapshot",
    "default_normalize_score",
    "default_selector",
    "feature_enabled",
    "get_pod_services",
    "go_div",
    "go_div_array",
    "go_mod",
    "match_key",
    "merge_label_requirements",
    "parse_group_version",
    "per_value_sums",
    "pod_matches_all_terms",
    "term_matcher",
]
