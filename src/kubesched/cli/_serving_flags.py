"""The serving and authentication flags of ``kubesched run`` and ``kubesched extender``: one
parameter group (:func:`serving_flags`), declared and read once.

- kube-scheduler's SecureServingOptions (``--bind-address`` an IP, ``--secure-port`` the port,
  ``--tls-cert-file``, ``--tls-private-key-file``), with what kubesched accepted before kept
  working: ``HOST:PORT`` in ``--bind-address`` (see :func:`kubesched.serving.parse_bind_address`)
  and the extender's ``--tls-cert`` / ``--tls-key``, hidden deprecated aliases;
- k8s.io/apiserver's DelegatingAuthenticationOptions and DelegatingAuthorizationOptions AddFlags,
  with kube-scheduler's defaults (see :class:`~kubesched.serving.DelegatedAuth` for what they
  do). The two Go boolean flags (``--authentication-skip-lookup``,
  ``--authentication-tolerate-lookup-failure``) take ``--flag`` or ``--flag=BOOL`` as pflag
  does, so they are read from the arguments the command's parser left (:func:`take_go_bools`);
- klog's ``-v``.
"""

from __future__ import annotations

import ssl
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar, cast

import typer

from ..framework import parse_go_duration
from ..serving import (
    DEFAULT_ALWAYS_ALLOW_PATHS,
    DelegatedAuthOptions,
    parse_bind_address,
    parse_paths,
    tls_context_from_files,
)
from ._errors import record_verbosity
from ._params import flag_bool, option_group

__all__ = ["AUTH_BOOLS", "SERVING", "ServingArgs", "auth_options", "bind_address", "serving_flags",
           "take_go_bools", "tls_files", "tls_from_files"]

F = TypeVar("F", bound=Callable[..., Any])


AUTH_BOOLS = {"--authentication-skip-lookup": False, "--authentication-tolerate-lookup-failure": True}
"""The boolean flags and kube-scheduler's defaults (NewOptions: TolerateInClusterLookupFailure)."""

def take_go_bools(args: Sequence[str], defaults: dict[str, bool]) -> tuple[dict[str, bool], list[str]]:
    """The Go boolean flags among ``args`` (strconv.ParseBool's spellings; the last one given
    wins) and the arguments that are not one of them. ValueError for a bad value."""
    values = dict(defaults)
    rest: list[str] = []
    for arg in args:
        name, eq, text = arg.partition("=")
        if name not in defaults:
            rest.append(arg)
        else:
            values[name] = flag_bool(name, text if eq else None)
    return values, rest


@dataclass(frozen=True, slots=True)
class ServingArgs:
    """The group's values as given on the command line (read by :meth:`address`,
    :meth:`tls_files` and :meth:`auth`, which name the flag that is wrong)."""

    bind_address: str
    secure_port: int | None
    tls_cert_file: str | None
    tls_private_key_file: str | None
    authentication_kubeconfig: str
    authorization_kubeconfig: str
    always_allow_paths: str
    client_ca_file: str
    token_cache_ttl: str
    allow_cache_ttl: str
    deny_cache_ttl: str
    verbosity: int
    tls_cert: str | None = None
    tls_key: str | None = None

    @property
    def serves(self) -> bool:
        """False when ``--bind-address ""`` or ``--secure-port 0`` turn serving off
        (SecureServingOptions: port 0, none)."""
        return bool(self.bind_address) and self.secure_port != 0

    def address(self, default_port: int) -> tuple[str, int]:
        """(host, port) to serve on; ValueError naming the flag."""
        return bind_address(self.bind_address, self.secure_port, default_port)

    def tls_files(self) -> tuple[str, str] | None:
        """The certificate and key files, None when none is given; ValueError naming the flags."""
        return tls_files(self.tls_cert_file, self.tls_private_key_file, self.tls_cert, self.tls_key)

    def auth(self, args: Sequence[str]) -> tuple[DelegatedAuthOptions, list[str]]:
        """The authentication and authorization options, with the Go boolean flags among
        ``args`` (the arguments the command's parser left), and the arguments that are not one
        of them; ValueError naming the flag that is wrong."""
        bools, rest = take_go_bools(args, AUTH_BOOLS)
        opts = auth_options(
            authentication_kubeconfig=self.authentication_kubeconfig,
            authorization_kubeconfig=self.authorization_kubeconfig,
            always_allow_paths=self.always_allow_paths, client_ca_file=self.client_ca_file,
            token_cache_ttl=self.token_cache_ttl, allow_cache_ttl=self.allow_cache_ttl,
            deny_cache_ttl=self.deny_cache_ttl, bools=bools)
        return opts, rest


