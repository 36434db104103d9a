"""``resource.k8s.io/v1``: the Dynamic Resource Allocation kinds.

DeviceClass, ResourceClaim, ResourceClaimTemplate, ResourceSlice and DeviceTaintRule, parsed
into typed, immutable objects (k8s.io/api/resource/v1/types.go, master 2026) and checked with
the API server's validation (pkg/apis/resource/validation/validation.go): names and formats,
required fields, enum values, list and map limits, with upstream's field paths and messages.
Every error of an object is reported at once, as ``kubectl apply`` shows them. The CEL
selectors are compiled when the store admits the object (:mod:`kubesched.dra`), as the API
server's validation compiles them. Each kind keeps its manifest in ``raw`` for round trips.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Final, TypeVar

from . import _fields as f
from ._meta import ManifestObject, ObjectMeta, parse_time
from ._meta import scalar_metadata_only as _scalar_metadata_only
from ._quantity import QuantityError, parse_quantity
from ._raw import Path, with_paths
from ._selectors import NodeSelector, SelectorError
from ._util_validation import (
    FieldErrors,
    c_identifier_errors,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_extended_resource_name,
    label_value_errors,
    qualified_name_errors,
)

__all__ = [
    "ALLOCATION_RESULTS_MAX_SIZE",
    "CEL_SELECTOR_EXPRESSION_MAX_COST",
    "CEL_SELECTOR_EXPRESSION_MAX_LENGTH",
    "AllocationResult",
    "DeviceClaim",
    "DeviceClass",
    "DeviceConfiguration",
    "DeviceConstraint",
    "DeviceRequest",
    "DeviceRequestAllocationResult",
    "DeviceSubRequest",
    "DeviceTaint",
    "DeviceToleration",
    "ExactDeviceRequest",
    "ResourceClaim",
    "ResourceClaimConsumerReference",
    "ResourceClaimTemplate",
]

# Limits of k8s.io/api/resource/v1 (types.go).
DRIVER_NAME_MAX_LENGTH: Final = 63
POOL_NAME_MAX_LENGTH: Final = 253
DEVICE_MAX_ID_LENGTH: Final = 32
DEVICE_TAINTS_MAX_LENGTH: Final = 16
ALLOCATION_RESULTS_MAX_SIZE: Final = 32
DEVICE_REQUESTS_MAX_SIZE: Final = ALLOCATION_RESULTS_MAX_SIZE
DEVICE_CONSTRAINTS_MAX_SIZE: Final = 32
DEVICE_CONFIG_MAX_SIZE: Final = 32
DEVICE_SELECTORS_MAX_SIZE: Final = 32
FIRST_AVAILABLE_DEVICE_REQUEST_MAX_SIZE: Final = 8
DEVICE_TOLERATIONS_MAX_LENGTH: Final = 16
CEL_SELECTOR_EXPRESSION_MAX_COST: Final = 1_000_000
CEL_SELECTOR_EXPRESSION_MAX_LENGTH: Final = 10 * 1024
OPAQUE_PARAMETERS_MAX_LENGTH: Final = 10 * 1024
RESOURCE_CLAIM_RESERVED_FOR_MAX_SIZE: Final = 256

ALLOCATION_MODES: Final = ("All", "ExactCount")
TAINT_EFFECTS: Final = ("NoExecute", "NoSchedule", "None")  # sets.List order: sorted
TOLERATION_OPERATORS: Final = ("Equal", "Exists")
CONFIG_SOURCES: Final = ("FromClaim", "FromClass")

T = TypeVar("T")
K = TypeVar("K")


# -- shape helpers: a field of the wrong JSON type is refused as the API server's decoder does
# (objects and lists through the project's field readers, ``_fields.mapping`` / ``sequence``) --
def _str(v: Any, path: str) -> str:
    if v is None:
        return ""
    if not isinstance(v, str):
        raise ValueError(f"{path}: must be a string, got {v!r}")
    return v


def _opt_str(v: Any, path: str) -> str | None:
    return None if v is None else _str(v, path)


def _bool(v: Any, path: str) -> bool | None:
    if v is None:
        return None
    if not isinstance(v, bool):
        raise ValueError(f"{path}: must be a boolean, got {v!r}")
    return v


def _int(v: Any, path: str) -> int | None:
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int):
        raise ValueError(f"{path}: must be an integer, got {v!r}")
    return v


def _quantity(v: Any, path: str) -> Fraction:
    try:
        return parse_quantity(v)
    except (QuantityError, ValueError, TypeError) as exc:
        raise ValueError(f"{path}: {exc}") from exc


def _node_selector(v: Any, path: str, errs: FieldErrors) -> NodeSelector | None:
    if v is None:
        return None
    try:
        return NodeSelector.from_dict(f.mapping(v, path), path)
    except SelectorError as exc:
        errs.errors.append(str(exc))
        return None


def _items(items: Sequence[T], max_size: int, path: str, errs: FieldErrors,
           parse: Callable[[Any, str], T | None]) -> tuple[T, ...]:
    """validateSlice: too many items is one error (checked first, nothing else is looked at, as
    upstream does against huge inputs); else each item is parsed and validated."""
    if max_size >= 0 and len(items) > max_size:
        errs.too_many(path, len(items), max_size)
        return ()
    out = [parse(item, f"{path}[{i}]") for i, item in enumerate(items)]
    return tuple(x for x in out if x is not None)


def _unique(values: Sequence[Any], key: Callable[[Any], K], path: str, errs: FieldErrors) -> None:
    """validateSet's uniqueness check: the second occurrence of a key is a Duplicate value."""
    seen: set[K] = set()
    for i, v in enumerate(values):
        k = key(v)
        if k in seen:
            errs.duplicate(f"{path}[{i}]", k)
        seen.add(k)


