"""The configuration for the release a command behaves as (``--kube-version``).

Against a cluster (``run``, ``extender`` with informers, and the commands that read a cluster's
objects: ``simulate``, ``explain``, ``capacity``, ``replay --format snapshot``) and without
``--kube-version``, the release is the API server's: its ``/version`` minor (kubesched behaves
as the scheduler the cluster would run beside that API server), clamped to the releases
kubesched knows, told in one line on stderr. Elsewhere the default is the newest release.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..api import NEWEST_KUBE_VERSION, OLDEST_KUBE_VERSION, KubeVersion
from ..framework import read_quantities_as

if TYPE_CHECKING:
    from ..framework.config import SchedulerConfig
    from ._features import Release

__all__ = ["release_config", "server_kube_version"]


def release_config(config: Path | None, release: Release, *, kubeconfig: str | None = None,
                   context: str | None = None, live: bool = False) -> SchedulerConfig:
    """The configuration file (or kube-scheduler's defaults) for ``release``; with ``live`` and
    no release asked for, for the API server's release (``kubeconfig``, ``context``: the
    cluster's). Raises ConfigError/ValueError."""
    from ..framework.config import default_config, load_config

    def load(version: KubeVersion | None) -> SchedulerConfig:
        if config is not None:
            return load_config(config, features=release.features, kube_version=version)
        return default_config(release.features, version)

    cfg = load(release.kube_version)
    if not live or release.kube_version is not None:
        return cfg
    version, why = server_kube_version(cfg, kubeconfig, context)
    print(f"kubesched: behaving as Kubernetes {version} ({why}; --kube-version chooses another)",
          file=sys.stderr)
    read_quantities_as(version)  # before the informers read anything
    return cfg if version == cfg.kube_version else load(version)


def server_kube_version(cfg: SchedulerConfig, kubeconfig: str | None,
                        context: str | None = None) -> tuple[KubeVersion, str]:
    """The API server's release (``GET /version``: ``major``, ``minor`` as ``"32"`` or ``"32+"``)
    within the releases kubesched knows, and why it was chosen. An unreachable or unreadable
    server gives the newest release (the command then reports the connection itself)."""
    from ..cluster import StoreError

    try:
        from ..cluster.live import ConfigError, rest_client_for
    except ImportError:  # the live extra is missing: the command says so itself
        return NEWEST_KUBE_VERSION, "the API server's version could not be read"
    try:
        rest, _ = rest_client_for(cfg.client_connection, kubeconfig, context)
        try:
            info = rest.request("GET", "/version", timeout=10.0, retry=False) or {}
        finally:
            rest.close()
        server = KubeVersion(int(str(info["major"]).rstrip("+")), int(str(info["minor"]).rstrip("+")))
    except (StoreError, ConfigError, OSError, KeyError, TypeError, ValueError):
        return NEWEST_KUBE_VERSION, "the API server's version could not be read"
    if server > NEWEST_KUBE_VERSION:
        return NEWEST_KUBE_VERSION, f"the API server is {server}, newer than kubesched knows"
    if server < OLDEST_KUBE_VERSION:
        return OLDEST_KUBE_VERSION, f"the API server is {server}, older than kubesched supports"
    return server, "the API server's version"
