"""The ``kubesched run`` application: mirrors cmd/kube-scheduler/app (server.go)."""

from .server import LiveScheduler, run

__all__ = ["LiveScheduler", "run"]
