"""The SchedulingGates PreEnqueue plugin."""

from .scheduling_gates import NAME, SchedulingGates

__all__ = ["NAME", "SchedulingGates"]
