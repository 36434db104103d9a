"""The QueueSort plugin (upstream package ``queuesort``)."""

from .priority_sort import NAME, PrioritySort

__all__ = ["NAME", "PrioritySort"]
