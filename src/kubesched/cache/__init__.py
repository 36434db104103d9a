"""The scheduler cache: node infos aggregated from pods, assumed pods, and the snapshot."""

from ._node_info import HostPortInfo, ImageStateSummary, NodeInfo, PodInfo, next_generation
from ._snapshot import BASE_RESOURCES, NodeColumns, Snapshot

__all__ = [
    "BASE_RESOURCES",
    "HostPortInfo",
    "ImageStateSummary",
    "NodeColumns",
    "NodeInfo",
    "PodInfo",
    "Snapshot",
    "next_generation",
]
