"""The API client a configuration's ``clientConnection`` and a ``--kubeconfig`` flag describe.

Shared by every front end that talks to a cluster (``kubesched run``, ``kubesched extender``):
one resolution order (see :mod:`._config`), one client type.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from ._config import client_settings, load_rest_config, resolve_kubeconfig
from ._rest import RestClient

__all__ = ["ClientConnection", "rest_client_for"]


class ClientConnection(Protocol):
    """KubeSchedulerConfiguration's ``clientConnection``, as decoded and defaulted."""

    @property
    def kubeconfig(self) -> str: ...
    @property
    def qps(self) -> float: ...
    @property
    def burst(self) -> int: ...
    @property
    def content_type(self) -> str: ...
    @property
    def accept_content_types(self) -> str: ...


def rest_client_for(cc: ClientConnection, kubeconfig: str | None,
                    context: str | None = None) -> tuple[RestClient, Path | None]:
    """The client, and the kubeconfig file it was read from (None: in-cluster); ``context``:
    the kubeconfig's context to use (None: its current one). Raises ConfigError when nothing
    usable is found."""
    settings = client_settings(cc.kubeconfig, cc.qps, cc.burst, cc.content_type, cc.accept_content_types)
    path = resolve_kubeconfig(kubeconfig, settings.kubeconfig)
    return RestClient(load_rest_config(path, context), settings), path
