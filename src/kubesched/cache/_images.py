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
    as scaledImageScore's ``float64(...)`` converts them (round to nearest). Never modified: a
    change makes a new one (a copy of arrays of at most one entry per node)."""

    rows: npt.NDArray[np.int64]
    size: npt.NDArray[np.float64]
    num_nodes: npt.NDArray[np.float64]

    def put(self, row: int, summary: ImageStateSummary) -> ImageRows:
        """With ``row``'s entry set to ``summary`` (inserted in order if it had none)."""
        pos = int(np.searchsorted(self.rows, row))
        if pos < len(self.rows) and self.rows[pos] == row:
            size, num = self.size.copy(), self.num_nodes.copy()
            size[pos], num[pos] = float(summary.size), float(summary.num_nodes)
            return ImageRows(self.rows, size, num)
        return ImageRows(np.insert(self.rows, pos, row), np.insert(self.size, pos, float(summary.size)),
                         np.insert(self.num_nodes, pos, float(summary.num_nodes)))

    def without(self, row: int) -> ImageRows:
        pos = int(np.searchsorted(self.rows, row))
        if pos == len(self.rows) or self.rows[pos] != row:
            return self
        return ImageRows(np.delete(self.rows, pos), np.delete(self.size, pos), np.delete(self.num_nodes, pos))

    def remapped(self, new_row: npt.NDArray[np.int64]) -> ImageRows:
        """Row ``r`` moved to ``new_row[r]`` (-1: the node is gone), kept in ascending order."""
        rows = new_row[self.rows]
        keep = rows >= 0
        rows, size, num = rows[keep], self.size[keep], self.num_nodes[keep]
        if len(rows) > 1 and bool((rows[1:] < rows[:-1]).any()):
            order = np.argsort(rows, kind="stable")
            rows, size, num = rows[order], size[order], num[order]
        return ImageRows(rows, size, num)


class NodeImages:
    """The snapshot's image states by image name, kept up to date row by row.

    A node's ``image_states`` dict is replaced, never edited, whenever its images or their node
    counts change (the cache does so when a node is added, updated or removed), so
    :meth:`update` compares it by identity and re-indexes only a node whose dict is new: per
    scheduling cycle that is an identity check on the one or two rewritten rows. Arrays are
    built per image name on first request and then patched entry by entry (a node's counts
    refreshed, a node gaining or losing the image) and remapped when the node list changes
    (:meth:`relist`); ``version`` changes with any change, so a reader may keep answers derived
    from the arrays while it is unchanged. The data are the NodeInfos' own summaries, so a node
    whose counts are stale in the snapshot (upstream refreshes a node's copy only when the node
    changed) reads the same stale counts here."""

    __slots__ = ("_arrays", "_by_image", "_indexed", "_infos", "_row_of", "version")

    def __init__(self, infos: Sequence[NodeInfo]) -> None:
        self._infos = infos
        self._by_image: dict[str, dict[str, ImageStateSummary]] = {}  # image -> node name -> summary
        self._indexed: dict[str, Mapping[str, ImageStateSummary]] = {}  # node name -> dict indexed
        self._arrays: dict[str, ImageRows] = {}  # built on request, then patched
        self._row_of: dict[str, int] | None = None  # node name -> row, built when needed
        self.version = 0
        for ni in infos:
            self.update(ni)

    def __bool__(self) -> bool:
        """Whether any node lists any image."""
        return bool(self._by_image)

    def _rows_of(self) -> dict[str, int]:
        row_of = self._row_of
        if row_of is None:
            row_of = self._row_of = {ni.name: i for i, ni in enumerate(self._infos)}
        return row_of

    def update(self, ni: NodeInfo) -> None:
        """Re-index ``ni`` if its ``image_states`` is not the dict indexed for it."""
        states = ni.image_states
        name = ni.name
        old = self._indexed.get(name)
        if old is states or (not old and not states):
            return
        by_image, arrays = self._by_image, self._arrays
        row = self._rows_of().get(name, -1) if arrays else -1
        if row < 0:  # no built arrays, or a node not listed (not seen in a snapshot): rebuild later
            arrays.clear()
        if old:
            for image in old:
                if image not in states:
                    self._remove(image, name, row)
        for image, summary in states.items():
            nodes = by_image.get(image)
            if nodes is None:
                nodes = by_image[image] = {}
            if nodes.get(name) != summary:
                nodes[name] = summary
                hit = arrays.get(image)
                if hit is not None:
                    arrays[image] = hit.put(row, summary)
        if states:
            self._indexed[name] = states
        else:
            del self._indexed[name]
        self.version += 1

    def _remove(self, image: str, name: str, row: int) -> None:
        """Forget ``name`` listing ``image``; built arrays lose ``row`` (-1: the caller moves
        or drops them)."""
        nodes = self._by_image.get(image)
        if nodes is None:
            return
        nodes.pop(name, None)
        if not nodes:
            del self._by_image[image]
            self._arrays.pop(image, None)
            return
        hit = self._arrays.get(image)
        if hit is not None and row >= 0:
            self._arrays[image] = hit.without(row)

    def relist(self, infos: Sequence[NodeInfo], src_rows: npt.NDArray[np.int64]) -> None:
        """Adopt a new node list (rows re-ordered, nodes added or removed; ``src_rows[i]`` is
        the old row of new row ``i``, -1 for a new node): forget the nodes no longer listed and
        move the built arrays' rows. Changed and new nodes are then passed to :meth:`update`."""
        row_of = {ni.name: i for i, ni in enumerate(infos)}
        for gone in [n for n in self._indexed if n not in row_of]:
            for image in self._indexed.pop(gone):
                self._remove(image, gone, -1)  # its rows go with the remap below
        if self._arrays:
            kept = src_rows >= 0
            new_row = np.full(len(self._infos), -1, dtype=np.int64)
            new_row[src_rows[kept]] = np.flatnonzero(kept)
            for image, hit in list(self._arrays.items()):
                self._arrays[image] = hit.remapped(new_row)
        self._infos = infos
        self._row_of = row_of
        self.version += 1

    def rows(self, image: str) -> ImageRows | None:
        """The nodes listing ``image`` (an exact name: normalizing is the caller's rule)."""
        hit = self._arrays.get(image)
        if hit is not None:
            return hit
        nodes = self._by_image.get(image)
        if nodes is None:
            return None
        row_of = self._rows_of()
        entries = sorted((row_of[n], s.size, s.num_nodes) for n, s in nodes.items())
        rows, size, num = zip(*entries, strict=True) if entries else ((), (), ())
        hit = self._arrays[image] = ImageRows(np.array(rows, dtype=np.int64),
                                              np.array(size, dtype=np.float64),
                                              np.array(num, dtype=np.float64))
        return hit
