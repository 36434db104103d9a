"""PodTopologySpread (pkg/scheduler/framework/plugins/podtopologyspread)."""

from ._args import LIST_DEFAULTING, SYSTEM_DEFAULT_CONSTRAINTS, SYSTEM_DEFAULTING, PodTopologySpreadArgs
from .filtering import ERR_REASON_CONSTRAINTS_NOT_MATCH, ERR_REASON_NODE_LABEL_NOT_MATCH
from .plugin import PodTopologySpread

Args = PodTopologySpreadArgs

__all__ = [
    "ERR_REASON_CONSTRAINTS_NOT_MATCH",
    "ERR_REASON_NODE_LABEL_NOT_MATCH",
    "LIST_DEFAULTING",
    "SYSTEM_DEFAULTING",
    "SYSTEM_DEFAULT_CONSTRAINTS",
    "Args",
    "PodTopologySpread",
    "PodTopologySpreadArgs",
]