# -- name formats -------------------------------------------------------------------------------
def _validate_driver_name(name: str, path: str, errs: FieldErrors) -> None:
    """ValidateCSIDriverName: required, at most 63 characters, a DNS subdomain (case-insensitive)."""
    if not name:
        errs.required(path)
        return
    if len(name) > DRIVER_NAME_MAX_LENGTH:
        errs.too_long(path, DRIVER_NAME_MAX_LENGTH)
    errs.invalid_all(path, name, is_dns1123_subdomain(name.lower()))


def _validate_pool_name(name: str, path: str, errs: FieldErrors) -> None:
    if not name:
        errs.required(path)
        return
    if len(name) > POOL_NAME_MAX_LENGTH:
        errs.too_long(path, POOL_NAME_MAX_LENGTH)
    for part in name.split("/"):
        errs.invalid_all(path, part, is_dns1123_subdomain(part))


def _validate_c_identifier(name: str, path: str, errs: FieldErrors) -> None:
    if len(name) > DEVICE_MAX_ID_LENGTH:
        errs.too_long(path, DEVICE_MAX_ID_LENGTH)
    errs.invalid_all(path, name, c_identifier_errors(name))


def validate_qualified_name(name: str, path: str, errs: FieldErrors) -> None:
    """validateQualifiedName: ``id`` or ``domain/id`` (an attribute or capacity name)."""
    parts = name.split("/")
    if len(parts) == 1:
        _validate_c_identifier(parts[0], path, errs)
    elif len(parts) == 2:
        if not parts[0]:
            errs.invalid(path, "", "the domain must not be empty")
        else:
            _validate_driver_name(parts[0], path, errs)
        if not parts[1]:
            errs.invalid(path, "", "the name must not be empty")
        else:
            _validate_c_identifier(parts[1], path, errs)


def _validate_fully_qualified_name(name: str, path: str, errs: FieldErrors) -> None:
    validate_qualified_name(name, path, errs)
    if "/" not in name:
        errs.invalid(path, name, "a fully qualified name must be a domain and a name separated by a slash")


def _validate_request_name(name: str, path: str, errs: FieldErrors) -> None:
    errs.invalid_all(path, name, is_dns1123_label(name))


def _label_name(key: str, path: str, errs: FieldErrors) -> None:
    """metav1validation.ValidateLabelName."""
    errs.invalid_all(path, key, qualified_name_errors(key))


def _meta(d: Mapping[str, Any], errs: FieldErrors) -> ObjectMeta:
    """ObjectMeta with ValidateObjectMeta's name check (every DRA kind's name is a DNS subdomain)."""
    meta = ObjectMeta.from_dict(f.mapping(d.get("metadata"), "metadata"))
    if not meta.name:
        errs.required("metadata.name", "name or generateName is required")
    else:
        errs.invalid_all("metadata.name", meta.name, is_dns1123_subdomain(meta.name))
    return meta


