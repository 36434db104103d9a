"""Services and the workload kinds: ReplicationController (v1), ReplicaSet, StatefulSet,
Deployment, DaemonSet (apps/v1) and Job (batch/v1).

The scheduler reads only selectors of them: upstream's PodTopologySpread merges the selectors of
the Services selecting a pod and of its controlling owner into the selector of the default
constraints (``helper.DefaultSelector``, pkg/scheduler/framework/plugins/helper/spread.go). The
simulated controllers (:mod:`kubesched.controllers`) read the rest: replicas, the pod template,
a StatefulSet's claim templates and pod management policy, a Job's parallelism and completions.
Each kind keeps its manifest in ``raw`` (so it round-trips unchanged) and parses what it reads
through the typed field readers, validated as the API server validates those fields
(pkg/apis/core/validation, pkg/apis/apps/validation, pkg/apis/batch/validation). A pod template
is parsed as a pod would be, so a malformed field in it is refused naming
``spec.template.spec...``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from . import _fields as f
from ._meta import ManifestObject, ObjectMeta
from ._objects import PersistentVolumeClaim
from ._pod import Pod
from ._selectors import LabelSelector

__all__ = [
    "INDEXED",
    "NON_INDEXED",
    "ORDERED_READY",
    "PARALLEL",
    "DaemonSet",
    "Deployment",
    "Job",
    "ReplicaSet",
    "ReplicationController",
    "Service",
    "StatefulSet",
]


def _meta(d: Mapping[str, Any]) -> ObjectMeta:
    meta = ObjectMeta.from_dict(f.mapping(d.get("metadata"), "metadata"))
    if not meta.name:
        raise ValueError("metadata.name: required")
    return meta


def _spec(d: Mapping[str, Any]) -> Mapping[str, Any]:
    return f.mapping(d.get("spec"), "spec")


def _selector_map(value: Any, path: str) -> dict[str, str] | None:
    """A ``map[string]string`` selector: None when absent (a Service without a selector selects
    no pod, which an empty map would not say)."""
    return None if value is None else f.string_map(value, path)


def _template_labels(spec: Mapping[str, Any]) -> dict[str, str] | None:
    """``spec.template.metadata.labels`` (None without a template)."""
    template = spec.get("template")
    if template is None:
        return None
    md = f.mapping(f.mapping(template, "spec.template").get("metadata"), "spec.template.metadata")
    return f.string_map(md.get("labels"), "spec.template.metadata.labels")


def _template(spec: Mapping[str, Any], required: bool) -> Mapping[str, Any] | None:
    """``spec.template`` (a PodTemplateSpec), type-checked by parsing it as a pod: a malformed
    field is refused naming ``spec.template.<path>``. None when absent and not ``required``
    (ValidatePodTemplateSpec requires it of every kind that creates pods; a ReplicaSet or
    StatefulSet read only for its selector may come without one)."""
    raw = spec.get("template")
    if raw is None:
        if required:
            raise ValueError("spec.template: Required value")
        return None
    template = f.mapping(raw, "spec.template")
    md = f.mapping(template.get("metadata"), "spec.template.metadata")
    try:
        Pod.from_dict({"apiVersion": "v1", "kind": "Pod", "metadata": {**md, "name": "template"},
                       "spec": f.mapping(template.get("spec"), "spec.template.spec")})
    except ValueError as exc:
        msg = str(exc)
        raise ValueError(f"spec.template.{msg}" if msg.startswith(("spec", "metadata")) else
                         f"spec.template: {msg}") from exc
    return template


def _replicas(spec: Mapping[str, Any], key: str = "replicas", default: int | None = 1) -> int | None:
    """An optional non-negative int32 (``spec.replicas``, ``spec.parallelism``, ...) with the
    API server's default; ValidateNonnegativeField on the value."""
    n = f.opt_int32(spec.get(key), f"spec.{key}")
    if n is None:
        return default
    if n < 0:
        raise f.FieldValueError.invalid(f"spec.{key}", n, "must be greater than or equal to 0")
    return n


@dataclass(frozen=True, slots=True, eq=False)
class _Object(ManifestObject):
    raw: Mapping[str, Any]
    meta: ObjectMeta


