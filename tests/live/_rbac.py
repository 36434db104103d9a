"""kubesched's ServiceAccount and RBAC from ``deploy/`` on the test control plane, and a
kubeconfig holding only that ServiceAccount's token, so a live test can run kubesched with
exactly the permissions a cluster deployment gives it (the issue's "RBAC-only token").

A live test runs kubesched with that kubeconfig and :func:`scheduler_config` (the ConfigMap's
configuration, pointed at the kubeconfig): the token may elect only on the Lease that
configuration names (``kube-system/kubesched``), as in a cluster.

The manifests are applied with server-side apply (idempotent: any number of tests may call
:func:`kubesched_kubeconfig` on the session's control plane) and strict field validation, so
a field the API server does not know is an error rather than silently dropped. The token comes
from the TokenRequest API (``serviceaccounts/token``), as the kubelet mints a projected token.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml
from kubernetes import client, config
from kubernetes.dynamic import DynamicClient

from .conftest import REPO, ControlPlane

DEPLOY = REPO / "deploy"
RBAC_FILES = ("serviceaccount.yaml", "rbac.yaml")
"""The manifests that make up kubesched's identity and permissions (no ConfigMap, no Deployment)."""
FIELD_MANAGER = "kubesched-tests"
_RBAC_SETTLE_SECONDS = 10.0


def documents(*names: str) -> list[dict[str, Any]]:
    """The objects in ``deploy/NAME`` files (every file the kustomization lists without names)."""
    if not names:
        kust = yaml.safe_load((DEPLOY / "kustomization.yaml").read_text())
        names = tuple(kust["resources"])
    out: list[dict[str, Any]] = []
    for name in names:
        out.extend(d for d in yaml.safe_load_all((DEPLOY / name).read_text()) if d)
    return out


def service_account() -> tuple[str, str]:
    """(namespace, name) of kubesched's ServiceAccount, as ``deploy/serviceaccount.yaml`` says."""
    (sa,) = [d for d in documents("serviceaccount.yaml") if d["kind"] == "ServiceAccount"]
    return sa["metadata"]["namespace"], sa["metadata"]["name"]


def scheduler_config(kubeconfig: Path | None = None) -> dict[str, Any]:
    """The KubeSchedulerConfiguration in ``deploy/configmap.yaml``; with ``kubeconfig``, its
    ``clientConnection.kubeconfig`` set to it (in a pod, the in-cluster config stands there)."""
    (cm,) = [d for d in documents("configmap.yaml") if d["kind"] == "ConfigMap"]
    (text,) = cm["data"].values()
    cfg: dict[str, Any] = yaml.safe_load(text)
    if kubeconfig is not None:
        cfg["clientConnection"] = {**cfg.get("clientConnection", {}), "kubeconfig": str(kubeconfig)}
    return cfg


def admin_client(cp: ControlPlane) -> client.ApiClient:
    """An API client with the control plane's admin (system:masters) credentials."""
    return config.new_client_from_config(config_file=str(cp.kubeconfig))


def apply(api: client.ApiClient, objects: Iterable[Mapping[str, Any]]) -> list[Any]:
    """Server-side apply each object with strict field validation; the server's answers."""
    dyn = DynamicClient(api)
    out = []
    for obj in objects:
        res = dyn.resources.get(api_version=obj["apiVersion"], kind=obj["kind"])
        out.append(res.server_side_apply(body=dict(obj), field_manager=FIELD_MANAGER, force_conflicts=True,
                                         query_params=[("fieldValidation", "Strict")]))
    return out


def service_account_token(api: client.ApiClient, *, expiration_seconds: int = 3600) -> str:
    """A token for kubesched's ServiceAccount from the TokenRequest API."""
    namespace, name = service_account()
    req = client.AuthenticationV1TokenRequest(
        spec=client.V1TokenRequestSpec(audiences=[], expiration_seconds=expiration_seconds))
    resp = client.CoreV1Api(api).create_namespaced_service_account_token(name, namespace, req)
    return str(resp.status.token)


def write_kubeconfig(path: Path, cp: ControlPlane, token: str) -> Path:
    """A kubeconfig for ``token`` against the control plane, verifying it with its CA."""
    namespace, name = service_account()
    user = f"system:serviceaccount:{namespace}:{name}"
    doc = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "local", "cluster": {"server": cp.api_url,
                                                    "certificate-authority": str(cp.dir / "ca.crt")}}],
        "users": [{"name": user, "user": {"token": token}}],
        "contexts": [{"name": "kubesched", "context": {"cluster": "local", "user": user}}],
        "current-context": "kubesched",
    }
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    path.chmod(0o600)
    return path


def can_i(api: client.ApiClient, verb: str, resource: str, *, group: str = "", namespace: str = "",
          name: str = "", subresource: str = "") -> bool:
    """SelfSubjectAccessReview: may the client's own identity do this?"""
    attrs = client.V1ResourceAttributes(verb=verb, group=group, resource=resource, namespace=namespace,
                                        name=name, subresource=subresource)
    spec = client.V1SelfSubjectAccessReviewSpec(resource_attributes=attrs)
    review = client.V1SelfSubjectAccessReview(spec=spec)
    resp = client.AuthorizationV1Api(api).create_self_subject_access_review(review)
    return bool(resp.status.allowed)


def _wait_authorized(api: client.ApiClient) -> None:
    """RBAC's authorizer learns new bindings from a watch: wait (bounded) until it has them."""
    deadline = time.monotonic() + _RBAC_SETTLE_SECONDS
    while not can_i(api, "list", "nodes"):
        if time.monotonic() > deadline:
            raise AssertionError(f"kubesched's bindings not in effect after {_RBAC_SETTLE_SECONDS:.0f}s")
        time.sleep(0.05)


def kubesched_kubeconfig(cp: ControlPlane, directory: Path, *, expiration_seconds: int = 3600) -> Path:
    """Apply kubesched's ServiceAccount and RBAC (``deploy/``) and write a kubeconfig holding only
    that ServiceAccount's token (``directory/kubesched.kubeconfig``); returns its path once the
    API server authorizes the token as the bindings say."""
    admin = admin_client(cp)
    try:
        apply(admin, documents(*RBAC_FILES))
        token = service_account_token(admin, expiration_seconds=expiration_seconds)
    finally:
        admin.close()
    path = write_kubeconfig(directory / "kubesched.kubeconfig", cp, token)
    api = config.new_client_from_config(config_file=str(path))
    try:
        _wait_authorized(api)
    finally:
        api.close()
    return path