# -- selectors, config, tolerations, taints ------------------------------------------------------
def _selectors(v: Any, path: str, errs: FieldErrors) -> tuple[str, ...]:
    """A list of DeviceSelector, kept as their CEL expressions (the only kind of selector).
    validateSelector; the expression itself is compiled at admission (kubesched.dra)."""

    def one(s: Any, p: str) -> str | None:
        s = f.mapping(s, p)
        cel = s.get("cel")
        if cel is None:
            errs.required(f"{p}.cel")
            return None
        expr = _str(f.mapping(cel, f"{p}.cel").get("expression"), f"{p}.cel.expression")
        if len(expr) > CEL_SELECTOR_EXPRESSION_MAX_LENGTH:
            errs.too_long(f"{p}.cel.expression", CEL_SELECTOR_EXPRESSION_MAX_LENGTH)
            return None
        return expr

    return _items(f.sequence(v, path), DEVICE_SELECTORS_MAX_SIZE, path, errs, one)


@dataclass(frozen=True, slots=True)
class DeviceConfiguration:
    """DeviceClassConfiguration / DeviceClaimConfiguration: opaque driver parameters, for the
    requests named (claim config; empty: all requests)."""

    driver: str
    parameters: Mapping[str, Any]
    requests: tuple[str, ...] = ()


def _opaque(d: Mapping[str, Any], path: str, errs: FieldErrors) -> tuple[str, Mapping[str, Any]]:
    opaque = d.get("opaque")
    if opaque is None:
        errs.required(f"{path}.opaque")
        return "", {}
    opaque = f.mapping(opaque, f"{path}.opaque")
    driver = _str(opaque.get("driver"), f"{path}.opaque.driver")
    _validate_driver_name(driver, f"{path}.opaque.driver", errs)
    params = opaque.get("parameters")
    if params is None:
        errs.required(f"{path}.opaque.parameters")
        params = {}
    elif not isinstance(params, Mapping):
        errs.invalid(f"{path}.opaque.parameters", "<value omitted>", "must be a valid JSON object")
        params = {}
    elif len(_json_text(params)) > OPAQUE_PARAMETERS_MAX_LENGTH:
        errs.too_long(f"{path}.opaque.parameters", OPAQUE_PARAMETERS_MAX_LENGTH)
    return driver, params


def _json_text(v: Any) -> str:
    return json.dumps(v, separators=(",", ":"), default=str)


@dataclass(frozen=True, slots=True)
class DeviceToleration:
    key: str = ""
    operator: str = "Equal"
    value: str = ""
    effect: str = ""
    toleration_seconds: int | None = None


def _toleration(v: Any, path: str, errs: FieldErrors) -> DeviceToleration:
    """validateDeviceToleration. The operator defaults to Equal (the v1 defaulting)."""
    d = f.mapping(v, path)
    key = _str(d.get("key"), f"{path}.key")
    op = _str(d.get("operator"), f"{path}.operator") or "Equal"
    value = _str(d.get("value"), f"{path}.value")
    effect = _str(d.get("effect"), f"{path}.effect")
    if key:
        _label_name(key, f"{path}.key", errs)
    if op == "Exists":
        if value:
            errs.invalid(f"{path}.value", value, "must be empty for operator `Exists`")
    elif op == "Equal":
        errs.invalid_all(f"{path}.value", value, label_value_errors(value))
    else:
        errs.not_supported(f"{path}.operator", op, TOLERATION_OPERATORS)
    if effect and effect not in TAINT_EFFECTS:
        errs.not_supported(f"{path}.effect", effect, TAINT_EFFECTS)
    seconds = _int(d.get("tolerationSeconds"), f"{path}.tolerationSeconds")
    return DeviceToleration(key, op, value, effect, seconds)


def _tolerations(v: Any, path: str, errs: FieldErrors) -> tuple[DeviceToleration, ...]:
    return _items(f.sequence(v, path), DEVICE_TOLERATIONS_MAX_LENGTH, path, errs,
                  lambda t, p: _toleration(t, p, errs))


@dataclass(frozen=True, slots=True)
class DeviceTaint:
    key: str
    value: str
    effect: str  # NoSchedule | NoExecute | None
    time_added: float | None = None


