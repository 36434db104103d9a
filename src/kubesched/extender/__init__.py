"""kubesched as a scheduler extender: any kubesched profile (in-tree or Python plugins) answering
the real kube-scheduler's extender webhooks (``k8s.io/kube-scheduler/extender/v1``).

:class:`ExtenderEngine` makes the decisions (:mod:`._engine`, :mod:`._preempt`);
:class:`ExtenderServer` serves them over HTTP(S) with ``/healthz`` and ``/metrics``
(:mod:`._server`); :class:`~._live.InformerView` gives it a live cluster's node and pod state
through the LiveStore ``kubesched run`` uses (:mod:`._live`). The wire types are
:mod:`kubesched.api.extenderv1`, shared with kubesched's own extender client. ``kubesched
extender`` is the command.

``InformerView`` is imported on first use (module ``__getattr__``, PEP 562): it needs the
``live`` extra (urllib3), which the extender without a cluster (``--no-cache``) and every other
command that imports this package must not require.
"""

from typing import TYPE_CHECKING, Any

from ._engine import EngineError, ExtenderEngine, NodeView, RequestError, profile_name, scale_to_extender
from ._metrics import ExtenderMetrics
from ._run import serve_until_stopped
from ._server import DEFAULT_MAX_REQUEST_BYTES, ExtenderServer

if TYPE_CHECKING:
    from ._live import InformerView

__all__ = [
    "DEFAULT_MAX_REQUEST_BYTES",
    "EngineError",
    "ExtenderEngine",
    "ExtenderMetrics",
    "ExtenderServer",
    "InformerView",
    "NodeView",
    "RequestError",
    "profile_name",
    "scale_to_extender",
    "serve_until_stopped",
]


def __getattr__(name: str) -> Any:
    """``InformerView``, imported when first asked for (ImportError without the live extra)."""
    if name == "InformerView":
        from ._live import InformerView

        return InformerView
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
