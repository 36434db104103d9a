"""Validation of a defaulted configuration.

Mirrors pkg/scheduler/apis/config/validation/validation.go (master 2026):
ValidateKubeSchedulerConfiguration, validateKubeSchedulerProfile, validatePluginConfig,
validateCommonQueueSort and validateExtenders, with upstream's field paths and details; the
``clientConnection`` and ``leaderElection`` checks are component-base's
(staging/src/k8s.io/component-base/config/validation/validation.go).
Per-plugin args are validated while decoding, by each plugin's ``Args.validate``.
"""

from __future__ import annotations

import re

from .._duration import format_go_duration
from ._types import (
    ClientConnectionConfiguration,
    Extender,
    FieldError,
    LeaderElectionConfiguration,
    Profile,
    SchedulerConfig,
)

__all__ = ["validate_config", "validate_extenders"]

_QUALIFIED_NAME = re.compile(r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
                             r"[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$")


def _percentage(path: str, v: int | None) -> list[FieldError]:
    if v is not None and not 0 <= v <= 100:
        return [FieldError.invalid(path, v, "not in valid range [0-100]")]
    return []


class _GoDuration(float):
    """A metav1.Duration as field.Error prints it: through its String() (``10s``), unquoted."""

    def __str__(self) -> str:
        return format_go_duration(self)


def _validate_client_connection(cc: ClientConnectionConfiguration) -> list[FieldError]:
    """ValidateClientConnectionConfiguration."""
    if cc.burst < 0:
        return [FieldError.invalid("clientConnection.burst", cc.burst, "must be non-negative")]
    return []


def _validate_leader_election(le: LeaderElectionConfiguration) -> list[FieldError]:
    """ValidateLeaderElectionConfiguration, then the scheduler's own rule that the lock is a
    Lease. Nothing is checked when ``leaderElect`` is false. (The ``leaseDuration`` error
    shows the renewDeadline value, as upstream's does.) The empty-name checks cannot fail here:
    the decoder defaults every empty name."""
    if not le.leader_elect:
        return []
    path = "leaderElection"
    errs: list[FieldError] = []
    for key, value in (("leaseDuration", le.lease_duration), ("renewDeadline", le.renew_deadline),
                       ("retryPeriod", le.retry_period)):
        if value <= 0:
            errs.append(FieldError.invalid(f"{path}.{key}", _GoDuration(value), "must be greater than zero"))
    if le.lease_duration <= le.renew_deadline:
        errs.append(FieldError.invalid(f"{path}.leaseDuration", _GoDuration(le.renew_deadline),
                                       "must be greater than `RenewDeadline`"))
    if le.resource_lock != "leases":
        errs.append(FieldError.invalid(f"{path}.resourceLock", le.resource_lock,
                                       'resourceLock value must be "leases"'))
    return errs


def validate_config(cfg: SchedulerConfig) -> list[FieldError]:
    errs: list[FieldError] = []
    errs.extend(_validate_client_connection(cfg.client_connection))
    errs.extend(_validate_leader_election(cfg.leader_election))
    if cfg.parallelism <= 0:
        errs.append(FieldError.invalid("parallelism", cfg.parallelism,
                                       "should be an integer value greater than zero"))
    if not cfg.profiles:
        errs.append(FieldError.required("profiles"))
    else:
        seen: dict[str, int] = {}
        for i, prof in enumerate(cfg.profiles):
            path = f"profiles[{i}]"
            errs.extend(_validate_profile(path, prof))
            if prof.scheduler_name in seen:
                errs.append(FieldError.duplicate(f"{path}.schedulerName",
                                                 f"profiles[{seen[prof.scheduler_name]}].schedulerName"))
            seen[prof.scheduler_name] = i
        errs.extend(_validate_common_queue_sort(cfg.profiles))
    errs.extend(_percentage("percentageOfNodesToScore", cfg.percentage_of_nodes_to_score))
    if cfg.pod_initial_backoff_seconds <= 0:
        errs.append(FieldError.invalid("podInitialBackoffSeconds", cfg.pod_initial_backoff_seconds,
                                       "must be greater than 0"))
    if cfg.pod_max_backoff_seconds < cfg.pod_initial_backoff_seconds:
        errs.append(FieldError.invalid("podMaxBackoffSeconds", cfg.pod_max_backoff_seconds,
                                       "must be greater than or equal to PodInitialBackoffSeconds"))
    errs.extend(validate_extenders(cfg.extenders))
    return errs