def _taint(v: Any, path: str, errs: FieldErrors) -> DeviceTaint:
    """validateDeviceTaint."""
    d = f.mapping(v, path)
    key = _str(d.get("key"), f"{path}.key")
    value = _str(d.get("value"), f"{path}.value")
    effect = _str(d.get("effect"), f"{path}.effect")
    _label_name(key, f"{path}.key", errs)
    if value:
        errs.invalid_all(f"{path}.value", value, label_value_errors(value))
    if not effect:
        errs.required(f"{path}.effect")
    elif effect not in TAINT_EFFECTS:
        errs.not_supported(f"{path}.effect", effect, TAINT_EFFECTS)
    return DeviceTaint(key, value, effect, parse_time(d.get("timeAdded")))


# -- DeviceClass -------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True, eq=False)
class DeviceClass(ManifestObject):
    """resource.k8s.io/v1 DeviceClass: selectors every device of the class must match, config
    handed to drivers, and the extended resource name it serves (DRAExtendedResource)."""

    raw: Mapping[str, Any]
    meta: ObjectMeta
    selectors: tuple[str, ...]
    config: tuple[DeviceConfiguration, ...]
    extended_resource_name: str | None

    @staticmethod
    def from_dict(d: Mapping[str, Any]) -> DeviceClass:
        """ValidateDeviceClass."""
        errs = FieldErrors()
        meta = _meta(d, errs)
        spec = f.mapping(d.get("spec"), "spec")
        selectors = _selectors(spec.get("selectors"), "spec.selectors", errs)

        def config(c: Any, p: str) -> DeviceConfiguration:
            driver, params = _opaque(f.mapping(c, p), p, errs)
            return DeviceConfiguration(driver, params)

        configs = _items(f.sequence(spec.get("config"), "spec.config"), DEVICE_CONFIG_MAX_SIZE,
                         "spec.config", errs, config)
        ern = _opt_str(spec.get("extendedResourceName"), "spec.extendedResourceName")
        if ern is not None and not is_extended_resource_name(ern):
            errs.invalid("spec.extendedResourceName", ern, "must be a valid extended resource name")
        errs.raise_if_any()
        return DeviceClass(d, meta, selectors, configs, ern)


# -- ResourceClaim -----------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class ExactDeviceRequest:
    device_class_name: str
    selectors: tuple[str, ...] = ()
    allocation_mode: str = "ExactCount"
    count: int = 1
    admin_access: bool | None = None
    tolerations: tuple[DeviceToleration, ...] = ()
    capacity: Mapping[str, Fraction] | None = None  # capacity.requests


@dataclass(frozen=True, slots=True)
class DeviceSubRequest:
    name: str
    device_class_name: str
    selectors: tuple[str, ...] = ()
    allocation_mode: str = "ExactCount"
    count: int = 1
    tolerations: tuple[DeviceToleration, ...] = ()
    capacity: Mapping[str, Fraction] | None = None


@dataclass(frozen=True, slots=True)
class DeviceRequest:
    """One request of a claim: ``exactly`` or an ordered list of ``firstAvailable`` alternatives."""

    name: str
    exactly: ExactDeviceRequest | None = None
    first_available: tuple[DeviceSubRequest, ...] = ()


@dataclass(frozen=True, slots=True)
class DeviceConstraint:
    requests: tuple[str, ...] = ()  # empty: all requests
    match_attribute: str | None = None
    distinct_attribute: str | None = None


@dataclass(frozen=True, slots=True)
class DeviceClaim:
    requests: tuple[DeviceRequest, ...] = ()
    constraints: tuple[DeviceConstraint, ...] = ()
    config: tuple[DeviceConfiguration, ...] = ()


