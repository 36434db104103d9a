"""PreBind's wait for device binding conditions (DRADeviceBindingConditions), on the clock.

Mirrors the end of PreBind in pkg/scheduler/framework/plugins/dynamicresources/
dynamicresources.go (master 2026): once the claims are reserved for the pod, and when an
allocated device has ``bindingConditions``, upstream blocks its binding goroutine in
``wait.PollUntilContextTimeout(ctx, 5s, bindingTimeout, immediate)`` on ``isPodReadyForBinding``:
every claim is read again, and the wait ends when all binding conditions of every device are
True (success), when a binding failure condition is True (``device binding failed: ...``), when
a claim's own allocation is older than the binding timeout (``device binding timeout:
claim=...``), or when the timeout passes (``device binding timeout: context deadline
exceeded``). Here the wait is a future resolved from timers on the scheduler's clock (virtual
in simulations, the real one live), so the binding cycle continues from a callback as after
Permit, and other pods are scheduled meanwhile. What sets the conditions is whatever writes the
claim's ``status.devices``: a driver in a live cluster; a trace ``update`` or kubesched bench's
``updateDeviceConditions`` op in a simulation.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from kubesched.clock import Clock
from kubesched.framework import PermitFuture, Status

__all__ = ["POLL_INTERVAL", "wait_for_binding"]

POLL_INTERVAL: Final = 5.0  # seconds between checks, as upstream's poll

Check = Callable[[], "bool | str"]
"""isPodReadyForBinding: True when ready, False to keep waiting, or the error message."""

TIMEOUT_MESSAGE: Final = "device binding timeout: context deadline exceeded"


def wait_for_binding(clock: Clock, timeout: float, ready: Check) -> PermitFuture:
    """Check ``ready`` now and then every :data:`POLL_INTERVAL` seconds until it is True or an
    error, or until ``timeout`` seconds have passed; the future resolves with success or the
    Error status."""
    out = PermitFuture()
    deadline = clock.now + timeout

    def check() -> None:
        if out.done():
            return
        if clock.now >= deadline:
            out.set_status(Status.from_error(RuntimeError(TIMEOUT_MESSAGE)))
            return
        try:
            answer = ready()
        except Exception as exc:  # a lookup failed: upstream's condition returns the error
            out.set_status(Status.from_error(exc))
            return
        if answer is True:
            out.set_status(Status.success())
        elif isinstance(answer, str):
            out.set_status(Status.from_error(RuntimeError(answer)))
        else:
            clock.schedule(min(POLL_INTERVAL, max(deadline - clock.now, 0.0)), check)

    check()
    return out
