"""Running kubesched as a cluster's scheduler (upstream's cmd/kube-scheduler/app)."""

from .server import LiveScheduler, SchedulerRun, run

__all__ = ["LiveScheduler", "SchedulerRun", "run"]