def _validate_profile(path: str, prof: Profile) -> list[FieldError]:
    errs: list[FieldError] = []
    if not prof.scheduler_name:
        errs.append(FieldError.required(f"{path}.schedulerName"))
    errs.extend(_percentage(f"{path}.percentageOfNodesToScore", prof.percentage_of_nodes_to_score))
    seen: set[str] = set()
    for i, pc in enumerate(prof.plugin_config):
        if pc.name in seen:
            errs.append(FieldError.duplicate(f"{path}.pluginConfig[{i}]", pc.name))
        seen.add(pc.name)
    return errs


def _validate_common_queue_sort(profiles: tuple[Profile, ...]) -> list[FieldError]:
    """validateCommonQueueSort: every profile must use the same QueueSort set and args."""
    errs: list[FieldError] = []
    canon = profiles[0].plugins.queue_sort
    qs_name = canon.enabled[0].name if canon.enabled else ""
    if len(canon.enabled) > 1:
        errs.append(FieldError.invalid("profiles[0].plugins.queueSort.Enabled", len(canon.enabled),
                                       "only one queue sort plugin can be enabled"))
    qs_args = profiles[0].args_for(qs_name) if qs_name else None
    for i in range(1, len(profiles)):
        curr = profiles[i].plugins.queue_sort
        if curr != canon:
            errs.append(FieldError.invalid(f"profiles[{i}].plugins.queueSort", repr(curr),
                                           "queueSort must be the same for all profiles"))
        for pc in profiles[i].plugin_config:
            if qs_name and pc.name == qs_name and pc.args != qs_args:
                errs.append(FieldError.invalid(f"profiles[{i}].pluginConfig.args", repr(pc.args),
                                               "queueSort must be the same for all profiles"))
    return errs


def _is_extended_resource_name(name: str) -> bool:
    """v1helper.IsExtendedResourceName: a qualified, domain-prefixed name outside
    kubernetes.io, that also stays valid with the ``requests.`` quota prefix."""
    if "/" not in name or name.startswith("requests."):
        return False
    domain = name.split("/", 1)[0]
    if domain == "kubernetes.io" or domain.endswith(".kubernetes.io"):
        return False
    return bool(_QUALIFIED_NAME.match(name)) and bool(_QUALIFIED_NAME.match("requests." + name))


def validate_extenders(extenders: tuple[Extender, ...], first_index: int = 0) -> list[FieldError]:
    """validateExtenders; paths count from ``extenders[first_index]``."""
    errs: list[FieldError] = []
    binders = 0
    managed: set[str] = set()
    for i, ext in enumerate(extenders, first_index):
        path = f"extenders[{i}]"
        if ext.prioritize_verb and ext.weight <= 0:
            errs.append(FieldError.invalid(f"{path}.weight", ext.weight,
                                           "must have a positive weight applied to it"))
        if ext.bind_verb:
            binders += 1
        for j, res in enumerate(ext.managed_resources):
            rpath = f"{path}.managedResources[{j}].name"
            if not _is_extended_resource_name(res.name):
                errs.append(FieldError.invalid(rpath, res.name, "is an invalid extended resource name"))
            if res.name in managed:
                errs.append(FieldError.invalid(rpath, res.name, "duplicate extender managed resource name"))
            managed.add(res.name)
    if binders > 1:
        errs.append(FieldError.invalid("extenders", f"found {binders} extenders implementing bind",
                                       "only one extender can implement bind"))
    return errs
