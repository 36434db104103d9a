"""Image states: which nodes have which container image, for ImageLocality's spread factor.

Mirrors the image bookkeeping of pkg/scheduler/backend/cache/cache.go (``imageStates``,
``addNodeImageStates``, ``removeNodeImageStates``) and snapshot.go (``createImageExistenceMap``,
``getNodeImageStates``), master 2026. Node status reports images under all their names (tags and
digests); names are stored as reported. Pod images are looked up with
:func:`normalized_image_name`, as ImageLocality does.

:class:`NodeImages` is the snapshot's columnar side of the same data (no upstream counterpart):
per image name, the rows of the nodes listing it with the size and node count their
``image_states`` hold, so a batch scorer reads one array per pod image instead of one dict per
node and container.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from ..api import Node
from ._node_info import ImageStateSummary

if TYPE_CHECKING:
    from ._node_info import NodeInfo

__all__ = ["ImageRegistry", "ImageRows", "NodeImages", "node_image_states", "normalized_image_name"]


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


@dataclass(frozen=True, slots=True)
class ImageRows:
    """One image name over the snapshot: ``rows`` (ascending) of the nodes listing it, and the
    ``size`` and ``num_nodes`` of each of those nodes' ImageStateSummary, converted to float64
    as scaledImageScore's ``float64(...)`` converts them (round to nearest)."""

    rows: npt.NDArray[np.int64]
    size: npt.NDArray[np.float64]
    num_nodes: npt.NDArray[np.float64]


class NodeImages:
    """The snapshot's image states by image name, kept up to date row by row.

    A node's ``image_states`` dict is replaced, never edited, whenever its images or their node
    counts change (the cache does so when a node is added, updated or removed), so
    :meth:`update` compares it by identity and re-indexes only a node whose dict is new: per
    scheduling cycle that is an identity check on the one or two rewritten rows. Arrays are
    built per image name on first request and dropped when a node listing it changes or the
    node list is re-ordered; ``version`` changes with any of these, so a reader may keep answers
    derived from the arrays while it is unchanged. The data are the NodeInfos' own summaries,
    so a node whose counts are stale in the snapshot (upstream refreshes a node's copy only when
    the node changed) reads the same stale counts here."""

    __slots__ = ("_arrays", "_by_image", "_indexed", "_infos", "_row_of", "version")

    def __init__(self, infos: Sequence[NodeInfo]) -> None:
        self._infos = infos
        self._by_image: dict[str, dict[str, ImageStateSummary]] = {}  # image -> node name -> summary
        self._indexed: dict[str, Mapping[str, ImageStateSummary]] = {}  # node name -> dict indexed
        self._arrays: dict[str, ImageRows] = {}
        self._row_of: dict[str, int] | None = None
        self.version = 0
        for ni in infos:
            self.update(ni)

    def __bool__(self) -> bool:
        """Whether any node lists any image."""
        return bool(self._by_image)

    def update(self, ni: NodeInfo) -> None:
        """Re-index ``ni`` if its ``image_states`` is not the dict indexed for it."""
        states = ni.image_states
        name = ni.name
        old = self._indexed.get(name)
        if old is states or (not old and not states):
            return
        if old:
            self._drop(name, old)
        if states:
            self._indexed[name] = states
            by_image, arrays = self._by_image, self._arrays
            for image, summary in states.items():
                nodes = by_image.get(image)
                if nodes is None:
                    nodes = by_image[image] = {}
                nodes[name] = summary
                arrays.pop(image, None)
        self.version += 1

    def _drop(self, name: str, old: Mapping[str, ImageStateSummary]) -> None:
        del self._indexed[name]
        by_image, arrays = self._by_image, self._arrays
        for image in old:
            nodes = by_image.get(image)
            if nodes is not None:
                nodes.pop(name, None)
                if not nodes:
                    del by_image[image]
            arrays.pop(image, None)

    def relist(self, infos: Sequence[NodeInfo]) -> None:
        """Adopt a new node list (rows re-ordered, nodes added or removed): forget the nodes no
        longer listed. Changed and new nodes are then passed to :meth:`update`."""
        names = {ni.name for ni in infos}
        for gone in [n for n in self._indexed if n not in names]:
            self._drop(gone, self._indexed[gone])
        self._infos = infos
        self._row_of = None
        self._arrays.clear()
        self.version += 1

    def rows(self, image: str) -> ImageRows | None:
        """The nodes listing ``image`` (an exact name: normalizing is the caller's rule)."""
        hit = self._arrays.get(image)
        if hit is not None:
            return hit
        nodes = self._by_image.get(image)
        if nodes is None:
            return None
        row_of = self._row_of
        if row_of is None:
            row_of = self._row_of = {ni.name: i for i, ni in enumerate(self._infos)}
        entries = sorted((row_of[n], s.size, s.num_nodes) for n, s in nodes.items())
        rows, size, num = zip(*entries, strict=True) if entries else ((), (), ())
        hit = self._arrays[image] = ImageRows(np.array(rows, dtype=np.int64),
                                              np.array(size, dtype=np.float64),
                                              np.array(num, dtype=np.float64))
        return hit