def _request_fields(d: Mapping[str, Any], path: str, errs: FieldErrors) -> dict[str, Any]:
    """The fields ExactDeviceRequest and DeviceSubRequest share, validated as
    validateExactDeviceRequest / validateDeviceSubRequest. allocationMode defaults to
    ExactCount and count to 1 for ExactCount (SetDefaults_ExactDeviceRequest)."""
    dcn = _str(d.get("deviceClassName"), f"{path}.deviceClassName")
    if not dcn:
        errs.required(f"{path}.deviceClassName")
    else:
        errs.invalid_all(f"{path}.deviceClassName", dcn, is_dns1123_subdomain(dcn))
    mode = _str(d.get("allocationMode"), f"{path}.allocationMode") or "ExactCount"
    count = _int(d.get("count"), f"{path}.count")
    if mode == "All":
        if count:
            errs.invalid(f"{path}.count", count, "must not be specified when allocationMode is 'All'")
        count = 0
    elif mode == "ExactCount":
        count = 1 if count is None else count
        if count <= 0:
            errs.invalid(f"{path}.count", count, "must be greater than zero")
    else:
        errs.not_supported(f"{path}.allocationMode", mode, ALLOCATION_MODES)
    capacity = None
    if d.get("capacity") is not None:
        reqs = f.mapping(f.mapping(d.get("capacity"), f"{path}.capacity").get("requests"),
                         f"{path}.capacity.requests")
        capacity = {}
        for name, q in reqs.items():
            p = f"{path}.capacity.requests[{name}]"
            validate_qualified_name(str(name), p, errs)
            capacity[str(name)] = _quantity(q, p)
    return {
        "device_class_name": dcn,
        "selectors": _selectors(d.get("selectors"), f"{path}.selectors", errs),
        "allocation_mode": mode,
        "count": count or 0,
        "tolerations": _tolerations(d.get("tolerations"), f"{path}.tolerations", errs),
        "capacity": capacity,
    }


def _device_request(v: Any, path: str, errs: FieldErrors) -> DeviceRequest:
    """validateDeviceRequest."""
    d = f.mapping(v, path)
    name = _str(d.get("name"), f"{path}.name")
    _validate_request_name(name, f"{path}.name", errs)
    exactly = d.get("exactly")
    first = f.sequence(d.get("firstAvailable"), f"{path}.firstAvailable")
    if exactly is None and not first:
        errs.required(path, "exactly one of `exactly` or `firstAvailable` is required")
        return DeviceRequest(name)
    if exactly is not None and first:
        errs.invalid(path, None, "exactly one of `exactly` or `firstAvailable` is required, but multiple "
                     "fields are set")
        return DeviceRequest(name)
    if exactly is not None:
        e = f.mapping(exactly, f"{path}.exactly")
        return DeviceRequest(name, exactly=ExactDeviceRequest(
            admin_access=_bool(e.get("adminAccess"), f"{path}.exactly.adminAccess"),
            **_request_fields(e, f"{path}.exactly", errs)))

    def sub(s: Any, p: str) -> DeviceSubRequest:
        s = f.mapping(s, p)
        sub_name = _str(s.get("name"), f"{p}.name")
        _validate_request_name(sub_name, f"{p}.name", errs)
        return DeviceSubRequest(sub_name, **_request_fields(s, p, errs))

    subs = _items(first, FIRST_AVAILABLE_DEVICE_REQUEST_MAX_SIZE, f"{path}.firstAvailable", errs, sub)
    _unique(subs, lambda s: s.name, f"{path}.firstAvailable", errs)
    return DeviceRequest(name, first_available=subs)


_RequestNames = Mapping[str, frozenset[str]]
"""A claim's request names, each with the names of its firstAvailable sub-requests."""

_REQUEST_REF_MSG: Final = ("must be the name of a request in the claim or the name of a request and a "
                            "subrequest separated by '/'")


def _check_request_ref(ref: str, path: str, names: _RequestNames, errs: FieldErrors) -> None:
    """validateRequestNameRef: ``request`` or ``request/subrequest`` of this claim."""
    segments = ref.split("/")
    if len(segments) > 2:
        errs.invalid(path, ref, _REQUEST_REF_MSG)
        return
    for seg in segments:
        _validate_request_name(seg, path, errs)
    if segments[0] not in names or (len(segments) == 2 and segments[1] not in names[segments[0]]):
        errs.invalid(path, ref, _REQUEST_REF_MSG)


def _request_refs(v: Any, path: str, names: _RequestNames, errs: FieldErrors) -> tuple[str, ...]:
    """A list of request references, unique, at most 32."""

    def one(ref: Any, p: str) -> str:
        ref = _str(ref, p)
        _check_request_ref(ref, p, names, errs)
        return ref

    refs = _items(f.sequence(v, path), DEVICE_REQUESTS_MAX_SIZE, path, errs, one)
    _unique(refs, lambda r: r, path, errs)
    return refs