@dataclass(frozen=True, slots=True, eq=False)
class Service(_Object):
    """v1 Service. ``selector`` None (absent) selects no pod, as GetPodServices skips it (an
    empty map selects every pod of the namespace)."""

    selector: Mapping[str, str] | None

    @staticmethod
    def from_dict(d: Mapping[str, Any]) -> Service:
        return Service(d, _meta(d), _selector_map(_spec(d).get("selector"), "spec.selector"))


@dataclass(frozen=True, slots=True, eq=False)
class ReplicationController(_Object):
    """v1 ReplicationController. Its selector is a plain label map; when absent or empty the API
    server defaults it to the template's labels (SetDefaults_ReplicationController), and a
    controller without either is invalid (``spec.selector: Required value``)."""

    selector: Mapping[str, str]
    replicas: int
    template: Mapping[str, Any] | None

    @staticmethod
    def from_dict(d: Mapping[str, Any]) -> ReplicationController:
        spec = _spec(d)
        template = _template(spec, required=False)
        replicas = _replicas(spec)
        assert replicas is not None
        selector = _selector_map(spec.get("selector"), "spec.selector")
        labels = _template_labels(spec)
        if not selector:
            selector = dict(labels or {})
        if not selector:
            raise ValueError("spec.selector: Required value")
        if labels is not None and any(labels.get(k) != v for k, v in selector.items()):
            raise ValueError("spec.template.metadata.labels: Invalid value: "
                             "`selector` does not match template `labels`")
        return ReplicationController(d, _meta(d), selector, replicas, template)


def _apps_selector(spec: Mapping[str, Any], noun: str) -> LabelSelector:
    """ValidateReplicaSetSpec / ValidateStatefulSetSpec on ``spec.selector``: required, a valid
    label selector, not empty (upstream's message says ``deployment`` for a ReplicaSet too), and
    matching the template's labels when a template is given."""
    raw = spec.get("selector")
    if raw is None:
        raise ValueError("spec.selector: Required value")
    try:
        selector = LabelSelector.from_dict(raw)
    except ValueError as exc:
        raise ValueError(f"spec.selector: {exc}") from exc
    assert selector is not None
    if selector.is_empty:
        raise ValueError(f"spec.selector: Invalid value: empty selector is invalid for {noun}")
    labels = _template_labels(spec)
    if labels is not None and not selector.matches(labels):
        raise ValueError("spec.template.metadata.labels: Invalid value: "
                         "`selector` does not match template `labels`")
    return selector


@dataclass(frozen=True, slots=True, eq=False)
class ReplicaSet(_Object):
    """apps/v1 ReplicaSet: selector, replicas (default 1) and pod template."""

    selector: LabelSelector
    replicas: int
    template: Mapping[str, Any] | None

    @staticmethod
    def from_dict(d: Mapping[str, Any]) -> ReplicaSet:
        spec = _spec(d)
        template = _template(spec, required=False)
        replicas = _replicas(spec)
        assert replicas is not None
        return ReplicaSet(d, _meta(d), _apps_selector(spec, "deployment"), replicas, template)


ORDERED_READY = "OrderedReady"
"""apps/v1 OrderedReadyPodManagement: a StatefulSet's podManagementPolicy default."""
PARALLEL = "Parallel"
"""apps/v1 ParallelPodManagement."""


