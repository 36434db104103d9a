"""The device binding-condition ops of upstream's scheduler_perf: ``updateDeviceConditions`` and
``checkPodScheduled``.

Mirrors test/integration/scheduler_perf/dra.go (master 2026), on the run's virtual clock
(upstream polls every second in wall time, here every virtual second, scheduling meanwhile):

- ``updateDeviceConditions`` (``namespace``, ``ConditionType``, ``ConditionStatus``: True,
  False or Unknown, ``duration``): waits until the namespace has claims, then for each claim
  until its allocation names a device with binding conditions, and appends to the claim's
  ``status.devices`` one entry per such device with the condition (reason and message "Test");
  the run fails when that does not happen within ``duration``;
- ``checkPodScheduled`` (``namespace``, ``Scheduled``, ``duration``): with ``Scheduled`` true,
  waits until every pod of the namespace is bound; with false, until none is and that has held
  for 5 seconds; the run fails naming the last pod in violation when ``duration`` passes first.

Both need the scheduler running meanwhile: PreBind waits for the conditions (see the
DynamicResources plugin), so pods are bound only after ``updateDeviceConditions``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from ..api import Pod, ResourceClaim, format_time
from ..clock import Clock
from ..cluster import status_update
from ._config import ConfigError, Op

__all__ = ["STABLE_UNSCHEDULED", "WorkloadFailed", "check_pods_scheduled", "update_device_conditions"]

POLL: Final = 1.0
STABLE_UNSCHEDULED: Final = 5.0  # checkPodScheduled's stability window for "not scheduled"

Poll = Callable[[float, Callable[[], bool]], bool]
"""``poll(duration, condition)``: run the scheduler, checking ``condition`` now and every
virtual second, until it holds (True) or ``duration`` seconds have passed (False)."""


class WorkloadFailed(AssertionError):
    """An op's check failed (upstream's tCtx.Fatalf): the message names the workload's op."""


def _where(op: Op) -> str:
    return f"op {op.index} ({op.opcode})"


def _duration(op: Op, seconds: Callable[[Any], float]) -> float:
    value = op.get("duration")
    if value is None:
        raise ConfigError(f"{_where(op)}: duration (or durationParam) is required")
    return seconds(value)


def update_device_conditions(op: Op, store: Any, clock: Clock, poll: Poll,
                             seconds: Callable[[Any], float]) -> None:
    """updateDeviceConditionsOp.run."""
    namespace = op.get("namespace")
    if not isinstance(namespace, str) or not namespace:
        raise ConfigError(f"{_where(op)}: namespace must be set")
    ctype, cstatus = op.get("ConditionType"), op.get("ConditionStatus")
    if not ctype or cstatus is None:
        raise ConfigError(f"{_where(op)}: conditions must be set (ConditionType and ConditionStatus)")
    status = ("True" if cstatus else "False") if isinstance(cstatus, bool) else str(cstatus)
    if status not in ("True", "False", "Unknown"):
        raise ConfigError(f"{_where(op)}: invalid condition status {status!r}")
    duration = _duration(op, seconds)
    end = clock.now + duration

    def claims() -> list[ResourceClaim]:
        return list(store.list("ResourceClaim", namespace))

    if not poll(duration, lambda: bool(claims())):
        raise WorkloadFailed(f"{_where(op)}: no claims found in namespace {namespace} within {duration:g}s")
    for item in claims():
        name = item.meta.name

        def has_binding_conditions(name: str = name) -> bool:
            c = store.try_get("ResourceClaim", namespace, name)
            return (c is not None and c.allocation is not None
                    and any(r.binding_conditions for r in c.allocation.results))

        left = max(end - clock.now, 0.0)
        if not poll(left, has_binding_conditions):
            raise WorkloadFailed(f"{_where(op)}: no devices found in claim {namespace}/{name} "
                                 f"within {duration:g}s")
        claim: ResourceClaim = store.get("ResourceClaim", namespace, name)
        devices = [dict(d) for d in claim.device_statuses]
        now = format_time(clock.now)
        assert claim.allocation is not None
        for r in claim.allocation.results:
            if not r.binding_conditions and not r.binding_failure_conditions:
                continue
            devices.append({"driver": r.driver, "pool": r.pool, "device": r.device, "conditions": [{
                "type": str(ctype), "status": status, "lastTransitionTime": now,
                "reason": "Test", "message": "Test"}]})
        update = status_update(store)
        update(claim.with_changes({("status", "devices"): devices}))


def check_pods_scheduled(op: Op, store: Any, clock: Clock, poll: Poll,
                         seconds: Callable[[Any], float]) -> None:
    """checkPodScheduledOp.run."""
    namespace = op.get("namespace")
    if not isinstance(namespace, str) or not namespace:
        raise ConfigError(f"{_where(op)}: namespace must be set")
    expected = op.get("Scheduled", False)
    if not isinstance(expected, bool):
        raise ConfigError(f"{_where(op)}: Scheduled must be true or false")
    duration = _duration(op, seconds)
    last: list[str] = [""]
    stable_since: list[float | None] = [None]

    def check() -> bool:
        for pod in store.list("Pod", namespace):
            assert isinstance(pod, Pod)
            if bool(pod.node_name) != expected:
                last[0] = (f"Pod {pod.name}: ExpectedScheduled={str(expected).lower()}, "
                           f"ActualScheduled={str(bool(pod.node_name)).lower()} (Node={pod.node_name})")
                stable_since[0] = None
                return False
        if expected:
            return True
        if stable_since[0] is None:
            stable_since[0] = clock.now
            return False
        return bool(clock.now - stable_since[0] >= STABLE_UNSCHEDULED)

    if not poll(duration, check) and last[0]:
        what = "Timeout waiting for pods to be scheduled" if expected else "Pods were unexpectedly scheduled"
        raise WorkloadFailed(f"{_where(op)}: {what}. Last violation: {last[0]}")