def _device_claim(v: Any, path: str, errs: FieldErrors) -> DeviceClaim:
    """validateDeviceClaim: requests (unique names), constraints, config."""
    d = f.mapping(v, path)
    requests = _items(f.sequence(d.get("requests"), f"{path}.requests"), DEVICE_REQUESTS_MAX_SIZE,
                      f"{path}.requests", errs, lambda r, p: _device_request(r, p, errs))
    _unique(requests, lambda r: r.name, f"{path}.requests", errs)
    names = {r.name: frozenset(s.name for s in r.first_available) for r in requests}

    def constraint(c: Any, p: str) -> DeviceConstraint:
        c = f.mapping(c, p)
        refs = _request_refs(c.get("requests"), f"{p}.requests", names, errs)
        match = _opt_str(c.get("matchAttribute"), f"{p}.matchAttribute")
        distinct = _opt_str(c.get("distinctAttribute"), f"{p}.distinctAttribute")
        if match is not None:
            _validate_fully_qualified_name(match, f"{p}.matchAttribute", errs)
        elif distinct is not None:
            _validate_fully_qualified_name(distinct, f"{p}.distinctAttribute", errs)
        else:
            # DRAConsumableCapacity (beta, on by default) words it this way.
            errs.required(p, 'exactly one of "matchAttribute" or "distinctAttribute" is required, '
                          "but multiple fields are set")
        return DeviceConstraint(refs, match, distinct)

    def config(c: Any, p: str) -> DeviceConfiguration:
        c = f.mapping(c, p)
        refs = _request_refs(c.get("requests"), f"{p}.requests", names, errs)
        driver, params = _opaque(c, p, errs)
        return DeviceConfiguration(driver, params, refs)

    return DeviceClaim(
        requests,
        _items(f.sequence(d.get("constraints"), f"{path}.constraints"), DEVICE_CONSTRAINTS_MAX_SIZE,
               f"{path}.constraints", errs, constraint),
        _items(f.sequence(d.get("config"), f"{path}.config"), DEVICE_CONFIG_MAX_SIZE, f"{path}.config", errs,
               config),
    )


@dataclass(frozen=True, slots=True)
class DeviceRequestAllocationResult:
    request: str  # "request" or "request/subrequest"
    driver: str
    pool: str
    device: str
    admin_access: bool | None = None
    tolerations: tuple[DeviceToleration, ...] = ()
    share_id: str | None = None
    consumed_capacity: Mapping[str, Fraction] | None = None
    binding_conditions: tuple[str, ...] = ()
    binding_failure_conditions: tuple[str, ...] = ()
    # DRADeviceCompatibilityGroups: counter set -> the groups the device declared for it when
    # it was allocated (written as {counterSet: {groups: [...]}}); later allocations are
    # checked against this snapshot, not against the slice as it is now.
    compatibility_groups: Mapping[str, tuple[str, ...]] | None = None


@dataclass(frozen=True, slots=True)
class AllocationResult:
    results: tuple[DeviceRequestAllocationResult, ...]
    config: tuple[Mapping[str, Any], ...]
    node_selector: NodeSelector | None
    allocation_timestamp: float | None


@dataclass(frozen=True, slots=True)
class ResourceClaimConsumerReference:
    api_group: str
    resource: str
    name: str
    uid: str


