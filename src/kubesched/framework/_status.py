"""Status: what a plugin returns, as a typed code plus reasons.

Mirrors staging/src/k8s.io/kube-scheduler/framework/interface.go (master 2026): ``Code`` keeps
upstream's names and order; a ``None`` status counts as Success.

Building one (what plugins do; docs/writing-a-plugin.md):

- ``Status(Code.UNSCHEDULABLE, "node(s) are busy")``: one reason (upstream's
  ``NewStatus(code, reason)``); ``Status(code, ["a", "b"])`` or ``Status.of(code, "a", "b")``:
  several reasons, joined by ", " in :meth:`Status.message`;
- ``as_status(exc)`` / ``Status.from_error(exc)``: an Error status carrying the exception;
- ``status.with_plugin(NAME)``: the failing plugin's name (the runtime sets it for you).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from enum import IntEnum

__all__ = ["Code", "Status", "as_status", "is_success"]


class Code(IntEnum):
    SUCCESS = 0
    """The plugin ran correctly and found the pod schedulable (or had nothing to say)."""
    ERROR = 1
    """An internal error: the pod is requeued with backoff, never parked as unschedulable."""
    UNSCHEDULABLE = 2
    """The pod does not fit now; preemption may help. Requeued on a relevant cluster event."""
    UNSCHEDULABLE_AND_UNRESOLVABLE = 3
    """The pod does not fit and preemption cannot help on this node."""
    WAIT = 4
    """Permit only: the pod waits (with a timeout) to be allowed or rejected."""
    SKIP = 5
    """PreFilter/PreScore: the plugin's Filter/Score is skipped for this pod. Bind: not mine."""
    PENDING = 6
    """The pod waits for something outside the scheduler; requeued by events like Unschedulable."""

    def __str__(self) -> str:
        return _NAMES[self]


_NAMES = {
    Code.SUCCESS: "Success",
    Code.ERROR: "Error",
    Code.UNSCHEDULABLE: "Unschedulable",
    Code.UNSCHEDULABLE_AND_UNRESOLVABLE: "UnschedulableAndUnresolvable",
    Code.WAIT: "Wait",
    Code.SKIP: "Skip",
    Code.PENDING: "Pending",
}


@dataclass(frozen=True, slots=True, init=False)
class Status:
    """A code, the reasons (always a tuple of strings), the plugin that returned it and, for
    Error, the exception. ``reasons`` accepts one string or an iterable of strings: upstream's
    ``NewStatus(code, reasons ...string)`` is variadic, so ``Status(code, "a reason")`` must
    mean one reason, not one per character."""

    code: Code
    reasons: tuple[str, ...]
    plugin: str
    error: BaseException | None

    def __init__(self, code: Code = Code.SUCCESS, reasons: str | Iterable[str] = (), plugin: str = "",
                 error: BaseException | None = None) -> None:
        object.__setattr__(self, "code", code)
        object.__setattr__(self, "reasons", reasons if type(reasons) is tuple else _as_reasons(reasons))
        object.__setattr__(self, "plugin", plugin)
        object.__setattr__(self, "error", error)

    @staticmethod
    def success() -> Status:
        return _SUCCESS

    @staticmethod
    def skip() -> Status:
        """A shared Skip (statuses are immutable; PreFilter/PreScore return it for most pods)."""
        return _SKIP

    @staticmethod
    def of(code: Code, *reasons: str) -> Status:
        return Status(code, tuple(reasons))

    @staticmethod
    def from_error(err: BaseException) -> Status:
        """AsStatus: wrap an exception as an Error status."""
        return Status(Code.ERROR, (str(err),), error=err)

    def with_plugin(self, plugin: str) -> Status:
        return replace(self, plugin=plugin)

    def is_success(self) -> bool:
        return self.code == Code.SUCCESS

    def is_wait(self) -> bool:
        return self.code == Code.WAIT

    def is_skip(self) -> bool:
        return self.code == Code.SKIP

    def is_rejected(self) -> bool:
        """Unschedulable, UnschedulableAndUnresolvable or Pending."""
        return self.code in (Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE, Code.PENDING)

    def message(self) -> str:
        return ", ".join(self.reasons)

    def as_error(self) -> BaseException | None:
        if self.code != Code.ERROR:
            return None
        return self.error or RuntimeError(self.message())

    def __str__(self) -> str:
        return f"{self.code}: {self.message()}" if self.reasons else str(self.code)


def _as_reasons(reasons: str | Iterable[str]) -> tuple[str, ...]:
    """One string is one reason; any other iterable must hold strings only (a tuple is taken as
    is: the runtime's own statuses are built from tuples on the hot path)."""
    if isinstance(reasons, str):
        return (reasons,)
    out = tuple(reasons)
    for r in out:
        if not isinstance(r, str):
            raise TypeError(f"Status reasons must be strings, got {type(r).__name__} {r!r}")
    return out


_SUCCESS = Status()
_SKIP = Status(Code.SKIP)


def is_success(status: Status | None) -> bool:
    return status is None or status.code == Code.SUCCESS


def as_status(err: BaseException | None) -> Status:
    return Status.success() if err is None else Status.from_error(err)
