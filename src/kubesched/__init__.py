"""kubesched: a faithful, fast re-implementation of kube-scheduler in Python."""

__version__ = "0.1.0"
__all__ = ["__version__"]
