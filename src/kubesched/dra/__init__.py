"""Dynamic Resource Allocation, the parts upstream keeps in ``k8s.io/dynamic-resource-allocation``:
device selectors in CEL (:mod:`kubesched.dra.cel`) and the admission check of the selectors of
DeviceClasses, ResourceClaims and ResourceClaimTemplates (:func:`selector_errors`).

The scheduler plugin (DynamicResources) and the structured allocator are not implemented yet.
"""

from ._admission import selector_errors

__all__ = ["selector_errors"]
