"""Serving: what ``kubesched run`` and ``kubesched extender`` share to serve HTTP(S), the
pieces of k8s.io/apiserver's pkg/server kube-scheduler uses.

- :class:`HTTPServer`: the one HTTP/1.1 server, routes mounted by each command (:mod:`._http`);
- :func:`parse_bind_address`: ``--bind-address`` and ``--secure-port`` (:mod:`._address`);
- :func:`tls_context_from_files`, :func:`self_signed_context`: ``--tls-cert-file`` /
  ``--tls-private-key-file`` or a self-signed certificate (:mod:`._certs`);
- :func:`wait_for_informers`, :func:`stop_on_signals`: the start-up wait and the signals
  (:mod:`._lifecycle`).

It sits below the front ends (``app``, ``extender``) and reads only ``cluster`` (the TLS
handshake refusal) and the standard library.
"""

from ._address import join_host_port, parse_bind_address
from ._certs import self_signed_context, tls_context_from_files
from ._http import TEXT, HTTPServer, Request, Response, run_after
from ._lifecycle import SYNC_LOG_INTERVAL, stop_on_signals, wait_for_informers

__all__ = [
    "SYNC_LOG_INTERVAL",
    "TEXT",
    "HTTPServer",
    "Request",
    "Response",
    "join_host_port",
    "parse_bind_address",
    "run_after",
    "self_signed_context",
    "stop_on_signals",
    "tls_context_from_files",
    "wait_for_informers",
]
