"""Delegated authentication and authorization of the serving endpoints, as kube-scheduler does it.

kube-scheduler (cmd/kube-scheduler/app/options/options.go, NewOptions) serves its port behind
k8s.io/apiserver's DelegatingAuthenticationOptions and DelegatingAuthorizationOptions
(staging/src/k8s.io/apiserver/pkg/server/options/authentication.go, authorization.go): every
request is first authenticated, then authorized, then served.

Authentication (authenticatorfactory.DelegatingAuthenticatorConfig.New): a client certificate
signed by the client CA (``--client-ca-file``, else the ``client-ca-file`` key of the ConfigMap
kube-system/extension-apiserver-authentication) is the user of its CommonName in the groups of
its Organizations; a bearer token is the user a TokenReview says, the answer cached for
``--authentication-token-webhook-cache-ttl`` (10s; an error is not cached); a token the API
server does not accept is a 401 ``Unauthorized``. A request with no credentials is
``system:anonymous`` in ``system:unauthenticated`` (anonymous.NewAuthenticator);
authenticated users also get ``system:authenticated`` (group.AuthenticatedGroupAdder).

Authorization (DelegatingAuthorizationOptions.toAuthorizer, a union in this order): the group
``system:masters`` is always allowed; ``--authorization-always-allow-paths`` (default
``/healthz,/readyz,/livez``; a trailing ``*`` matches a prefix) are allowed for anyone; anything
else is a SubjectAccessReview of the non-resource attributes (the path and the lower-cased HTTP
method as the verb, request.RequestInfoFactory), allowed answers cached for
``--authorization-webhook-cache-authorized-ttl`` and the others for
``--authorization-webhook-cache-unauthorized-ttl`` (10s each). Not allowed: a 403 whose
metav1.Status says ``forbidden: User "NAME" cannot VERB path "PATH"`` (responsewriters.Forbidden,
with the review's reason after a colon when it gives one); a review that fails: a 500.

Where the API server is (getClient): ``--authentication-kubeconfig`` and
``--authorization-kubeconfig``, each empty by default, meaning the in-cluster service account.
kube-scheduler sets RemoteKubeConfigFileOptional, so outside a cluster an empty flag means no
delegation at all: no token is reviewed (requests with a token are anonymous) and nothing beyond
the always-allowed paths and groups is authorized. It never falls back to ``--kubeconfig``.
kube-scheduler also sets TolerateInClusterLookupFailure: a ConfigMap that cannot be read is
three warnings and no client certificate authentication, unless
``--authentication-tolerate-lookup-failure=false`` makes it fatal; ``--authentication-skip-lookup``
does not read it at all.

Not mirrored: the request-header (front proxy) authenticator of the same ConfigMap, and reloading
the client CA when the ConfigMap changes (it is read once, at start).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import socket
import ssl
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..cluster import StoreError

if TYPE_CHECKING:
    from ..cluster.live import RestClient

__all__ = [
    "ANONYMOUS",
    "DEFAULT_ALWAYS_ALLOW_PATHS",
    "DelegatedAuth",
    "DelegatedAuthOptions",
    "UserInfo",
    "parse_paths",
    "refuse_failed_handshake",
]

log = logging.getLogger(__name__)

DEFAULT_ALWAYS_ALLOW_PATHS = ("/healthz", "/readyz", "/livez")
"""NewDelegatingAuthorizationOptions: the kubelet's probes need no credentials."""
ALWAYS_ALLOW_GROUPS = ("system:masters",)
"""NewDelegatingAuthorizationOptions: the API server's own authorizer allows this group anything."""
AUTHENTICATION_CONFIGMAP = ("kube-system", "extension-apiserver-authentication")
"""Where the API server publishes its client CA (authenticationConfigMapNamespace/Name)."""
DELEGATION_QPS, DELEGATION_BURST = 200.0, 400
"""getClient: high limits, since they bound how fast the endpoints can answer."""
REVIEW_TIMEOUT = 10.0
"""TokenRequestTimeout and ClientTimeout: a review that takes longer fails."""

_JSON = "application/json"
_TEXT = "text/plain; charset=utf-8"
_AUTHENTICATED = "system:authenticated"

Answer = tuple[int, str, bytes]
"""(status, content type, body) of a refused request."""


@dataclass(frozen=True, slots=True)
class UserInfo:
    """user.Info: who made a request."""

    name: str
    uid: str = ""
    groups: tuple[str, ...] = ()
    extra: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


ANONYMOUS = UserInfo("system:anonymous", groups=("system:unauthenticated",))
"""anonymous.NewAuthenticator: a request without credentials."""


