"""What kubesched asks of the operating-system process it runs in, whichever front end runs it.

The bottom layer (beside nothing it imports): the cyclic garbage collector's one policy
(:class:`HeapFreezer`, :func:`gc_paused`), shared by the loader, ``kubesched run``, the
extender and the bench runner, so that the process is tuned in one place.
"""

from ._gc import YOUNG_THRESHOLD, HeapFreezer, gc_paused

__all__ = ["YOUNG_THRESHOLD", "HeapFreezer", "gc_paused"]
