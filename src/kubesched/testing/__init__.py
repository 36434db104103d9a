"""Public test helpers: builders for pods and nodes (after upstream pkg/scheduler/testing)."""

from .wrappers import NodeBuilder, PodBuilder, label_selector, make_node, make_pod, snapshot_of

__all__ = ["NodeBuilder", "PodBuilder", "label_selector", "make_node", "make_pod", "snapshot_of"]