@dataclass(frozen=True, slots=True)
class DelegatedAuthOptions:
    """The authentication and authorization flags, with kube-scheduler's defaults."""

    authentication_kubeconfig: str = ""
    authorization_kubeconfig: str = ""
    client_ca_file: str = ""
    skip_lookup: bool = False
    tolerate_lookup_failure: bool = True
    token_cache_ttl: float = 10.0
    allow_cache_ttl: float = 10.0
    deny_cache_ttl: float = 10.0
    always_allow_paths: tuple[str, ...] = DEFAULT_ALWAYS_ALLOW_PATHS

    def __post_init__(self) -> None:
        for p in self.always_allow_paths:  # path.NewAuthorizer
            if "*" in p[:-1]:
                raise ValueError(f"--authorization-always-allow-paths {p!r}: only a trailing * is allowed")
        for name in ("token_cache_ttl", "allow_cache_ttl", "deny_cache_ttl"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name.replace('_', '-')}: must not be negative")


class _TTLCache:
    """A map whose entries expire after the TTL given with each (cache.LRUExpireCache, unbounded
    in size here: its keys are the few tokens and paths that reach one scheduler)."""

    def __init__(self, monotonic: Callable[[], float]) -> None:
        self._now = monotonic
        self._lock = threading.Lock()
        self._entries: dict[str, tuple[float, Any]] = {}

    def get(self, key: str) -> Any | None:
        with self._lock:
            hit = self._entries.get(key)
            if hit is None:
                return None
            if hit[0] <= self._now():
                del self._entries[key]
                return None
            return hit[1]

    def put(self, key: str, value: Any, ttl: float) -> None:
        if ttl <= 0:
            return
        with self._lock:
            now = self._now()
            if len(self._entries) > 4096:  # drop what expired before growing further
                self._entries = {k: v for k, v in self._entries.items() if v[0] > now}
            self._entries[key] = (now + ttl, value)


def _status(code: int, reason: str, message: str, details: bool) -> Answer:
    """A metav1.Status body as the API server's error writers encode it."""
    doc: dict[str, Any] = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                           "message": message, "reason": reason}
    if details:
        doc["details"] = {}
    doc["code"] = code
    return code, _JSON, json.dumps(doc, separators=(",", ":")).encode() + b"\n"  # json.Encoder's newline


UNAUTHORIZED = _status(401, "Unauthorized", "Unauthorized", details=False)
"""responsewriters.Unauthorized: the credentials given were not accepted."""


def _forbidden(user: UserInfo, verb: str, path: str, reason: str) -> Answer:
    """responsewriters.Forbidden for a non-resource request."""
    msg = f"User {json.dumps(user.name)} cannot {verb} path {json.dumps(path)}"
    if reason:
        msg = f"{msg}: {reason}"
    return _status(403, "Forbidden", f"forbidden: {msg}", details=True)


def _in_cluster_client(what: str) -> RestClient | None:
    """rest.InClusterConfig, optional as kube-scheduler makes it: None outside a pod (and a
    warning when inside one whose service account cannot be read)."""
    if not os.environ.get("KUBERNETES_SERVICE_HOST") or not os.environ.get("KUBERNETES_SERVICE_PORT"):
        return None
    try:
        return _client(None)
    except ValueError as exc:  # ConfigError
        log.warning("failed to read in-cluster kubeconfig for delegated %s: %s", what, exc)
        return None


def _client(kubeconfig: Path | None) -> RestClient:
    """A client of the live stack (imported here: offline commands never load it); raises
    ConfigError (a ValueError) for an unusable kubeconfig."""
    from ..cluster.live import ClientSettings, RestClient, load_rest_config

    settings = ClientSettings(qps=DELEGATION_QPS, burst=DELEGATION_BURST)
    return RestClient(load_rest_config(kubeconfig), settings)


