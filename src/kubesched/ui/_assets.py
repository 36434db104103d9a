"""The page's static files, read once from the package (``kubesched/ui/static/``, shipped in
the wheel) into memory, and served by name.

A request names an asset; it is looked up in this table, never joined to a directory: no
request can make the server read a file (``..``, an absolute path, an encoded slash all
simply miss the table)."""

from __future__ import annotations

from importlib.resources import files
from importlib.resources.abc import Traversable
from typing import Final

__all__ = ["Asset", "load_assets"]

CONTENT_TYPES: Final = {
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".txt": "text/plain; charset=utf-8",
    ".json": "application/json",
}

Asset = tuple[str, bytes]
"""(content type, bytes)."""


def _walk(node: Traversable, prefix: str, out: dict[str, Asset]) -> None:
    for child in node.iterdir():
        name = f"{prefix}{child.name}"
        if child.is_dir():
            _walk(child, f"{name}/", out)
            continue
        ext = "." + child.name.rpartition(".")[2] if "." in child.name else ""
        ctype = CONTENT_TYPES.get(ext)
        if ctype is not None:  # a licence file, a stray editor file: not served
            out[name] = (ctype, child.read_bytes())


def load_assets() -> dict[str, Asset]:
    """Every servable file under ``static/``, by its path there (``pages/cluster.js``)."""
    out: dict[str, Asset] = {}
    _walk(files(__package__ or "kubesched.ui") / "static", "", out)
    return out
