"""Dynamic Resource Allocation, the parts upstream keeps in ``k8s.io/dynamic-resource-allocation``:
device selectors in CEL (:mod:`kubesched.dra.cel`) and the admission check of the selectors of
DeviceClasses, ResourceClaims and ResourceClaimTemplates (:func:`selector_errors`).

The structured allocator is :mod:`kubesched.dra.structured`; the scheduler plugin that uses it
is :mod:`kubesched.plugins.dynamicresources`.
"""

from ._admission import selector_errors

__all__ = ["selector_errors"]
