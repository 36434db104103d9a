"""``deploy/`` against a real kube-apiserver with ``--authorization-mode=RBAC``: the manifests
are accepted, the bindings point at the API server's own bootstrap roles, the real
kube-scheduler accepts the configuration, and a token of the ``kubesched`` ServiceAccount may do
exactly what the scheduler does and nothing it must not."""

from __future__ import annotations

import lzma
import shutil
import subprocess
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml
from kubernetes import client, config
from kubernetes.client.exceptions import ApiException
from kubernetes.dynamic import DynamicClient
from kubernetes.dynamic.exceptions import ResourceNotFoundError

from kubesched.api.loader import KINDS
from kubesched.cluster.live import LIVE_KINDS as STORE_KINDS
from kubesched.cluster.live import OPTIONAL_KINDS

from ._rbac import (
    admin_client,
    apply,
    can_i,
    documents,
    kubesched_kubeconfig,
    scheduler_config,
    service_account,
)
from .conftest import ControlPlane, k8s_dir

UPSTREAM_ROLES = ("system:kube-scheduler", "system:volume-scheduler")
BOOTSTRAP_LABEL = ("kubernetes.io/bootstrapping", "rbac-defaults")
COORDINATION = "coordination.k8s.io"

# The kinds the live store watches (kubesched.cluster.live.LIVE_KINDS: no PriorityClasses, no
# workload controllers' kinds; see its docstring). The resource.k8s.io/v1 kinds are optional: a
# server that does not serve that version (before 1.34) is not asked for them.
LIVE_KINDS = [KINDS[k] for k in STORE_KINDS]

Rule = tuple[str, str, str, str]  # (apiGroup, resource, verb, resourceName or "")


@pytest.fixture(scope="module")
def admin(control_plane: ControlPlane) -> Iterator[client.ApiClient]:
    api = admin_client(control_plane)
    yield api
    api.close()


@pytest.fixture(scope="module")
def as_kubesched(control_plane: ControlPlane, tmp_path_factory: pytest.TempPathFactory
                 ) -> Iterator[client.ApiClient]:
    """An API client holding only the kubesched ServiceAccount's token."""
    path = kubesched_kubeconfig(control_plane, tmp_path_factory.mktemp("kubesched-sa"))
    api = config.new_client_from_config(config_file=str(path))
    yield api
    api.close()


def _expand(rules: Sequence[Any]) -> set[Rule]:
    """PolicyRules (API dicts or client models) as one tuple per group/resource/verb/name."""
    out: set[Rule] = set()
    for r in rules:
        if isinstance(r, Mapping):
            groups, resources, verbs, names = (r.get(f) for f in ("apiGroups", "resources", "verbs",
                                                                   "resourceNames"))
        else:
            groups, resources, verbs, names = r.api_groups, r.resources, r.verbs, r.resource_names
        out |= {(g, res, v, n) for g in groups or [] for res in resources or [] for v in verbs or []
                for n in names or [""]}
    return out


def _cluster_role_rules(api: client.ApiClient, name: str) -> set[Rule]:
    role = client.RbacAuthorizationV1Api(api).read_cluster_role(name)
    return _expand(role.rules or [])


def _granted_to_everyone(api: client.ApiClient, groups: Sequence[str]) -> set[Rule]:
    """Resource rules of the ClusterRoles bound to the groups every ServiceAccount is in."""
    rbac = client.RbacAuthorizationV1Api(api)
    out: set[Rule] = set()
    for b in rbac.list_cluster_role_binding().items:
        if any(s.kind == "Group" and s.name in groups for s in b.subjects or []):
            out |= _cluster_role_rules(api, b.role_ref.name)
    return out


def _rules_review(api: client.ApiClient, namespace: str) -> set[Rule]:
    review = client.V1SelfSubjectRulesReview(spec=client.V1SelfSubjectRulesReviewSpec(namespace=namespace))
    status = client.AuthorizationV1Api(api).create_self_subject_rules_review(review).status
    assert not status.incomplete, status.evaluation_error
    return _expand(status.resource_rules or [])


