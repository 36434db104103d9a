"""Running kubesched as a cluster's scheduler (upstream's cmd/kube-scheduler/app)."""

from .server import LiveScheduler, run

__all__ = ["LiveScheduler", "run"]
