"""The NodeName Filter plugin."""

from .node_name import ERR_REASON, NAME, NodeName

__all__ = ["ERR_REASON", "NAME", "NodeName"]