def _options(default_bind_address: str, bind_help: str, verbosity_help: str,
             old_tls_names: bool) -> dict[str, tuple[Any, Any]]:
    """The group's typer options by parameter name: (annotation, ``typer.Option``)."""
    old_tls: dict[str, tuple[Any, Any]] = {}
    if old_tls_names:  # the extender's names before it took upstream's
        old_tls = {
            "tls_cert": (str | None, typer.Option(None, "--tls-cert", hidden=True,
                                                  help="Deprecated: --tls-cert-file.")),
            "tls_key": (str | None, typer.Option(None, "--tls-key", hidden=True,
                                                 help="Deprecated: --tls-private-key-file.")),
        }
    return {
        "bind_address": (str, typer.Option(default_bind_address, "--bind-address", help=bind_help)),
        "secure_port": (int | None, typer.Option(
            None, "--secure-port", show_default=False,
            help="The port to serve on, with an IP in --bind-address "
                 "(default: the port in --bind-address).")),
        "tls_cert_file": (str | None, typer.Option(None, "--tls-cert-file",
                                                   help="Serving certificate (PEM).")),
        "tls_private_key_file": (str | None, typer.Option(
            None, "--tls-private-key-file", help="The serving certificate's private key (PEM).")),
        **old_tls,
        "authentication_kubeconfig": (str, typer.Option(
            "", "--authentication-kubeconfig",
            help="kubeconfig with the right to create tokenreviews.authentication.k8s.io (empty: the "
                 "in-cluster service account; outside a pod every token request is anonymous).")),
        "authorization_kubeconfig": (str, typer.Option(
            "", "--authorization-kubeconfig",
            help="kubeconfig with the right to create subjectaccessreviews.authorization.k8s.io (empty: "
                 "the in-cluster service account; outside a pod all requests not skipped by "
                 "authorization are forbidden).")),
        "always_allow_paths": (str, typer.Option(
            ",".join(DEFAULT_ALWAYS_ALLOW_PATHS), "--authorization-always-allow-paths",
            help="Comma-separated HTTP paths served without authorization (a trailing * matches a prefix).")),
        "client_ca_file": (str, typer.Option(
            "", "--client-ca-file",
            help="Authenticate client certificates signed by these CAs as their CommonName (default: "
                 "the cluster's client CA, looked up in kube-system/extension-apiserver-authentication).")),
        "token_cache_ttl": (str, typer.Option(
            "10s", "--authentication-token-webhook-cache-ttl",
            help="How long a TokenReview answer is cached.")),
        "allow_cache_ttl": (str, typer.Option(
            "10s", "--authorization-webhook-cache-authorized-ttl",
            help="How long an allowing SubjectAccessReview answer is cached.")),
        "deny_cache_ttl": (str, typer.Option(
            "10s", "--authorization-webhook-cache-unauthorized-ttl",
            help="How long a refusing SubjectAccessReview answer is cached.")),
        "verbosity": (int, typer.Option(0, "-v", "--v", callback=record_verbosity, help=verbosity_help)),
    }


SERVING: ServingArgs = cast("ServingArgs", object())
"""The default of a command's ``serving`` parameter, which :func:`serving_flags` replaces by the
group's options (the value the command gets is never this)."""


def serving_flags(*, bind_address: str, bind_help: str, verbosity_help: str,
                  old_tls_names: bool = False) -> Callable[[F], F]:
    """Declare the group on a typer command: its options take the place of the command's
    ``serving: ServingArgs = SERVING`` parameter (in that position of ``--help``), and the
    command gets their values as one :class:`ServingArgs`. ``bind_address``/``bind_help``: the
    command's default address and its help; ``old_tls_names``: accept ``--tls-cert``/``--tls-key``."""
    return option_group("serving", ServingArgs,
                        _options(bind_address, bind_help, verbosity_help, old_tls_names))


def auth_options(*, authentication_kubeconfig: str, authorization_kubeconfig: str, always_allow_paths: str,
                 client_ca_file: str, token_cache_ttl: str, allow_cache_ttl: str, deny_cache_ttl: str,
                 bools: dict[str, bool]) -> DelegatedAuthOptions:
    """The flags' values as options; ValueError naming the flag that is wrong."""
    ttls: dict[str, float] = {}
    for flag, text in (("--authentication-token-webhook-cache-ttl", token_cache_ttl),
                       ("--authorization-webhook-cache-authorized-ttl", allow_cache_ttl),
                       ("--authorization-webhook-cache-unauthorized-ttl", deny_cache_ttl)):
        try:
            ttls[flag] = parse_go_duration(text)
        except ValueError as exc:
            raise ValueError(f"{flag} {text!r}: {exc}") from None
    return DelegatedAuthOptions(
        authentication_kubeconfig=authentication_kubeconfig,
        authorization_kubeconfig=authorization_kubeconfig,
        client_ca_file=client_ca_file,
        skip_lookup=bools["--authentication-skip-lookup"],
        tolerate_lookup_failure=bools["--authentication-tolerate-lookup-failure"],
        token_cache_ttl=ttls["--authentication-token-webhook-cache-ttl"],
        allow_cache_ttl=ttls["--authorization-webhook-cache-authorized-ttl"],
        deny_cache_ttl=ttls["--authorization-webhook-cache-unauthorized-ttl"],
        always_allow_paths=parse_paths(always_allow_paths))


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
