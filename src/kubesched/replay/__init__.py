"""Replaying traces over time on the virtual clock (``kubesched replay`` / ``compare`` / ``sweep``)."""

from ._trace import OPERATIONS, ObjectRef, Operation, Trace, TraceEvent

__all__ = ["OPERATIONS", "ObjectRef", "Operation", "Trace", "TraceEvent"]
