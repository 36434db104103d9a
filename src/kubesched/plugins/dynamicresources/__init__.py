"""The DynamicResources plugin (DRA): allocates the devices of a pod's ResourceClaims."""

from ._claims import allocation_to_dict
from ._extended import EXTENDED_RESOURCE_CLAIM_ANNOTATION
from ._manager import ClassLister, DRAManager, manager_for
from .dynamic_resources import NAME, STATE_KEY, AllocatorFactory, DynamicResources

__all__ = [
    "EXTENDED_RESOURCE_CLAIM_ANNOTATION",
    "NAME", "STATE_KEY", "AllocatorFactory", "ClassLister", "DRAManager", "DynamicResources",
    "allocation_to_dict", "manager_for"]