@dataclass(frozen=True, slots=True, eq=False)
class StatefulSet(_Object):
    """apps/v1 StatefulSet: selector, replicas, template, podManagementPolicy (default
    OrderedReady), volumeClaimTemplates (each parsed as a PersistentVolumeClaim), serviceName,
    ``spec.ordinals.start`` (StatefulSetStartOrdinal, GA in 1.31) and minReadySeconds."""

    selector: LabelSelector
    replicas: int
    template: Mapping[str, Any] | None
    pod_management_policy: str
    volume_claim_templates: tuple[PersistentVolumeClaim, ...]
    service_name: str
    start_ordinal: int
    min_ready_seconds: int

    @staticmethod
    def from_dict(d: Mapping[str, Any]) -> StatefulSet:
        spec = _spec(d)
        template = _template(spec, required=False)
        replicas = _replicas(spec)
        assert replicas is not None
        policy = f.string(spec.get("podManagementPolicy"), "spec.podManagementPolicy") or ORDERED_READY
        if policy not in (ORDERED_READY, PARALLEL):
            raise ValueError(f'spec.podManagementPolicy: Unsupported value: "{policy}": supported values: '
                             f'"{ORDERED_READY}", "{PARALLEL}"')
        claims = []
        for c, cpath in f.objects(spec.get("volumeClaimTemplates"), "spec.volumeClaimTemplates"):
            try:
                claims.append(PersistentVolumeClaim.from_dict(c))
            except ValueError as exc:
                raise ValueError(f"{cpath}.{exc}") from exc
        ordinals = f.mapping(spec.get("ordinals"), "spec.ordinals")
        start = f.int32(ordinals.get("start"), "spec.ordinals.start")
        if start < 0:
            raise f.FieldValueError.invalid("spec.ordinals.start", start,
                                            "must be greater than or equal to 0")
        min_ready = _replicas(spec, "minReadySeconds", 0)
        assert min_ready is not None
        return StatefulSet(d, _meta(d), _apps_selector(spec, "statefulset"), replicas, template, policy,
                           tuple(claims), f.string(spec.get("serviceName"), "spec.serviceName"), start,
                           min_ready)


_PERCENT: Final = re.compile(r"^[0-9]+%$")


def _int_or_percent(spec: Mapping[str, Any], key: str, path: str, default: int | str) -> int | str:
    """An IntOrString that is a non-negative integer or a percentage of at most 100%
    (ValidatePositiveIntOrPercent, IsNotMoreThan100Percent)."""
    v = f.int_or_string(spec.get(key), path)
    if v is None:
        return default
    if isinstance(v, str):
        if not _PERCENT.match(v):
            raise f.FieldValueError.invalid(path, v, "a valid percent string must be a numeric string "
                                                     "followed by an ending '%'")
        if int(v[:-1]) > 100:
            raise f.FieldValueError.invalid(path, v, "must not be greater than 100%")
    elif v < 0:
        raise f.FieldValueError.invalid(path, v, "must be greater than or equal to 0")
    return v


@dataclass(frozen=True, slots=True, eq=False)
class Deployment(_Object):
    """apps/v1 Deployment: selector, replicas, template, ``paused``, the strategy (type,
    default RollingUpdate, and its maxSurge, default 25%) and ``status.collisionCount`` (which
    goes into the pod-template hash)."""

    selector: LabelSelector
    replicas: int
    template: Mapping[str, Any]
    collision_count: int | None
    paused: bool
    strategy: str
    max_surge: int | str

    @staticmethod
    def from_dict(d: Mapping[str, Any]) -> Deployment:
        spec = _spec(d)
        template = _template(spec, required=True)
        assert template is not None
        replicas = _replicas(spec)
        assert replicas is not None
        status = f.mapping(d.get("status"), "status")
        strategy = f.mapping(spec.get("strategy"), "spec.strategy")
        kind = f.string(strategy.get("type"), "spec.strategy.type") or "RollingUpdate"
        if kind not in ("RollingUpdate", "Recreate"):
            raise ValueError(f'spec.strategy.type: Unsupported value: "{kind}": supported values: '
                             '"Recreate", "RollingUpdate"')
        rolling = f.mapping(strategy.get("rollingUpdate"), "spec.strategy.rollingUpdate")
        surge = _int_or_percent(rolling, "maxSurge", "spec.strategy.rollingUpdate.maxSurge", "25%")
        return Deployment(d, _meta(d), _apps_selector(spec, "deployment"), replicas, template,
                          f.opt_int32(status.get("collisionCount"), "status.collisionCount"),
                          f.boolean(spec.get("paused"), "spec.paused"), kind, surge)


@dataclass(frozen=True, slots=True, eq=False)
class DaemonSet(_Object):
    """apps/v1 DaemonSet: selector and template (one pod per eligible node)."""

    selector: LabelSelector
    template: Mapping[str, Any]
    collision_count: int | None

    @staticmethod
    def from_dict(d: Mapping[str, Any]) -> DaemonSet:
        spec = _spec(d)
        template = _template(spec, required=True)
        assert template is not None
        status = f.mapping(d.get("status"), "status")
        return DaemonSet(d, _meta(d), _apps_selector(spec, "daemonset"), template,
                         f.opt_int32(status.get("collisionCount"), "status.collisionCount"))