def test_manifests_are_accepted_by_the_api_server(control_plane: ControlPlane,
                                                  admin: client.ApiClient) -> None:
    objs = documents()
    dep = next(d for d in objs if d["kind"] == "Deployment")
    try:
        applied = apply(admin, objs)  # server-side apply, strict field validation
        assert [(a.kind, a.metadata.name) for a in applied] == \
               [(d["kind"], d["metadata"]["name"]) for d in objs]
    finally:
        client.AppsV1Api(admin).delete_namespaced_deployment(dep["metadata"]["name"],
                                                             dep["metadata"]["namespace"])


def test_pod_template_meets_the_restricted_pod_security_standard(admin: client.ApiClient,
                                                                 namespace_name: str) -> None:
    """The Deployment's pods as the PodSecurity admission plugin sees them, in a namespace that
    enforces ``restricted`` (non-root, no privilege escalation, all capabilities dropped,
    RuntimeDefault seccomp): a dry-run create is admitted."""
    core = client.CoreV1Api(admin)
    core.create_namespace({"metadata": {"name": namespace_name,
                                        "labels": {"pod-security.kubernetes.io/enforce": "restricted"}}})
    tpl = next(d for d in documents() if d["kind"] == "Deployment")["spec"]["template"]
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": "kubesched", "labels": tpl["metadata"]["labels"]}, "spec": tpl["spec"]}
    try:
        core.create_namespaced_pod(namespace_name, pod, dry_run="All")
        pod["spec"] = {**tpl["spec"], "securityContext": {}}
        with pytest.raises(ApiException) as refused:  # the check has teeth
            core.create_namespaced_pod(namespace_name, pod, dry_run="All")
        assert refused.value.status == 403 and "PodSecurity" in str(refused.value.body)
    finally:
        core.delete_namespace(namespace_name)


def test_bindings_point_at_the_api_servers_bootstrap_roles(admin: client.ApiClient) -> None:
    rbac = client.RbacAuthorizationV1Api(admin)
    crbs = [d for d in documents() if d["kind"] == "ClusterRoleBinding"]
    assert sorted(b["roleRef"]["name"] for b in crbs) == sorted(UPSTREAM_ROLES)
    for name in UPSTREAM_ROLES:
        role = rbac.read_cluster_role(name)
        assert (role.metadata.labels or {}).get(BOOTSTRAP_LABEL[0]) == BOOTSTRAP_LABEL[1], name
    auth_reader = next(d for d in documents() if d["kind"] == "RoleBinding"
                       and d["roleRef"]["name"] == "extension-apiserver-authentication-reader")
    reader = rbac.read_namespaced_role(auth_reader["roleRef"]["name"], auth_reader["metadata"]["namespace"])
    assert (reader.metadata.labels or {}).get(BOOTSTRAP_LABEL[0]) == BOOTSTRAP_LABEL[1]


def test_token_holds_exactly_upstreams_scheduler_rules(admin: client.ApiClient,
                                                       as_kubesched: client.ApiClient) -> None:
    """What the token may do (SelfSubjectRulesReview), as sets of (apiGroup, resource, verb,
    resourceName): outside kube-system exactly the API server's own system:kube-scheduler and
    system:volume-scheduler rules (plus what every ServiceAccount gets); in kube-system also
    the configured Lease and upstream's extension-apiserver-authentication reader."""
    namespace, _ = service_account()
    everyone = _granted_to_everyone(admin, ("system:authenticated", "system:serviceaccounts",
                                            f"system:serviceaccounts:{namespace}"))
    upstream = set().union(*(_cluster_role_rules(admin, n) for n in UPSTREAM_ROLES))
    assert _rules_review(as_kubesched, "default") == upstream | everyone

    rbac = client.RbacAuthorizationV1Api(admin)
    reader = _expand(rbac.read_namespaced_role("extension-apiserver-authentication-reader",
                                               namespace).rules or [])
    lease = _expand(next(d for d in documents() if d["kind"] == "Role")["rules"])
    assert lease == {(COORDINATION, "leases", v, "kubesched") for v in ("get", "update")}
    assert _rules_review(as_kubesched, namespace) == upstream | everyone | reader | lease


