"""Pausing Python's cyclic garbage collector while a large input is built.

Loading a dump allocates millions of dicts, lists and strings and frees almost none of them.
Each allocation burst triggers a collection, and every third-generation collection walks
everything allocated so far, so the collector's work grows with the square of the input: on a
20,000-pod dump it took two thirds of the loading time. Nothing built while loading is garbage
in a cycle worth finding then; the collector resumes when the block ends.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["gc_paused"]


@contextmanager
def gc_paused() -> Iterator[None]:
    """Disable the cyclic collector inside the block (nested uses are fine); restore it after."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