@dataclass(frozen=True, slots=True)
class JobScheduling:
    """batch/v1 JobSchedulingConfiguration, the policy half: ``gang`` True for the gang policy,
    with its optional ``minCount`` (None: the controller defaults it to the parallelism);
    False for the basic policy (also when ``schedulingPolicy`` is omitted)."""

    gang: bool
    min_count: int | None

    @staticmethod
    def from_spec(spec: Mapping[str, Any]) -> JobScheduling | None:
        raw = spec.get("scheduling")
        if raw is None:
            return None
        sched = f.mapping(raw, "spec.scheduling")
        if sched.get("schedulingPolicy") is None:
            return JobScheduling(False, None)
        path = "spec.scheduling.schedulingPolicy"
        policy = f.mapping(sched.get("schedulingPolicy"), path)
        basic, gang = policy.get("basic"), policy.get("gang")
        if (basic is None) == (gang is None):
            raise ValueError(f"{path}: Invalid value: \"\": must specify exactly one of: `basic`, `gang`")
        if gang is None:
            f.mapping(basic, f"{path}.basic")
            return JobScheduling(False, None)
        n = f.opt_int32(f.mapping(gang, f"{path}.gang").get("minCount"), f"{path}.gang.minCount")
        if n is not None and n < 1:
            raise f.FieldValueError.invalid(f"{path}.gang.minCount", n, "must be greater than or equal to 1")
        return JobScheduling(True, n)


NON_INDEXED = "NonIndexed"
"""batch/v1 NonIndexedCompletion: a Job's completionMode default."""
INDEXED = "Indexed"
"""batch/v1 IndexedCompletion: each pod gets a completion index."""


@dataclass(frozen=True, slots=True, eq=False)
class Job(_Object):
    """batch/v1 Job: parallelism and completions as SetDefaults_Job defaults them (both unset:
    1 and 1; parallelism unset: 1; completions unset with parallelism set: None, "done when any
    pod succeeds"), completionMode, suspend, and the template, whose restartPolicy must be
    OnFailure or Never (ValidateJobSpec). The selector is optional: without
    ``manualSelector`` the API server generates one from the Job's uid (the controller here
    does, see kubesched.controllers)."""

    parallelism: int
    completions: int | None
    completion_mode: str
    suspend: bool
    selector: LabelSelector | None
    manual_selector: bool
    template: Mapping[str, Any]
    scheduling: JobScheduling | None = None
    """``spec.scheduling`` (feature WorkloadWithJob): the policy the Job's PodGroup gets."""

    @staticmethod
    def from_dict(d: Mapping[str, Any]) -> Job:
        spec = _spec(d)
        template = _template(spec, required=True)
        assert template is not None
        parallelism = _replicas(spec, "parallelism", None)
        completions = _replicas(spec, "completions", None)
        if parallelism is None and completions is None:
            completions = 1
        mode = f.string(spec.get("completionMode"), "spec.completionMode") or NON_INDEXED
        if mode not in (NON_INDEXED, INDEXED):
            raise ValueError(f'spec.completionMode: Unsupported value: "{mode}": supported values: '
                             f'"{NON_INDEXED}", "{INDEXED}"')
        if mode == INDEXED and completions is None:
            raise ValueError("spec.completions: Required value: when completion mode is Indexed")
        restart = f.string(f.mapping(template.get("spec"), "spec.template.spec").get("restartPolicy"),
                           "spec.template.spec.restartPolicy")
        if restart not in ("OnFailure", "Never"):
            raise ValueError("spec.template.spec.restartPolicy: " + (
                f'Unsupported value: "{restart}": supported values: "OnFailure", "Never"' if restart
                else 'Required value: valid values: "OnFailure", "Never"'))
        selector = LabelSelector.from_dict(spec.get("selector"), "spec.selector")
        return Job(d, _meta(d), 1 if parallelism is None else parallelism, completions, mode,
                   f.boolean(spec.get("suspend"), "spec.suspend"), selector,
                   f.boolean(spec.get("manualSelector"), "spec.manualSelector"), template,
                   JobScheduling.from_spec(spec))
