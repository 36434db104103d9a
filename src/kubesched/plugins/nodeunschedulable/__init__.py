"""The NodeUnschedulable Filter plugin."""

from .node_unschedulable import (
    ERR_REASON_UNKNOWN_CONDITION,
    ERR_REASON_UNSCHEDULABLE,
    NAME,
    NodeUnschedulable,
)

__all__ = ["ERR_REASON_UNKNOWN_CONDITION", "ERR_REASON_UNSCHEDULABLE", "NAME", "NodeUnschedulable"]
