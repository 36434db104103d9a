"""The SchedulingGates PreEnqueue plugin."""

from .scheduling_gates import NAME, SchedulingGates, gates_message

__all__ = ["NAME", "SchedulingGates", "gates_message"]