def _group(api_version: str) -> str:
    return api_version.rpartition("/")[0]


def _plural(admin: client.ApiClient, api_version: str, kind: str) -> str:
    return str(DynamicClient(admin).resources.get(api_version=api_version, kind=kind).name)


def _served(admin: client.ApiClient, api_version: str, kind: str) -> bool:
    """API discovery: does the server serve ``kind`` in ``api_version``?"""
    try:
        _plural(admin, api_version, kind)
    except ResourceNotFoundError:
        return False
    return True


ALLOWED: list[tuple[str, str, str, Mapping[str, str]]] = [
    # (verb, group, resource, extra attributes)
    ("create", "", "pods", {"subresource": "binding", "namespace": "default"}),
    ("create", "", "bindings", {"namespace": "default"}),
    ("patch", "", "pods", {"subresource": "status", "namespace": "default"}),
    ("update", "", "pods", {"subresource": "status", "namespace": "default"}),
    ("delete", "", "pods", {"namespace": "default"}),
    ("create", "events.k8s.io", "events", {"namespace": "default"}),
    ("patch", "events.k8s.io", "events", {"namespace": "default"}),
    ("create", COORDINATION, "leases", {"namespace": "kube-system"}),
    ("get", COORDINATION, "leases", {"namespace": "kube-system", "name": "kubesched"}),
    ("update", COORDINATION, "leases", {"namespace": "kube-system", "name": "kubesched"}),
    ("update", "", "persistentvolumes", {}),
    ("patch", "", "persistentvolumes", {}),
    ("update", "", "persistentvolumeclaims", {"namespace": "default"}),
    ("patch", "", "persistentvolumeclaims", {"namespace": "default"}),
    ("get", "", "configmaps", {"namespace": "kube-system", "name": "extension-apiserver-authentication"}),
    ("create", "authentication.k8s.io", "tokenreviews", {}),
    ("create", "authorization.k8s.io", "subjectaccessreviews", {}),
]

REFUSED: list[tuple[str, str, str, Mapping[str, str]]] = [
    ("create", "apps", "deployments", {"namespace": "default"}),
    ("delete", "", "nodes", {}),
    ("update", "", "nodes", {}),
    ("get", "", "secrets", {"namespace": "kube-system"}),
    ("list", "", "secrets", {}),
    ("create", "", "pods", {"namespace": "default"}),
    ("update", "", "pods", {"namespace": "default"}),
    ("get", "", "configmaps", {"namespace": "kube-system", "name": "kubeadm-config"}),
    ("update", COORDINATION, "leases", {"namespace": "kube-system", "name": "kube-controller-manager"}),
    ("update", COORDINATION, "leases", {"namespace": "default", "name": "kubesched"}),
    ("delete", COORDINATION, "leases", {"namespace": "kube-system", "name": "kubesched"}),
    ("list", "scheduling.k8s.io", "priorityclasses", {}),
    ("create", "rbac.authorization.k8s.io", "clusterrolebindings", {}),
    ("create", "", "serviceaccounts",
     {"subresource": "token", "namespace": "kube-system", "name": "kubesched"}),
]


