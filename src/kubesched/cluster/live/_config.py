"""Where the API server is and how to talk to it: client-go's rules for finding a kubeconfig,
and the ``clientConnection`` block of KubeSchedulerConfiguration.

Resolution order (what the issue asks of ``kubesched run``, client-go's default loading rules
plus its in-cluster fallback, k8s.io/client-go/tools/clientcmd loader.go and
rest.InClusterConfig): ``--kubeconfig``, then ``clientConnection.kubeconfig``, then
``$KUBECONFIG`` (a path list; the first existing file wins: the kubernetes client does not
merge), then ``~/.kube/config``, then the pod's service account
(``/var/run/secrets/kubernetes.io/serviceaccount``). The kubeconfig itself is read by the
official ``kubernetes`` client's loader (contexts, CA data, client certificates, tokens,
token files and exec plugins); TLS is verified against the kubeconfig's CA unless the
kubeconfig itself says ``insecure-skip-tls-verify``.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["ClientSettings", "ConfigError", "client_settings", "context_namespace", "load_rest_config",
           "resolve_kubeconfig"]

log = logging.getLogger(__name__)

JSON = "application/json"
PROTOBUF = "application/vnd.kubernetes.protobuf"

DEFAULT_QPS = 50.0
DEFAULT_BURST = 100
"""kube-scheduler's defaults for clientConnection (pkg/scheduler/apis/config/v1/defaults.go)."""


class ConfigError(ValueError):
    """No usable client configuration (bad kubeconfig, nothing found, bad clientConnection)."""


@dataclass(frozen=True, slots=True)
class ClientSettings:
    """clientConnection: kubeconfig path, qps/burst for the client's token bucket, contentType.

    Only JSON is spoken: Python has no generated protobuf codecs for the Kubernetes types, so
    a configured ``application/vnd.kubernetes.protobuf`` (upstream's default) falls back to
    JSON with one info line."""

    kubeconfig: str = ""
    qps: float = DEFAULT_QPS
    burst: int = DEFAULT_BURST
    content_type: str = JSON
    accept_content_types: str = ""


def client_settings(kubeconfig: str = "", qps: float = DEFAULT_QPS, burst: int = DEFAULT_BURST,
                    content_type: str = PROTOBUF, accept_content_types: str = "") -> ClientSettings:
    """The client's settings from a configuration's ``clientConnection`` (decoded, defaulted and
    validated with the rest of the KubeSchedulerConfiguration): JSON whatever was asked."""
    if content_type != JSON:
        log.info("clientConnection.contentType %s is not supported in Python; using %s", content_type, JSON)
    return ClientSettings(kubeconfig=kubeconfig, qps=float(qps), burst=int(burst), content_type=JSON,
                          accept_content_types=accept_content_types)


def resolve_kubeconfig(flag: str | None, configured: str = "", env: Mapping[str, str] | None = None,
                       home: Path | None = None) -> Path | None:
    """The kubeconfig file to read, or None for the in-cluster service account.

    An explicitly given path (flag or configuration) must exist; ``$KUBECONFIG`` entries and
    ``~/.kube/config`` are used only when they exist (clientcmd's loading rules)."""
    env = os.environ if env is None else env
    for explicit in (flag, configured):
        if explicit:
            p = Path(explicit).expanduser()
            if not p.is_file():
                raise ConfigError(f"kubeconfig {explicit}: no such file")
            return p
    for entry in (env.get("KUBECONFIG") or "").split(os.pathsep):
        if entry and Path(entry).expanduser().is_file():
            return Path(entry).expanduser()
    default = (home if home is not None else Path.home()) / ".kube" / "config"
    if default.is_file():
        return default
    return None


def load_rest_config(kubeconfig: Path | None, context: str | None = None) -> Any:
    """A ``kubernetes.client.Configuration`` for ``kubeconfig`` (None: in-cluster), from its
    ``context`` (None: its current context; kubectl's ``--context``)."""
    try:
        from kubernetes import client, config
        from kubernetes.config.config_exception import ConfigException
    except ImportError:
        raise ConfigError("kubesched run needs the kubernetes client: "
                          "pip install 'kubesched[live]'") from None

    cfg = client.Configuration()
    try:
        if kubeconfig is not None:
            config.load_kube_config(config_file=str(kubeconfig), context=context or None,
                                    client_configuration=cfg, persist_config=False)
        elif context:
            raise ConfigError(f"--context {context}: no kubeconfig to find it in")
        else:
            config.load_incluster_config(client_configuration=cfg)
    except ConfigException as exc:
        where = str(kubeconfig) if kubeconfig is not None else "in-cluster service account"
        hint = "" if kubeconfig is not None else (
            " (no --kubeconfig, no clientConnection.kubeconfig, no $KUBECONFIG, no ~/.kube/config)")
        raise ConfigError(f"{where}: {exc}{hint}") from None
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{kubeconfig}: {exc}") from None
    return cfg


_SA_NAMESPACE = Path("/var/run/secrets/kubernetes.io/serviceaccount/namespace")


def context_namespace(kubeconfig: Path | None, context: str | None = None) -> str:
    """The namespace kubectl works in without ``-n``: the kubeconfig context's ``namespace``
    (``context``, else the current one), in a pod the service account's namespace, else
    ``default`` (clientcmd's DirectClientConfig.Namespace)."""
    if kubeconfig is None:
        try:
            return _SA_NAMESPACE.read_text().strip() or "default"
        except OSError:
            return "default"
    try:
        from kubernetes import config
        from kubernetes.config.config_exception import ConfigException
    except ImportError:
        raise ConfigError("reading a cluster needs the kubernetes client: "
                          "pip install 'kubesched[live]'") from None
    try:
        contexts, current = config.list_kube_config_contexts(config_file=str(kubeconfig))
    except (ConfigException, OSError, ValueError) as exc:
        raise ConfigError(f"{kubeconfig}: {exc}") from None
    chosen = current if not context else next((c for c in contexts or () if c.get("name") == context), None)
    if chosen is None:
        raise ConfigError(f"{kubeconfig}: no context {context!r}")
    return str((chosen.get("context") or {}).get("namespace") or "default")
