"""Running kubesched as a cluster's scheduler (upstream's cmd/kube-scheduler/app).

The live scheduler is imported on first use (PEP 562): it needs the ``live`` extra (the API
client stack), which ``simulate`` and the other offline commands never load, so ``pip install
kubesched`` alone runs them; the serving constants exported here import without it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._serving import DEFAULT_BIND_ADDRESS, DEFAULT_PORT

if TYPE_CHECKING:
    from .server import LiveScheduler, SchedulerRun, run

__all__ = [
    "DEFAULT_BIND_ADDRESS",
    "DEFAULT_PORT",
    "LiveScheduler",
    "SchedulerRun",
    "run",
]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import server

        return getattr(server, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