class DelegatedAuth:
    """Authenticates and authorizes requests to the serving endpoints (see the module's text).

    Build with :meth:`from_options` (reads the kubeconfigs, looks the client CA up); then
    :meth:`check` each request and :meth:`configure_tls` the serving context so that clients
    may present certificates. ``authn`` / ``authz``: the API server clients for TokenReviews and
    SubjectAccessReviews (None: no delegation of that half)."""

    def __init__(self, options: DelegatedAuthOptions | None = None, *, authn: RestClient | None = None,
                 authz: RestClient | None = None, client_ca: str | None = None,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self.options = options if options is not None else DelegatedAuthOptions()
        self.authn, self.authz, self.client_ca = authn, authz, client_ca
        self._tokens = _TTLCache(monotonic)
        self._reviews = _TTLCache(monotonic)
        paths = [p.lstrip("/") for p in self.options.always_allow_paths]
        self._exact = frozenset(p for p in paths if not p.endswith("*"))
        self._prefixes = tuple(p[:-1] for p in paths if p.endswith("*"))

    @classmethod
    def from_options(cls, options: DelegatedAuthOptions) -> DelegatedAuth:
        """The clients the flags name (ValueError when a named kubeconfig is unusable) and the
        client CA (ValueError when it cannot be read and lookup failures are not tolerated)."""
        authn = (_client(Path(options.authentication_kubeconfig)) if options.authentication_kubeconfig
                 else _in_cluster_client("authentication"))
        authz = (_client(Path(options.authorization_kubeconfig)) if options.authorization_kubeconfig
                 else _in_cluster_client("authorization"))
        if authz is None:
            log.warning("No authorization-kubeconfig provided, so SubjectAccessReview of authorization "
                        "tokens won't work.")
        client_ca: str | None = None
        if options.client_ca_file:
            try:
                client_ca = Path(options.client_ca_file).read_text()
            except OSError as exc:
                raise ValueError(f"--client-ca-file {options.client_ca_file}: "
                                  f"{exc.strerror or exc}") from None
        elif not options.skip_lookup:
            if authn is None:
                ns, name = AUTHENTICATION_CONFIGMAP
                log.warning("No authentication-kubeconfig provided in order to lookup client-ca-file in "
                            "configmap/%s in %s, so client certificate authentication won't work.", name, ns)
            else:
                client_ca = _lookup_client_ca(authn, options.tolerate_lookup_failure)
        if client_ca is not None:
            _check_ca(client_ca)
        return cls(options, authn=authn, authz=authz, client_ca=client_ca)

    def configure_tls(self, ctx: ssl.SSLContext) -> None:
        """Ask clients for a certificate signed by the client CA (optional: token and anonymous
        clients present none), when there is one."""
        if self.client_ca:
            ctx.load_verify_locations(cadata=self.client_ca)
            ctx.verify_mode = ssl.CERT_OPTIONAL

    def close(self) -> None:
        for c in (self.authn, self.authz):
            if c is not None:
                c.close()

    # -- one request ----------------------------------------------------------------------------
    def check(self, method: str, path: str, authorization: str | None,
              peer_cert: Mapping[str, Any] | None = None) -> Answer | None:
        """None when the request may be served, else the answer refusing it. ``authorization``:
        the Authorization header; ``peer_cert``: the verified client certificate
        (``SSLSocket.getpeercert()``), if any."""
        user = self.authenticate(authorization, peer_cert)
        if user is None:
            return UNAUTHORIZED
        verb = method.lower()
        try:
            allowed, reason = self.authorize(user, verb, path)
        except StoreError as exc:
            log.warning("authorizing %s %s for %s: %s", verb, path, user.name, exc)
            return 500, _TEXT, f"Internal Server Error: {json.dumps(path)}: {exc}\n".encode()
        if allowed:
            return None
        log.debug("Forbidden %s %s for %s: %s", verb, path, user.name, reason or "no opinion")
        return _forbidden(user, verb, path, reason)

    def authenticate(self, authorization: str | None, peer_cert: Mapping[str, Any] | None = None
                     ) -> UserInfo | None:
        """The request's user; None when the credentials it gives are not accepted."""
        if peer_cert and self.client_ca:
            user = _user_of_certificate(peer_cert)
            if user is not None:
                return _with_authenticated(user)
        token = _bearer_token(authorization)
        if token is None or self.authn is None:
            return ANONYMOUS
        return self._review_token(token)

    def _review_token(self, token: str) -> UserInfo | None:
        key = hashlib.sha256(token.encode()).hexdigest()
        hit = self._tokens.get(key)
        if hit is not None:
            return hit if isinstance(hit, UserInfo) else None
        assert self.authn is not None
        review = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": {"token": token}}
        try:
            out = self.authn.request("POST", "/apis/authentication.k8s.io/v1/tokenreviews", review,
                                     timeout=REVIEW_TIMEOUT, retry=False)
        except StoreError as exc:  # not cached: the next request asks again
            log.warning("Failed to make webhook authenticator request: %s", exc)
            return None
        status = (out or {}).get("status") or {}
        if not status.get("authenticated"):
            self._tokens.put(key, False, self.options.token_cache_ttl)
            return None
        u = status.get("user") or {}
        user = _with_authenticated(UserInfo(
            str(u.get("username", "")), str(u.get("uid", "")), tuple(u.get("groups") or ()),
            {k: tuple(v or ()) for k, v in (u.get("extra") or {}).items()}))
        self._tokens.put(key, user, self.options.token_cache_ttl)
        return user

    def authorize(self, user: UserInfo, verb: str, path: str) -> tuple[bool, str]:
        """(allowed, reason); raises StoreError when the review fails."""
        if any(g in ALWAYS_ALLOW_GROUPS for g in user.groups):
            return True, ""
        bare = path.lstrip("/")
        if bare in self._exact or any(bare.startswith(p) for p in self._prefixes):
            return True, ""
        if self.authz is None:
            return False, ""
        spec: dict[str, Any] = {"user": user.name, "groups": list(user.groups),
                                "nonResourceAttributes": {"path": path, "verb": verb}}
        if user.uid:
            spec["uid"] = user.uid
        if user.extra:
            spec["extra"] = {k: list(v) for k, v in user.extra.items()}
        key = json.dumps(spec, sort_keys=True)
        hit = self._reviews.get(key)
        if hit is not None:
            return hit
        review = {"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview", "spec": spec}
        out = self.authz.request("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", review,
                                 timeout=REVIEW_TIMEOUT, retry=False)
        status = (out or {}).get("status") or {}
        decision = (bool(status.get("allowed")), str(status.get("reason") or ""))
        self._reviews.put(key, decision,
                          self.options.allow_cache_ttl if decision[0] else self.options.deny_cache_ttl)
        return decision


def _bearer_token(header: str | None) -> str | None:
    """bearertoken.Authenticator: ``Bearer TOKEN`` (any case); anything else is no token."""
    if not header:
        return None
    parts = header.strip().split(" ")
    if len(parts) < 2 or parts[0].lower() != "bearer" or not parts[1]:
        return None
    return parts[1]


def _user_of_certificate(cert: Mapping[str, Any]) -> UserInfo | None:
    """x509.CommonNameUserConversion: the CommonName is the user, the Organizations its groups."""
    cn = ""
    orgs: list[str] = []
    for rdn in cert.get("subject") or ():
        for key, value in rdn:
            if key == "commonName":
                cn = value
            elif key == "organizationName":
                orgs.append(value)
    if not cn:
        return None
    return UserInfo(cn, groups=tuple(orgs))


def _with_authenticated(user: UserInfo) -> UserInfo:
    """group.AuthenticatedGroupAdder."""
    if _AUTHENTICATED in user.groups or user.name == ANONYMOUS.name:
        return user
    return UserInfo(user.name, user.uid, (*user.groups, _AUTHENTICATED), user.extra)


def _lookup_client_ca(authn: RestClient, tolerate: bool) -> str | None:
    """The ``client-ca-file`` of the API server's authentication ConfigMap (None when it has
    none); a failed lookup is tolerated with upstream's three warnings, or is a ValueError."""
    ns, name = AUTHENTICATION_CONFIGMAP
    try:
        cm = authn.request("GET", f"/api/v1/namespaces/{ns}/configmaps/{name}", timeout=REVIEW_TIMEOUT,
                           retry=False)
    except StoreError as exc:
        if not tolerate:
            raise ValueError(f"unable to load configmap based client CA file: configmap {ns}/{name}: "
                              f"{exc}") from None
        log.warning("Error looking up in-cluster authentication configuration: %s", exc)
        log.warning("Continuing without authentication configuration. "
                    "This may treat all requests as anonymous.")
        log.warning("To require authentication configuration lookup to succeed, "
                    "set --authentication-tolerate-lookup-failure=false")
        return None
    ca = ((cm or {}).get("data") or {}).get("client-ca-file")
    return str(ca) if ca else None


PLAIN_HTTP_ANSWER = b"HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n"
"""What Go's net/http writes, unencrypted, to a plain HTTP client of a TLS port (server.go)."""


def refuse_failed_handshake(conn: Any, client_address: Any, exc: BaseException) -> None:
    """A client that could not complete the TLS handshake of a serving port (plain HTTP, a TLS
    version below 1.2, a certificate the client CA did not sign): one line, as net/http's
    ``http: TLS handshake error from ADDR: REASON``, never a traceback; a plain HTTP client
    also gets Go's ``400 Bad Request`` in plain text, so it learns why."""
    if isinstance(client_address, tuple) and len(client_address) >= 2:
        where = f"{client_address[0]}:{client_address[1]}"
    else:
        where = str(client_address)
    reason = getattr(exc, "reason", None) or str(exc) or type(exc).__name__
    if reason == "HTTP_REQUEST":
        reason = "client sent an HTTP request to an HTTPS server"
        if isinstance(conn, socket.socket):
            with contextlib.suppress(OSError):  # past TLS: the socket's own, unencrypted send
                socket.socket.sendall(conn, PLAIN_HTTP_ANSWER)
    log.info("http: TLS handshake error from %s: %s", where, reason)


def _check_ca(pem: str) -> None:
    try:
        ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_verify_locations(cadata=pem)
    except (ssl.SSLError, ValueError) as exc:
        raise ValueError(f"client CA: not a PEM certificate bundle: {exc}") from None


def parse_paths(text: str) -> tuple[str, ...]:
    """A StringSlice flag's value: comma-separated, empty entries dropped."""
    return tuple(p.strip() for p in text.split(",") if p.strip())

