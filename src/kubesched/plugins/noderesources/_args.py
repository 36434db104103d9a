"""Args of NodeResourcesFit and NodeResourcesBalancedAllocation, with v1 defaults and validation.

Mirrors pkg/scheduler/apis/config/types_pluginargs.go, v1/defaults.go
(SetDefaults_NodeResourcesFitArgs, SetDefaults_NodeResourcesBalancedAllocationArgs) and
validation/validation_pluginargs.go (ValidateNodeResourcesFitArgs, validateFunctionShape,
validateResources, ValidateNodeResourcesBalancedAllocationArgs), master 2026.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kubesched.api import fields
from kubesched.framework import ArgsError, PluginArgs

__all__ = [
    "DEFAULT_RESOURCES",
    "LEAST_ALLOCATED",
    "MAX_CUSTOM_PRIORITY_SCORE",
    "MOST_ALLOCATED",
    "REQUESTED_TO_CAPACITY_RATIO",
    "NodeResourcesBalancedAllocationArgs",
    "NodeResourcesFitArgs",
    "RequestedToCapacityRatioParam",
    "ResourceSpec",
    "ScoringStrategy",
    "UtilizationShapePoint",
]

LEAST_ALLOCATED = "LeastAllocated"
MOST_ALLOCATED = "MostAllocated"
REQUESTED_TO_CAPACITY_RATIO = "RequestedToCapacityRatio"
SUPPORTED_STRATEGIES = (LEAST_ALLOCATED, MOST_ALLOCATED, REQUESTED_TO_CAPACITY_RATIO)
MAX_CUSTOM_PRIORITY_SCORE = 10  # config.MaxCustomPriorityScore: shape scores are 0..10


@dataclass(frozen=True, slots=True)
class ResourceSpec:
    name: str
    weight: int = 1


DEFAULT_RESOURCES = (ResourceSpec("cpu", 1), ResourceSpec("memory", 1))


@dataclass(frozen=True, slots=True)
class UtilizationShapePoint:
    utilization: int
    score: int


@dataclass(frozen=True, slots=True)
class RequestedToCapacityRatioParam:
    shape: tuple[UtilizationShapePoint, ...] = ()


@dataclass(frozen=True, slots=True)
class ScoringStrategy:
    type: str = LEAST_ALLOCATED
    resources: tuple[ResourceSpec, ...] = DEFAULT_RESOURCES
    requested_to_capacity_ratio: RequestedToCapacityRatioParam | None = None


def _resources(value: Any, path: str) -> tuple[ResourceSpec, ...]:
    """Decode ``resources`` with the v1 defaults: none -> cpu and memory; weight 0 -> 1."""
    if not value:
        return DEFAULT_RESOURCES
    if not isinstance(value, Sequence):
        raise ArgsError(f"{path}: must be a list")
    out = []
    for i, r in enumerate(value):
        if isinstance(r, ResourceSpec):
            out.append(r)
            continue
        if not isinstance(r, Mapping):
            raise ArgsError(f"{path}[{i}]: must be a mapping")
        name = fields.string(r.get("name"), f"{path}[{i}].name")
        out.append(ResourceSpec(name, fields.int64(r.get("weight"), f"{path}[{i}].weight") or 1))
    return tuple(out)


def _strategy(value: Any) -> ScoringStrategy:
    if isinstance(value, ScoringStrategy):
        return value
    if not isinstance(value, Mapping):
        raise ArgsError("scoringStrategy: must be a mapping")
    param = None
    raw = value.get("requestedToCapacityRatio")
    if raw is not None:
        path = "scoringStrategy.requestedToCapacityRatio"
        shape = shape_points(fields.mapping(raw, path).get("shape"), f"{path}.shape")
        param = RequestedToCapacityRatioParam(shape)
    return ScoringStrategy(
        fields.string(value.get("type"), "scoringStrategy.type"),
        _resources(value.get("resources"), "scoringStrategy.resources"),
        param,
    )


def shape_points(value: Any, path: str) -> tuple[UtilizationShapePoint, ...]:
    """A ``shape`` (UtilizationShapePoint list, int32 fields); a field of the wrong type is an
    error naming it."""
    return tuple(
        UtilizationShapePoint(fields.int32(p.get("utilization"), f"{ppath}.utilization"),
                              fields.int32(p.get("score"), f"{ppath}.score"))
        for p, ppath in fields.objects(value, path)
    )


_NAME_RE = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_DNS1123_SUBDOMAIN_RE = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


def _qualified_name_error(value: str) -> str | None:
    """validation.IsQualifiedName (what metav1validation.ValidateLabelName checks)."""
    parts = value.split("/")
    if len(parts) == 1:
        name, prefix = parts[0], None
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            return "prefix part must be non-empty"
        if len(prefix) > 253 or not _DNS1123_SUBDOMAIN_RE.match(prefix):
            return (
                "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
                "characters, '-' or '.', and must start and end with an alphanumeric character"
            )
    else:
        return (
            "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start "
            "and end with an alphanumeric character with an optional DNS subdomain prefix and '/'"
        )
    if not name:
        return "name part must be non-empty"
    if len(name) > 63:
        return "name part must be no more than 63 characters"
    if not _NAME_RE.match(name):
        return (
            "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and "
            "end with an alphanumeric character"
        )
    return None


def _validate_resources(resources: Sequence[ResourceSpec], path: str) -> list[str]:
    """validateResources: each weight in (0, 100]."""
    return [
        f"{path}[{i}].weight: Invalid value: {r.weight}: "
        f"resource weight of {r.name} not in valid range (0, 100]"
        for i, r in enumerate(resources)
        if r.weight <= 0 or r.weight > 100
    ]


def _validate_shape(shape: Sequence[UtilizationShapePoint], path: str) -> list[str]:
    """validateFunctionShape: at least one point, strictly increasing utilization, ranges."""
    if not shape:
        return [f"{path}: Required value: at least one point must be specified"]
    errs = []
    for i in range(1, len(shape)):
        if shape[i - 1].utilization >= shape[i].utilization:
            errs.append(
                f"{path}[{i}].utilization: Invalid value: {shape[i].utilization}: "
                "utilization values must be sorted in increasing order"
            )
            break
    for i, p in enumerate(shape):
        if not 0 <= p.utilization <= 100:
            errs.append(
                f"{path}[{i}].utilization: Invalid value: {p.utilization}: not in valid range [0, 100]"
            )
        if not 0 <= p.score <= MAX_CUSTOM_PRIORITY_SCORE:
            errs.append(
                f"{path}[{i}].score: Invalid value: {p.score}: "
                f"not in valid range [0, {MAX_CUSTOM_PRIORITY_SCORE}]"
            )
    return errs


def _raise(errs: list[str]) -> None:
    if errs:
        raise ArgsError("; ".join(errs))


@dataclass(frozen=True, kw_only=True)
class NodeResourcesFitArgs(PluginArgs):
    ignored_resources: tuple[str, ...] = ()
    ignored_resource_groups: tuple[str, ...] = ()
    scoring_strategy: ScoringStrategy = field(default_factory=ScoringStrategy)

    @classmethod
    def decode_field(cls, name: str, value: Any) -> Any:
        if name == "scoring_strategy":
            return _strategy(value) if value is not None else ScoringStrategy()
        if name in ("ignored_resources", "ignored_resource_groups"):
            return tuple(str(v) for v in (value or ()))
        return value

    def validate(self) -> None:
        errs: list[str] = []
        for i, res in enumerate(self.ignored_resources):
            msg = _qualified_name_error(res)
            if msg:
                errs.append(f"ignoredResources[{i}]: Invalid value: {res!r}: {msg}")
        for i, group in enumerate(self.ignored_resource_groups):
            if "/" in group:
                errs.append(
                    f"ignoredResourceGroups[{i}]: Invalid value: {group!r}: resource group name can't "
                    "contain '/'"
                )
            msg = _qualified_name_error(group)
            if msg:
                errs.append(f"ignoredResourceGroups[{i}]: Invalid value: {group!r}: {msg}")
        s = self.scoring_strategy
        if s.type not in SUPPORTED_STRATEGIES:
            supported = ", ".join(f'"{t}"' for t in SUPPORTED_STRATEGIES)
            errs.append(f'scoringStrategy.type: Unsupported value: "{s.type}": supported values: {supported}')
        errs += _validate_resources(s.resources, "scoringStrategy.resources")
        if s.requested_to_capacity_ratio is not None:
            errs += _validate_shape(s.requested_to_capacity_ratio.shape, "scoringStrategy.shape")
        elif s.type == REQUESTED_TO_CAPACITY_RATIO:
            # upstream would dereference a nil param; reject it up front instead
            errs += _validate_shape((), "scoringStrategy.shape")
        _raise(errs)


@dataclass(frozen=True, kw_only=True)
class NodeResourcesBalancedAllocationArgs(PluginArgs):
    resources: tuple[ResourceSpec, ...] = DEFAULT_RESOURCES

    @classmethod
    def decode_field(cls, name: str, value: Any) -> Any:
        if name == "resources":
            return _resources(value, "resources")
        return value

    def validate(self) -> None:
        errs: list[str] = []
        seen: set[str] = set()
        for i, r in enumerate(self.resources):
            if r.name in seen:
                errs.append(f'resources[{i}].name: Duplicate value: "{r.name}"')
            seen.add(r.name)
            if r.weight != 1:
                errs.append(f"resources[{i}].weight: Invalid value: {r.weight}: must be 1")
        _raise(errs)
