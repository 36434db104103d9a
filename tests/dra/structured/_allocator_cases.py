"""Upstream's allocator test table, ported case by case.

Generated from ``structured/internal/allocatortesting/allocator_testing.go`` of
k8s.io/dynamic-resource-allocation (master 2026) by ``translate_go_table.py``, which translates
its Go literals into the builders of :mod:`._gobuilders` (same helper names, same field
paths); ``_fN`` are the table's inline ``func() ... {...}()`` blocks, hoisted. Run by
``test_allocator.py``.
"""
# ruff: noqa: E501, F403, F405

from ._gobuilders import *


def _f1():
    sliceVar = sliceWithDevices(
        "slice-1-obsolete", node1, resourcePool(pool1, 2), driverA, device(device2, None, None)
    )
    sliceVar.Spec.Pool.Generation += 1
    return sliceVar


def _f2():
    sliceA = sliceWithOneDevice(slice1, node1, pool1, driverA).obj()
    sliceA.Spec.Pool.ResourceSliceCount = 2
    sliceB = sliceA.DeepCopy()
    sliceB.Name += "-2"
    return [sliceA, sliceB]


def _f3():
    sliceVar = sliceWithOneDevice(slice1, node1, pool1, driverA)
    sliceVar.Spec.Pool.ResourceSliceCount += 1
    return sliceVar


def _f4():
    c = claimWithRequest(claim0, req0, classA)
    c.Spec.Devices.Requests[0].Exactly.AdminAccess = ptr.To(True)
    c.Spec.Devices.Requests[0].Exactly.AllocationMode = resourceapi.DeviceAllocationModeAll
    return [c]


def _f5():
    c = claimWithRequests(claim0, None, request(req0, classA, 1), request(req1, classA, 1))
    c.Spec.Devices.Requests[0].Exactly.AdminAccess = ptr.To(True)
    c.Spec.Devices.Requests[1].Exactly.AdminAccess = ptr.To(True)
    c.Spec.Devices.Requests[1].Exactly.AllocationMode = resourceapi.DeviceAllocationModeAll
    return [c]


def _f6():
    c = claimWithRequest(claim0, req0, classA)
    c.Spec.Devices.Requests[0].Exactly.AdminAccess = ptr.To(True)
    c.Spec.Devices.Requests[0].Exactly.AllocationMode = resourceapi.DeviceAllocationModeExactCount
    c.Spec.Devices.Requests[0].Exactly.Count = 2
    return [c]


def _f7():
    c1 = claimWithRequest(claim0, req0, classA)
    c1.Spec.Devices.Requests[0].Exactly.AdminAccess = ptr.To(True)
    c2 = claimWithRequest(claim1, req0, classA)
    c2.Spec.Devices.Requests[0].Exactly.AdminAccess = ptr.To(True)
    return [c1, c2]


def _f8():
    admin = claimWithRequest(claim1, req0, classA)
    admin.Spec.Devices.Requests[0].Exactly.AdminAccess = ptr.To(True)
    return [claimWithRequest(claim0, req0, classA), admin]


def _f9():
    claimVar = claim(claim0).withRequests(
        requestWithPrioritizedList(req0, subRequest(subReq0, classA, 1), subRequest(subReq1, classB, 1))
    )
    claimVar.Spec.Devices.Requests[0].FirstAvailable[0].AllocationMode = resourceapi.DeviceAllocationModeAll
    claimVar.Spec.Devices.Requests[0].FirstAvailable[0].Count = 0
    return claimVar


def _f10():
    claimVar = claim(claim0).withRequests(
        requestWithPrioritizedList(req0, subRequest(subReq0, classA, 1), subRequest(subReq1, classB, 1))
    )
    claimVar.Spec.Devices.Requests[0].FirstAvailable[0].AllocationMode = resourceapi.DeviceAllocationModeAll
    claimVar.Spec.Devices.Requests[0].FirstAvailable[0].Count = 0
    return claimVar


def _f11():
    claimVar = claim(claim0).withRequests(
        requestWithPrioritizedList(req0, subRequest(subReq0, classA, 1), subRequest(subReq1, classB, 1))
    )
    claimVar.Spec.Devices.Requests[0].FirstAvailable[0].AllocationMode = resourceapi.DeviceAllocationModeAll
    claimVar.Spec.Devices.Requests[0].FirstAvailable[0].Count = 0
    return claimVar


def _f12():
    c = claimWithRequest(claim0, req0, classA)
    c.Spec.Devices.Requests[0].Exactly.AdminAccess = ptr.To(True)
    return [c]


def _f13():
    c = claimWithRequest(claim0, req0, classA)
    c.Spec.Devices.Requests[0].Exactly.AdminAccess = ptr.To(True)
    return [c]


def _f14():
    claimVar = claimWithRequests(claim0, [S(MatchAttribute=intAttribute)], request(req0, classA, 0))
    claimVar.Spec.Devices.Requests[0].Exactly.AllocationMode = resourceapi.DeviceAllocationModeAll
    return claimVar


def _f15():
    c = claimWithRequests(
        claim0, None, request(req0, classA, 1), request(req1, classA, 1), request(req2, classA, 1)
    )
    c.Spec.Devices.Config = [
        S(Requests=[req0, req1], DeviceConfiguration=deviceConfiguration(driverA, "deviceAttribute"))
    ]
    return [c]


def _f16():
    claimVar = claimWithRequest(claim0, req0, classA)
    claimVar.Spec.Devices.Requests[0].Exactly.Selectors = [S()]
    return claimVar


def _f17():
    claimVar = claimWithRequest(claim0, req0, classA)
    claimVar.Spec.Devices.Requests[0].Exactly.AllocationMode = resourceapi.DeviceAllocationMode("future-mode")
    return claimVar


def _f18():
    claimVar = claimWithRequest(claim0, req0, classA)
    claimVar.Spec.Devices.Constraints = [S()]
    return claimVar


def _f19():
    claimVar = claimWithRequest(claim0, req0, classA)
    claimVar.Spec.Devices.Requests[0].Exactly.Selectors = [S(CEL=S(Expression="noSuchVar"))]
    return claimVar


def _f20():
    c = class_(classA, driverA)
    c.Spec.Selectors[0].CEL.Expression = "noSuchVar"
    return c


def _f21():
    claimVar = claimWithRequest(claim0, req0, classA)
    claimVar.Spec.Devices.Requests[0].Exactly.Selectors = [S(CEL=S(Expression="noSuchVar"))]
    claimVar.Spec.Devices.Requests[0].Exactly.AllocationMode = resourceapi.DeviceAllocationModeAll
    return claimVar


def _f22():
    claimVar = claim(claim0).withRequests(
        requestWithPrioritizedList(req0, subRequest(subReq0, classA, 1), subRequest(subReq1, classA, 1))
    )
    claimVar.Spec.Devices.Requests[0].FirstAvailable[0].AllocationMode = resourceapi.DeviceAllocationModeAll
    claimVar.Spec.Devices.Requests[0].FirstAvailable[0].Count = 0
    return claimVar


def _f23():
    claimVar = claim(claim0).withRequests(requestWithPrioritizedList(req0, subRequest(subReq0, classA, 1)))
    return claimVar


def _f24():
    c = claimWithRequest(claim0, req0, classA)
    c.Spec.Devices.Requests[0].Exactly.AdminAccess = ptr.To(True)
    return [c]


def _f25():
    c = claimWithRequest(claim0, req0, classA)
    c.Spec.Devices.Requests[0].Exactly.AdminAccess = ptr.To(True)
    return [c]


def _f26():
    s = sliceWithDevices(slice1, node1, pool1, driverA, device(device1, None, None))
    s.Spec.Pool.Generation = 1
    s.Spec.Pool.ResourceSliceCount = 2
    return s


def _f27():
    s = sliceWithDevices(slice2, node2, pool1, driverA, device(device2, None, None))
    s.Spec.Pool.Generation = 2
    s.Spec.Pool.ResourceSliceCount = 2
    return s


def _f28():
    s = sliceWithDevices(slice1, node1, pool1, driverA, device(device1, None, None))
    s.Spec.Pool.Generation = 1
    s.Spec.Pool.ResourceSliceCount = 2
    return s


def _f29():
    s = sliceWithDevices(slice1, node1, pool1, driverA, device(device2, None, None))
    s.Spec.Pool.Generation = 1
    s.Spec.Pool.ResourceSliceCount = 2
    return s


def _f30():
    s = sliceWithDevices(slice2, node2, pool1, driverA, device(device1, None, None))
    s.Spec.Pool.Generation = 2
    s.Spec.Pool.ResourceSliceCount = 2
    return s


def _f31():
    s = sliceWithDevices(slice2, node2, pool1, driverA, device(device2, None, None))
    s.Spec.Pool.Generation = 2
    s.Spec.Pool.ResourceSliceCount = 2
    return s


def _f32():
    s = sliceWithDevices(slice1, node2, pool1, driverA, device(device1, None, None))
    s.Spec.Pool.Generation = 1
    s.Spec.Pool.ResourceSliceCount = 2
    return s


def _f33():
    s = sliceWithDevices(slice1, node2, pool1, driverA, device(device2, None, None))
    s.Spec.Pool.Generation = 1
    s.Spec.Pool.ResourceSliceCount = 2
    return s


def _f34():
    s = sliceWithDevices(slice2, node1, pool1, driverA, device(device1, None, None))
    s.Spec.Pool.Generation = 2
    s.Spec.Pool.ResourceSliceCount = 2
    return s


def _f35():
    s = sliceWithDevices(slice2, node1, pool1, driverA, device(device2, None, None))
    s.Spec.Pool.Generation = 2
    s.Spec.Pool.ResourceSliceCount = 2
    return s


def _f36():
    s = sliceWithDevices(slice1, node1, pool1, driverA, device(device1, None, None))
    s.Spec.Pool.Generation = 1
    s.Spec.Pool.ResourceSliceCount = 2
    return s


def _f37():
    s = sliceWithDevices(slice1, node1, pool1, driverA, device(device2, None, None))
    s.Spec.Pool.Generation = 1
    s.Spec.Pool.ResourceSliceCount = 2
    return s


def _f38():
    s = sliceWithDevices(slice2, node2, pool1, driverA, device(device1, None, None))
    s.Spec.Pool.Generation = 2
    s.Spec.Pool.ResourceSliceCount = 2
    return s


def _f39():
    s = sliceWithDevices(slice1, node2, pool1, driverA, device(device1, None, None))
    s.Spec.Pool.Generation = 1
    s.Spec.Pool.ResourceSliceCount = 2
    return s


def _f40():
    s = sliceWithDevices(slice1, node2, pool1, driverA, device(device2, None, None))
    s.Spec.Pool.Generation = 1
    s.Spec.Pool.ResourceSliceCount = 2
    return s


def _f41():
    s = sliceWithDevices(slice2, node1, pool1, driverA, device(device1, None, None))
    s.Spec.Pool.Generation = 2
    s.Spec.Pool.ResourceSliceCount = 2
    return s


