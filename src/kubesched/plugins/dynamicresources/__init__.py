"""The DynamicResources plugin (DRA): allocates the devices of a pod's ResourceClaims."""

from ._manager import DRAManager, manager_for
from .dynamic_resources import NAME, STATE_KEY, AllocatorFactory, DynamicResources

__all__ = ["NAME", "STATE_KEY", "AllocatorFactory", "DRAManager", "DynamicResources", "manager_for"]
