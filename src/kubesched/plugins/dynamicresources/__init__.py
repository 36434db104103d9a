"""The DynamicResources plugin (DRA): allocates the devices of a pod's ResourceClaims."""

from kubesched.plugins.helper.dra import (
    EXTENDED_RESOURCE_CLAIM_ANNOTATION,
    ClassLister,
    DRAManager,
    manager_for,
)

from ._claims import allocation_to_dict
from .dynamic_resources import NAME, STATE_KEY, AllocatorFactory, DynamicResources

__all__ = [
    "EXTENDED_RESOURCE_CLAIM_ANNOTATION",
    "NAME", "STATE_KEY", "AllocatorFactory", "ClassLister", "DRAManager", "DynamicResources",
    "allocation_to_dict", "manager_for"]