def test_token_may_list_and_watch_every_kind_the_scheduler_reads(admin: client.ApiClient,
                                                                 as_kubesched: client.ApiClient) -> None:
    dyn = DynamicClient(as_kubesched)
    for k in LIVE_KINDS:
        if k.kind in OPTIONAL_KINDS and not _served(admin, k.api_version, k.kind):
            continue
        plural = _plural(admin, k.api_version, k.kind)
        assert plural == k.plural, k.kind  # the kinds table names what the server serves
        for verb in ("list", "watch"):
            assert can_i(as_kubesched, verb, plural, group=_group(k.api_version)), (verb, k.kind)
        # and a real list with the token, across all namespaces
        dyn.resources.get(api_version=k.api_version, kind=k.kind).get(limit=1)


@pytest.mark.parametrize(("verb", "group", "resource", "attrs"), ALLOWED,
                         ids=[f"{v}-{r}{'/' + a['subresource'] if 'subresource' in a else ''}"
                              for v, _, r, a in ALLOWED])
def test_token_may_do_what_the_scheduler_does(as_kubesched: client.ApiClient, verb: str, group: str,
                                              resource: str, attrs: Mapping[str, str]) -> None:
    assert can_i(as_kubesched, verb, resource, group=group, **attrs)


@pytest.mark.parametrize(("verb", "group", "resource", "attrs"), REFUSED,
                         ids=[f"{v}-{r}-{a.get('name', '')}" for v, _, r, a in REFUSED])
def test_token_is_refused_what_the_scheduler_must_not_do(as_kubesched: client.ApiClient, verb: str,
                                                         group: str, resource: str,
                                                         attrs: Mapping[str, str]) -> None:
    assert not can_i(as_kubesched, verb, resource, group=group, **attrs)


def test_token_requests_beyond_the_role_are_forbidden(as_kubesched: client.ApiClient) -> None:
    """Real requests, not reviews: the API server answers 403 Forbidden."""
    core = client.CoreV1Api(as_kubesched)
    with pytest.raises(ApiException) as secrets:
        core.list_secret_for_all_namespaces(limit=1)
    assert secrets.value.status == 403
    dep = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "x"},
           "spec": {"selector": {"matchLabels": {"a": "b"}},
                    "template": {"metadata": {"labels": {"a": "b"}},
                                 "spec": {"containers": [{"name": "c", "image": "i"}]}}}}
    with pytest.raises(ApiException) as deployment:
        client.AppsV1Api(as_kubesched).create_namespaced_deployment("default", dep, dry_run="All")
    assert deployment.value.status == 403


def test_real_kube_scheduler_accepts_the_configmaps_config(control_plane: ControlPlane,
                                                           tmp_path: Path) -> None:
    """kube-scheduler itself decodes, defaults and validates the configuration (strictly:
    an unknown field fails) and writes it back out (``--write-config-to``) without scheduling.
    The only change: ``clientConnection.kubeconfig``, which in a pod the in-cluster config
    replaces."""
    binary = tmp_path / "kube-scheduler"
    with lzma.open(k8s_dir() / "kube-scheduler.xz") as src, binary.open("wb") as dst:
        shutil.copyfileobj(src, dst)
    binary.chmod(0o755)
    cfg = scheduler_config(control_plane.kubeconfig)

    def write_config(doc: Mapping[str, Any]) -> subprocess.CompletedProcess[str]:
        (tmp_path / "in.yaml").write_text(yaml.safe_dump(dict(doc)))
        return subprocess.run([str(binary), "--config", str(tmp_path / "in.yaml"),
                               "--write-config-to", str(tmp_path / "out.yaml")],
                              capture_output=True, text=True, timeout=60)

    done = write_config(cfg)
    assert done.returncode == 0, done.stderr[-2000:]
    out = yaml.safe_load((tmp_path / "out.yaml").read_text())
    assert [p["schedulerName"] for p in out["profiles"]] == ["kubesched"]
    le = out["leaderElection"]
    assert (le["leaderElect"], le["resourceLock"], le["resourceNamespace"], le["resourceName"]) == \
           (True, "leases", "kube-system", "kubesched")
    assert write_config({**cfg, "bogus": 1}).returncode != 0  # strict: the check has teeth