def _allocation(v: Any, path: str, names: _RequestNames, errs: FieldErrors) -> AllocationResult:
    """validateAllocationResult (the parts a dumped claim can get wrong)."""
    d = f.mapping(v, path)
    devices = f.mapping(d.get("devices"), f"{path}.devices")

    def result(r: Any, p: str) -> DeviceRequestAllocationResult:
        r = f.mapping(r, p)
        request = _str(r.get("request"), f"{p}.request")
        _check_request_ref(request, f"{p}.request", names, errs)
        driver = _str(r.get("driver"), f"{p}.driver")
        _validate_driver_name(driver, f"{p}.driver", errs)
        pool = _str(r.get("pool"), f"{p}.pool")
        _validate_pool_name(pool, f"{p}.pool", errs)
        device = _str(r.get("device"), f"{p}.device")
        errs.invalid_all(f"{p}.device", device, is_dns1123_label(device))
        consumed = r.get("consumedCapacity")
        groups = r.get("compatibilityGroups")
        return DeviceRequestAllocationResult(
            request, driver, pool, device,
            admin_access=_bool(r.get("adminAccess"), f"{p}.adminAccess"),
            tolerations=_tolerations(r.get("tolerations"), f"{p}.tolerations", errs),
            share_id=_opt_str(r.get("shareID"), f"{p}.shareID"),
            consumed_capacity=None if consumed is None else {
                str(k): _quantity(q, f"{p}.consumedCapacity[{k}]")
                for k, q in f.mapping(consumed, f"{p}.consumedCapacity").items()},
            binding_conditions=tuple(_str(c, p) for c in f.sequence(r.get("bindingConditions"), p)),
            binding_failure_conditions=tuple(_str(c, p)
                                             for c in f.sequence(r.get("bindingFailureConditions"), p)),
            compatibility_groups=None if groups is None else {
                str(k): tuple(_str(g, f"{p}.compatibilityGroups[{k}].groups") for g in f.sequence(
                    f.mapping(v, f"{p}.compatibilityGroups[{k}]").get("groups"),
                    f"{p}.compatibilityGroups[{k}].groups"))
                for k, v in f.mapping(groups, f"{p}.compatibilityGroups").items()},
        )

    results = _items(f.sequence(devices.get("results"), f"{path}.devices.results"),
                     ALLOCATION_RESULTS_MAX_SIZE, f"{path}.devices.results", errs, result)
    config = tuple(f.mapping(c, f"{path}.devices.config[{i}]")
                   for i, c in enumerate(f.sequence(devices.get("config"), f"{path}.devices.config")))
    return AllocationResult(
        results, config,
        _node_selector(d.get("nodeSelector"), f"{path}.nodeSelector", errs),
        parse_time(d.get("allocationTimestamp")),
    )


def _reserved_for(v: Any, path: str, errs: FieldErrors) -> tuple[ResourceClaimConsumerReference, ...]:
    def one(r: Any, p: str) -> ResourceClaimConsumerReference:
        r = f.mapping(r, p)
        ref = ResourceClaimConsumerReference(
            _str(r.get("apiGroup"), f"{p}.apiGroup"), _str(r.get("resource"), f"{p}.resource"),
            _str(r.get("name"), f"{p}.name"), _str(r.get("uid"), f"{p}.uid"))
        for fname, val in (("resource", ref.resource), ("name", ref.name), ("uid", ref.uid)):
            if not val:
                errs.required(f"{p}.{fname}")
        return ref

    refs = _items(f.sequence(v, path), RESOURCE_CLAIM_RESERVED_FOR_MAX_SIZE, path, errs, one)
    _unique(refs, lambda r: r.uid, path, errs)
    return refs


def _claim_spec(v: Any, path: str, errs: FieldErrors) -> DeviceClaim:
    return _device_claim(f.mapping(v, path).get("devices"), f"{path}.devices", errs)


@dataclass(frozen=True, slots=True, eq=False)
class ResourceClaim(ManifestObject):
    """resource.k8s.io/v1 ResourceClaim: the devices requested and, once allocated, the
    allocation and the pods it is reserved for."""

    raw: Mapping[str, Any]
    meta: ObjectMeta
    devices: DeviceClaim
    allocation: AllocationResult | None
    reserved_for: tuple[ResourceClaimConsumerReference, ...]
    device_statuses: tuple[Mapping[str, Any], ...]

    @property
    def is_allocated(self) -> bool:
        return self.allocation is not None

    @staticmethod
    def from_dict(d: Mapping[str, Any]) -> ResourceClaim:
        """ValidateResourceClaim, plus the status checks of ValidateResourceClaimStatusUpdate
        that a claim loaded with its status (a cluster dump) must pass."""
        return ResourceClaim._parse(d, None)

    def with_changes(self, changes: Mapping[Path, Any]) -> ResourceClaim:
        """ManifestObject.with_changes; an edit that leaves ``spec`` alone (the status a
        scheduler writes, a finalizer) keeps the parsed spec instead of parsing it again (a
        claim's spec is immutable once created, and validated when it was)."""
        if any(not path or path[0] == "spec" for path in changes) or _scalar_metadata_only(changes):
            return ManifestObject.with_changes(self, changes)
        return ResourceClaim._parse(with_paths(self.raw, changes), self.devices)

    def status_update_error(self, old: ResourceClaim) -> str | None:
        """ValidateResourceClaimStatusUpdate's rule on a populated allocation: it may be
        removed but never changed (ValidateImmutableField); the API server's message, with the
        new value printed as its internal type (apimachinery field.Invalid), or None."""
        new_allocation = f.mapping(self.raw.get("status"), "status").get("allocation")
        old_allocation = f.mapping(old.raw.get("status"), "status").get("allocation")
        if new_allocation is None or old_allocation is None or new_allocation == old_allocation:
            return None
        value = json.dumps(_internal_allocation(new_allocation), separators=(",", ":"))
        return (f'ResourceClaim.resource.k8s.io "{self.meta.name}" is invalid: status.allocation: '
                f"Invalid value: {value}: field is immutable")

    @staticmethod
    def _parse(d: Mapping[str, Any], devices: DeviceClaim | None) -> ResourceClaim:
        errs = FieldErrors()
        meta = _meta(d, errs)
        if devices is None:
            devices = _claim_spec(d.get("spec"), "spec", errs)
        status = f.mapping(d.get("status"), "status")
        names = {r.name: frozenset(s.name for s in r.first_available) for r in devices.requests}
        allocation = (_allocation(status["allocation"], "status.allocation", names, errs)
                      if status.get("allocation") is not None else None)
        reserved = _reserved_for(status.get("reservedFor"), "status.reservedFor", errs)
        if reserved and allocation is None:
            errs.forbidden("status.reservedFor", "may not be specified when `allocated` is not set")
        statuses = tuple(f.mapping(s, f"status.devices[{i}]")
                         for i, s in enumerate(f.sequence(status.get("devices"), "status.devices")))
        errs.raise_if_any()
        return ResourceClaim(d, meta, devices, allocation, reserved, statuses)


