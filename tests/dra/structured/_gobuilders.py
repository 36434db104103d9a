"""Builders for the port of upstream's allocator test table.

Upstream's ``structured/internal/allocatortesting/allocator_testing.go`` builds Go structs
with helpers (``claimWithRequest``, ``sliceWithDevices``, ``device(...).withTaints(...)``)
and tweaks them field by field (``c.Spec.Devices.Requests[0].Exactly.Count = 2``). The port
keeps upstream's helper names and field paths so that each case reads like the original:
objects are manifests (:class:`G`, a dict whose Go field names map to JSON keys, ``Spec`` ->
``spec``), parsed into kubesched's API objects when a case runs. Struct literals are
:func:`S`; Go's packages (``resourceapi``, ``ptr``, ``fmt``, ``gomega`` ...) are namespaces
with the constants and functions the table uses.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

# Go field name -> JSON key where it is not the name with a lower-case first letter.
_JSON_NAMES = {
    "ObjectMeta": "metadata",
    "CEL": "cel",
    "IntValue": "int",
    "BoolValue": "bool",
    "StringValue": "string",
    "VersionValue": "version",
    "IntValues": "ints",
    "BoolValues": "bools",
    "StringValues": "strings",
    "VersionValues": "versions",
    "ShareID": "shareID",
}
_INLINE = {"DeviceConfiguration"}  # embedded structs: their fields are the parent's


def _key(name: str) -> str:
    if name in _JSON_NAMES:
        return _JSON_NAMES[name]
    return name[0].lower() + name[1:] if name[:1].isupper() else name


class G(dict):  # type: ignore[type-arg]
    """A Go struct as its manifest: ``obj.Spec.Pool.Generation += 1`` reads and writes
    ``obj["spec"]["pool"]["generation"]``; a missing field reads as None (Go's zero value).
    ``Name`` of an object is its ``metadata.name``."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        if name == "Name" and "metadata" in self:
            return self["metadata"].get("name")
        return self.get(_key(name))

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "Name" and "metadata" in self:
            self["metadata"]["name"] = value
        else:
            self[_key(name)] = value

    def DeepCopy(self) -> Any:
        return copy.deepcopy(self)

    def obj(self) -> Any:
        return self


def S(**fields: Any) -> G:
    """A struct literal; ``None`` fields are left out (Go's zero value)."""
    out = G()
    for name, value in fields.items():
        if value is None:
            continue
        if name in _INLINE:
            out.update(value)
        else:
            out[_key(name)] = value
    return out


def _quantity(v: Any) -> str:
    return str(v)


def _sprintf(fmt_: str, *args: Any) -> str:
    conv = [("true" if a else "false") if isinstance(a, bool) else a for a in args]
    return re.sub(r"%[vsdq]", "%s", fmt_) % tuple(conv)


def _append(items: Any, *more: Any) -> list[Any]:
    return [*(items or []), *more]


resourceapi = SimpleNamespace(
    DeviceAllocationModeAll="All",
    DeviceAllocationModeExactCount="ExactCount",
    DeviceTaintEffectNone="None",
    DeviceTaintEffectNoSchedule="NoSchedule",
    DeviceTaintEffectNoExecute="NoExecute",
    DeviceTolerationOpExists="Exists",
    DeviceTolerationOpEqual="Equal",
    AllocationConfigSourceClass="FromClass",
    AllocationConfigSourceClaim="FromClaim",
    AllocationResultsMaxSize=32,
    FullyQualifiedName=str,
    QualifiedName=str,
    DeviceAllocationMode=str,
)
resource = SimpleNamespace(
    MustParse=_quantity, NewQuantity=lambda v, _fmt=None: str(v), BinarySI="BinarySI", DecimalSI="DecimalSI"
)
ptr = SimpleNamespace(To=lambda v: v)
fmt = SimpleNamespace(Sprintf=_sprintf)
v1 = SimpleNamespace(NodeSelectorOpIn="In", NodeSelectorOpNotIn="NotIn", NodeSelectorOpExists="Exists")
apitypes = SimpleNamespace(UID=str)
internal = SimpleNamespace(
    Stable="stable",
    Incubating="incubating",
    Experimental="experimental",
    MakeSharedDeviceID=lambda d, share=None: ("shared", d, share),
)


class ErrorMatcher:
    """gomega.MatchError(gomega.ContainSubstring(s))."""

    def __init__(self, substring: str) -> None:
        self.substring = substring

    def __repr__(self) -> str:
        return f"error containing {self.substring!r}"


gomega = SimpleNamespace(MatchError=lambda m: m, ContainSubstring=ErrorMatcher)
sets = SimpleNamespace(New=lambda *items: set(items))
int64 = int
append = _append
len_ = len


def new(v: Any) -> Any:
    """Go 1.26's new(value): a pointer to the value."""
    return v


def Features(**flags: bool) -> G:
    return S(**flags)


def MakeDeviceID(driver: str, pool: str, device: str) -> tuple[str, str, str]:
    return (driver, pool, device)


def ConsumedCapacityCollection(d: dict[Any, Any]) -> dict[Any, Any]:
    return d


# -- constants of allocator_testing.go --------------------------------------------------------
region1, region2 = "region-1", "region-2"
node1, node2 = "node-1", "node-2"
classA, classB = "class-a", "class-b"
driverA, driverB = "driver-a", "driver-b"
pool1, pool2, pool3, pool4 = "pool-1", "pool-2", "pool-3", "pool-4"
req0, req1, req2, req3 = "req-0", "req-1", "req-2", "req-3"
subReq0, subReq1 = "subReq-0", "subReq-1"
req0SubReq0, req0SubReq1 = "req-0/subReq-0", "req-0/subReq-1"
req1SubReq0, req1SubReq1 = "req-1/subReq-0", "req-1/subReq-1"
req2SubReq0, req2SubReq1 = "req-2/subReq-0", "req-2/subReq-1"
claim0, claim1 = "claim-0", "claim-1"
slice1, slice2, slice3, slice4 = "slice-1", "slice-2", "slice-3", "slice-4"
device0, device1, device2, device3, device4 = "device-0", "device-1", "device-2", "device-3", "device-4"
counterSet1, counterSet2 = "counter-set-1", "counter-set-2"
capacity0, capacity1 = "capacity-0", "capacity-1"
fixedShareID = "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa"
zero, one, two, three, four = "0", "1", "2", "3", "4"
fieldNameKey, regionKey, planetKey, planetValueEarth = "metadata.name", "region", "planet", "earth"
fromCounters = "fromCounters"
nodeSelectionAll = "nodeSelectionAll"
nodeSelectionPerDevice = "nodeSelectionPerDevice"


# -- generators (upstream's helpers, same names and arguments) ----------------------------------
def node(name: str, region: str) -> G:
    return S(ObjectMeta=S(Name=name, Labels={regionKey: region, planetKey: planetValueEarth}))


def _selector(expression: str) -> G:
    return S(CEL=S(Expression=expression))


def class_(name: str, driver: str) -> G:
    return S(ObjectMeta=S(Name=name), Spec=S(Selectors=[_selector(f'device.driver == "{driver}"')]))


def classWithAllowMultipleAllocations(name: str, driver: str, multialloc: bool) -> G:
    expr = f'device.driver == "{driver}" && device.allowMultipleAllocations == {str(multialloc).lower()}'
    return S(ObjectMeta=S(Name=name), Spec=S(Selectors=[_selector(expr)]))


def deviceConfiguration(driver: str, attribute: str) -> G:
    return S(Opaque=S(Driver=driver, Parameters={attribute: attribute + "Value"}))


def classWithConfig(name: str, driver: str, attribute: str) -> G:
    c = class_(name, driver)
    c.Spec.Config = [S(DeviceConfiguration=deviceConfiguration(driver, attribute))]
    return c


class WrapResourceClaim(G):
    def withTolerations(self, *tolerations: G) -> WrapResourceClaim:
        out = self.DeepCopy()
        for r in out.Spec.Devices.Requests:
            r.Exactly.Tolerations = _append(r.Exactly.Tolerations, *tolerations)
        return out  # type: ignore[no-any-return]

    def withRequests(self, *requests: G) -> WrapResourceClaim:
        out = self.DeepCopy()
        out.Spec.Devices.Requests = [copy.deepcopy(r) for r in requests]
        return out  # type: ignore[no-any-return]

    def withConstraints(self, *constraints: G) -> WrapResourceClaim:
        out = self.DeepCopy()
        out.Spec.Devices.Constraints = list(constraints)
        return out  # type: ignore[no-any-return]

    def withConfigs(self, configs: list[G]) -> WrapResourceClaim:
        out = self.DeepCopy()
        out.Spec.Devices.Config = configs
        return out  # type: ignore[no-any-return]


def claimWithRequests(name: str, constraints: list[G] | None, *requests: G) -> WrapResourceClaim:
    c = WrapResourceClaim(metadata=G(name=name), spec=G(devices=G(requests=list(requests))))
    if constraints:
        c.Spec.Devices.Constraints = list(constraints)
    return c


def request(name: str, class_name: str, count: int, *selectors: G) -> WrapDeviceRequest:
    return WrapDeviceRequest(
        name=name,
        exactly=S(
            Count=count,
            AllocationMode="ExactCount",
            DeviceClassName=class_name,
            Selectors=list(selectors) or None,
        ),
    )


class WrapDeviceRequest(G):
    def withCapacityRequest(self, quantity: str | None) -> WrapDeviceRequest:
        out = self.DeepCopy()
        out.Exactly.Capacity = capacityRequests(quantity)
        return out  # type: ignore[no-any-return]

    def withSelectors(self, *selectors: G) -> WrapDeviceRequest:
        out = self.DeepCopy()
        out.Exactly.Selectors = list(selectors)
        return out  # type: ignore[no-any-return]


class WrapDeviceSubRequest(G):
    def withAllocationMode(self, mode: str) -> WrapDeviceSubRequest:
        out = self.DeepCopy()
        out.AllocationMode = mode
        return out  # type: ignore[no-any-return]

    def withCapacityRequest(self, quantity: str | None) -> WrapDeviceSubRequest:
        out = self.DeepCopy()
        out.Capacity = capacityRequests(quantity)
        return out  # type: ignore[no-any-return]


def deviceRequest(name: str, class_name: str, count: int) -> WrapDeviceRequest:
    return request(name, class_name, count)


def allDeviceRequest(name: str, class_name: str) -> WrapDeviceRequest:
    return WrapDeviceRequest(name=name, exactly=S(AllocationMode="All", DeviceClassName=class_name))


def subRequest(name: str, class_name: str, count: int, *fields: G) -> WrapDeviceSubRequest:
    sub = WrapDeviceSubRequest(
        name=name, count=count, allocationMode="ExactCount", deviceClassName=class_name
    )
    for f in fields:
        if "cel" in f:
            sub["selectors"] = [*sub.get("selectors", []), f]
        else:
            sub["tolerations"] = [*sub.get("tolerations", []), f]
    return sub


def requestWithPrioritizedList(name: str, *subs: G) -> WrapDeviceRequest:
    return WrapDeviceRequest(name=name, firstAvailable=[copy.deepcopy(s) for s in subs])


def claimWithRequest(name: str, req: str, class_name: str, *constraints: G) -> WrapResourceClaim:
    return claimWithRequests(name, list(constraints), request(req, class_name, 1))


def claim(name: str) -> WrapResourceClaim:
    return WrapResourceClaim(metadata=G(name=name), spec=G(devices=G()))


def claimWithDeviceConfig(
    name: str, req: str, class_name: str, driver: str, attribute: str
) -> WrapResourceClaim:
    c = claimWithRequest(name, req, class_name)
    c.Spec.Devices.Config = [S(DeviceConfiguration=deviceConfiguration(driver, attribute))]
    return c


def deviceClaimConfig(requests: list[str], device_config: G) -> G:
    return S(Requests=requests, DeviceConfiguration=device_config)


class WrapDevice(G):
    """wrapDevice; ``_fromCounters`` is upstream's capacityFromCounters flag, which only
    ``device(...)`` sets and every ``with...`` drops, as upstream's copies do."""

    def _copy(self) -> WrapDevice:
        return WrapDevice({k: copy.deepcopy(v) for k, v in self.items() if k != "_fromCounters"})

    def withTaints(self, *taints: G) -> WrapDevice:
        out = self._copy()
        out.Taints = _append(out.Taints, *taints)
        return out

    def withDeviceCounterConsumption(self, *consumption: G) -> WrapDevice:
        out = self._copy()
        out.ConsumesCounters = _append(out.ConsumesCounters, *consumption)
        if self.get("_fromCounters"):
            caps: dict[str, Any] = {}
            for dcc in out.ConsumesCounters:
                for name, c in (dcc.get("counters") or {}).items():
                    caps[name] = {"value": c["value"]}
            out.Capacity = caps
        return out

    def withNodeSelection(self, selection: Any) -> WrapDevice:
        out = self._copy()
        if isinstance(selection, dict):
            out.NodeSelector = selection
        elif selection == nodeSelectionAll:
            out.AllNodes = True
        else:
            out.NodeName = selection
        return out

    def withBindingConditions(self, conditions: list[str], failure: list[str]) -> WrapDevice:
        out = self._copy()
        out.BindingConditions = conditions
        out.BindingFailureConditions = failure
        return out

    def withBindsToNode(self, binds: bool) -> WrapDevice:
        out = self._copy()
        out.BindsToNode = binds
        return out

    def withAllowMultipleAllocations(self) -> WrapDevice:
        out = self._copy()
        out.AllowMultipleAllocations = True
        return out

    def withCapacityRequestPolicyRange(self, capacity: dict[str, str]) -> WrapDevice:
        out = self._copy()
        caps = dict(out.Capacity or {})
        for name, q in capacity.items():
            caps[name] = {
                "value": q,
                "requestPolicy": {"default": two, "validRange": {"min": two, "step": two, "max": four}},
            }
        out.Capacity = caps
        return out

    def withCapacityRequestPolicyValidValues(
        self, default: str, capacity: dict[str, str], additional: list[str] | None
    ) -> WrapDevice:
        out = self._copy()
        caps = dict(out.Capacity or {})
        for name, q in capacity.items():
            caps[name] = {
                "value": q,
                "requestPolicy": {"default": default, "validValues": [default, *(additional or [])]},
            }
        out.Capacity = caps
        return out


def device(name: str, capacity: Any, attributes: dict[str, G] | None) -> WrapDevice:
    d = WrapDevice(name=name)
    if attributes:
        d["attributes"] = attributes
    if isinstance(capacity, dict):
        d["capacity"] = toDeviceCapacity(capacity)
    elif capacity == fromCounters:
        d["_fromCounters"] = True
    return d


def deviceCounterConsumption(counter_set: str, counters: dict[str, str] | None) -> G:
    return S(CounterSet=counter_set, Counters=toCounters(counters))


def resourcePool(name: str, count: int) -> G:
    return S(Name=name, ResourceSliceCount=count, Generation=1)


def slice_(name: str, node_selection: Any, pool: Any, driver: str) -> G:
    if isinstance(pool, str):
        pool = resourcePool(pool, 1)
    s = G(metadata=G(name=name), spec=G(driver=driver, pool=copy.deepcopy(pool)))
    if isinstance(node_selection, dict):
        s.Spec.NodeSelector = node_selection
    elif node_selection == nodeSelectionAll:
        s.Spec.AllNodes = True
    elif node_selection == nodeSelectionPerDevice:
        s.Spec.PerDeviceNodeSelection = True
    else:
        s.Spec.NodeName = node_selection
    return s


def sliceWithDevices(name: str, node_selection: Any, pool: Any, driver: str, *devices: WrapDevice) -> G:
    s = slice_(name, node_selection, pool, driver)
    if devices:
        s.Spec.Devices = [{k: v for k, v in d.items() if k != "_fromCounters"} for d in devices]
    return s


def sliceWithCounterSets(name: str, node_selection: Any, pool: Any, driver: str, *counter_sets: G) -> G:
    s = slice_(name, node_selection, pool, driver)
    s.Spec.SharedCounters = list(counter_sets)
    return s


def sliceWithNoDevices(name: str, node_selection: Any, pool: Any, driver: str) -> G:
    return sliceWithDevices(name, node_selection, pool, driver)


def sliceWithOneDevice(name: str, node_selection: Any, pool: Any, driver: str) -> G:
    return sliceWithDevices(name, node_selection, pool, driver, device(device1, None, None))


def sliceWithMultipleDevices(name: str, node_selection: Any, pool: Any, driver: str, count: int) -> G:
    return sliceWithDevices(
        name, node_selection, pool, driver, *(device(f"device-{i}", None, None) for i in range(count))
    )


def counterSet(name: str, counters: dict[str, str] | None) -> G:
    return S(Name=name, Counters=toCounters(counters))


def toDeviceCapacity(capacity: dict[str, str]) -> dict[str, Any]:
    return {name: {"value": q} for name, q in capacity.items()}


def toCounters(counters: dict[str, str] | None) -> dict[str, Any]:
    return {name: {"value": q} for name, q in (counters or {}).items()}


# -- expected results ----------------------------------------------------------------------------
def deviceAllocationResult(
    req: str, driver: str, pool: str, dev: str, admin_access: bool, *tolerations: G
) -> G:
    r = S(Request=req, Driver=driver, Pool=pool, Device=dev, Tolerations=list(tolerations) or None)
    if admin_access:
        r.AdminAccess = True
    return r


class WrapDeviceRequestAllocationResult(G):
    def withConsumedCapacity(self, share_id: str | None, consumed: dict[str, str] | None) -> G:
        out = G(copy.deepcopy(dict(self)))
        if share_id is not None:
            out.ShareID = share_id
        if consumed is not None:
            out.ConsumedCapacity = consumed
        return out


def deviceRequestAllocationResult(req: str, driver: str, pool: str, dev: str) -> G:
    return WrapDeviceRequestAllocationResult(request=req, driver=driver, pool=pool, device=dev)


def deviceRequestAllocationResultWithBindingConditions(
    req: str, driver: str, pool: str, dev: str, conditions: list[str], failure: list[str], *tolerations: G
) -> G:
    return S(
        Request=req,
        Driver=driver,
        Pool=pool,
        Device=dev,
        BindingConditions=conditions or None,
        BindingFailureConditions=failure or None,
        Tolerations=list(tolerations) or None,
    )


def capacityRequests(quantity: str | None) -> G:
    return S(Requests=requirements(quantity))


def requirements(quantity: str | None) -> dict[str, str]:
    return {capacity0: quantity} if quantity is not None else {}


def multipleDeviceAllocationResults(req: str, driver: str, pool: str, count: int, start: int) -> list[G]:
    return [
        deviceAllocationResult(req, driver, pool, f"device-{i}", False) for i in range(start, start + count)
    ]


def nodeLabelSelector(key: str, *values: str) -> G:
    return S(NodeSelectorTerms=[S(MatchExpressions=[S(Key=key, Operator="In", Values=list(values))])])


def localNodeSelector(node_name: str) -> G:
    return S(NodeSelectorTerms=[S(MatchFields=[S(Key=fieldNameKey, Operator="In", Values=[node_name])])])


def allocationResult(selector: G | None, *results: G) -> G:
    return S(Devices=S(Results=list(results)), NodeSelector=selector)


def allocationResultWithConfig(
    selector: G | None, driver: str, source: str, attribute: str, *results: G
) -> G:
    config = S(Source=source, DeviceConfiguration=deviceConfiguration(driver, attribute))
    return S(Devices=S(Results=list(results), Config=[config]), NodeSelector=selector)


def allocationResultWithConfigs(selector: G | None, results: list[G], configs: list[G]) -> G:
    return S(Devices=S(Results=list(results), Config=list(configs)), NodeSelector=selector)


def objects(*objs: Any) -> list[Any]:
    return list(objs)


def unwrap(*objs: Any) -> list[Any]:
    return list(objs)


unwrapResourceSlices = unwrap


def json_text(v: Any) -> str:
    return json.dumps(v, sort_keys=True, default=str)


Builder = Callable[..., Any]


slices = SimpleNamespace(Concat=lambda *lists: [x for items in lists for x in items])
