"""The serving flags of ``kubesched run`` and ``kubesched extender``, declared and read once:
kube-scheduler's SecureServingOptions (``--bind-address`` an IP, ``--secure-port`` the port,
``--tls-cert-file``, ``--tls-private-key-file``), with what kubesched accepted before kept
working: ``HOST:PORT`` in ``--bind-address`` (see :func:`kubesched.serving.parse_bind_address`)
and the extender's ``--tls-cert`` / ``--tls-key``, hidden deprecated aliases."""

from __future__ import annotations

import ssl

import typer

from ..serving import parse_bind_address, tls_context_from_files

__all__ = ["ServingFlags", "bind_address", "tls_files", "tls_from_files"]


class ServingFlags:
    """The typer options, defaults of both commands' parameters."""

    secure_port = typer.Option(
        None, "--secure-port", show_default=False,
        help="The port to serve on, with an IP in --bind-address (default: the port in --bind-address).")
    tls_cert_file = typer.Option(
        None, "--tls-cert-file", help="Serving certificate (PEM).")
    tls_private_key_file = typer.Option(
        None, "--tls-private-key-file", help="The serving certificate's private key (PEM).")
    tls_cert = typer.Option(None, "--tls-cert", hidden=True, help="Deprecated: --tls-cert-file.")
    tls_key = typer.Option(None, "--tls-key", hidden=True, help="Deprecated: --tls-private-key-file.")


def bind_address(value: str, secure_port: int | None, default_port: int) -> tuple[str, int]:
    """(host, port) of ``--bind-address`` and ``--secure-port``; ValueError naming the flag."""
    try:
        return parse_bind_address(value, secure_port, default_port)
    except ValueError as exc:
        reason = str(exc).removeprefix(f"bind address {value!r}: ")
        raise ValueError(f"--bind-address {value!r}: want HOST:PORT or IP; {reason}") from None


def tls_files(cert_file: str | None, key_file: str | None, old_cert: str | None = None,
              old_key: str | None = None) -> tuple[str, str] | None:
    """The certificate and key files (the deprecated names when those were given), None when
    neither is; ValueError when only one is, naming the flags as given."""
    if old_cert is not None or old_key is not None:
        if cert_file is not None or key_file is not None:
            raise ValueError("--tls-cert and --tls-key are --tls-cert-file and --tls-private-key-file: "
                             "give one pair")
        names, cert_file, key_file = ("--tls-cert", "--tls-key"), old_cert, old_key
    else:
        names = ("--tls-cert-file", "--tls-private-key-file")
    if not cert_file and not key_file:
        return None
    if not cert_file or not key_file:
        raise ValueError(f"{names[0]} and {names[1]} go together")
    return cert_file, key_file


def tls_from_files(files: tuple[str, str]) -> ssl.SSLContext:
    """The serving context of ``files``; ValueError naming them when they do not load."""
    try:
        return tls_context_from_files(*files)
    except (OSError, ssl.SSLError) as exc:
        raise ValueError(f"--tls-cert-file {files[0]} / --tls-private-key-file {files[1]}: {exc}") from None
