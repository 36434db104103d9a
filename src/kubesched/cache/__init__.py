"""The scheduler cache: node infos aggregated from pods, assumed pods, the node tree and the
incrementally updated, columnar snapshot."""

from ._cache import Cache, CacheDump, CacheError
from ._columns import BASE_RESOURCES, NodeColumns, RowAnswers, RowMemo, label_domains_of
from ._debugger import CacheDiff, compare
from ._images import ImageRows, NodeImages, normalized_image_name
from ._node_info import (
    HostPortInfo,
    ImageStateSummary,
    NodeInfo,
    PodInfo,
    is_scalar_resource_name,
    next_generation,
    tracked_resources,
)
from ._node_tree import NodeTree, get_zone_key
from ._pod_groups import PodGroupState, PodGroupStates
from ._snapshot import Snapshot

__all__ = [
    "BASE_RESOURCES",
    "Cache",
    "CacheDiff",
    "CacheDump",
    "CacheError",
    "HostPortInfo",
    "ImageRows",
    "ImageStateSummary",
    "NodeColumns",
    "NodeImages",
    "NodeInfo",
    "NodeTree",
    "PodGroupState",
    "PodGroupStates",
    "PodInfo",
    "RowAnswers",
    "RowMemo",
    "Snapshot",
    "compare",
    "get_zone_key",
    "is_scalar_resource_name",
    "label_domains_of",
    "next_generation",
    "normalized_image_name",
    "tracked_resources",
]