@dataclass(frozen=True, slots=True, eq=False)
class ResourceClaimTemplate(ManifestObject):
    """resource.k8s.io/v1 ResourceClaimTemplate: the claim the resourceclaim controller creates
    for each pod that references the template (labels and annotations from ``spec.metadata``)."""

    raw: Mapping[str, Any]
    meta: ObjectMeta
    claim_labels: Mapping[str, str]
    claim_annotations: Mapping[str, str]
    devices: DeviceClaim

    @staticmethod
    def from_dict(d: Mapping[str, Any]) -> ResourceClaimTemplate:
        """ValidateResourceClaimTemplate."""
        errs = FieldErrors()
        meta = _meta(d, errs)
        spec = f.mapping(d.get("spec"), "spec")
        tmeta = ObjectMeta.from_dict(f.mapping(spec.get("metadata"), "spec.metadata"))
        devices = _claim_spec(spec.get("spec"), "spec.spec", errs)
        errs.raise_if_any()
        return ResourceClaimTemplate(d, meta, tmeta.labels, tmeta.annotations, devices)


def _internal_allocation(a: Mapping[str, Any]) -> dict[str, Any]:
    """An allocation as the API server's internal type marshals to JSON (k8s.io/kubernetes
    pkg/apis/resource AllocationResult: no json tags, so Go's field names; nil is null)."""
    devices = a.get("devices") or {}
    results = devices.get("results")
    terms = (a.get("nodeSelector") or {}).get("nodeSelectorTerms") if a.get("nodeSelector") else None

    def requirements(reqs: Any) -> list[dict[str, Any]] | None:
        if reqs is None:
            return None
        return [{"Key": r.get("key", ""), "Operator": r.get("operator", ""), "Values": r.get("values")}
                for r in reqs]

    return {
        "Devices": {
            "Results": None if results is None else [{
                "Request": r.get("request", ""), "Driver": r.get("driver", ""), "Pool": r.get("pool", ""),
                "Device": r.get("device", ""), "AdminAccess": r.get("adminAccess"),
                "Tolerations": r.get("tolerations"), "BindingConditions": r.get("bindingConditions"),
                "BindingFailureConditions": r.get("bindingFailureConditions"), "ShareID": r.get("shareID"),
                "ConsumedCapacity": r.get("consumedCapacity")} for r in results],
            "Config": devices.get("config"),
        },
        "NodeSelector": None if a.get("nodeSelector") is None else {
            "NodeSelectorTerms": None if terms is None else [
                {"MatchExpressions": requirements(t.get("matchExpressions")),
                 "MatchFields": requirements(t.get("matchFields"))} for t in terms]},
        "AllocationTimestamp": a.get("allocationTimestamp"),
    }
