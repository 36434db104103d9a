"""The serving address: kube-scheduler's ``--bind-address`` (an IP) and ``--secure-port``
(SecureServingOptions.AddFlags, k8s.io/apiserver/pkg/server/options/serving.go), parsed once
for every command that serves.

Upstream's ``--bind-address`` is an IP alone. kubesched has always taken ``HOST:PORT`` there
too, and users pass it (``0.0.0.0:10259``, ``[::1]:8888``, ``:8888``), so both are accepted:
an IP (``127.0.0.1``, ``::1``) takes the port from ``--secure-port``; ``HOST:PORT`` carries
its own, and then ``--secure-port`` must not be given as well. An empty host (``:8888``) is
every interface, as Go's ``net.Listen(":8888")``; ``localhost`` is taken as a host. Port 0
asks the OS for a free port.
"""

from __future__ import annotations

import ipaddress

__all__ = ["join_host_port", "parse_bind_address"]


def _check_host(address: str, host: str) -> str:
    if host == "localhost":
        return host
    try:
        ipaddress.ip_address(host)
    except ValueError:
        raise ValueError(f"bind address {address!r}: {host!r} is not an IP address") from None
    return host


def parse_bind_address(address: str, port: int | None = None,
                       default_port: int | None = None) -> tuple[str, int]:
    """``address`` (``IP``, ``HOST:PORT``, ``[v6]:PORT`` or ``:PORT``) and ``port`` (the
    ``--secure-port`` flag; None: not given, an IP then takes ``default_port``) to (host,
    port). ValueError, starting with ``bind address 'ADDRESS': ``, naming what is wrong."""
    if port is not None and not 0 <= port <= 65535:
        raise ValueError(f"bind address {address!r}: port must be a number in [0, 65535]")
    try:
        bare = ipaddress.ip_address(address)
    except ValueError:
        bare = None
    if bare is not None or address == "localhost":
        port = port if port is not None else default_port
        if port is None:
            raise ValueError(f"bind address {address!r}: expected HOST:PORT, or an IP with a port")
        return address, port
    host, sep, port_text = address.rpartition(":")
    if not sep or (not host and not port_text):
        raise ValueError(f"bind address {address!r}: expected HOST:PORT or an IP address")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    host = _check_host(address, host) if host else "0.0.0.0"
    if not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        raise ValueError(f"bind address {address!r}: port must be a number in [0, 65535]")
    if port is not None and port != int(port_text):
        raise ValueError(f"bind address {address!r}: the port is given twice (--secure-port {port})")
    return host, int(port_text)


def join_host_port(host: str, port: int) -> str:
    """net.JoinHostPort: ``HOST:PORT``, an IPv6 host in brackets."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
