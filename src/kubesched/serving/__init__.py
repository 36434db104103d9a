"""Serving: what ``kubesched run`` and ``kubesched extender`` share to serve HTTP(S), the
pieces of k8s.io/apiserver's pkg/server kube-scheduler uses.

- :class:`HTTPServer`: the one HTTP/1.1 server, routes mounted by each command (:mod:`._http`);
- :func:`parse_bind_address`: ``--bind-address`` and ``--secure-port`` (:mod:`._address`);
- :func:`tls_context_from_files`, :func:`self_signed_context`: ``--tls-cert-file`` /
  ``--tls-private-key-file`` or a self-signed certificate (:mod:`._certs`);
- :class:`DelegatedAuth`: delegated authentication and authorization of every request
  (TokenReview, SubjectAccessReview, the client CA), with :class:`DelegatedAuthOptions` for
  the flags (:mod:`._auth`);
- :func:`wait_for_informers`, :func:`stop_on_signals`: the start-up wait and the signals
  (:mod:`._lifecycle`).

It sits below the front ends (``app``, ``extender``) and reads only ``cluster`` (the API
server's reviews, through the live client) and the standard library.
"""

from ._address import join_host_port, parse_bind_address
from ._auth import (
    ANONYMOUS,
    DEFAULT_ALWAYS_ALLOW_PATHS,
    DelegatedAuth,
    DelegatedAuthOptions,
    UserInfo,
    parse_paths,
    refuse_failed_handshake,
)
from ._certs import self_signed_context, tls_context_from_files
from ._http import TEXT, HTTPServer, Request, Response, run_after
from ._lifecycle import SYNC_LOG_INTERVAL, stop_on_signals, wait_for_informers

__all__ = [
    "ANONYMOUS",
    "DEFAULT_ALWAYS_ALLOW_PATHS",
    "SYNC_LOG_INTERVAL",
    "TEXT",
    "DelegatedAuth",
    "DelegatedAuthOptions",
    "HTTPServer",
    "Request",
    "Response",
    "UserInfo",
    "join_host_port",
    "parse_bind_address",
    "parse_paths",
    "refuse_failed_handshake",
    "run_after",
    "self_signed_context",
    "stop_on_signals",
    "tls_context_from_files",
    "wait_for_informers",
]
