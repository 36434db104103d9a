"""The NodePorts PreFilter/Filter plugin."""

from .node_ports import ERR_REASON, NAME, NodePorts

__all__ = ["ERR_REASON", "NAME", "NodePorts"]
