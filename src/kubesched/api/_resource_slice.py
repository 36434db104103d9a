"""``resource.k8s.io/v1`` ResourceSlice and DeviceTaintRule: the devices drivers publish and
the taints put on them, with the API server's validation (pkg/apis/resource/validation,
ValidateResourceSlice / ValidateDeviceTaintRule, master 2026). Helpers shared with the claim
kinds live in :mod:`._resource`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Final

from . import _fields as f
from ._meta import ManifestObject, ObjectMeta
from ._resource import (
    DEVICE_MAX_ID_LENGTH,
    DEVICE_TAINTS_MAX_LENGTH,
    DeviceTaint,
    _bool,
    _int,
    _items,
    _label_name,
    _meta,
    _node_selector,
    _opt_str,
    _quantity,
    _selectors,
    _str,
    _taint,
    _unique,
    _validate_driver_name,
    _validate_pool_name,
    validate_qualified_name,
)
from ._selectors import NodeSelector
from ._util_validation import FieldErrors, is_dns1123_label, is_dns1123_subdomain

__all__ = [
    "CounterSet",
    "Device",
    "DeviceAttribute",
    "DeviceCapacity",
    "DeviceCounterConsumption",
    "DeviceTaintRule",
    "ResourcePool",
    "ResourceSlice",
]

RESOURCE_SLICE_MAX_DEVICES: Final = 128
RESOURCE_SLICE_MAX_DEVICES_WITH_ADVANCED_FEATURES: Final = 64
RESOURCE_SLICE_MAX_COUNTER_SETS: Final = 8
RESOURCE_SLICE_MAX_COUNTERS_PER_COUNTER_SET: Final = 32
RESOURCE_SLICE_MAX_DEVICE_COUNTER_CONSUMPTIONS_PER_DEVICE: Final = 2
RESOURCE_SLICE_MAX_COMPATIBILITY_GROUPS: Final = 2  # per consumesCounters entry, names unique
RESOURCE_SLICE_MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE: Final = 32
RESOURCE_SLICE_MAX_ATTRIBUTE_VALUES_PER_DEVICE: Final = 48
DEVICE_MAX_DOMAIN_LENGTH: Final = 63
DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH: Final = 64
BINDING_CONDITIONS_MAX_SIZE: Final = 4
_ATTRIBUTE_KEY_MAX_LENGTH: Final = DEVICE_MAX_DOMAIN_LENGTH + 1 + DEVICE_MAX_ID_LENGTH

_SEMVER_RE: Final = re.compile(
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(-(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(\.(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*)?"
    r"(\+[0-9a-zA-Z-]+(\.[0-9a-zA-Z-]+)*)?$"
)


# -- ResourceSlice -----------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class DeviceAttribute:
    """One typed attribute value: ``kind`` is the v1 field that holds it (``int``, ``bool``,
    ``string``, ``version``, or the list forms ``ints``, ``bools``, ``strings``, ``versions``
    of DRAListTypeAttributes); ``value`` the value (a tuple for the list forms)."""

    kind: str
    value: Any


_ATTRIBUTE_KINDS: Final = {
    "int": int, "bool": bool, "string": str, "version": str,
    "ints": int, "bools": bool, "strings": str, "versions": str,
}


def _attribute(v: Any, path: str, errs: FieldErrors) -> DeviceAttribute | None:
    """validateDeviceAttribute: exactly one value; strings at most 64 bytes; versions semver 2.0."""
    d = f.mapping(v, path)
    present = [k for k in _ATTRIBUTE_KINDS if d.get(k) is not None]
    for k in present:
        typ = _ATTRIBUTE_KINDS[k]
        values = f.sequence(d[k], f"{path}.{k}") if k.endswith("s") else (d[k],)
        if k.endswith("s") and len(values) > RESOURCE_SLICE_MAX_ATTRIBUTE_VALUES_PER_DEVICE:
            errs.too_many(f"{path}.{k}", len(values), RESOURCE_SLICE_MAX_ATTRIBUTE_VALUES_PER_DEVICE)
        for x in values:
            if not isinstance(x, typ) or (typ is int and isinstance(x, bool)):
                raise ValueError(f"{path}.{k}: must be of type {typ.__name__}, got {x!r}")
            if not isinstance(x, str):
                continue
            if k in ("version", "versions") and not _SEMVER_RE.match(x):
                errs.invalid(f"{path}.{k}", x, "must be a string compatible with semver.org spec 2.0.0")
            if len(x) > DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH:
                errs.too_long(f"{path}.{k}", DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH)
    if len(present) != 1:
        errs.invalid(path, "" if not present else dict(d), "exactly one value must be specified")
        return None
    k = present[0]
    return DeviceAttribute(k, tuple(d[k]) if k.endswith("s") else d[k])


@dataclass(frozen=True, slots=True)
class DeviceCapacity:
    value: Fraction
    request_policy: Mapping[str, Any] | None = None  # consumable capacity (DRAConsumableCapacity)


@dataclass(frozen=True, slots=True)
class DeviceCounterConsumption:
    """One entry of a device's ``consumesCounters``. ``compatibility_groups`` (KEP-5963,
    DRADeviceCompatibilityGroups): devices drawing from the same counter set may be allocated
    together only when their groups intersect (or when none of them declares any)."""

    counter_set: str
    counters: Mapping[str, Fraction]
    compatibility_groups: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class CounterSet:
    name: str
    counters: Mapping[str, Fraction]


@dataclass(frozen=True, slots=True)
class Device:
    """One device of a slice. ``attributes`` and ``capacity`` are keyed by their qualified name
    as written (``model`` or ``gpu.example.com/model``)."""

    name: str
    attributes: Mapping[str, DeviceAttribute]
    capacity: Mapping[str, DeviceCapacity]
    consumes_counters: tuple[DeviceCounterConsumption, ...] = ()
    node_name: str | None = None
    node_selector: NodeSelector | None = None
    all_nodes: bool | None = None
    taints: tuple[DeviceTaint, ...] = ()
    binds_to_node: bool | None = None
    binding_conditions: tuple[str, ...] = ()
    binding_failure_conditions: tuple[str, ...] = ()
    allow_multiple_allocations: bool | None = None


def _counters(v: Any, path: str, errs: FieldErrors) -> Mapping[str, Fraction]:
    """A map of counter name (DNS label) -> Counter{value}; at most 32 per set."""
    m = f.mapping(v, path)
    if not m:
        errs.required(path)
        return {}
    if len(m) > RESOURCE_SLICE_MAX_COUNTERS_PER_COUNTER_SET:
        errs.too_many(path, len(m), RESOURCE_SLICE_MAX_COUNTERS_PER_COUNTER_SET)
        return {}
    out = {}
    for name, counter in m.items():
        p = f"{path}[{name}]"
        errs.invalid_all(p, str(name), is_dns1123_label(str(name)))
        out[str(name)] = _quantity(f.mapping(counter, p).get("value"), f"{p}.value")
    return out


def _binding_conditions(d: Mapping[str, Any], path: str, errs: FieldErrors) -> tuple[tuple[str, ...], ...]:
    out = []
    for fname in ("bindingConditions", "bindingFailureConditions"):
        p = f"{path}.{fname}"
        items = _items(f.sequence(d.get(fname), p), BINDING_CONDITIONS_MAX_SIZE, p, errs, _str)
        for i, c in enumerate(items):
            _label_name(c, f"{p}[{i}]", errs)
        _unique(items, lambda c: c, p, errs)
        out.append(items)
    return tuple(out)


def _device(v: Any, path: str, per_device_node_selection: bool, errs: FieldErrors) -> Device:
    """validateDevice."""
    d = f.mapping(v, path)
    name = _str(d.get("name"), f"{path}.name")
    errs.invalid_all(f"{path}.name", name, is_dns1123_label(name))
    raw_attrs = f.mapping(d.get("attributes"), f"{path}.attributes")
    raw_caps = f.mapping(d.get("capacity"), f"{path}.capacity")
    total = len(raw_attrs) + len(raw_caps)
    if total > RESOURCE_SLICE_MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE:
        errs.invalid(path, total, "the total number of attributes and capacities must not exceed "
                     f"{RESOURCE_SLICE_MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE}")
    attrs: dict[str, DeviceAttribute] = {}
    for key, attr in raw_attrs.items():
        p = f"{path}.attributes[{_truncate(str(key), _ATTRIBUTE_KEY_MAX_LENGTH)}]"
        validate_qualified_name(str(key), p, errs)
        parsed = _attribute(attr, p, errs)
        if parsed is not None:
            attrs[str(key)] = parsed
    multi = bool(_bool(d.get("allowMultipleAllocations"), f"{path}.allowMultipleAllocations"))
    caps: dict[str, DeviceCapacity] = {}
    for key, cap in raw_caps.items():
        p = f"{path}.capacity[{_truncate(str(key), _ATTRIBUTE_KEY_MAX_LENGTH)}]"
        validate_qualified_name(str(key), p, errs)
        c = f.mapping(cap, p)
        policy = c.get("requestPolicy")
        if policy is not None and not multi:
            errs.forbidden(f"{p}.requestPolicy", "allowMultipleAllocations must be true")
        request_policy = f.mapping(policy, f"{p}.requestPolicy") if policy is not None else None
        caps[str(key)] = DeviceCapacity(_quantity(c.get("value"), f"{p}.value"), request_policy)
    taints = _items(f.sequence(d.get("taints"), f"{path}.taints"), DEVICE_TAINTS_MAX_LENGTH, f"{path}.taints",
                    errs, lambda t, p: _taint(t, p, errs))

    def consumption(c: Any, p: str) -> DeviceCounterConsumption:
        c = f.mapping(c, p)
        cs = _str(c.get("counterSet"), f"{p}.counterSet")
        if not cs:
            errs.required(f"{p}.counterSet")
        else:
            errs.invalid_all(f"{p}.counterSet", cs, is_dns1123_label(cs))
        groups = _items(f.sequence(c.get("compatibilityGroups"), f"{p}.compatibilityGroups"),
                        RESOURCE_SLICE_MAX_COMPATIBILITY_GROUPS, f"{p}.compatibilityGroups", errs,
                        _str)
        _unique(groups, lambda g: g, f"{p}.compatibilityGroups", errs)
        return DeviceCounterConsumption(cs, _counters(c.get("counters"), f"{p}.counters", errs), groups)

    consumes = _items(f.sequence(d.get("consumesCounters"), f"{path}.consumesCounters"),
                      RESOURCE_SLICE_MAX_DEVICE_COUNTER_CONSUMPTIONS_PER_DEVICE, f"{path}.consumesCounters",
                      errs, consumption)
    _unique(consumes, lambda c: c.counter_set, f"{path}.consumesCounters", errs)
    node_name = _opt_str(d.get("nodeName"), f"{path}.nodeName")
    node_selector = _node_selector(d.get("nodeSelector"), f"{path}.nodeSelector", errs)
    all_nodes = _bool(d.get("allNodes"), f"{path}.allNodes")
    if per_device_node_selection:
        set_fields = []
        if node_name is not None:
            if node_name:
                set_fields.append("`nodeName`")
                errs.invalid_all(f"{path}.nodeName", node_name, is_dns1123_subdomain(node_name))
            else:
                errs.invalid(f"{path}.nodeName", node_name, "must not be empty")
        if d.get("nodeSelector") is not None:
            set_fields.append("`nodeSelector`")
        if all_nodes is not None:
            if all_nodes:
                set_fields.append("`allNodes`")
            else:
                errs.invalid(f"{path}.allNodes", False, "must be either unset or set to true")
        msg = ("exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when "
               "`perDeviceNodeSelection` is set to true in the ResourceSlice spec")
        if not set_fields:
            errs.required(path, msg)
        elif len(set_fields) > 1:
            errs.invalid(path, "{" + ", ".join(set_fields) + "}", msg)
    elif node_name is not None or d.get("nodeSelector") is not None or all_nodes is not None:
        errs.invalid(path, None, "`nodeName`, `nodeSelector` and `allNodes` can only be set if "
                     "`perDeviceNodeSelection` is set to true in the ResourceSlice spec")
    bc, bfc = _binding_conditions(d, path, errs)
    return Device(
        name, attrs, caps, consumes, node_name, node_selector, all_nodes, taints,
        _bool(d.get("bindsToNode"), f"{path}.bindsToNode"), bc, bfc,
        _bool(d.get("allowMultipleAllocations"), f"{path}.allowMultipleAllocations"),
    )


def _truncate(s: str, max_len: int) -> str:
    """truncateIfTooLong: long map keys in error paths are shortened in the middle."""
    max_len = max(max_len, 16)
    if len(s) <= max_len:
        return s
    remaining = max_len - 3
    return s[: (remaining + 1) // 2] + "..." + s[len(s) - remaining // 2:]


@dataclass(frozen=True, slots=True)
class ResourcePool:
    name: str
    generation: int
    resource_slice_count: int


@dataclass(frozen=True, slots=True, eq=False)
class ResourceSlice(ManifestObject):
    """resource.k8s.io/v1 ResourceSlice: some devices of one pool of one driver, and where they
    can be used (one node, a node selector, all nodes, or per device)."""

    raw: Mapping[str, Any]
    meta: ObjectMeta
    driver: str
    pool: ResourcePool
    node_name: str | None
    node_selector: NodeSelector | None
    all_nodes: bool
    per_device_node_selection: bool
    devices: tuple[Device, ...]
    shared_counters: tuple[CounterSet, ...]

    @staticmethod
    def from_dict(d: Mapping[str, Any]) -> ResourceSlice:
        """ValidateResourceSlice."""
        errs = FieldErrors()
        meta = _meta(d, errs)
        spec = f.mapping(d.get("spec"), "spec")
        driver = _str(spec.get("driver"), "spec.driver")
        _validate_driver_name(driver, "spec.driver", errs)
        pool_d = f.mapping(spec.get("pool"), "spec.pool")
        pool = ResourcePool(_str(pool_d.get("name"), "spec.pool.name"),
                            _int(pool_d.get("generation"), "spec.pool.generation") or 0,
                            _int(pool_d.get("resourceSliceCount"), "spec.pool.resourceSliceCount") or 0)
        _validate_pool_name(pool.name, "spec.pool.name", errs)
        if pool.resource_slice_count <= 0:
            errs.invalid("spec.pool.resourceSliceCount", pool.resource_slice_count,
                         "must be greater than zero")
        if pool.generation < 0:
            errs.invalid("spec.pool.generation", pool.generation, "must be greater than or equal to zero")
        set_fields = []
        node_name = _opt_str(spec.get("nodeName"), "spec.nodeName")
        if node_name is not None:
            if node_name:
                set_fields.append("`nodeName`")
                errs.invalid_all("spec.nodeName", node_name, is_dns1123_subdomain(node_name))
            else:
                errs.invalid("spec.nodeName", "", "must be either unset or set to a non-empty string")
        node_selector = _node_selector(spec.get("nodeSelector"), "spec.nodeSelector", errs)
        if spec.get("nodeSelector") is not None:
            set_fields.append("`nodeSelector`")
            terms = f.sequence(f.mapping(spec["nodeSelector"], "spec.nodeSelector").get("nodeSelectorTerms"),
                          "spec.nodeSelector.nodeSelectorTerms")
            if len(terms) != 1:
                errs.invalid("spec.nodeSelector.nodeSelectorTerms", list(terms),
                             "must have exactly one node selector term")
        all_nodes = _bool(spec.get("allNodes"), "spec.allNodes")
        per_device = _bool(spec.get("perDeviceNodeSelection"), "spec.perDeviceNodeSelection")
        for fname, flag in (("allNodes", all_nodes), ("perDeviceNodeSelection", per_device)):
            if flag:
                set_fields.append(f"`{fname}`")
            elif flag is not None:
                errs.invalid(f"spec.{fname}", False, "must be either unset or set to true")
        msg = "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"
        if not set_fields:
            errs.required("spec", msg)
        elif len(set_fields) > 1:
            errs.invalid("spec", "{" + ", ".join(set_fields) + "}", msg + ", but multiple fields are set")
        raw_devices = f.sequence(spec.get("devices"), "spec.devices")
        if spec.get("sharedCounters") is not None and spec.get("devices") is not None:
            errs.invalid("spec", "", "only one of `sharedCounters` or `devices` is allowed")
        advanced = any(isinstance(x, Mapping) and (x.get("taints") or x.get("consumesCounters"))
                       for x in raw_devices)
        # ResourceSliceMaxDevicesWithAdvancedFeatures: taints or counters lower the limit.
        max_devices = (RESOURCE_SLICE_MAX_DEVICES_WITH_ADVANCED_FEATURES if advanced
                       else RESOURCE_SLICE_MAX_DEVICES)
        devices = _items(raw_devices, max_devices, "spec.devices", errs,
                         lambda x, p: _device(x, p, bool(per_device), errs))
        _unique(devices, lambda x: x.name, "spec.devices", errs)

        def counter_set(c: Any, p: str) -> CounterSet:
            c = f.mapping(c, p)
            name = _str(c.get("name"), f"{p}.name")
            if not name:
                errs.required(f"{p}.name")
            else:
                errs.invalid_all(f"{p}.name", name, is_dns1123_label(name))
            return CounterSet(name, _counters(c.get("counters"), f"{p}.counters", errs))

        shared = _items(f.sequence(spec.get("sharedCounters"), "spec.sharedCounters"),
                        RESOURCE_SLICE_MAX_COUNTER_SETS, "spec.sharedCounters", errs, counter_set)
        _unique(shared, lambda c: c.name, "spec.sharedCounters", errs)
        errs.raise_if_any()
        return ResourceSlice(d, meta, driver, pool, node_name or None, node_selector, bool(all_nodes),
                             bool(per_device), devices, shared)


# -- DeviceTaintRule ---------------------------------------------------------------------------
@dataclass(frozen=True, slots=True, eq=False)
class DeviceTaintRule(ManifestObject):
    """resource.k8s.io DeviceTaintRule: a taint added to the devices the selector picks
    (driver, pool, device; unset fields match all). No ``deviceSelector`` at all passes
    validation too (validateDeviceTaintSelector returns nothing for nil) and the ResourceSlice
    tracker's applyPatches then taints every device, whatever the API comment says ("without
    a selector, no devices are matched"): kubesched follows the code.

    ``device_class_name`` and ``selectors`` (CEL expressions) are v1alpha3's of 1.33 and 1.34,
    removed in 1.35 (kubernetes#134152): only a release that still has them applies them
    (``DEVICE_TAINT_RULES_OWN_GATE`` in plugins/helper/dra)."""

    raw: Mapping[str, Any]
    meta: ObjectMeta
    driver: str | None
    pool: str | None
    device: str | None
    taint: DeviceTaint
    device_class_name: str | None = None
    selectors: tuple[str, ...] = ()

    @property
    def selects_by_class_or_cel(self) -> bool:
        """Selects by the 1.33/1.34 fields (deviceClassName, CEL selectors)."""
        return self.device_class_name is not None or bool(self.selectors)

    @staticmethod
    def from_dict(d: Mapping[str, Any]) -> DeviceTaintRule:
        """ValidateDeviceTaintRule (validateDeviceTaintSelector of 1.34 for the class and CEL
        selectors)."""
        errs = FieldErrors()
        meta = _meta(d, errs)
        spec = f.mapping(d.get("spec"), "spec")
        sel = f.mapping(spec.get("deviceSelector"), "spec.deviceSelector")
        p = "spec.deviceSelector"
        driver = _opt_str(sel.get("driver"), f"{p}.driver")
        pool = _opt_str(sel.get("pool"), f"{p}.pool")
        device = _opt_str(sel.get("device"), f"{p}.device")
        class_name = _opt_str(sel.get("deviceClassName"), f"{p}.deviceClassName")
        selectors = _selectors(sel.get("selectors"), f"{p}.selectors", errs)
        if class_name is not None:
            errs.invalid_all(f"{p}.deviceClassName", class_name, is_dns1123_subdomain(class_name))
        if driver is not None:
            _validate_driver_name(driver, f"{p}.driver", errs)
        if pool is not None:
            _validate_pool_name(pool, f"{p}.pool", errs)
        if device is not None:
            errs.invalid_all(f"{p}.device", device, is_dns1123_label(device))
        taint = _taint(spec.get("taint"), "spec.taint", errs)
        errs.raise_if_any()
        return DeviceTaintRule(d, meta, driver, pool, device, taint, class_name, selectors)