nonExistentAttribute = resourceapi.FullyQualifiedName(driverA + "/" + "NonExistentAttribute")
boolAttribute = resourceapi.FullyQualifiedName(driverA + "/" + "boolAttribute")
stringAttribute = resourceapi.FullyQualifiedName(driverA + "/" + "stringAttribute")
versionAttribute = resourceapi.FullyQualifiedName(driverA + "/" + "driverVersion")
intAttribute = resourceapi.FullyQualifiedName(driverA + "/" + "numa")
taintKey = "taint-key"
taintValue = "taint-value"
taintValue2 = "taint-value-2"
taintNone = S(Key=taintKey, Value=taintValue, Effect=resourceapi.DeviceTaintEffectNone)
taintNoSchedule = S(Key=taintKey, Value=taintValue, Effect=resourceapi.DeviceTaintEffectNoSchedule)
taintNoExecute = S(Key=taintKey, Value=taintValue2, Effect=resourceapi.DeviceTaintEffectNoExecute)
tolerationNoSchedule = S(
    Operator=resourceapi.DeviceTolerationOpExists,
    Key=taintKey,
    Effect=resourceapi.DeviceTaintEffectNoSchedule,
)
tolerationNoExecute = S(
    Operator=resourceapi.DeviceTolerationOpEqual,
    Key=taintKey,
    Value=taintValue2,
    Effect=resourceapi.DeviceTaintEffectNoExecute,
)
tolerationNoScheduleKey1 = S(
    Operator=resourceapi.DeviceTolerationOpExists, Key="key1", Effect=resourceapi.DeviceTaintEffectNoSchedule
)
TESTCASES = {
    "empty": S(),
    "simple": S(
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False)
            )
        ],
    ),
    "other-node": S(
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithOneDevice(slice1, node1, pool1, driverB),
            sliceWithOneDevice(slice2, node2, pool2, driverA),
        ),
        node=node(node2, region2),
        expectResults=[
            allocationResult(
                localNodeSelector(node2), deviceAllocationResult(req0, driverA, pool2, device1, False)
            )
        ],
    ),
    "small-and-large": S(
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                request(
                    req0,
                    classA,
                    1,
                    S(
                        CEL=S(
                            Expression=fmt.Sprintf(
                                'device.capacity["%s"].memory.compareTo(quantity("1Gi")) >= 0', driverA
                            )
                        )
                    ),
                ),
                request(
                    req1,
                    classA,
                    1,
                    S(
                        CEL=S(
                            Expression=fmt.Sprintf(
                                'device.capacity["%s"].memory.compareTo(quantity("2Gi")) >= 0', driverA
                            )
                        )
                    ),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, {"memory": resource.MustParse("1Gi")}, None),
                device(device2, {"memory": resource.MustParse("2Gi")}, None),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req1, driverA, pool1, device2, False),
            )
        ],
    ),
    "small-and-large-backtrack-requests": S(
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                request(
                    req0,
                    classA,
                    1,
                    S(
                        CEL=S(
                            Expression=fmt.Sprintf(
                                'device.capacity["%s"].memory.compareTo(quantity("1Gi")) >= 0', driverA
                            )
                        )
                    ),
                ),
                request(
                    req1,
                    classA,
                    1,
                    S(
                        CEL=S(
                            Expression=fmt.Sprintf(
                                'device.capacity["%s"].memory.compareTo(quantity("2Gi")) >= 0', driverA
                            )
                        )
                    ),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device2, {"memory": resource.MustParse("2Gi")}, None),
                device(device1, {"memory": resource.MustParse("1Gi")}, None),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req1, driverA, pool1, device2, False),
            )
        ],
    ),
    "small-and-large-backtrack-claims": S(
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                request(
                    req0,
                    classA,
                    1,
                    S(
                        CEL=S(
                            Expression=fmt.Sprintf(
                                'device.capacity["%s"].memory.compareTo(quantity("1Gi")) >= 0', driverA
                            )
                        )
                    ),
                ),
            ),
            claimWithRequests(
                claim1,
                None,
                request(
                    req1,
                    classA,
                    1,
                    S(
                        CEL=S(
                            Expression=fmt.Sprintf(
                                'device.capacity["%s"].memory.compareTo(quantity("2Gi")) >= 0', driverA
                            )
                        )
                    ),
                ),
            ),
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device2, {"memory": resource.MustParse("2Gi")}, None),
                device(device1, {"memory": resource.MustParse("1Gi")}, None),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False)
            ),
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req1, driverA, pool1, device2, False)
            ),
        ],
    ),
    "devices-split-across-different-slices": S(
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                S(
                    Name=req0,
                    Exactly=S(
                        Count=2,
                        AllocationMode=resourceapi.DeviceAllocationModeExactCount,
                        DeviceClassName=classA,
                    ),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithOneDevice(slice1, node1, pool1, driverA),
            sliceWithOneDevice(slice2, node1, pool2, driverA),
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
    "obsolete-slice": S(
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                "slice-1-obsolete", node1, resourcePool(pool1, 2), driverA, device(device1, None, None)
            ),
            _f1(),
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "duplicate-slice": S(
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(class_(classA, driverA)),
        slices=_f2(),
        node=node(node1, region1),
        expectError=gomega.MatchError(gomega.ContainSubstring("invalid resource pools were encountered")),
    ),
    "no-slices": S(
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(class_(classA, driverA)),
        slices=None,
        node=node(node1, region1),
        expectResults=None,
    ),
    "not-enough-suitable-devices": S(
        claimsToAllocate=objects(
            claimWithRequest(claim0, req0, classA), claimWithRequest(claim0, req1, classA)
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=None,
    ),
    "no-classes": S(
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=None,
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=None,
        expectError=gomega.MatchError(gomega.ContainSubstring("could not retrieve device class class-a")),
    ),
    "unknown-class": S(
        claimsToAllocate=objects(claimWithRequest(claim0, req0, "unknown-class")),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=None,
        expectError=gomega.MatchError(
            gomega.ContainSubstring("could not retrieve device class unknown-class")
        ),
    ),
    "empty-class": S(
        claimsToAllocate=objects(claimWithRequest(claim0, req0, "")),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=None,
        expectError=gomega.MatchError(
            gomega.ContainSubstring(
                "claim claim-0, request req-0: missing device class name (unsupported request type?)"
            )
        ),
    ),
    "no-claims-to-allocate": S(
        claimsToAllocate=None,
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=None,
    ),
    "all-devices-single": S(
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                S(
                    Name=req0,
                    Exactly=S(AllocationMode=resourceapi.DeviceAllocationModeAll, DeviceClassName=classA),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False)
            )
        ],
    ),
    "all-devices-with-consumed-counters": S(
        features=S(PartitionableDevices=True),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                S(
                    Name=req0,
                    Exactly=S(AllocationMode=resourceapi.DeviceAllocationModeAll, DeviceClassName=classA),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {"memory": resource.MustParse("8Gi")}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False)
            )
        ],
    ),
    "all-devices-many": S(
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                S(
                    Name=req0,
                    Exactly=S(AllocationMode=resourceapi.DeviceAllocationModeAll, DeviceClassName=classA),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithOneDevice(slice1, node1, pool1, driverA),
            sliceWithOneDevice(slice1, node1, pool2, driverA),
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
    "all-devices-of-the-incomplete-pool": S(
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                S(
                    Name=req0,
                    Exactly=S(
                        AllocationMode=resourceapi.DeviceAllocationModeAll, Count=1, DeviceClassName=classA
                    ),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(_f3()),
        node=node(node1, region1),
        expectResults=None,
        expectError=gomega.MatchError(
            gomega.ContainSubstring(
                "claim claim-0, request req-0: asks for all devices, but resource pool driver-a/pool-1 is currently being updated"
            )
        ),
    ),
    "all-devices-plus-another": S(
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                S(
                    Name=req0,
                    Exactly=S(AllocationMode=resourceapi.DeviceAllocationModeAll, DeviceClassName=classA),
                ),
            ),
            claimWithRequests(
                claim1,
                None,
                S(
                    Name=req0,
                    Exactly=S(
                        AllocationMode=resourceapi.DeviceAllocationModeExactCount,
                        Count=1,
                        DeviceClassName=classB,
                    ),
                ),
            ),
        ),
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithOneDevice(slice1, node1, pool1, driverA),
            sliceWithOneDevice(slice1, node1, pool1, driverB),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False)
            ),
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req0, driverB, pool1, device1, False)
            ),
        ],
    ),
    "all-devices-plus-another-reversed": S(
        claimsToAllocate=objects(
            claimWithRequests(
                claim1,
                None,
                S(
                    Name=req0,
                    Exactly=S(
                        AllocationMode=resourceapi.DeviceAllocationModeExactCount,
                        Count=1,
                        DeviceClassName=classB,
                    ),
                ),
            ),
            claimWithRequests(
                claim0,
                None,
                S(
                    Name=req0,
                    Exactly=S(AllocationMode=resourceapi.DeviceAllocationModeAll, DeviceClassName=classA),
                ),
            ),
        ),
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithOneDevice(slice1, node1, pool1, driverA),
            sliceWithOneDevice(slice1, node1, pool1, driverB),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req0, driverB, pool1, device1, False)
            ),
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False)
            ),
        ],
    ),
    "all-devices-many-plus-another": S(
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                S(
                    Name=req0,
                    Exactly=S(AllocationMode=resourceapi.DeviceAllocationModeAll, DeviceClassName=classA),
                ),
            ),
            claimWithRequests(
                claim1,
                None,
                S(
                    Name=req0,
                    Exactly=S(
                        AllocationMode=resourceapi.DeviceAllocationModeExactCount,
                        Count=1,
                        DeviceClassName=classB,
                    ),
                ),
            ),
        ),
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1, node1, pool1, driverA, device(device1, None, None), device(device2, None, None)
            ),
            sliceWithOneDevice(slice1, node1, pool1, driverB),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
            ),
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req0, driverB, pool1, device1, False)
            ),
        ],
    ),
    "all-devices-many-plus-another-reversed": S(
        claimsToAllocate=objects(
            claimWithRequests(
                claim1,
                None,
                S(
                    Name=req0,
                    Exactly=S(
                        AllocationMode=resourceapi.DeviceAllocationModeExactCount,
                        Count=1,
                        DeviceClassName=classB,
                    ),
                ),
            ),
            claimWithRequests(
                claim0,
                None,
                S(
                    Name=req0,
                    Exactly=S(AllocationMode=resourceapi.DeviceAllocationModeAll, DeviceClassName=classA),
                ),
            ),
        ),
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1, node1, pool1, driverA, device(device1, None, None), device(device2, None, None)
            ),
            sliceWithOneDevice(slice1, node1, pool1, driverB),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req0, driverB, pool1, device1, False)
            ),
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
            ),
        ],
    ),
    "all-devices-no-solution": S(
        claimsToAllocate=objects(
            claimWithRequests(
                claim1,
                None,
                S(
                    Name=req0,
                    Exactly=S(
                        AllocationMode=resourceapi.DeviceAllocationModeExactCount,
                        Count=1,
                        DeviceClassName=classA,
                    ),
                ),
            ),
            claimWithRequests(
                claim0,
                None,
                S(
                    Name=req0,
                    Exactly=S(AllocationMode=resourceapi.DeviceAllocationModeAll, DeviceClassName=classA),
                ),
            ),
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
    ),
    "all-devices-no-solution-reversed": S(
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                S(
                    Name=req0,
                    Exactly=S(AllocationMode=resourceapi.DeviceAllocationModeAll, DeviceClassName=classA),
                ),
            ),
            claimWithRequests(
                claim1,
                None,
                S(
                    Name=req0,
                    Exactly=S(
                        AllocationMode=resourceapi.DeviceAllocationModeExactCount,
                        Count=1,
                        DeviceClassName=classA,
                    ),
                ),
            ),
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
    ),
    "all-devices-slice-without-devices": S(
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                S(
                    Name=req0,
                    Exactly=S(AllocationMode=resourceapi.DeviceAllocationModeAll, DeviceClassName=classA),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithNoDevices(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=None,
    ),
    "all-devices-no-slices": S(
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                S(
                    Name=req0,
                    Exactly=S(AllocationMode=resourceapi.DeviceAllocationModeAll, DeviceClassName=classA),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=None,
        node=node(node1, region1),
        expectResults=None,
    ),
    "all-devices-some-allocated": S(
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                S(
                    Name=req0,
                    Exactly=S(AllocationMode=resourceapi.DeviceAllocationModeAll, DeviceClassName=classA),
                ),
            )
        ),
        allocatedDevices=[MakeDeviceID(driverA, pool1, device1)],
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1, node1, pool1, driverA, device(device1, None, None), device(device2, None, None)
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "all-devices-some-allocated-admin-access": S(
        features=S(AdminAccess=True),
        claimsToAllocate=_f4(),
        allocatedDevices=[MakeDeviceID(driverA, pool1, device1)],
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1, node1, pool1, driverA, device(device1, None, None), device(device2, None, None)
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, True),
                deviceAllocationResult(req0, driverA, pool1, device2, True),
            )
        ],
    ),
    "all-devices-some-allocating-admin-access": S(
        features=S(AdminAccess=True),
        claimsToAllocate=_f5(),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1, node1, pool1, driverA, device(device1, None, None), device(device2, None, None)
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "count-devices-some-allocated-admin-access": S(
        features=S(AdminAccess=True),
        claimsToAllocate=_f6(),
        allocatedDevices=[MakeDeviceID(driverA, pool1, device1)],
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1, node1, pool1, driverA, device(device1, None, None), device(device2, None, None)
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, True),
                deviceAllocationResult(req0, driverA, pool1, device2, True),
            )
        ],
    ),
    "separate-claims-share-device-admin-access": S(
        features=S(AdminAccess=True),
        claimsToAllocate=_f7(),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1, node1, pool1, driverA, device(device1, None, None), device(device2, None, None)
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, True)
            ),
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, True)
            ),
        ],
    ),
    "admin-access-claims-device-allocating-for-non-admin-access": S(
        features=S(AdminAccess=True),
        claimsToAllocate=_f8(),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1, node1, pool1, driverA, device(device1, None, None), device(device2, None, None)
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False)
            ),
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, True)
            ),
        ],
    ),
    "all-devices-slice-without-devices-prioritized-list": S(
        features=S(PrioritizedList=True),
        claimsToAllocate=objects(_f9()),
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithNoDevices(slice1, node1, pool1, driverA),
            sliceWithOneDevice(slice2, node1, pool2, driverB),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req0SubReq1, driverB, pool2, device1, False)
            )
        ],
    ),
    "all-devices-no-slices-prioritized-list": S(
        features=S(PrioritizedList=True),
        claimsToAllocate=objects(_f10()),
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice2, node1, pool2, driverB)),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req0SubReq1, driverB, pool2, device1, False)
            )
        ],
    ),
    "all-devices-some-allocated-prioritized-list": S(
        features=S(PrioritizedList=True),
        claimsToAllocate=objects(_f11()),
        allocatedDevices=[MakeDeviceID(driverA, pool1, device1)],
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1, node1, pool1, driverA, device(device1, None, None), device(device2, None, None)
            ),
            sliceWithOneDevice(slice2, node1, pool2, driverB),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req0SubReq1, driverB, pool2, device1, False)
            )
        ],
    ),
    "network-attached-device": S(
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithOneDevice(slice1, nodeLabelSelector(regionKey, region1), pool1, driverA)
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                nodeLabelSelector(regionKey, region1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
            )
        ],
    ),
    "unsuccessful-allocation-network-attached-device": S(
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithOneDevice(slice1, nodeLabelSelector(regionKey, region1), pool1, driverA)
        ),
        node=node(node2, region2),
        expectResults=None,
    ),
    "many-network-attached-devices": S(
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 4))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithOneDevice(slice1, nodeLabelSelector(regionKey, region1), pool1, driverA),
            sliceWithOneDevice(slice1, nodeSelectionAll, pool2, driverA),
            sliceWithOneDevice(slice1, nodeLabelSelector(planetKey, planetValueEarth), pool3, driverA),
            sliceWithOneDevice(slice1, localNodeSelector(node1), pool4, driverA),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                S(
                    NodeSelectorTerms=[
                        S(
                            MatchExpressions=[
                                S(Key=regionKey, Operator=v1.NodeSelectorOpIn, Values=[region1]),
                                S(Key=planetKey, Operator=v1.NodeSelectorOpIn, Values=[planetValueEarth]),
                            ],
                            MatchFields=[S(Key=fieldNameKey, Operator=v1.NodeSelectorOpIn, Values=[node1])],
                        )
                    ]
                ),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool2, device1, False),
                deviceAllocationResult(req0, driverA, pool3, device1, False),
                deviceAllocationResult(req0, driverA, pool4, device1, False),
            )
        ],
    ),
    "local-and-network-attached-devices": S(
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 2))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithOneDevice(slice1, nodeLabelSelector(regionKey, region1), pool1, driverA),
            sliceWithOneDevice(slice1, node1, pool2, driverA),
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
    "several-different-drivers": S(
        claimsToAllocate=objects(
            claimWithRequest(claim0, req0, classA), claimWithRequest(claim0, req0, classB)
        ),
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1, node1, pool1, driverA, device(device1, None, None), device(device2, None, None)
            ),
            sliceWithOneDevice(slice1, node1, pool1, driverB),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False)
            ),
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req0, driverB, pool1, device1, False)
            ),
        ],
    ),
    "already-allocated-devices": S(
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        allocatedDevices=[MakeDeviceID(driverA, pool1, device1), MakeDeviceID(driverA, pool1, device2)],
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=None,
    ),
    "admin-access-disabled": S(
        features=S(AdminAccess=False),
        claimsToAllocate=_f12(),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=None,
        expectError=gomega.MatchError(
            gomega.ContainSubstring(
                "claim claim-0, request req-0: admin access is requested, but the feature is disabled"
            )
        ),
    ),
    "admin-access-enabled": S(
        features=S(AdminAccess=True),
        claimsToAllocate=_f13(),
        allocatedDevices=[MakeDeviceID(driverA, pool1, device1), MakeDeviceID(driverA, pool1, device2)],
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, True)
            )
        ],
    ),
    "with-constraint": S(
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [
                    S(MatchAttribute=intAttribute),
                    S(MatchAttribute=versionAttribute),
                    S(MatchAttribute=stringAttribute),
                    S(MatchAttribute=boolAttribute),
                ],
                request(req0, classA, 1),
                request(req1, classA, 1),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "driverVersion": S(VersionValue=ptr.To("1.0.0")),
                        "numa": S(IntValue=ptr.To(int64(1))),
                        "stringAttribute": S(StringValue=ptr.To("stringAttributeValue")),
                        "boolAttribute": S(BoolValue=ptr.To(True)),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "driverVersion": S(VersionValue=ptr.To("1.0.0")),
                        "numa": S(IntValue=ptr.To(int64(1))),
                        "stringAttribute": S(StringValue=ptr.To("stringAttributeValue")),
                        "boolAttribute": S(BoolValue=ptr.To(True)),
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req1, driverA, pool1, device2, False),
            )
        ],
    ),
    "with-constraint-non-existent-attribute": S(
        claimsToAllocate=objects(
            claimWithRequest(claim0, req0, classA, S(MatchAttribute=nonExistentAttribute))
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=None,
    ),
    "with-constraint-not-matching-int-attribute": S(
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(MatchAttribute=intAttribute)], request(req0, classA, 2))
        ),
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, {"numa": S(IntValue=ptr.To(int64(1)))}),
                device(device2, None, {"numa": S(IntValue=ptr.To(int64(2)))}),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "with-constraint-not-matching-int-attribute-all-devices": S(
        claimsToAllocate=objects(_f14()),
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, {"numa": S(IntValue=ptr.To(int64(1)))}),
                device(device2, None, {"numa": S(IntValue=ptr.To(int64(2)))}),
            )
        ),
        node=node(node1, region1),
        expectError=gomega.MatchError(
            gomega.ContainSubstring(
                "claim claim-0, request req-0: cannot add device driver-a/pool-1/device-2 because a claim constraint would not be satisfied"
            )
        ),
    ),
    "with-constraint-not-matching-string-attribute": S(
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(MatchAttribute=stringAttribute)], request(req0, classA, 2))
        ),
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, {"stringAttribute": S(StringValue=ptr.To("stringAttributeValue"))}),
                device(device2, None, {"stringAttribute": S(StringValue=ptr.To("stringAttributeValue2"))}),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "with-constraint-not-matching-bool-attribute": S(
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(MatchAttribute=boolAttribute)], request(req0, classA, 2))
        ),
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, {"boolAttribute": S(BoolValue=ptr.To(True))}),
                device(device2, None, {"boolAttribute": S(BoolValue=ptr.To(False))}),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "with-constraint-not-matching-version-attribute": S(
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(MatchAttribute=versionAttribute)], request(req0, classA, 2))
        ),
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, {"driverVersion": S(VersionValue=ptr.To("1.0.0"))}),
                device(device2, None, {"driverVersion": S(VersionValue=ptr.To("2.0.0"))}),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "with-constraint-for-request": S(
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [S(Requests=[req0], MatchAttribute=versionAttribute)],
                request(req0, classA, 1),
                request(req1, classA, 1),
            )
        ),
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, {"driverVersion": S(VersionValue=ptr.To("1.0.0"))}),
                device(device2, None, {"driverVersion": S(VersionValue=ptr.To("2.0.0"))}),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req1, driverA, pool1, device2, False),
            )
        ],
    ),
    "with-constraint-for-request-retry": S(
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [S(Requests=[req0], MatchAttribute=versionAttribute), S(MatchAttribute=stringAttribute)],
                request(req0, classA, 1),
                request(req1, classA, 1),
            )
        ),
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "driverVersion": S(VersionValue=ptr.To("1.0.0")),
                        "stringAttribute": S(StringValue=ptr.To("a")),
                    },
                ),
                device(
                    device2,
                    None,
                    {
                        "driverVersion": S(VersionValue=ptr.To("2.0.0")),
                        "stringAttribute": S(StringValue=ptr.To("b")),
                    },
                ),
                device(
                    device3,
                    None,
                    {
                        "driverVersion": S(VersionValue=ptr.To("3.0.0")),
                        "stringAttribute": S(StringValue=ptr.To("b")),
                    },
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
                deviceAllocationResult(req1, driverA, pool1, device3, False),
            )
        ],
    ),
    "with-class-device-config": S(
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(classWithConfig(classA, driverA, "classAttribute")),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=[
            allocationResultWithConfigs(
                localNodeSelector(node1),
                objects(deviceAllocationResult(req0, driverA, pool1, device1, False)),
                [
                    S(
                        Source=resourceapi.AllocationConfigSourceClass,
                        Requests=None,
                        DeviceConfiguration=deviceConfiguration(driverA, "classAttribute"),
                    )
                ],
            )
        ],
    ),
    "with-class-device-config-with-multiple-request-and-configs": S(
        claimsToAllocate=objects(
            claimWithRequests(
                claim0, [], request(req0, classA, 1), request(req1, classA, 1), request(req2, classB, 1)
            )
        ),
        classes=objects(
            classWithConfig(classA, driverA, "classAttribute-A"),
            classWithConfig(classB, driverB, "classAttribute-B"),
        ),
        slices=unwrap(
            sliceWithMultipleDevices(slice1, node1, pool1, driverA, 2),
            sliceWithOneDevice(slice2, node1, pool1, driverB),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResultWithConfigs(
                localNodeSelector(node1),
                objects(
                    deviceAllocationResult(req0, driverA, pool1, device0, False),
                    deviceAllocationResult(req1, driverA, pool1, device1, False),
                    deviceAllocationResult(req2, driverB, pool1, device1, False),
                ),
                [
                    S(
                        Source=resourceapi.AllocationConfigSourceClass,
                        Requests=[req0, req1],
                        DeviceConfiguration=deviceConfiguration(driverA, "classAttribute-A"),
                    ),
                    S(
                        Source=resourceapi.AllocationConfigSourceClass,
                        Requests=[req2],
                        DeviceConfiguration=deviceConfiguration(driverB, "classAttribute-B"),
                    ),
                ],
            )
        ],
    ),
    "with-claim-config-for-two-requests": S(
        claimsToAllocate=_f15(),
        classes=objects(class_(classA, driverA)),
        slices=unwrap(sliceWithMultipleDevices(slice1, node1, pool1, driverA, 3)),
        node=node(node1, region1),
        expectResults=[
            allocationResultWithConfigs(
                localNodeSelector(node1),
                objects(
                    deviceAllocationResult(req0, driverA, pool1, device0, False),
                    deviceAllocationResult(req1, driverA, pool1, device1, False),
                    deviceAllocationResult(req2, driverA, pool1, device2, False),
                ),
                [
                    S(
                        Source=resourceapi.AllocationConfigSourceClaim,
                        Requests=[req0, req1],
                        DeviceConfiguration=deviceConfiguration(driverA, "deviceAttribute"),
                    )
                ],
            )
        ],
    ),
    "claim-with-device-config": S(
        claimsToAllocate=objects(claimWithDeviceConfig(claim0, req0, classA, driverA, "deviceAttribute")),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=[
            allocationResultWithConfig(
                localNodeSelector(node1),
                driverA,
                resourceapi.AllocationConfigSourceClaim,
                "deviceAttribute",
                deviceAllocationResult(req0, driverA, pool1, device1, False),
            )
        ],
    ),
    "unknown-selector": S(
        claimsToAllocate=objects(_f16()),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectError=gomega.MatchError(
            gomega.ContainSubstring("CEL expression empty (unsupported selector type?)")
        ),
    ),
    "unknown-allocation-mode": S(
        claimsToAllocate=objects(_f17()),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectError=gomega.MatchError(gomega.ContainSubstring("unsupported count mode future-mode")),
    ),
    "unknown-constraint": S(
        claimsToAllocate=objects(_f18()),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectError=gomega.MatchError(
            gomega.ContainSubstring("empty constraint (unsupported constraint type?)")
        ),
    ),
    "invalid-CEL-one-device": S(
        claimsToAllocate=objects(_f19()),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectError=gomega.MatchError(gomega.ContainSubstring("undeclared reference")),
    ),
    "invalid-CEL-one-device-class": S(
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(_f20()),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectError=gomega.MatchError(gomega.ContainSubstring("undeclared reference")),
    ),
    "invalid-CEL-all-devices": S(
        claimsToAllocate=objects(_f21()),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectError=gomega.MatchError(gomega.ContainSubstring("undeclared reference")),
    ),
    "too-many-devices-single-request": S(
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 500))),
        classes=objects(class_(classA, driverA)),
        expectError=gomega.MatchError(gomega.ContainSubstring("exceeds the claim limit")),
    ),
    "many-devices-okay": S(
        claimsToAllocate=objects(
            claimWithRequests(claim0, None, request(req0, classA, resourceapi.AllocationResultsMaxSize))
        ),
        classes=objects(class_(classA, driverA)),
    ),
    "too-many-devices-total": S(
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                request(req0, classA, resourceapi.AllocationResultsMaxSize),
                request(req1, classA, 1),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithMultipleDevices(slice1, node1, pool1, driverA, resourceapi.AllocationResultsMaxSize + 1)
        ),
        node=node(node1, region1),
        expectError=gomega.MatchError(gomega.ContainSubstring("exceeds the claim limit")),
    ),
    "all-devices-invalid-CEL": S(
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 500))),
        classes=objects(class_(classA, driverA)),
        expectError=gomega.MatchError(gomega.ContainSubstring("exceeds the claim limit")),
    ),
    "prioritized-list-first-unavailable": S(
        features=S(PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0, subRequest(subReq0, classB, 1), subRequest(subReq1, classA, 1)
                )
            )
        ),
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req0SubReq1, driverA, pool1, device1, False)
            )
        ],
    ),
    "prioritized-list-non-available": S(
        features=S(PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0, subRequest(subReq0, classB, 2), subRequest(subReq1, classA, 2)
                )
            )
        ),
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithOneDevice(slice1, node1, pool1, driverA),
            sliceWithOneDevice(slice2, node1, pool2, driverB),
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "prioritized-list-device-config": S(
        features=S(PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0)
            .withRequests(
                requestWithPrioritizedList(
                    req0, subRequest(subReq0, classA, 1), subRequest(subReq1, classB, 2)
                )
            )
            .withConfigs(
                objects(
                    deviceClaimConfig([req0SubReq0], deviceConfiguration(driverA, "foo")),
                    deviceClaimConfig([req0SubReq1], deviceConfiguration(driverB, "bar")),
                )
            )
        ),
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1, node1, pool1, driverB, device(device1, None, {}), device(device2, None, {})
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResultWithConfigs(
                localNodeSelector(node1),
                objects(
                    deviceAllocationResult(req0SubReq1, driverB, pool1, device1, False),
                    deviceAllocationResult(req0SubReq1, driverB, pool1, device2, False),
                ),
                [
                    S(
                        Source=resourceapi.AllocationConfigSourceClaim,
                        Requests=None,
                        DeviceConfiguration=deviceConfiguration(driverB, "bar"),
                    )
                ],
            )
        ],
    ),
    "prioritized-list-class-config": S(
        features=S(PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0, subRequest(subReq0, classA, 2), subRequest(subReq1, classB, 2)
                )
            )
        ),
        classes=objects(classWithConfig(classA, driverA, "foo"), classWithConfig(classB, driverB, "bar")),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1, node1, pool1, driverB, device(device1, None, None), device(device2, None, None)
            ),
            sliceWithDevices(slice2, node1, pool2, driverA, device(device3, None, None)),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResultWithConfigs(
                localNodeSelector(node1),
                objects(
                    deviceAllocationResult(req0SubReq1, driverB, pool1, device1, False),
                    deviceAllocationResult(req0SubReq1, driverB, pool1, device2, False),
                ),
                [
                    S(
                        Source=resourceapi.AllocationConfigSourceClass,
                        Requests=None,
                        DeviceConfiguration=deviceConfiguration(driverB, "bar"),
                    )
                ],
            )
        ],
    ),
    "claim-config-scoped-to-subrequests-of-one-request": S(
        features=S(PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0)
            .withRequests(
                requestWithPrioritizedList(
                    req0, subRequest(subReq0, classA, 1), subRequest(subReq1, classB, 1)
                ),
                deviceRequest(req1, classA, 1),
            )
            .withConfigs(
                objects(deviceClaimConfig([req0SubReq0, req0SubReq1], deviceConfiguration(driverA, "scoped")))
            )
        ),
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrap(sliceWithMultipleDevices(slice1, node1, pool1, driverA, 2)),
        node=node(node1, region1),
        expectResults=[
            allocationResultWithConfigs(
                localNodeSelector(node1),
                objects(
                    deviceAllocationResult(req0SubReq0, driverA, pool1, device0, False),
                    deviceAllocationResult(req1, driverA, pool1, device1, False),
                ),
                [
                    S(
                        Source=resourceapi.AllocationConfigSourceClaim,
                        Requests=[req0SubReq0, req0SubReq1],
                        DeviceConfiguration=deviceConfiguration(driverA, "scoped"),
                    )
                ],
            )
        ],
    ),
    "claim-config-covering-all-requests-is-cleared": S(
        features=S(PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0)
            .withRequests(
                requestWithPrioritizedList(
                    req0, subRequest(subReq0, classA, 1), subRequest(subReq1, classB, 1)
                ),
                deviceRequest(req1, classA, 1),
            )
            .withConfigs(objects(deviceClaimConfig([req0SubReq0, req1], deviceConfiguration(driverA, "all"))))
        ),
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrap(sliceWithMultipleDevices(slice1, node1, pool1, driverA, 2)),
        node=node(node1, region1),
        expectResults=[
            allocationResultWithConfigs(
                localNodeSelector(node1),
                objects(
                    deviceAllocationResult(req0SubReq0, driverA, pool1, device0, False),
                    deviceAllocationResult(req1, driverA, pool1, device1, False),
                ),
                [
                    S(
                        Source=resourceapi.AllocationConfigSourceClaim,
                        Requests=None,
                        DeviceConfiguration=deviceConfiguration(driverA, "all"),
                    )
                ],
            )
        ],
    ),
    "prioritized-list-subrequests-with-expressions": S(
        features=S(PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1).withSelectors(
                    S(
                        CEL=S(
                            Expression=fmt.Sprintf(
                                'device.capacity["%s"].memory.compareTo(quantity("1Gi")) >= 0', driverA
                            )
                        )
                    )
                ),
                requestWithPrioritizedList(
                    req1,
                    subRequest(
                        subReq0,
                        classA,
                        1,
                        S(
                            CEL=S(
                                Expression=fmt.Sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("4Gi")) >= 0', driverA
                                )
                            )
                        ),
                    ),
                    subRequest(
                        subReq1,
                        classA,
                        2,
                        S(
                            CEL=S(
                                Expression=fmt.Sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("2Gi")) >= 0', driverA
                                )
                            )
                        ),
                    ),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, {"memory": resource.MustParse("2Gi")}, None),
                device(device2, {"memory": resource.MustParse("2Gi")}, None),
                device(device3, {"memory": resource.MustParse("1Gi")}, None),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device3, False),
                deviceAllocationResult(req1SubReq1, driverA, pool1, device1, False),
                deviceAllocationResult(req1SubReq1, driverA, pool1, device2, False),
            )
        ],
    ),
    "prioritized-list-subrequests-with-constraints-ref-parent-request": S(
        features=S(PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0)
            .withConstraints(S(Requests=[req0, req1], MatchAttribute=versionAttribute))
            .withRequests(
                deviceRequest(req0, classA, 1).withSelectors(
                    S(
                        CEL=S(
                            Expression=fmt.Sprintf(
                                'device.capacity["%s"].memory.compareTo(quantity("8Gi")) >= 0', driverA
                            )
                        )
                    )
                ),
                requestWithPrioritizedList(
                    req1,
                    subRequest(
                        subReq0,
                        classA,
                        1,
                        S(
                            CEL=S(
                                Expression=fmt.Sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("2Gi")) >= 0', driverA
                                )
                            )
                        ),
                    ),
                    subRequest(
                        subReq1,
                        classA,
                        1,
                        S(
                            CEL=S(
                                Expression=fmt.Sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("1Gi")) >= 0', driverA
                                )
                            )
                        ),
                    ),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    {"memory": resource.MustParse("8Gi")},
                    {"driverVersion": S(VersionValue=ptr.To("1.0.0"))},
                ),
            ),
            sliceWithDevices(
                slice2,
                node1,
                pool2,
                driverA,
                device(
                    device2,
                    {"memory": resource.MustParse("2Gi")},
                    {"driverVersion": S(VersionValue=ptr.To("2.0.0"))},
                ),
                device(
                    device3,
                    {"memory": resource.MustParse("1Gi")},
                    {"driverVersion": S(VersionValue=ptr.To("1.0.0"))},
                ),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req1SubReq1, driverA, pool2, device3, False),
            )
        ],
    ),
    "prioritized-list-subrequests-with-constraints-ref-sub-request": S(
        features=S(PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0)
            .withConstraints(S(Requests=[req0, req1SubReq0], MatchAttribute=versionAttribute))
            .withRequests(
                deviceRequest(req0, classA, 1).withSelectors(
                    S(
                        CEL=S(
                            Expression=fmt.Sprintf(
                                'device.capacity["%s"].memory.compareTo(quantity("8Gi")) >= 0', driverA
                            )
                        )
                    )
                ),
                requestWithPrioritizedList(
                    req1,
                    subRequest(
                        subReq0,
                        classA,
                        1,
                        S(
                            CEL=S(
                                Expression=fmt.Sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("2Gi")) >= 0', driverA
                                )
                            )
                        ),
                    ),
                    subRequest(
                        subReq1,
                        classA,
                        1,
                        S(
                            CEL=S(
                                Expression=fmt.Sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("1Gi")) >= 0', driverA
                                )
                            )
                        ),
                    ),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    {"memory": resource.MustParse("8Gi")},
                    {"driverVersion": S(VersionValue=ptr.To("1.0.0"))},
                ),
            ),
            sliceWithDevices(
                slice2,
                node1,
                pool2,
                driverA,
                device(
                    device2,
                    {"memory": resource.MustParse("2Gi")},
                    {"driverVersion": S(VersionValue=ptr.To("2.0.0"))},
                ),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req1SubReq1, driverA, pool2, device2, False),
            )
        ],
    ),
    "prioritized-list-subrequests-with-allocation-mode-all": S(
        features=S(PrioritizedList=True),
        claimsToAllocate=objects(_f22()),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1, node1, pool1, driverA, device(device1, None, None), device(device2, None, None)
            )
        ),
        allocatedDevices=[MakeDeviceID(driverA, pool1, device1)],
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req0SubReq1, driverA, pool1, device2, False)
            )
        ],
    ),
    "prioritized-list-allocation-mode-all-multiple-requests": S(
        features=S(PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1),
                requestWithPrioritizedList(
                    req1,
                    subRequest(subReq0, classA, 0).withAllocationMode(resourceapi.DeviceAllocationModeAll),
                    subRequest(subReq1, classA, 1),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1, node1, pool1, driverA, device(device1, None, None), device(device2, None, None)
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req1SubReq1, driverA, pool1, device2, False),
            )
        ],
    ),
    "prioritized-list-disabled": S(
        features=S(PrioritizedList=False),
        claimsToAllocate=objects(_f23()),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=None,
        expectError=gomega.MatchError(
            gomega.ContainSubstring(
                "claim claim-0, request req-0: has subrequests, but the DRAPrioritizedList feature is disabled"
            )
        ),
    ),
    "prioritized-list-multi-request": S(
        features=S(PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req1, classA, 1).withSelectors(
                    S(
                        CEL=S(
                            Expression=fmt.Sprintf(
                                'device.capacity["%s"].memory.compareTo(quantity("8Gi")) >= 0', driverA
                            )
                        )
                    )
                ),
                requestWithPrioritizedList(
                    req0,
                    subRequest(
                        subReq0,
                        classA,
                        1,
                        S(
                            CEL=S(
                                Expression=fmt.Sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("8Gi")) >= 0', driverA
                                )
                            )
                        ),
                    ),
                    subRequest(
                        subReq1,
                        classA,
                        1,
                        S(
                            CEL=S(
                                Expression=fmt.Sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("4Gi")) >= 0', driverA
                                )
                            )
                        ),
                    ),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1, node1, pool1, driverA, device(device1, {"memory": resource.MustParse("8Gi")}, {})
            ),
            sliceWithDevices(
                slice2, node1, pool2, driverA, device(device2, {"memory": resource.MustParse("4Gi")}, {})
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req1, driverA, pool1, device1, False),
                deviceAllocationResult(req0SubReq1, driverA, pool2, device2, False),
            )
        ],
    ),
    "prioritized-list-with-backtracking": S(
        features=S(PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0,
                    subRequest(
                        subReq0,
                        classA,
                        1,
                        S(
                            CEL=S(
                                Expression=fmt.Sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("8Gi")) >= 0', driverA
                                )
                            )
                        ),
                    ),
                    subRequest(
                        subReq1,
                        classA,
                        1,
                        S(
                            CEL=S(
                                Expression=fmt.Sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("4Gi")) >= 0', driverA
                                )
                            )
                        ),
                    ),
                ),
                deviceRequest(req1, classA, 1).withSelectors(
                    S(
                        CEL=S(
                            Expression=fmt.Sprintf(
                                'device.capacity["%s"].memory.compareTo(quantity("8Gi")) >= 0', driverA
                            )
                        )
                    )
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1, node1, pool1, driverA, device(device1, {"memory": resource.MustParse("8Gi")}, {})
            ),
            sliceWithDevices(
                slice2, node1, pool2, driverA, device(device2, {"memory": resource.MustParse("4Gi")}, {})
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0SubReq1, driverA, pool2, device2, False),
                deviceAllocationResult(req1, driverA, pool1, device1, False),
            )
        ],
    ),
    "prioritized-list-too-many-in-first-subrequest": S(
        features=S(PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0, subRequest(subReq0, classB, 500), subRequest(subReq1, classA, 1)
                )
            )
        ),
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrapResourceSlices(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req0SubReq1, driverA, pool1, device1, False)
            )
        ],
    ),
    "partitionable-devices-single-device": S(
        features=S(PartitionableDevices=True),
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 1))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {"memory": resource.MustParse("8Gi")}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False)
            )
        ],
    ),
    "partitionable-devices-prioritized-list": S(
        features=S(PrioritizedList=True, PartitionableDevices=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1),
                requestWithPrioritizedList(
                    req1,
                    subRequest(
                        subReq0,
                        classA,
                        1,
                        S(
                            CEL=S(
                                Expression=fmt.Sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("6Gi")) >= 0', driverA
                                )
                            )
                        ),
                    ),
                    subRequest(
                        subReq1,
                        classA,
                        1,
                        S(
                            CEL=S(
                                Expression=fmt.Sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("4Gi")) >= 0', driverA
                                )
                            )
                        ),
                    ),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                ),
                device(device2, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("6Gi")})
                ),
                device(device3, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {"memory": resource.MustParse("8Gi")}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req1SubReq1, driverA, pool1, device3, False),
            )
        ],
    ),
    "partitionable-devices-multiple-devices": S(
        features=S(PartitionableDevices=True),
        claimsToAllocate=objects(
            claimWithRequests(claim0, None, request(req0, classA, 1), request(req1, classA, 1))
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                ),
                device(device2, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("6Gi")})
                ),
                device(device3, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {"memory": resource.MustParse("8Gi")}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req1, driverA, pool1, device3, False),
            )
        ],
    ),
    "partitionable-devices-multiple-capacity-pools": S(
        features=S(PrioritizedList=True, PartitionableDevices=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1),
                requestWithPrioritizedList(
                    req1,
                    subRequest(
                        subReq0,
                        classA,
                        1,
                        S(
                            CEL=S(
                                Expression=fmt.Sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("6Gi")) >= 0', driverA
                                )
                            )
                        ),
                    ),
                    subRequest(
                        subReq1,
                        classA,
                        1,
                        S(
                            CEL=S(
                                Expression=fmt.Sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("4Gi")) >= 0', driverA
                                )
                            )
                        ),
                    ),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")}),
                    deviceCounterConsumption(counterSet2, {"cpus": resource.MustParse("4")}),
                ),
                device(device2, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("6Gi")}),
                    deviceCounterConsumption(counterSet2, {"cpus": resource.MustParse("6")}),
                ),
                device(device3, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")}),
                    deviceCounterConsumption(counterSet2, {"cpus": resource.MustParse("4")}),
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {"memory": resource.MustParse("18Gi")}),
                counterSet(counterSet2, {"cpus": resource.MustParse("8")}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req1SubReq1, driverA, pool1, device3, False),
            )
        ],
    ),
    "partitionable-devices-multiple-counters": S(
        features=S(PartitionableDevices=True),
        claimsToAllocate=objects(
            claimWithRequests(claim0, None, request(req0, classA, 1), request(req1, classA, 1))
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1, {"memory": resource.MustParse("4Gi"), "cpus": resource.MustParse("6")}
                    ),
                    deviceCounterConsumption(
                        counterSet2, {"cpus": resource.MustParse("4"), "memory": resource.MustParse("2Gi")}
                    ),
                ),
                device(device2, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1, {"memory": resource.MustParse("6Gi"), "cpus": resource.MustParse("4")}
                    ),
                    deviceCounterConsumption(
                        counterSet2, {"cpus": resource.MustParse("6"), "memory": resource.MustParse("6Gi")}
                    ),
                ),
                device(device3, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1, {"memory": resource.MustParse("4Gi"), "cpus": resource.MustParse("4")}
                    ),
                    deviceCounterConsumption(
                        counterSet2, {"cpus": resource.MustParse("4"), "memory": resource.MustParse("4Gi")}
                    ),
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(
                    counterSet1, {"cpus": resource.MustParse("8"), "memory": resource.MustParse("18Gi")}
                ),
                counterSet(
                    counterSet2, {"cpus": resource.MustParse("12"), "memory": resource.MustParse("18Gi")}
                ),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
                deviceAllocationResult(req1, driverA, pool1, device3, False),
            )
        ],
    ),
    "partitionable-devices-multiple-pools": S(
        features=S(PartitionableDevices=True),
        claimsToAllocate=objects(
            claimWithRequests(claim0, None, request(req0, classA, 1), request(req1, classA, 1))
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1, {"cpus": resource.MustParse("6"), "memory": resource.MustParse("4Gi")}
                    )
                ),
                device(device2, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1, {"cpus": resource.MustParse("4"), "memory": resource.MustParse("6Gi")}
                    )
                ),
                device(device3, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1, {"cpus": resource.MustParse("4"), "memory": resource.MustParse("4Gi")}
                    )
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(
                    counterSet1, {"cpus": resource.MustParse("8"), "memory": resource.MustParse("18Gi")}
                ),
            ),
            sliceWithDevices(
                slice3,
                node1,
                resourcePool(pool2, 2),
                driverA,
                device(device1, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1, {"cpus": resource.MustParse("6"), "memory": resource.MustParse("4Gi")}
                    )
                ),
                device(device2, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1, {"cpus": resource.MustParse("1"), "memory": resource.MustParse("7Gi")}
                    )
                ),
                device(device3, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(
                        counterSet1, {"cpus": resource.MustParse("1"), "memory": resource.MustParse("7Gi")}
                    )
                ),
            ),
            sliceWithCounterSets(
                slice4,
                node1,
                resourcePool(pool2, 2),
                driverA,
                counterSet(
                    counterSet1, {"cpus": resource.MustParse("8"), "memory": resource.MustParse("18Gi")}
                ),
            ),
        ),
        allocatedDevices=[
            MakeDeviceID(driverA, pool1, device2),
            MakeDeviceID(driverA, pool1, device3),
            MakeDeviceID(driverA, pool2, device1),
        ],
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool2, device2, False),
                deviceAllocationResult(req1, driverA, pool2, device3, False),
            )
        ],
    ),
    "partitionable-devices-unused-counters-in-counter-set": S(
        features=S(PartitionableDevices=True),
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 2))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("5Gi")})
                ),
                device(device2, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                ),
                device(device3, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(
                    counterSet1, {"memory": resource.MustParse("8Gi"), "unused": resource.MustParse("1Gi")}
                ),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
                deviceAllocationResult(req0, driverA, pool1, device3, False),
            )
        ],
    ),
    "partitionable-devices-no-capacity-available": S(
        features=S(PartitionableDevices=True),
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 1))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                ),
                device(device2, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("16Gi")})
                ),
            ),
            sliceWithCounterSets(
                slice2, node1, pool1, driverA, counterSet(counterSet1, {"memory": resource.MustParse("18Gi")})
            ),
        ),
        allocatedDevices=[MakeDeviceID(driverA, pool1, device2)],
        node=node(node1, region1),
        expectResults=None,
    ),
    "partitionable-devices-overallocated-capacity-pool": S(
        features=S(PartitionableDevices=True),
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 1))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                ),
                device(device2, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("20Gi")})
                ),
            ),
            sliceWithCounterSets(
                slice2, node1, pool1, driverA, counterSet(counterSet1, {"memory": resource.MustParse("18Gi")})
            ),
        ),
        allocatedDevices=[MakeDeviceID(driverA, pool1, device2)],
        node=node(node1, region1),
        expectResults=None,
    ),
    "partitionable-devices-disabled-device-consumes-counters": S(
        features=S(PartitionableDevices=False),
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 1))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                ),
            ),
            sliceWithCounterSets(
                slice2, node1, pool1, driverA, counterSet(counterSet1, {"memory": resource.MustParse("18Gi")})
            ),
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "partitionable-devices-disabled-other-device-do-not-consume-counters": S(
        features=S(PartitionableDevices=False),
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 1))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                ),
                device(device2, None, None),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {"memory": resource.MustParse("18Gi")}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device2, False)
            )
        ],
    ),
    "partitionable-devices-disabled-per-device-node-selection": S(
        features=S(PartitionableDevices=False),
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 1))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                nodeSelectionPerDevice,
                pool1,
                driverA,
                device(device2, None, None).withNodeSelection(node1),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "partitionable-devices-per-device-node-selection-nodename": S(
        features=S(PartitionableDevices=True, PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0,
                    subRequest(
                        subReq0,
                        classA,
                        1,
                        S(
                            CEL=S(
                                Expression=fmt.Sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("6Gi")) >= 0', driverA
                                )
                            )
                        ),
                    ),
                    subRequest(
                        subReq1,
                        classA,
                        1,
                        S(
                            CEL=S(
                                Expression=fmt.Sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("4Gi")) >= 0', driverA
                                )
                            )
                        ),
                    ),
                )
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                nodeSelectionPerDevice,
                resourcePool(pool1, 2),
                driverA,
                device(device1, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                )
                .withNodeSelection(node1),
                device(device2, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("6Gi")})
                )
                .withNodeSelection(node2),
            ),
            sliceWithCounterSets(
                slice2,
                nodeSelectionPerDevice,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {"memory": resource.MustParse("18Gi")}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req0SubReq1, driverA, pool1, device1, False)
            )
        ],
    ),
    "partitionable-devices-per-device-node-selection-node-selector": S(
        features=S(PartitionableDevices=True, PrioritizedList=True),
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 1))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                nodeSelectionPerDevice,
                resourcePool(pool1, 2),
                driverA,
                device(device1, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                )
                .withNodeSelection(nodeLabelSelector(regionKey, region1)),
            ),
            sliceWithCounterSets(
                slice2,
                nodeSelectionPerDevice,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {"memory": resource.MustParse("18Gi")}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                S(
                    NodeSelectorTerms=[
                        S(MatchExpressions=[S(Key=regionKey, Operator=v1.NodeSelectorOpIn, Values=[region1])])
                    ]
                ),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
            )
        ],
    ),
    "partitionable-devices-per-device-node-selection-node-selector-multiple-devices": S(
        features=S(PartitionableDevices=True, PrioritizedList=True),
        claimsToAllocate=objects(
            claimWithRequests(claim0, None, request(req0, classA, 3), request(req1, classB, 3))
        ),
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                nodeSelectionPerDevice,
                resourcePool(pool1, 2),
                driverA,
                device(device1, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                )
                .withNodeSelection(nodeLabelSelector(regionKey, region1)),
                device(device2, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                )
                .withNodeSelection(node1),
                device(device3, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                )
                .withNodeSelection(nodeSelectionAll),
            ),
            sliceWithCounterSets(
                slice2,
                nodeSelectionPerDevice,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {"memory": resource.MustParse("18Gi")}),
            ),
            sliceWithDevices(
                slice3,
                node1,
                resourcePool(pool2, 2),
                driverB,
                device(device1, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet2, {"memory": resource.MustParse("4Gi")})
                ),
                device(device2, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet2, {"memory": resource.MustParse("4Gi")})
                ),
                device(device3, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet2, {"memory": resource.MustParse("4Gi")})
                ),
            ),
            sliceWithCounterSets(
                slice4,
                node1,
                resourcePool(pool2, 2),
                driverB,
                counterSet(counterSet2, {"memory": resource.MustParse("12Gi")}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                S(
                    NodeSelectorTerms=[
                        S(MatchFields=[S(Key=fieldNameKey, Operator=v1.NodeSelectorOpIn, Values=[node1])])
                    ]
                ),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
                deviceAllocationResult(req0, driverA, pool1, device3, False),
                deviceAllocationResult(req1, driverB, pool2, device1, False),
                deviceAllocationResult(req1, driverB, pool2, device2, False),
                deviceAllocationResult(req1, driverB, pool2, device3, False),
            )
        ],
    ),
    "tainted-two-devices": S(
        features=S(DeviceTaints=True),
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withTaints(taintNoSchedule),
                device(device2, None, None).withTaints(taintNoExecute),
            )
        ),
        node=node(node1, region1),
    ),
    "tainted-one-device-two-taints": S(
        features=S(DeviceTaints=True),
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withTaints(taintNoSchedule, taintNoExecute),
            )
        ),
        node=node(node1, region1),
    ),
    "tainted-two-devices-tolerated": S(
        features=S(DeviceTaints=True),
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA).withTolerations(tolerationNoExecute)),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withTaints(taintNoSchedule),
                device(device2, None, None).withTaints(taintNoExecute),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device2, False, tolerationNoExecute),
            )
        ],
    ),
    "tainted-two-devices-prioritized-list-tolerated": S(
        features=S(DeviceTaints=True, PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0, subRequest(subReq0, classA, 1), subRequest(subReq1, classA, 1, tolerationNoExecute)
                )
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withTaints(taintNoSchedule),
                device(device2, None, None).withTaints(taintNoExecute),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0SubReq1, driverA, pool1, device2, False, tolerationNoExecute),
            )
        ],
    ),
    "tainted-no-effect": S(
        features=S(DeviceTaints=True),
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(slice1, node1, pool1, driverA, device(device1, None, None).withTaints(taintNone))
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False)
            )
        ],
    ),
    "tainted-one-device-two-taints-both-tolerated": S(
        features=S(DeviceTaints=True),
        claimsToAllocate=objects(
            claimWithRequest(claim0, req0, classA).withTolerations(tolerationNoSchedule, tolerationNoExecute)
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withTaints(taintNoSchedule, taintNoExecute),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(
                    req0, driverA, pool1, device1, False, tolerationNoSchedule, tolerationNoExecute
                ),
            )
        ],
    ),
    "tainted-disabled": S(
        features=S(DeviceTaints=False),
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withTaints(taintNoSchedule, taintNoExecute),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False)
            )
        ],
    ),
    "tainted-prioritized-list": S(
        features=S(DeviceTaints=True, PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0, subRequest(subReq0, classB, 1), subRequest(subReq1, classA, 1)
                )
            )
        ),
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1, node1, pool1, driverA, device(device1, None, None).withTaints(taintNoSchedule)
            )
        ),
        node=node(node1, region1),
    ),
    "tainted-prioritized-list-disabled": S(
        features=S(DeviceTaints=False, PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0, subRequest(subReq0, classB, 1), subRequest(subReq1, classA, 1)
                )
            )
        ),
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1, node1, pool1, driverA, device(device1, None, None).withTaints(taintNoSchedule)
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req0SubReq1, driverA, pool1, device1, False)
            )
        ],
    ),
    "tainted-admin-access": S(
        features=S(DeviceTaints=True, AdminAccess=True),
        claimsToAllocate=_f24(),
        allocatedDevices=[MakeDeviceID(driverA, pool1, device1), MakeDeviceID(driverA, pool1, device2)],
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1, node1, pool1, driverA, device(device1, None, None).withTaints(taintNoSchedule)
            )
        ),
        node=node(node1, region1),
    ),
    "tainted-admin-access-disabled": S(
        features=S(DeviceTaints=False, AdminAccess=True),
        claimsToAllocate=_f25(),
        allocatedDevices=[MakeDeviceID(driverA, pool1, device1), MakeDeviceID(driverA, pool1, device2)],
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1, node1, pool1, driverA, device(device1, None, None).withTaints(taintNoSchedule)
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, True)
            )
        ],
    ),
    "tainted-all-devices-single": S(
        features=S(DeviceTaints=True),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                S(
                    Name=req0,
                    Exactly=S(AllocationMode=resourceapi.DeviceAllocationModeAll, DeviceClassName=classA),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1, node1, pool1, driverA, device(device1, None, None).withTaints(taintNoSchedule)
            )
        ),
        node=node(node1, region1),
    ),
    "tainted-all-devices-single-disabled": S(
        features=S(DeviceTaints=False),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                S(
                    Name=req0,
                    Exactly=S(AllocationMode=resourceapi.DeviceAllocationModeAll, DeviceClassName=classA),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1, node1, pool1, driverA, device(device1, None, None).withTaints(taintNoSchedule)
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False)
            )
        ],
    ),
    "prioritized-list-allocation-mode-all": S(
        features=S(PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0,
                    subRequest(subReq0, classA, 0).withAllocationMode(resourceapi.DeviceAllocationModeAll),
                    subRequest(subReq1, classA, 1),
                )
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1, node1, pool1, driverA, device(device1, None, None), device(device2, None, None)
            )
        ),
        allocatedDevices=[MakeDeviceID(driverA, pool1, device2)],
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req0SubReq1, driverA, pool1, device1, False)
            )
        ],
    ),
    "prioritized-list-allocation-mode-all-with-selectors": S(
        features=S(PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0,
                    subRequest(
                        subReq0,
                        classA,
                        0,
                        S(
                            CEL=S(
                                Expression=fmt.Sprintf('device.attributes["%s"].generation == "v6"', driverA)
                            )
                        ),
                    ).withAllocationMode(resourceapi.DeviceAllocationModeAll),
                    subRequest(
                        subReq1,
                        classA,
                        0,
                        S(
                            CEL=S(
                                Expression=fmt.Sprintf('device.attributes["%s"].generation == "v5"', driverA)
                            )
                        ),
                    ).withAllocationMode(resourceapi.DeviceAllocationModeAll),
                )
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, {"generation": S(StringValue=ptr.To("v5"))}),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req0SubReq1, driverA, pool1, device1, False)
            )
        ],
    ),
    "prioritized-list-allocation-mode-all-with-selectors-multiple-pools": S(
        features=S(PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0,
                    subRequest(
                        subReq0,
                        classA,
                        0,
                        S(
                            CEL=S(
                                Expression=fmt.Sprintf('device.attributes["%s"].generation == "v6"', driverA)
                            )
                        ),
                    ).withAllocationMode(resourceapi.DeviceAllocationModeAll),
                    subRequest(
                        subReq1,
                        classA,
                        0,
                        S(
                            CEL=S(
                                Expression=fmt.Sprintf('device.attributes["%s"].generation == "v5"', driverA)
                            )
                        ),
                    ).withAllocationMode(resourceapi.DeviceAllocationModeAll),
                )
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, {"generation": S(StringValue=ptr.To("v5"))}),
            ),
            sliceWithDevices(
                slice2,
                node1,
                pool2,
                driverA,
                device(device1, None, {"generation": S(StringValue=ptr.To("v5"))}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0SubReq1, driverA, pool1, device1, False),
                deviceAllocationResult(req0SubReq1, driverA, pool2, device1, False),
            )
        ],
    ),
    "prioritized-list-allocation-mode-all-with-selectors-multiple-pools-across-nodes": S(
        features=S(PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0,
                    subRequest(
                        subReq0,
                        classA,
                        0,
                        S(
                            CEL=S(
                                Expression=fmt.Sprintf('device.attributes["%s"].generation == "v6"', driverA)
                            )
                        ),
                    ).withAllocationMode(resourceapi.DeviceAllocationModeAll),
                    subRequest(
                        subReq1,
                        classA,
                        0,
                        S(
                            CEL=S(
                                Expression=fmt.Sprintf('device.attributes["%s"].generation == "v5"', driverA)
                            )
                        ),
                    ).withAllocationMode(resourceapi.DeviceAllocationModeAll),
                )
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, {"generation": S(StringValue=ptr.To("v5"))}),
            ),
            sliceWithDevices(
                slice2,
                node2,
                pool2,
                driverA,
                device(device1, None, {"generation": S(StringValue=ptr.To("v5"))}),
                device(device2, None, {"generation": S(StringValue=ptr.To("v6"))}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req0SubReq1, driverA, pool1, device1, False)
            )
        ],
    ),
    "prioritized-list-allocation-mode-all-with-selectors-deviceclass-subset": S(
        features=S(PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0,
                    subRequest(
                        subReq0,
                        classA,
                        0,
                        S(
                            CEL=S(
                                Expression=fmt.Sprintf('device.attributes["%s"].generation == "v6"', driverA)
                            )
                        ),
                    ).withAllocationMode(resourceapi.DeviceAllocationModeAll),
                    subRequest(
                        subReq1,
                        classA,
                        0,
                        S(
                            CEL=S(
                                Expression=fmt.Sprintf('device.attributes["%s"].generation == "v5"', driverA)
                            )
                        ),
                    ).withAllocationMode(resourceapi.DeviceAllocationModeAll),
                )
            )
        ),
        classes=objects(
            S(
                ObjectMeta=S(Name=classA),
                Spec=S(
                    Selectors=[
                        S(
                            CEL=S(
                                Expression=fmt.Sprintf(
                                    'device.driver == "%s" && device.attributes["%s"].selected',
                                    driverA,
                                    driverA,
                                )
                            )
                        )
                    ]
                ),
            )
        ),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {"generation": S(StringValue=ptr.To("v6")), "selected": S(BoolValue=ptr.To(False))},
                ),
                device(
                    device2,
                    None,
                    {"generation": S(StringValue=ptr.To("v5")), "selected": S(BoolValue=ptr.To(False))},
                ),
                device(
                    device3,
                    None,
                    {"generation": S(StringValue=ptr.To("v5")), "selected": S(BoolValue=ptr.To(True))},
                ),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req0SubReq1, driverA, pool1, device3, False)
            )
        ],
    ),
    "max-number-devices": S(
        claimsToAllocate=objects(
            claimWithRequests(claim0, None, request(req0, classA, resourceapi.AllocationResultsMaxSize))
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithMultipleDevices(slice1, node1, pool1, driverA, resourceapi.AllocationResultsMaxSize)
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                *multipleDeviceAllocationResults(
                    req0, driverA, pool1, resourceapi.AllocationResultsMaxSize, 0
                ),
            )
        ],
    ),
    "partitionable-devices-with-attribute-selector": S(
        features=S(PartitionableDevices=True),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                request(req0, classA, 2),
                request(
                    req1,
                    classA,
                    1,
                    S(CEL=S(Expression=fmt.Sprintf('device.attributes["%s"].special', driverA))),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, {"special": S(BoolValue=ptr.To(True))}).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"cpu1": resource.MustParse("1")}),
                    deviceCounterConsumption(counterSet2, {"mem": resource.MustParse("10Gi")}),
                ),
                device(device2, None, {"special": S(BoolValue=ptr.To(False))}).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"cpu2": resource.MustParse("1")}),
                    deviceCounterConsumption(counterSet2, {"mem": resource.MustParse("10Gi")}),
                ),
                device(device3, None, {"special": S(BoolValue=ptr.To(False))}).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"cpu3": resource.MustParse("1")}),
                    deviceCounterConsumption(counterSet2, {"mem": resource.MustParse("10Gi")}),
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(
                    counterSet1,
                    {
                        "cpu1": resource.MustParse("1"),
                        "cpu2": resource.MustParse("1"),
                        "cpu3": resource.MustParse("1"),
                    },
                ),
                counterSet(counterSet2, {"mem": resource.MustParse("30Gi")}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device2, False),
                deviceAllocationResult(req0, driverA, pool1, device3, False),
                deviceAllocationResult(req1, driverA, pool1, device1, False),
            )
        ],
    ),
    "prioritized-list-max-allocation-limit-request": S(
        features=S(PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0,
                    subRequest(subReq0, classA, resourceapi.AllocationResultsMaxSize),
                    subRequest(subReq1, classA, resourceapi.AllocationResultsMaxSize // 2),
                ),
                requestWithPrioritizedList(
                    req1,
                    subRequest(subReq0, classA, resourceapi.AllocationResultsMaxSize),
                    subRequest(subReq1, classA, resourceapi.AllocationResultsMaxSize // 2),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithMultipleDevices(slice1, node1, pool1, driverA, resourceapi.AllocationResultsMaxSize * 2)
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                *slices.Concat(
                    multipleDeviceAllocationResults(
                        req0SubReq1, driverA, pool1, resourceapi.AllocationResultsMaxSize // 2, 0
                    ),
                    multipleDeviceAllocationResults(
                        req1SubReq1,
                        driverA,
                        pool1,
                        resourceapi.AllocationResultsMaxSize // 2,
                        resourceapi.AllocationResultsMaxSize // 2,
                    ),
                ),
            )
        ],
        expectNumAllocateOneInvocations=75,
    ),
    "prioritized-list-max-allocation-allocation-mode-all": S(
        features=S(PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0,
                    subRequest(subReq0, classA, 0).withAllocationMode(resourceapi.DeviceAllocationModeAll),
                    subRequest(subReq1, classA, 2),
                ),
                deviceRequest(req1, classB, 2),
            )
        ),
        classes=objects(class_(classA, driverA), class_(classB, driverB)),
        slices=unwrapResourceSlices(
            sliceWithMultipleDevices(slice1, node1, pool1, driverA, resourceapi.AllocationResultsMaxSize - 1),
            sliceWithMultipleDevices(slice2, node1, pool2, driverB, 2),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0SubReq1, driverA, pool1, "device-0", False),
                deviceAllocationResult(req0SubReq1, driverA, pool1, "device-1", False),
                deviceAllocationResult(req1, driverB, pool2, "device-0", False),
                deviceAllocationResult(req1, driverB, pool2, "device-1", False),
            )
        ],
        expectNumAllocateOneInvocations=42,
    ),
    "device-binding-conditions": S(
        features=S(DeviceBindingAndStatus=True),
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 1))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withBindingConditions(["IsPrepare"], ["BindingFailed"]),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            S(
                Devices=S(
                    Results=[
                        deviceRequestAllocationResultWithBindingConditions(
                            req0, driverA, pool1, device1, ["IsPrepare"], ["BindingFailed"]
                        )
                    ]
                ),
                NodeSelector=localNodeSelector(node1),
            )
        ],
    ),
    "binding-conditions-multiple-devices": S(
        features=S(DeviceBindingAndStatus=True),
        claimsToAllocate=objects(
            claimWithRequests(claim0, None, request(req0, classA, 2), request(req1, classA, 1))
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withBindingConditions(["IsPrepare"], ["BindingFailed"]),
                device(device2, None, None).withBindingConditions(["IsPrepare2"], ["BindingFailed2"]),
                device(device3, None, None).withBindingConditions(["IsPrepare3"], ["BindingFailed3"]),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            S(
                Devices=S(
                    Results=[
                        deviceRequestAllocationResultWithBindingConditions(
                            req0, driverA, pool1, device1, ["IsPrepare"], ["BindingFailed"]
                        ),
                        deviceRequestAllocationResultWithBindingConditions(
                            req0, driverA, pool1, device2, ["IsPrepare2"], ["BindingFailed2"]
                        ),
                        deviceRequestAllocationResultWithBindingConditions(
                            req1, driverA, pool1, device3, ["IsPrepare3"], ["BindingFailed3"]
                        ),
                    ]
                ),
                NodeSelector=localNodeSelector(node1),
            )
        ],
    ),
    "binding-conditions-with-and-without": S(
        features=S(DeviceBindingAndStatus=True),
        claimsToAllocate=objects(
            claimWithRequests(claim0, None, request(req0, classA, 1), request(req1, classA, 1))
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None),
                device(device2, None, None).withBindingConditions(["IsPrepare"], ["BindingFailed"]),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            S(
                Devices=S(
                    Results=[
                        deviceAllocationResult(req0, driverA, pool1, device1, False),
                        deviceRequestAllocationResultWithBindingConditions(
                            req1, driverA, pool1, device2, ["IsPrepare"], ["BindingFailed"]
                        ),
                    ]
                ),
                NodeSelector=localNodeSelector(node1),
            )
        ],
    ),
    "binding-conditions-without-feature-gate": S(
        features=S(DeviceBindingAndStatus=False),
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 1))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withBindingConditions(["IsPrepare"], ["BindingFailed"]),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "node-restriction": S(
        features=S(DeviceBindingAndStatus=True),
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                nodeLabelSelector(planetKey, planetValueEarth),
                pool1,
                driverA,
                device(device1, None, None).withBindsToNode(True),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False)
            )
        ],
    ),
    "partitionable-devices-with-binding-conditions": S(
        features=S(PartitionableDevices=True, DeviceBindingAndStatus=True),
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 1))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                )
                .withBindingConditions(["IsPrepare"], ["BindingFailed"]),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {"memory": resource.MustParse("8Gi")}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            S(
                Devices=S(
                    Results=[
                        deviceRequestAllocationResultWithBindingConditions(
                            req0, driverA, pool1, device1, ["IsPrepare"], ["BindingFailed"]
                        )
                    ]
                ),
                NodeSelector=localNodeSelector(node1),
            )
        ],
    ),
    "partitionable-devices-with-binding-conditions-multiple": S(
        features=S(PartitionableDevices=True, DeviceBindingAndStatus=True),
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 2))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                )
                .withBindingConditions(["IsPrepare"], ["BindingFailed"]),
                device(device2, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                )
                .withBindingConditions(["IsPrepare2"], ["BindingFailed2"]),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {"memory": resource.MustParse("8Gi")}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            S(
                Devices=S(
                    Results=[
                        deviceRequestAllocationResultWithBindingConditions(
                            req0, driverA, pool1, device1, ["IsPrepare"], ["BindingFailed"]
                        ),
                        deviceRequestAllocationResultWithBindingConditions(
                            req0, driverA, pool1, device2, ["IsPrepare2"], ["BindingFailed2"]
                        ),
                    ]
                ),
                NodeSelector=localNodeSelector(node1),
            )
        ],
    ),
    "partitionable-devices-with-binding-conditions-some-devices-no-conditions": S(
        features=S(PartitionableDevices=True, DeviceBindingAndStatus=True),
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 3))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("2Gi")})
                )
                .withBindingConditions(["IsPrepare"], ["BindingFailed"]),
                device(device2, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("2Gi")})
                ),
                device(device3, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                )
                .withBindingConditions(["IsReady"], ["BindingTimeout"]),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {"memory": resource.MustParse("8Gi")}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            S(
                Devices=S(
                    Results=[
                        deviceRequestAllocationResultWithBindingConditions(
                            req0, driverA, pool1, device1, ["IsPrepare"], ["BindingFailed"]
                        ),
                        deviceRequestAllocationResultWithBindingConditions(
                            req0, driverA, pool1, device2, None, None
                        ),
                        deviceRequestAllocationResultWithBindingConditions(
                            req0, driverA, pool1, device3, ["IsReady"], ["BindingTimeout"]
                        ),
                    ]
                ),
                NodeSelector=localNodeSelector(node1),
            )
        ],
    ),
    "partitionable-devices-with-binding-conditions-multi-slices": S(
        features=S(PartitionableDevices=True, DeviceBindingAndStatus=True),
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 2))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice4,
                node1,
                resourcePool(pool1, 4),
                driverA,
                device(device1, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                )
                .withBindingConditions(["IsPrepare"], ["BindingFailed"]),
            ),
            sliceWithCounterSets(
                slice3,
                node1,
                resourcePool(pool1, 4),
                driverA,
                counterSet(counterSet1, {"memory": resource.MustParse("8Gi")}),
            ),
            sliceWithDevices(
                slice2,
                node1,
                resourcePool(pool1, 4),
                driverA,
                device(device2, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet2, {"memory": resource.MustParse("4Gi")})
                ),
            ),
            sliceWithCounterSets(
                slice1,
                node1,
                resourcePool(pool1, 4),
                driverA,
                counterSet(counterSet2, {"memory": resource.MustParse("8Gi")}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            S(
                Devices=S(
                    Results=[
                        deviceRequestAllocationResultWithBindingConditions(
                            req0, driverA, pool1, device2, None, None
                        ),
                        deviceRequestAllocationResultWithBindingConditions(
                            req0, driverA, pool1, device1, ["IsPrepare"], ["BindingFailed"]
                        ),
                    ]
                ),
                NodeSelector=localNodeSelector(node1),
            )
        ],
    ),
    "partitionable-devices-with-binding-conditions-and-taints": S(
        features=S(PartitionableDevices=True, DeviceBindingAndStatus=True, DeviceTaints=True),
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 2))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                )
                .withBindingConditions(["IsPrepare"], ["BindingFailed"])
                .withTaints(S(Key="key1", Value="value1", Effect=resourceapi.DeviceTaintEffectNoSchedule)),
                device(device2, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                ),
            ),
            sliceWithCounterSets(
                slice2, node1, pool1, driverA, counterSet(counterSet1, {"memory": resource.MustParse("8Gi")})
            ),
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "partitionable-devices-with-binding-conditions-and-taints-tolerated": S(
        features=S(PartitionableDevices=True, DeviceBindingAndStatus=True, DeviceTaints=True),
        claimsToAllocate=objects(
            claimWithRequests(claim0, None, request(req0, classA, 2)).withTolerations(
                tolerationNoScheduleKey1
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                )
                .withBindingConditions(["IsPrepare"], ["BindingFailed"])
                .withTaints(S(Key="key1", Value="value1", Effect=resourceapi.DeviceTaintEffectNoSchedule)),
                device(device2, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {"memory": resource.MustParse("8Gi")}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            S(
                Devices=S(
                    Results=[
                        deviceRequestAllocationResultWithBindingConditions(
                            req0,
                            driverA,
                            pool1,
                            device1,
                            ["IsPrepare"],
                            ["BindingFailed"],
                            tolerationNoScheduleKey1,
                        ),
                        deviceRequestAllocationResultWithBindingConditions(
                            req0, driverA, pool1, device2, None, None, tolerationNoScheduleKey1
                        ),
                    ]
                ),
                NodeSelector=localNodeSelector(node1),
            )
        ],
    ),
    "consumable-capacity-disabled-feature": S(
        features=S(DeviceBindingAndStatus=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(deviceRequest(req0, classA, 1).withCapacityRequest(ptr.To(one)))
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrap(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=None,
        expectError=gomega.MatchError(
            gomega.ContainSubstring(
                "claim claim-0, request req-0: has capacity requests, but the DRAConsumableCapacity feature is disabled"
            )
        ),
    ),
    "consumable-capacity-disabled-feature-with-prioritized-list": S(
        features=S(PrioritizedList=True, DeviceBindingAndStatus=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0,
                    subRequest(subReq0, classA, 1).withCapacityRequest(ptr.To(one)),
                    subRequest(subReq1, classA, 1).withCapacityRequest(ptr.To(one)),
                )
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrap(sliceWithOneDevice(slice1, node1, pool1, driverA)),
        node=node(node1, region1),
        expectResults=None,
        expectError=gomega.MatchError(
            gomega.ContainSubstring(
                "claim claim-0, subrequest subReq-0: has capacity requests, but the DRAConsumableCapacity feature is disabled"
            )
        ),
    ),
    "consumable-capacity-multi-allocatable-device-with-missing-capacity-request": S(
        features=S(ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(deviceRequest(req0, classA, 1).withCapacityRequest(ptr.To(one)))
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, {capacity1: one}, None).withAllowMultipleAllocations(),
            )
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-with-missing-capacity-request": S(
        features=S(ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(allDeviceRequest(req0, classA).withCapacityRequest(ptr.To(one)))
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, {capacity1: one}, None).withAllowMultipleAllocations(),
            )
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "consumable-capacity-multi-allocatable-device-without-capacity-without-capacity-request": S(
        features=S(ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(deviceRequest(req0, classA, 1)),
            claim(claim1).withRequests(deviceRequest(req0, classA, 1)),
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1, node1, pool1, driverA, device(device1, None, None).withAllowMultipleAllocations()
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, None
                ),
            ),
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, None
                ),
            ),
        ],
    ),
    "consumable-capacity-multi-allocatable-device-without-policy-without-capacity-request": S(
        features=S(ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(deviceRequest(req0, classA, 1)),
            claim(claim1).withRequests(deviceRequest(req0, classA, 1)),
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, {capacity0: one}, None).withAllowMultipleAllocations(),
                device(device2, {capacity0: one}, None).withAllowMultipleAllocations(),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: one}
                ),
            ),
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device2).withConsumedCapacity(
                    fixedShareID, {capacity0: one}
                ),
            ),
        ],
    ),
    "consumable-capacity-multi-allocatable-device-without-policy-without-capacity-request-block": S(
        features=S(ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(deviceRequest(req0, classA, 1)),
            claim(claim1).withRequests(deviceRequest(req0, classA, 1)),
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, {capacity0: two}, None).withAllowMultipleAllocations(),
            )
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "consumable-capacity-multi-allocatable-device-without-policy-with-capacity-request": S(
        features=S(ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(deviceRequest(req0, classA, 1).withCapacityRequest(ptr.To(one))),
            claim(claim1).withRequests(deviceRequest(req0, classA, 1).withCapacityRequest(ptr.To(one))),
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, {capacity0: two}, None).withAllowMultipleAllocations(),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: one}
                ),
            ),
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: one}
                ),
            ),
        ],
    ),
    "consumable-capacity-multi-allocatable-device-with-policy-without-capacity-request": S(
        features=S(ConsumableCapacity=True),
        claimsToAllocate=objects(
            claimWithRequests(claim0, None, request(req0, classA, 1)),
            claimWithRequests(claim1, None, request(req0, classA, 1)),
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: four}),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: two}
                ),
            ),
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: two}
                ),
            ),
        ],
    ),
    "consumable-capacity-multi-allocatable-device-with-zero-request-policy": S(
        features=S(ConsumableCapacity=True),
        claimsToAllocate=objects(
            claimWithRequests(claim0, None, request(req0, classA, 1)),
            claimWithRequests(claim1, None, request(req0, classA, 1)),
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyValidValues(zero, {capacity0: one}, None),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: zero}
                ),
            ),
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: zero}
                ),
            ),
        ],
    ),
    "consumable-capacity-multi-allocatable-device-violates-zero-request-policy": S(
        features=S(ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(deviceRequest(req0, classA, 1).withCapacityRequest(ptr.To(one)))
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyValidValues(zero, {capacity0: one}, None),
            )
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "consumable-capacity-multi-allocatable-device-with-range-policy-with-capacity-request": S(
        features=S(ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(deviceRequest(req0, classA, 1).withCapacityRequest(ptr.To(one))),
            claim(claim1).withRequests(deviceRequest(req0, classA, 1).withCapacityRequest(ptr.To(one))),
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: four}),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: two}
                ),
            ),
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: two}
                ),
            ),
        ],
    ),
    "consumable-capacity-multi-allocatable-device-with-range-policy-step": S(
        features=S(ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(resource.NewQuantity(3, resource.BinarySI))
            )
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: four}),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: four}
                ),
            )
        ],
    ),
    "consumable-capacity-multi-allocatable-device-with-valid-values-policy": S(
        features=S(ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(resource.NewQuantity(2, resource.BinarySI))
            )
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyValidValues(one, {capacity0: four}, [two]),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: two}
                ),
            )
        ],
    ),
    "consumable-capacity-multi-allocatable-device-with-valid-values-policy-round-up": S(
        features=S(ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(resource.NewQuantity(2, resource.BinarySI))
            )
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyValidValues(one, {capacity0: three}, [three]),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: three}
                ),
            )
        ],
    ),
    "consumable-capacity-multi-allocatable-device-with-exceeded-consumable-capacity-request": S(
        features=S(ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(deviceRequest(req0, classA, 1).withCapacityRequest(ptr.To(one))),
            claim(claim1).withRequests(deviceRequest(req0, classA, 1).withCapacityRequest(ptr.To(two))),
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: two}),
            )
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "consumable-capacity-multi-allocatable-device-with-request-over-max-sharing-policy": S(
        features=S(ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(resource.NewQuantity(6, resource.BinarySI))
            )
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: resource.NewQuantity(10, resource.BinarySI)}),
            )
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "consumable-capacity-multi-allocatable-device-with-allocated-capacity-use-remaining": S(
        features=S(ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(deviceRequest(req0, classA, 1).withCapacityRequest(ptr.To(two)))
        ),
        allocatedCapacityDevices={MakeDeviceID(driverA, pool1, device1): {capacity0: ptr.To(two)}},
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: four}),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: two}
                ),
            )
        ],
    ),
    "consumable-capacity-multi-allocatable-device-with-allocated-capacity-next-device": S(
        features=S(ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(deviceRequest(req0, classA, 1).withCapacityRequest(ptr.To(two)))
        ),
        allocatedCapacityDevices={MakeDeviceID(driverA, pool1, device1): {capacity0: ptr.To(two)}},
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: two}),
                device(device2, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: two}),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device2).withConsumedCapacity(
                    fixedShareID, {capacity0: two}
                ),
            )
        ],
    ),
    "consumable-capacity-with-multi-allocatable-device-backtrack": S(
        features=S(ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0)
            .withConstraints(S(MatchAttribute=stringAttribute))
            .withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(ptr.To(two)),
                deviceRequest(req1, classA, 1).withCapacityRequest(ptr.To(two)),
            ),
            claim(claim1).withRequests(deviceRequest(req0, classA, 1).withCapacityRequest(ptr.To(two))),
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device2, None, {"stringAttribute": S(StringValue=ptr.To("stringAttributeValue1"))})
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: two}),
                device(device1, None, {"stringAttribute": S(StringValue=ptr.To("stringAttributeValue2"))})
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: four}),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: two}
                ),
                deviceRequestAllocationResult(req1, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: two}
                ),
            ),
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device2).withConsumedCapacity(
                    fixedShareID, {capacity0: two}
                ),
            ),
        ],
    ),
    "consumable-capacity-multi-allocatable-device-with-subrequest": S(
        features=S(ConsumableCapacity=True, PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0,
                    subRequest(subReq0, classA, 1).withCapacityRequest(ptr.To(four)),
                    subRequest(subReq1, classA, 1).withCapacityRequest(ptr.To(two)),
                    subRequest(subReq1, classA, 1),
                )
            )
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: two}),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0SubReq1, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: two}
                ),
            )
        ],
    ),
    "consumable-capacity-multi-allocatable-device-with-no-available-consumable-capacity": S(
        features=S(ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(deviceRequest(req0, classA, 1).withCapacityRequest(ptr.To(two)))
        ),
        allocatedCapacityDevices={MakeDeviceID(driverA, pool1, device1): {capacity0: ptr.To(two)}},
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: two}),
            )
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-filter-out-no-capacity": S(
        features=S(ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(allDeviceRequest(req0, classA).withCapacityRequest(ptr.To(two)))
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, {capacity0: two}, None).withAllowMultipleAllocations(),
                device(device2, None, None).withAllowMultipleAllocations(),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: two}
                ),
            )
        ],
    ),
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-filter-out-insufficient-capacity": S(
        features=S(ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(allDeviceRequest(req0, classA).withCapacityRequest(ptr.To(two)))
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, {capacity0: two}, None).withAllowMultipleAllocations(),
                device(device2, {capacity0: one}, None).withAllowMultipleAllocations(),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: two}
                ),
            )
        ],
    ),
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-allocating-sufficient": S(
        features=S(ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(ptr.To(one)),
                allDeviceRequest(req1, classA).withCapacityRequest(ptr.To(one)),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, {capacity0: two}, None).withAllowMultipleAllocations(),
                device(device2, {capacity0: one}, None).withAllowMultipleAllocations(),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: one}
                ),
                deviceRequestAllocationResult(req1, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: one}
                ),
                deviceRequestAllocationResult(req1, driverA, pool1, device2).withConsumedCapacity(
                    fixedShareID, {capacity0: one}
                ),
            )
        ],
    ),
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-in-use-sufficient": S(
        features=S(ConsumableCapacity=True),
        allocatedCapacityDevices={MakeDeviceID(driverA, pool1, device1): {capacity0: ptr.To(one)}},
        claimsToAllocate=objects(
            claim(claim0).withRequests(allDeviceRequest(req0, classA).withCapacityRequest(ptr.To(one)))
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, {capacity0: two}, None).withAllowMultipleAllocations(),
                device(device2, {capacity0: one}, None).withAllowMultipleAllocations(),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: one}
                ),
                deviceRequestAllocationResult(req0, driverA, pool1, device2).withConsumedCapacity(
                    fixedShareID, {capacity0: one}
                ),
            )
        ],
    ),
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-allocating-insufficient": S(
        features=S(ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(ptr.To(one)),
                allDeviceRequest(req1, classA).withCapacityRequest(ptr.To(one)),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, {capacity0: one}, None).withAllowMultipleAllocations(),
                device(device2, {capacity0: one}, None).withAllowMultipleAllocations(),
            )
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-in-use-insufficient": S(
        features=S(ConsumableCapacity=True),
        allocatedCapacityDevices={MakeDeviceID(driverA, pool1, device1): {capacity0: ptr.To(one)}},
        claimsToAllocate=objects(
            claim(claim0).withRequests(allDeviceRequest(req0, classA).withCapacityRequest(ptr.To(one)))
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, {capacity0: one}, None).withAllowMultipleAllocations(),
                device(device2, {capacity0: one}, None).withAllowMultipleAllocations(),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device2).withConsumedCapacity(
                    fixedShareID, {capacity0: one}
                ),
            )
        ],
    ),
    "consumable-capacity-dedicated-device-with-consumable-capacity-request": S(
        features=S(ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(deviceRequest(req0, classA, 1).withCapacityRequest(ptr.To(one)))
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, False)),
        slices=unwrapResourceSlices(
            sliceWithDevices(slice1, node1, pool1, driverA, device(device1, {capacity0: one}, None))
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False)
            )
        ],
    ),
    "consumable-capacity-dedicated-device-with-multiple-consumable-capacity-request": S(
        features=S(ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(deviceRequest(req0, classA, 1).withCapacityRequest(ptr.To(one))),
            claim(claim1).withRequests(deviceRequest(req0, classA, 1).withCapacityRequest(ptr.To(one))),
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, False)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withCapacityRequestPolicyRange({capacity0: two}),
            )
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "allow-multiple-allocations-exclude-multi-allocatable-device-by-class-selector": S(
        features=S(ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(deviceRequest(req0, classA, 1).withCapacityRequest(ptr.To(one)))
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, False)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, {capacity0: one}, None).withAllowMultipleAllocations(),
            )
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "allow-multiple-allocations-not-allocate-multi-allocatable-device-which-already-dedicated": S(
        features=S(ConsumableCapacity=True),
        allocatedDevices=[MakeDeviceID(driverA, pool1, device1)],
        claimsToAllocate=objects(
            claim(claim0).withRequests(deviceRequest(req0, classA, 1).withCapacityRequest(ptr.To(one)))
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None)
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: two}),
            )
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "allow-multiple-allocations-not-allocate-dedicated-device-which-change-from-multi-allocatable": S(
        features=S(ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(deviceRequest(req0, classA, 1).withCapacityRequest(ptr.To(one)))
        ),
        allocatedCapacityDevices={MakeDeviceID(driverA, pool1, device1): {capacity0: ptr.To(one)}},
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withCapacityRequestPolicyRange({capacity0: two}),
            )
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "allow-multiple-allocations-with-partitionable-device": S(
        features=S(PrioritizedList=True, PartitionableDevices=True, ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1),
                requestWithPrioritizedList(
                    req1,
                    subRequest(
                        subReq0,
                        classA,
                        1,
                        S(
                            CEL=S(
                                Expression=fmt.Sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("6Gi")) >= 0', driverA
                                )
                            )
                        ),
                    ),
                    subRequest(
                        subReq1,
                        classA,
                        1,
                        S(
                            CEL=S(
                                Expression=fmt.Sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("4Gi")) >= 0', driverA
                                )
                            )
                        ),
                    ),
                ),
            )
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                )
                .withAllowMultipleAllocations(),
                device(device2, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("6Gi")})
                )
                .withAllowMultipleAllocations(),
                device(device3, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("4Gi")})
                )
                .withAllowMultipleAllocations(),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {"memory": resource.MustParse("8Gi")}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {"memory": resource.MustParse("4Gi")}
                ),
                deviceRequestAllocationResult(req1SubReq1, driverA, pool1, device3).withConsumedCapacity(
                    fixedShareID, {"memory": resource.MustParse("4Gi")}
                ),
            )
        ],
    ),
    "allow-multiple-allocations-with-shared-device-counter-cross-cycle": S(
        features=S(PartitionableDevices=True, ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1)
                .withCapacityRequest(ptr.To(one))
                .withSelectors(
                    S(CEL=S(Expression=fmt.Sprintf('device.attributes["%s"].mode == "b"', driverA)))
                )
            )
        ),
        allocatedSharedDeviceIDs=sets.New(
            internal.MakeSharedDeviceID(MakeDeviceID(driverA, pool1, device1), fixedShareID)
        ),
        allocatedCapacityDevices={MakeDeviceID(driverA, pool1, device1): {capacity0: ptr.To(one)}},
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, fromCounters, {"mode": S(StringValue=ptr.To("a"))})
                .withDeviceCounterConsumption(deviceCounterConsumption(counterSet1, {capacity0: one}))
                .withAllowMultipleAllocations(),
                device(device2, fromCounters, {"mode": S(StringValue=ptr.To("b"))})
                .withDeviceCounterConsumption(deviceCounterConsumption(counterSet1, {capacity0: one}))
                .withAllowMultipleAllocations(),
            ),
            sliceWithCounterSets(
                slice2, node1, resourcePool(pool1, 2), driverA, counterSet(counterSet1, {capacity0: one})
            ),
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "consumable-capacity-with-partitionable-device-multiple-capacity-pools": S(
        features=S(PrioritizedList=True, PartitionableDevices=True, ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(ptr.To(one)),
                deviceRequest(req2, classA, 1).withCapacityRequest(ptr.To(two)),
                requestWithPrioritizedList(
                    req1,
                    subRequest(
                        subReq0,
                        classA,
                        1,
                        S(
                            CEL=S(
                                Expression=fmt.Sprintf(
                                    'device.capacity["%s"]["%s"].compareTo(quantity("4")) >= 0',
                                    driverA,
                                    capacity0,
                                )
                            )
                        ),
                    ).withCapacityRequest(ptr.To(one)),
                    subRequest(
                        subReq1,
                        classA,
                        1,
                        S(
                            CEL=S(
                                Expression=fmt.Sprintf(
                                    'device.capacity["%s"]["%s"].compareTo(quantity("2")) >= 0',
                                    driverA,
                                    capacity0,
                                )
                            )
                        ),
                    ).withCapacityRequest(ptr.To(one)),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {capacity0: two}),
                    deviceCounterConsumption(counterSet2, {capacity1: four}),
                )
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity1: four}),
                device(device2, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {capacity0: four}),
                    deviceCounterConsumption(counterSet2, {capacity1: four}),
                )
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity1: four}),
                device(device3, fromCounters, None)
                .withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {capacity0: two}),
                    deviceCounterConsumption(counterSet2, {capacity1: four}),
                )
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity1: four}),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {capacity0: four}),
                counterSet(counterSet2, {capacity1: resource.MustParse("8")}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: one, capacity1: two}
                ),
                deviceRequestAllocationResult(req2, driverA, pool1, device3).withConsumedCapacity(
                    fixedShareID, {capacity0: two, capacity1: two}
                ),
                deviceRequestAllocationResult(req1SubReq1, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: one, capacity1: two}
                ),
            )
        ],
    ),
    "with-distinct-constraints": S(
        features=S(ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0)
            .withConstraints(
                S(DistinctAttribute=boolAttribute, Requests=[req0, req1]),
                S(DistinctAttribute=versionAttribute, Requests=[req0, req1, req2]),
                S(DistinctAttribute=intAttribute, Requests=[req0, req1, req2, req3]),
            )
            .withRequests(
                deviceRequest(req0, classA, 1),
                deviceRequest(req1, classA, 1),
                deviceRequest(req2, classA, 1),
                deviceRequest(req3, classA, 1),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1,
                    None,
                    {
                        "driverVersion": S(VersionValue=ptr.To("1.0.0")),
                        "numa": S(IntValue=ptr.To(int64(0))),
                        "boolAttribute": S(BoolValue=ptr.To(True)),
                    },
                ).withAllowMultipleAllocations(),
                device(
                    device2,
                    None,
                    {
                        "driverVersion": S(VersionValue=ptr.To("1.0.1")),
                        "numa": S(IntValue=ptr.To(int64(1))),
                        "boolAttribute": S(BoolValue=ptr.To(False)),
                    },
                ).withAllowMultipleAllocations(),
                device(
                    device3,
                    None,
                    {
                        "driverVersion": S(VersionValue=ptr.To("1.0.2")),
                        "numa": S(IntValue=ptr.To(int64(2))),
                        "boolAttribute": S(BoolValue=ptr.To(True)),
                    },
                ).withAllowMultipleAllocations(),
                device(
                    device4,
                    None,
                    {
                        "driverVersion": S(VersionValue=ptr.To("1.0.0")),
                        "numa": S(IntValue=ptr.To(int64(3))),
                        "boolAttribute": S(BoolValue=ptr.To(True)),
                    },
                ).withAllowMultipleAllocations(),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, None
                ),
                deviceRequestAllocationResult(req1, driverA, pool1, device2).withConsumedCapacity(
                    fixedShareID, None
                ),
                deviceRequestAllocationResult(req2, driverA, pool1, device3).withConsumedCapacity(
                    fixedShareID, None
                ),
                deviceRequestAllocationResult(req3, driverA, pool1, device4).withConsumedCapacity(
                    fixedShareID, None
                ),
            )
        ],
    ),
    "with-distinct-constraints-attribute-not-set": S(
        features=S(ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0)
            .withConstraints(S(DistinctAttribute=boolAttribute, Requests=[req0]))
            .withRequests(deviceRequest(req0, classA, 1))
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1, node1, pool1, driverA, device(device1, None, None).withAllowMultipleAllocations()
            )
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "with-distinct-constraints-unknown-type-attribute": S(
        features=S(ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0)
            .withConstraints(S(DistinctAttribute=boolAttribute, Requests=[req0]))
            .withRequests(deviceRequest(req0, classA, 1))
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, {"boolAttribute": S()}).withAllowMultipleAllocations(),
            )
        ),
        node=node(node1, region1),
        expectResults=[],
        expectError=gomega.MatchError(gomega.ContainSubstring("unsupported attribute value")),
    ),
    "with-distinct-constraints-with-subrequests": S(
        features=S(ConsumableCapacity=True, PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0)
            .withConstraints(S(DistinctAttribute=boolAttribute, Requests=[req0, req1]))
            .withRequests(
                requestWithPrioritizedList(
                    req0,
                    subRequest(
                        subReq0,
                        classA,
                        1,
                        S(CEL=S(Expression=fmt.Sprintf('device.attributes["%s"].boolAttribute', driverA))),
                    ),
                    subRequest(subReq1, classA, 1),
                ),
                requestWithPrioritizedList(
                    req1,
                    subRequest(
                        subReq0,
                        classA,
                        1,
                        S(CEL=S(Expression=fmt.Sprintf('device.attributes["%s"].boolAttribute', driverA))),
                    ),
                    subRequest(subReq1, classA, 1),
                ),
                requestWithPrioritizedList(
                    req2,
                    subRequest(
                        subReq0,
                        classA,
                        1,
                        S(CEL=S(Expression=fmt.Sprintf('device.attributes["%s"].boolAttribute', driverA))),
                    ),
                    subRequest(subReq1, classA, 1),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(
                    device1, None, {"boolAttribute": S(BoolValue=ptr.To(True))}
                ).withAllowMultipleAllocations(),
                device(
                    device2, None, {"boolAttribute": S(BoolValue=ptr.To(False))}
                ).withAllowMultipleAllocations(),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0SubReq0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, None
                ),
                deviceRequestAllocationResult(req1SubReq1, driverA, pool1, device2).withConsumedCapacity(
                    fixedShareID, None
                ),
                deviceRequestAllocationResult(req2SubReq0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, None
                ),
            )
        ],
    ),
    "distinct-constraint-one-multi-allocatable-device-with-distinct-constraint": S(
        features=S(ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0)
            .withConstraints(S(DistinctAttribute=stringAttribute))
            .withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(ptr.To(one)),
                deviceRequest(req1, classA, 1).withCapacityRequest(ptr.To(one)),
            )
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, {"stringAttribute": S(StringValue=ptr.To("stringAttributeValue"))})
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: two}),
            )
        ),
        node=node(node1, region1),
        expectResults=[],
    ),
    "distinct-constraint-two-multi-allocatable-devices-with-distinct-constraint": S(
        features=S(ConsumableCapacity=True),
        claimsToAllocate=objects(
            claim(claim0)
            .withConstraints(S(DistinctAttribute=stringAttribute))
            .withRequests(
                deviceRequest(req0, classA, 1).withCapacityRequest(ptr.To(two)),
                deviceRequest(req1, classA, 1).withCapacityRequest(ptr.To(two)),
            )
        ),
        classes=objects(classWithAllowMultipleAllocations(classA, driverA, True)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, {"stringAttribute": S(StringValue=ptr.To("stringAttributeValue1"))})
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: four}),
            ),
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device2, None, {"stringAttribute": S(StringValue=ptr.To("stringAttributeValue2"))})
                .withAllowMultipleAllocations()
                .withCapacityRequestPolicyRange({capacity0: four}),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceRequestAllocationResult(req0, driverA, pool1, device1).withConsumedCapacity(
                    fixedShareID, {capacity0: two}
                ),
                deviceRequestAllocationResult(req1, driverA, pool1, device2).withConsumedCapacity(
                    fixedShareID, {capacity0: two}
                ),
            )
        ],
    ),
    "list-attributes-match-constaint-scalar-string-values": S(
        features=S(ListTypeAttributes=True),
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(MatchAttribute=stringAttribute)], request(req0, classA, 2))
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, {"stringAttribute": S(StringValue=new("value1"))}),
                device(device2, None, {"stringAttribute": S(StringValue=new("value1"))}),
            )
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
    "list-attributes-match-constaint-list-of-string-values-with-common-elements": S(
        features=S(ListTypeAttributes=True),
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(MatchAttribute=stringAttribute)], request(req0, classA, 2))
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, {"stringAttribute": S(StringValues=["value1", "value2", "value3"])}),
                device(device2, None, {"stringAttribute": S(StringValues=["value2", "value3", "value4"])}),
            )
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
    "list-attributes-match-constaint-list-of-string-values-with-partially-common-elements": S(
        features=S(ListTypeAttributes=True),
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(MatchAttribute=stringAttribute)], request(req0, classA, 3))
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, {"stringAttribute": S(StringValues=["value1", "value2"])}),
                device(device2, None, {"stringAttribute": S(StringValues=["value2", "value3"])}),
                device(device3, None, {"stringAttribute": S(StringValues=["value3", "value1"])}),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "list-attributes-match-constaint-list-of-string-values-without-common-elements": S(
        features=S(ListTypeAttributes=True),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                [S(MatchAttribute=stringAttribute)],
                request(req0, classA, 1),
                request(req0, classA, 1),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, {"stringAttribute": S(StringValues=["value1", "value2"])}),
                device(device2, None, {"stringAttribute": S(StringValues=["value3", "value4"])}),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "list-attributes-match-constaint-mixed-scalar-and-list-of-string-values-with-common-elements": S(
        features=S(ListTypeAttributes=True),
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(MatchAttribute=stringAttribute)], request(req0, classA, 2))
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, {"stringAttribute": S(StringValue=new("value1"))}),
                device(device2, None, {"stringAttribute": S(StringValues=["value1", "value2"])}),
            )
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
    "list-attributes-match-constaint-mixed-scalar-and-list-of-string-values-with-partially-common-elements": S(
        features=S(ListTypeAttributes=True),
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(MatchAttribute=stringAttribute)], request(req0, classA, 3))
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, {"stringAttribute": S(StringValue=new("value1"))}),
                device(device2, None, {"stringAttribute": S(StringValues=["value1", "value2"])}),
                device(device3, None, {"stringAttribute": S(StringValues=["value2", "value3"])}),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "list-attributes-match-constaint-mixed-scalar-and-list-of-string-values-without-common-elements": S(
        features=S(ListTypeAttributes=True),
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(MatchAttribute=stringAttribute)], request(req0, classA, 2))
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, {"stringAttribute": S(StringValue=new("value1"))}),
                device(device2, None, {"stringAttribute": S(StringValues=["value2", "value3"])}),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "list-attributes-match-constaint-list-of-int-values-with-common-elements": S(
        features=S(ListTypeAttributes=True),
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(MatchAttribute=intAttribute)], request(req0, classA, 2))
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, {"numa": S(IntValues=[0, 1, 2])}),
                device(device2, None, {"numa": S(IntValues=[1, 2, 3])}),
            )
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
    "list-attributes-match-constaint-list-of-bool-values-with-common-elements": S(
        features=S(ListTypeAttributes=True),
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(MatchAttribute=boolAttribute)], request(req0, classA, 2))
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, {"boolAttribute": S(BoolValues=[True, False])}),
                device(device2, None, {"boolAttribute": S(BoolValues=[True])}),
            )
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
    "list-attributes-match-constaint-list-of-version-values-with-common-elements": S(
        features=S(ListTypeAttributes=True),
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(MatchAttribute=versionAttribute)], request(req0, classA, 2))
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, {"driverVersion": S(VersionValues=["1.0.0", "1.1.0", "2.0.0"])}),
                device(device2, None, {"driverVersion": S(VersionValues=["1.1.0", "2.0.0", "2.1.0"])}),
            )
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
    "list-attributes-match-constaint-with-empty-or-unknown-type": S(
        features=S(ListTypeAttributes=True),
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(MatchAttribute=stringAttribute)], request(req0, classA, 2))
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, {"stringAttribute": S()}),
                device(device2, None, {"stringAttribute": S(StringValues=[])}),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
        expectError=gomega.MatchError(gomega.ContainSubstring("unsupported attribute value")),
    ),
    "list-attributes-disabled-match-constraint-with-lists": S(
        features=S(ListTypeAttributes=False),
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(MatchAttribute=stringAttribute)], request(req0, classA, 2))
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, {"stringAttribute": S(StringValues=["value1", "value2", "value3"])}),
                device(device2, None, {"stringAttribute": S(StringValues=["value2", "value3", "value4"])}),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "list-attributes-distinct-constraint-scalar-string-values-all-distinct": S(
        features=S(ListTypeAttributes=True, ConsumableCapacity=True),
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(DistinctAttribute=stringAttribute)], request(req0, classA, 2))
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, {"stringAttribute": S(StringValue=new("value1"))}),
                device(device2, None, {"stringAttribute": S(StringValue=new("value2"))}),
            )
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
    "list-attributes-distinct-constraint-scalar-string-values-not-distinct": S(
        features=S(ListTypeAttributes=True, ConsumableCapacity=True),
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(DistinctAttribute=stringAttribute)], request(req0, classA, 2))
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, {"stringAttribute": S(StringValue=new("value1"))}),
                device(device2, None, {"stringAttribute": S(StringValue=new("value1"))}),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "list-attributes-distinct-constraint-list-of-string-values-all-distinct": S(
        features=S(ListTypeAttributes=True, ConsumableCapacity=True),
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(DistinctAttribute=stringAttribute)], request(req0, classA, 2))
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, {"stringAttribute": S(StringValues=["value1", "value2"])}),
                device(device2, None, {"stringAttribute": S(StringValues=["value2", "value3"])}),
                device(device3, None, {"stringAttribute": S(StringValues=["value3", "value4"])}),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool1, device3, False),
            )
        ],
    ),
    "list-attributes-distinct-constraint-list-of-string-values-with-common-elements": S(
        features=S(ListTypeAttributes=True, ConsumableCapacity=True),
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(DistinctAttribute=stringAttribute)], request(req0, classA, 2))
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, {"stringAttribute": S(StringValues=["value1", "value2", "value3"])}),
                device(device2, None, {"stringAttribute": S(StringValues=["value2", "value4", "value5"])}),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "list-attributes-distinct-constraint-mixed-scalar-and-list-all-distinct": S(
        features=S(ListTypeAttributes=True, ConsumableCapacity=True),
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(DistinctAttribute=stringAttribute)], request(req0, classA, 2))
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, {"stringAttribute": S(StringValue=new("value1"))}),
                device(device2, None, {"stringAttribute": S(StringValues=["value1", "value2"])}),
                device(device3, None, {"stringAttribute": S(StringValues=["value2", "value3"])}),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool1, device3, False),
            )
        ],
    ),
    "list-attributes-distinct-constraint-mixed-scalar-and-list-with-common-elements": S(
        features=S(ListTypeAttributes=True, ConsumableCapacity=True),
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(DistinctAttribute=stringAttribute)], request(req0, classA, 2))
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, {"stringAttribute": S(StringValue=new("value1"))}),
                device(device2, None, {"stringAttribute": S(StringValues=["value1", "value2"])}),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "list-attributes-distinct-constraint-list-of-int-values-all-distinct": S(
        features=S(ListTypeAttributes=True, ConsumableCapacity=True),
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(DistinctAttribute=intAttribute)], request(req0, classA, 2))
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, {"numa": S(IntValues=[0, 1])}),
                device(device2, None, {"numa": S(IntValues=[1, 2])}),
                device(device3, None, {"numa": S(IntValues=[2, 3])}),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool1, device3, False),
            )
        ],
    ),
    "list-attributes-distinct-constraint-list-of-bool-values-all-distinct": S(
        features=S(ListTypeAttributes=True, ConsumableCapacity=True),
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(DistinctAttribute=boolAttribute)], request(req0, classA, 2))
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, {"boolAttribute": S(BoolValues=[True])}),
                device(device2, None, {"boolAttribute": S(BoolValues=[True, False])}),
                device(device3, None, {"boolAttribute": S(BoolValues=[False])}),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool1, device3, False),
            )
        ],
    ),
    "list-attributes-distinct-constraint-list-of-version-values-all-distinct": S(
        features=S(ListTypeAttributes=True, ConsumableCapacity=True),
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(DistinctAttribute=versionAttribute)], request(req0, classA, 2))
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, {"driverVersion": S(VersionValues=["1.0.0", "1.1.0"])}),
                device(device2, None, {"driverVersion": S(VersionValues=["1.1.0", "2.0.0"])}),
                device(device3, None, {"driverVersion": S(VersionValues=["2.0.0", "2.1.0"])}),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req0, driverA, pool1, device1, False),
                deviceAllocationResult(req0, driverA, pool1, device3, False),
            )
        ],
    ),
    "list-attributes-distinct-constaint-with-empty-or-unknown-type": S(
        features=S(ListTypeAttributes=True, ConsumableCapacity=True),
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(DistinctAttribute=versionAttribute)], request(req0, classA, 2))
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, {"driverVersion": S(VersionValues=[])}),
                device(device2, None, {"driverVersion": S(VersionValues=None)}),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
        expectError=gomega.MatchError(gomega.ContainSubstring("unsupported attribute value")),
    ),
    "list-attributes-disabled-distinct-constraint-with-lists": S(
        features=S(ListTypeAttributes=False, ConsumableCapacity=True),
        claimsToAllocate=objects(
            claimWithRequests(claim0, [S(DistinctAttribute=stringAttribute)], request(req0, classA, 2))
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, {"stringAttribute": S(StringValues=["value1", "value2", "value3"])}),
                device(device2, None, {"stringAttribute": S(StringValues=["value2", "value3", "value4"])}),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
    ),
    "allocation-mode-all-with-multi-host-resource-pool": S(
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                S(
                    Name=req0,
                    Exactly=S(AllocationMode=resourceapi.DeviceAllocationModeAll, DeviceClassName=classA),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(slice1, node1, resourcePool(pool1, 2), driverA, device(device1, None, None)),
            sliceWithDevices(slice2, node2, resourcePool(pool1, 2), driverA, device(device2, None, None)),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False)
            )
        ],
    ),
    "multi-host-resource-pool-with-stale-slice-for-current-node": S(
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(_f26(), _f27()),
        node=node(node1, region1),
    ),
    "multi-host-resource-pool-complete-update-from-node-1-to-node-2": S(
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(_f28(), _f29(), _f30(), _f31()),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False)
            )
        ],
    ),
    "multi-host-resource-pool-complete-update-from-node-2-to-node-1": S(
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(_f32(), _f33(), _f34(), _f35()),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False)
            )
        ],
    ),
    "multi-host-resource-pool-incomplete-update-from-node-1-to-node-2": S(
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(_f36(), _f37(), _f38()),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device1, False)
            )
        ],
    ),
    "multi-host-resource-pool-incomplete-update-from-node-2-to-node-1": S(
        claimsToAllocate=objects(claimWithRequest(claim0, req0, classA)),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(_f39(), _f40(), _f41()),
        node=node(node1, region1),
    ),
    "partitionable-devices-same-counter-set-name-in-different-resource-slices": S(
        features=S(PartitionableDevices=True),
        claimsToAllocate=objects(claim(claim0).withRequests(deviceRequest(req0, classA, 1))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(slice1, node1, resourcePool(pool1, 4), driverA, device(device1, None, None)),
            sliceWithCounterSets(
                slice2, node1, resourcePool(pool1, 4), driverA, counterSet(counterSet1, None)
            ),
            sliceWithDevices(slice3, node1, resourcePool(pool1, 4), driverA, device(device2, None, None)),
            sliceWithCounterSets(
                slice4, node1, resourcePool(pool1, 4), driverA, counterSet(counterSet1, None)
            ),
        ),
        node=node(node1, region1),
        expectError=gomega.MatchError(gomega.ContainSubstring("invalid resource pools were encountered")),
    ),
    "partitionable-devices-device-counter-consumption-references-unknown-counter-set": S(
        features=S(PartitionableDevices=True),
        claimsToAllocate=objects(claim(claim0).withRequests(deviceRequest(req0, classA, 1))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet2, None)
                ),
            ),
            sliceWithCounterSets(
                slice2, node1, resourcePool(pool1, 2), driverA, counterSet(counterSet1, None)
            ),
        ),
        node=node(node1, region1),
        expectError=gomega.MatchError(gomega.ContainSubstring("invalid resource pools were encountered")),
    ),
    "partitionable-devices-device-counter-consumption-references-unknown-counter-in-counter-set": S(
        features=S(PartitionableDevices=True),
        claimsToAllocate=objects(claim(claim0).withRequests(deviceRequest(req0, classA, 1))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("8Gi")})
                ),
            ),
            sliceWithCounterSets(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                counterSet(counterSet1, {"other-memory": resource.MustParse("8Gi")}),
            ),
        ),
        node=node(node1, region1),
        expectError=gomega.MatchError(gomega.ContainSubstring("invalid resource pools were encountered")),
    ),
    "partitionable-devices-device-counter-consumption-references-counter-set-in-other-pool": S(
        features=S(PartitionableDevices=True),
        claimsToAllocate=objects(claim(claim0).withRequests(deviceRequest(req0, classA, 1))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("8Gi")})
                ),
            ),
            sliceWithCounterSets(
                slice2, node1, pool2, driverA, counterSet(counterSet1, {"memory": resource.MustParse("8Gi")})
            ),
        ),
        node=node(node1, region1),
        expectError=gomega.MatchError(gomega.ContainSubstring("invalid resource pools were encountered")),
    ),
    "partitionable-devices-devices-on-different-nodes-consume-same-counter-set": S(
        features=S(PartitionableDevices=True, PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req0,
                    subRequest(
                        subReq0,
                        classA,
                        1,
                        S(
                            CEL=S(
                                Expression=fmt.Sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("6Gi")) >= 0', driverA
                                )
                            )
                        ),
                    ),
                    subRequest(
                        subReq1,
                        classA,
                        1,
                        S(
                            CEL=S(
                                Expression=fmt.Sprintf(
                                    'device.capacity["%s"].memory.compareTo(quantity("2Gi")) >= 0', driverA
                                )
                            )
                        ),
                    ),
                )
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithCounterSets(
                slice1,
                node1,
                resourcePool(pool1, 3),
                driverA,
                counterSet(counterSet1, {"memory": resource.MustParse("8Gi")}),
            ),
            sliceWithDevices(
                slice2,
                node1,
                resourcePool(pool1, 3),
                driverA,
                device(device1, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("6Gi")})
                ),
                device(device2, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("2Gi")})
                ),
            ),
            sliceWithDevices(
                slice3,
                node2,
                resourcePool(pool1, 3),
                driverA,
                device(device3, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("6Gi")})
                ),
            ),
        ),
        allocatedDevices=[MakeDeviceID(driverA, pool1, device3)],
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req0SubReq1, driverA, pool1, device2, False)
            )
        ],
    ),
    "partitionable-devices-devices-consume-counter-set-in-different-nodes": S(
        features=S(PartitionableDevices=True),
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 1))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithCounterSets(
                slice1,
                node1,
                resourcePool(pool1, 3),
                driverA,
                counterSet(counterSet1, {"memory": resource.MustParse("8Gi")}),
            ),
            sliceWithDevices(
                slice2,
                node1,
                resourcePool(pool1, 3),
                driverA,
                device(device1, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("6Gi")})
                ),
            ),
            sliceWithDevices(
                slice3,
                node2,
                resourcePool(pool1, 3),
                driverA,
                device(device2, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("6Gi")})
                ),
                device(device3, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("2Gi")})
                ),
            ),
        ),
        allocatedDevices=[MakeDeviceID(driverA, pool1, device1)],
        node=node(node2, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node2), deviceAllocationResult(req0, driverA, pool1, device3, False)
            )
        ],
    ),
    "partitionable-devices-validation-error-on-non-targeting-slice": S(
        features=S(PartitionableDevices=True),
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 1))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithCounterSets(
                slice1,
                node1,
                resourcePool(pool1, 3),
                driverA,
                counterSet(counterSet1, {"memory": resource.MustParse("8Gi")}),
            ),
            sliceWithDevices(
                slice2,
                node1,
                resourcePool(pool1, 3),
                driverA,
                device(device1, fromCounters, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet1, {"memory": resource.MustParse("6Gi")})
                ),
            ),
            sliceWithDevices(
                slice3,
                node2,
                resourcePool(pool1, 3),
                driverA,
                device(device3, None, None).withDeviceCounterConsumption(
                    deviceCounterConsumption(counterSet2, {"memory": resource.MustParse("6Gi")})
                ),
            ),
        ),
        node=node(node1, region1),
        expectError=gomega.MatchError(gomega.ContainSubstring("invalid resource pools were encountered")),
    ),
    "different-resourceslices-in-pool-can-target-different-nodes": S(
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 1))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(slice1, node2, resourcePool(pool1, 2), driverA, device(device1, None, None)),
            sliceWithDevices(slice2, node1, resourcePool(pool1, 2), driverA, device(device2, None, None)),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool1, device2, False)
            )
        ],
    ),
    "invalid-pool-is-ok-if-devices-can-be-allocated-from-other": S(
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 1))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(slice1, node1, resourcePool(pool1, 2), driverA, device(device1, None, None)),
            sliceWithDevices(slice2, node1, resourcePool(pool1, 2), driverA, device(device1, None, None)),
            sliceWithDevices(slice3, node1, resourcePool(pool2, 1), driverA, device(device2, None, None)),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1), deviceAllocationResult(req0, driverA, pool2, device2, False)
            )
        ],
    ),
    "invalid-pool-is-error-if-no-other-device-can-be-allocated": S(
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 1))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(slice1, node1, resourcePool(pool1, 2), driverA, device(device1, None, None)),
            sliceWithDevices(slice2, node1, resourcePool(pool1, 2), driverA, device(device1, None, None)),
            sliceWithDevices(slice3, node1, resourcePool(pool2, 1), driverA, device(device2, None, None)),
        ),
        allocatedDevices=[MakeDeviceID(driverA, pool2, device2)],
        node=node(node1, region1),
        expectError=gomega.MatchError(gomega.ContainSubstring("invalid resource pools were encountered")),
    ),
    "no-allocation-from-incomplete-pools": S(
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 1))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(slice1, node1, resourcePool(pool1, 2), driverA, device(device1, None, None))
        ),
        node=node(node1, region1),
    ),
    "check-combinations-within-single-request-single-pool-single-slice": S(
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 5))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, None),
                device(device2, None, None),
                device(device3, None, None),
                device(device4, None, None),
            )
        ),
        node=node(node1, region1),
        expectResults=None,
        expectNumAllocateOneInvocations=16,
        expectNumAllocateOneInvocationsByChannel={internal.Stable: 65},
    ),
    "check-combinations-within-single-request-single-pool-multiple-slices": S(
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 5))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, None),
                device(device2, None, None),
            ),
            sliceWithDevices(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device3, None, None),
                device(device4, None, None),
            ),
        ),
        node=node(node1, region1),
        expectResults=None,
        expectNumAllocateOneInvocations=16,
        expectNumAllocateOneInvocationsByChannel={internal.Stable: 65},
    ),
    "check-combinations-within-single-request-multiple-pools-multiple-slices": S(
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 5))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(slice1, node1, resourcePool(pool1, 2), driverA, device(device1, None, None)),
            sliceWithDevices(slice2, node1, resourcePool(pool1, 2), driverA, device(device2, None, None)),
            sliceWithDevices(
                slice3, node1, pool2, driverA, device(device3, None, None), device(device4, None, None)
            ),
        ),
        node=node(node1, region1),
        expectResults=None,
        expectNumAllocateOneInvocations=16,
        expectNumAllocateOneInvocationsByChannel={internal.Stable: 65},
    ),
    "check-combinations-within-single-request-many-pools": S(
        claimsToAllocate=objects(claimWithRequests(claim0, None, request(req0, classA, 5))),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(slice1, node1, pool1, driverA, device(device1, None, None)),
            sliceWithDevices(slice2, node1, pool2, driverA, device(device2, None, None)),
            sliceWithDevices(slice3, node1, pool3, driverA, device(device3, None, None)),
            sliceWithDevices(slice4, node1, pool4, driverA, device(device4, None, None)),
        ),
        node=node(node1, region1),
        expectResults=None,
        expectNumAllocateOneInvocations=16,
        expectNumAllocateOneInvocationsByChannel={internal.Stable: 65},
    ),
    "check-combinations-with-backtracking": S(
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                request(req1, classA, 2),
                request(
                    req2,
                    classA,
                    1,
                    S(CEL=S(Expression=fmt.Sprintf('device.attributes["%s"].type == "X"', driverA))),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, {"type": S(StringValue=ptr.To("X"))}),
                device(device2, None, {"type": S(StringValue=ptr.To("Y"))}),
                device(device3, None, {"type": S(StringValue=ptr.To("Y"))}),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req1, driverA, pool1, device2, False),
                deviceAllocationResult(req1, driverA, pool1, device3, False),
                deviceAllocationResult(req2, driverA, pool1, device1, False),
            )
        ],
        expectNumAllocateOneInvocations=12,
        expectNumAllocateOneInvocationsByChannel={internal.Stable: 14},
    ),
    "check-combinations-with-backtracking-across-slices-and-pools": S(
        features=S(DeviceBindingAndStatus=True),
        claimsToAllocate=objects(
            claimWithRequests(
                claim0,
                None,
                request(req1, classA, 2),
                request(
                    req2,
                    classA,
                    1,
                    S(CEL=S(Expression=fmt.Sprintf('device.attributes["%s"].type == "X"', driverA))),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device1, None, {"type": S(StringValue=ptr.To("X"))}),
            ),
            sliceWithDevices(
                slice2,
                node1,
                resourcePool(pool1, 2),
                driverA,
                device(device2, None, {"type": S(StringValue=ptr.To("Y"))}),
            ),
            sliceWithDevices(
                slice3,
                node1,
                pool2,
                driverA,
                device(device3, None, {"type": S(StringValue=ptr.To("Y"))}).withBindingConditions(
                    ["IsPrepare"], []
                ),
            ),
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req1, driverA, pool1, device2, False),
                deviceRequestAllocationResultWithBindingConditions(
                    req1, driverA, pool2, device3, ["IsPrepare"], []
                ),
                deviceAllocationResult(req2, driverA, pool1, device1, False),
            )
        ],
        expectNumAllocateOneInvocations=12,
        expectNumAllocateOneInvocationsByChannel={internal.Stable: 14},
    ),
    "check-combinations-with-prioritized-list": S(
        features=S(PrioritizedList=True),
        claimsToAllocate=objects(
            claim(claim0).withRequests(
                requestWithPrioritizedList(
                    req1,
                    subRequest(
                        subReq0,
                        classA,
                        3,
                        S(CEL=S(Expression=fmt.Sprintf('device.attributes["%s"].type == "Y"', driverA))),
                    ),
                    subRequest(subReq1, classA, 2),
                ),
                requestWithPrioritizedList(
                    req2,
                    subRequest(subReq0, classA, 2),
                    subRequest(
                        subReq1,
                        classA,
                        1,
                        S(CEL=S(Expression=fmt.Sprintf('device.attributes["%s"].type == "X"', driverA))),
                    ),
                ),
            )
        ),
        classes=objects(class_(classA, driverA)),
        slices=unwrapResourceSlices(
            sliceWithDevices(
                slice1,
                node1,
                pool1,
                driverA,
                device(device1, None, {"type": S(StringValue=ptr.To("X"))}),
                device(device2, None, {"type": S(StringValue=ptr.To("Y"))}),
                device(device3, None, {"type": S(StringValue=ptr.To("Y"))}),
            )
        ),
        node=node(node1, region1),
        expectResults=[
            allocationResult(
                localNodeSelector(node1),
                deviceAllocationResult(req1SubReq1, driverA, pool1, device2, False),
                deviceAllocationResult(req1SubReq1, driverA, pool1, device3, False),
                deviceAllocationResult(req2SubReq1, driverA, pool1, device1, False),
            )
        ],
        expectNumAllocateOneInvocations=26,
        expectNumAllocateOneInvocationsByChannel={internal.Stable: 32},
    ),
}
