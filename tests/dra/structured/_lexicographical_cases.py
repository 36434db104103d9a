"""Upstream's allocator test table, ported case by case.

Generated from ``structured/internal/allocatortesting/lexicographical_testing.go`` of
k8s.io/dynamic-resource-allocation (master 2026) by ``translate_go_table.py``, which translates
its Go literals into the builders of :mod:`._gobuilders` (same helper names, same field
paths); ``_fN`` are the table's inline ``func() ... {...}()`` blocks, hoisted. Run by
``test_allocator.py``.
"""
# ruff: noqa: F403, F405

from ._gobuilders import *

LEXICOGRAPHICAL_TESTCASES = {
    "lexicographical-sorting-pools": S(
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 2))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithOneDevice(slice1, node1, resourcePool(pool3, 1), driverA),
            sliceWithOneDevice(slice2, node1, resourcePool(pool2, 1), driverA),
            sliceWithOneDevice(slice3, node1, resourcePool(pool1, 1), driverA),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool2, device1, False),
            )
        ],
    ),
    "lexicographical-sorting-pools-with-binding-conditions": S(
        features=S(DeviceBindingAndStatus=True),
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 2))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 1),
                driverA,
                device(device1, None, None).withBindingConditions(["IsPrepare"], ["BindingFailed"]),
            ),
            sliceWithDevices(slice3, node1, resourcePool(pool3, 1), driverA, device(device3, None, None)),
            sliceWithDevices(slice2, node1, resourcePool(pool2, 1), driverA, device(device2, None, None)),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool2, device2, False),
                deviceAllocationResult(req0, driverA, pool3, device3, False),
            )
        ],
    ),
    "lexicographical-sorting-slices": S(
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 2))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(slice3, node1, resourcePool(pool1, 3), driverA, device(device3, None, None)),
            sliceWithDevices(slice2, node1, resourcePool(pool1, 3), driverA, device(device2, None, None)),
            sliceWithDevices(slice1, node1, resourcePool(pool1, 3), driverA, device(device1, None, None)),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
            )
        ],
    ),
    "lexicographical-sorting-slices-with-binding-conditions": S(
        features=S(DeviceBindingAndStatus=True),
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 2))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 3),
                driverA,
                device(device1, None, None).withBindingConditions(["IsPrepare"], ["BindingFailed"]),
            ),
            sliceWithDevices(slice3, node1, resourcePool(pool1, 3), driverA, device(device3, None, None)),
            sliceWithDevices(slice2, node1, resourcePool(pool1, 3), driverA, device(device2, None, None)),
        ),
        node=node(node1, region1),
        expectResults=[
            S(
                Devices=S(
                    Results=[
                        deviceRequestAllocationResultWithBindingConditions(
                            req0, driverA, pool1, device1, ["IsPrepare"], ["BindingFailed"]
                        ),
                        deviceAllocationResult(req0, driverA, pool1, device2, False),
                    ]
                ),
                NodeSelector=localNodeSelector(node1),
            )
        ],
    ),
}
