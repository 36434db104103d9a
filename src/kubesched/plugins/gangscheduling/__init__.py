"""The GangScheduling plugin: all-or-nothing scheduling of a PodGroup's pods."""

from .gangscheduling import NAME, PERMIT_TIMEOUT, GangScheduling

__all__ = ["NAME", "PERMIT_TIMEOUT", "GangScheduling"]
