"""kube-scheduler's authentication and authorization flags for the serving port, shared by
``kubesched run`` and ``kubesched extender`` (k8s.io/apiserver's DelegatingAuthenticationOptions
and DelegatingAuthorizationOptions AddFlags, with kube-scheduler's defaults; see
:class:`~kubesched.serving.DelegatedAuth` for what they do).

The two Go boolean flags (``--authentication-skip-lookup``,
``--authentication-tolerate-lookup-failure``) take ``--flag`` or ``--flag=BOOL`` as pflag does, so
they are read from the arguments the command's parser left (:func:`take_go_bools`).
"""

from __future__ import annotations

from collections.abc import Sequence

import typer

from ..framework import parse_go_duration
from ..serving import DEFAULT_ALWAYS_ALLOW_PATHS, DelegatedAuthOptions, parse_paths

__all__ = ["AUTH_BOOLS", "AuthFlags", "auth_options", "take_go_bools"]

_TRUE = {"1", "t", "T", "TRUE", "true", "True"}
_FALSE = {"0", "f", "F", "FALSE", "false", "False"}

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
        elif not eq or text in _TRUE:
            values[name] = True
        elif text in _FALSE:
            values[name] = False
        else:
            raise ValueError(f'invalid argument "{text}" for "{name}" flag: '
                             f'strconv.ParseBool: parsing "{text}": invalid syntax')
    return values, rest


class AuthFlags:
    """The typer options, declared once for both commands (``typer.Option`` objects are
    defaults of the command's parameters)."""

    authentication_kubeconfig = typer.Option(
        "", "--authentication-kubeconfig",
        help="kubeconfig with the right to create tokenreviews.authentication.k8s.io (empty: the "
             "in-cluster service account; outside a pod every token request is anonymous).")
    authorization_kubeconfig = typer.Option(
        "", "--authorization-kubeconfig",
        help="kubeconfig with the right to create subjectaccessreviews.authorization.k8s.io (empty: "
             "the in-cluster service account; outside a pod all requests not skipped by "
             "authorization are forbidden).")
    always_allow_paths = typer.Option(
        ",".join(DEFAULT_ALWAYS_ALLOW_PATHS), "--authorization-always-allow-paths",
        help="Comma-separated HTTP paths served without authorization (a trailing * matches a prefix).")
    client_ca_file = typer.Option(
        "", "--client-ca-file",
        help="Authenticate client certificates signed by these CAs as their CommonName (default: "
             "the cluster's client CA, looked up in kube-system/extension-apiserver-authentication).")
    token_cache_ttl = typer.Option(
        "10s", "--authentication-token-webhook-cache-ttl", help="How long a TokenReview answer is cached.")
    allow_cache_ttl = typer.Option(
        "10s", "--authorization-webhook-cache-authorized-ttl",
        help="How long an allowing SubjectAccessReview answer is cached.")
    deny_cache_ttl = typer.Option(
        "10s", "--authorization-webhook-cache-unauthorized-ttl",
        help="How long a refusing SubjectAccessReview answer is cached.")


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

