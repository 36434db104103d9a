"""Image states: which nodes have which container image, for ImageLocality's spread factor.

Mirrors the image bookkeeping of pkg/scheduler/backend/cache/cache.go (``imageStates``,
``addNodeImageStates``, ``removeNodeImageStates``) and snapshot.go (``createImageExistenceMap``,
``getNodeImageStates``), master 2026. Node status reports images under all their names (tags and
digests); names are stored as reported. Pod images are looked up with
:func:`normalized_image_name`, as ImageLocality does.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..api import Node
from ._node_info import ImageStateSummary

__all__ = ["ImageRegistry", "node_image_states", "normalized_image_name"]


def normalized_image_name(name: str) -> str:
    """normalizedImageName (plugins/imagelocality/image_locality.go): add ``:latest`` when the
    name has no tag (no ``:`` after the last ``/``)."""
    if name.rfind(":") <= name.rfind("/"):
        return name + ":latest"
    return name


class _ImageState:
    """fwk.ImageStateSummary inside the cache: size and the set of nodes having the image."""

    __slots__ = ("nodes", "size")

    def __init__(self, size: int) -> None:
        self.size = size
        self.nodes: set[str] = set()


class ImageRegistry:
    """The cache's image name -> nodes map. ``version`` changes whenever any image's node set
    changes, so a node's summaries are recomputed only when they may be stale."""

    def __init__(self) -> None:
        self._states: dict[str, _ImageState] = {}
        self._refs: dict[str, dict[str, _ImageState]] = {}  # node name -> its images' states
        self.version = 0

    def __len__(self) -> int:
        return len(self._states)

    def add_node(self, node: Node) -> None:
        """addNodeImageStates: the size of an image is the one first reported for it."""
        refs: dict[str, _ImageState] = {}
        for image in node.images:
            for name in image.names:
                state = self._states.get(name)
                if state is None:
                    state = self._states[name] = _ImageState(image.size_bytes)
                state.nodes.add(node.name)
                refs.setdefault(name, state)
        self._refs[node.name] = refs
        if refs:
            self.version += 1

    def remove_node(self, node: Node | None) -> None:
        """removeNodeImageStates: forget the node; an image on no node any more is dropped."""
        if node is None:
            return
        for image in node.images:
            for name in image.names:
                state = self._states.get(name)
                if state is not None:
                    state.nodes.discard(node.name)
                    if not state.nodes:
                        del self._states[name]
        if self._refs.pop(node.name, None):
            self.version += 1

    def summaries(self, node_name: str) -> dict[str, ImageStateSummary]:
        """The node's ImageStates as a snapshot sees them (ImageStateSummary.Snapshot: node
        counts as of now)."""
        refs = self._refs.get(node_name)
        if not refs:
            return {}
        return {name: ImageStateSummary(s.size, len(s.nodes)) for name, s in refs.items()}

    def num_nodes(self, image: str) -> int:
        s = self._states.get(image)
        return len(s.nodes) if s else 0


def node_image_states(nodes: Iterable[Node]) -> dict[str, dict[str, ImageStateSummary]]:
    """createImageExistenceMap + getNodeImageStates: per node name, its images with the size it
    reports and the number of nodes having each."""
    nodes = list(nodes)
    existence: dict[str, set[str]] = {}
    for n in nodes:
        for image in n.images:
            for name in image.names:
                existence.setdefault(name, set()).add(n.name)
    return {
        n.name: {
            name: ImageStateSummary(image.size_bytes, len(existence[name]))
            for image in n.images
            for name in image.names
        }
        for n in nodes
    }
