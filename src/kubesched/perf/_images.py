"""Container images for benchmark nodes: ``nodeImageStrategy`` of ``createNodes``.

Upstream's scheduler_perf creates nodes without ``status.images``, so ImageLocality never sees
an image there; real nodes list dozens (the kubelet reports up to ``nodeStatusMaxImages``, 50 by
default, the largest first, each under its tag(s) and digest). This strategy, kubesched's own,
gives each node a draw from a catalog file::

    nodeImageStrategy:
      catalogPath: templates/node-images.yaml   # resolved like a template path
      imagesPerNode: [30, 50]                   # inclusive range, drawn per node

The catalog is a YAML list of ``{names: [...], sizeBytes: N, nodeFraction: f}``. Each node first
gets every image with a ``nodeFraction`` with that probability (system daemons, sidecars), then
random other images up to its drawn count; at most that count in all (``[0, 0]``: no images), in
the kubelet's order (largest first).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ..api import safe_load_yaml
from ._config import ConfigError

__all__ = ["CatalogImage", "NodeImageStrategy", "load_catalog"]


@dataclass(frozen=True, slots=True)
class CatalogImage:
    names: tuple[str, ...]
    size_bytes: int
    node_fraction: float | None = None

    def status_entry(self) -> dict[str, Any]:
        """The image as one entry of a node's ``status.images``."""
        return {"names": list(self.names), "sizeBytes": self.size_bytes}


def _catalog_image(entry: Any, where: str) -> CatalogImage:
    if not isinstance(entry, Mapping):
        raise ConfigError(f"{where}: an image is a mapping with names and sizeBytes")
    names = entry.get("names")
    if not isinstance(names, list) or not names or not all(isinstance(n, str) and n for n in names):
        raise ConfigError(f"{where}: names must be a non-empty list of image names")
    size = entry.get("sizeBytes")
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        raise ConfigError(f"{where}: sizeBytes must be a non-negative integer")
    frac = entry.get("nodeFraction")
    bad_number = isinstance(frac, bool) or not isinstance(frac, int | float)
    if frac is not None and (bad_number or not 0 <= frac <= 1):
        raise ConfigError(f"{where}: nodeFraction must be a number between 0 and 1")
    return CatalogImage(tuple(names), size, None if frac is None else float(frac))


def load_catalog(path: Path) -> list[CatalogImage]:
    """The images of a catalog file; a bad file or entry is a ConfigError naming both."""
    try:
        docs = safe_load_yaml(path.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"{path}: {exc}") from exc
    if not isinstance(docs, list) or not docs:
        raise ConfigError(f"{path}: an image catalog is a non-empty list of images")
    return [_catalog_image(e, f"{path}: image {i}") for i, e in enumerate(docs)]


@dataclass(frozen=True, slots=True)
class NodeImageStrategy:
    """One createNodes op's images: the catalog split into images with a node fraction and the
    others, and the range of images per node."""

    fractional: tuple[CatalogImage, ...]
    others: tuple[CatalogImage, ...]
    min_images: int
    max_images: int

    @staticmethod
    def parse(raw: Any, catalog: list[CatalogImage], where: str) -> NodeImageStrategy:
        count = raw.get("imagesPerNode") if isinstance(raw, Mapping) else None
        if (not isinstance(count, list) or len(count) != 2
                or not all(isinstance(c, int) and not isinstance(c, bool) for c in count)
                or not 0 <= count[0] <= count[1]):
            raise ConfigError(f"{where}: nodeImageStrategy.imagesPerNode must be [min, max] "
                              "with 0 <= min <= max")
        return NodeImageStrategy(tuple(im for im in catalog if im.node_fraction is not None),
                                 tuple(im for im in catalog if im.node_fraction is None), count[0], count[1])

    def draw(self, rng: random.Random) -> list[dict[str, Any]]:
        """One node's ``status.images``."""
        n = rng.randint(self.min_images, self.max_images)
        chosen = [im for im in self.fractional if rng.random() < (im.node_fraction or 0.0)]
        chosen += rng.sample(self.others, min(max(0, n - len(chosen)), len(self.others)))
        chosen = sorted(chosen[:n], key=lambda im: -im.size_bytes)
        return [im.status_entry() for im in chosen]
