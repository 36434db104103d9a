"""``deploy/`` and the ``Dockerfile`` read as files (no API server): the pieces agree with each
other and with the package. The live checks (the API server accepts them, the token's
permissions) are in ``test_deploy_rbac.py``."""

from __future__ import annotations

import re
import shlex
import tomllib
from pathlib import PurePosixPath
from typing import Any

import yaml

from kubesched.framework.config import from_dict

from ._rbac import DEPLOY, REPO, documents, scheduler_config, service_account

SERVING_PORT = 10259


def _one(kind: str, name: str | None = None) -> dict[str, Any]:
    (obj,) = [d for d in documents() if d["kind"] == kind and name in (None, d["metadata"]["name"])]
    return obj


def _container() -> dict[str, Any]:
    (c,) = _one("Deployment")["spec"]["template"]["spec"]["containers"]
    return c


def _dockerfile() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) per instruction, continuation lines joined, comments dropped."""
    text = re.sub(r"\\\n", " ", (REPO / "Dockerfile").read_text())
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            op, _, args = line.partition(" ")
            out.append((op.upper(), args.strip()))
    return out


def test_kustomization_lists_every_manifest() -> None:
    listed = yaml.safe_load((DEPLOY / "kustomization.yaml").read_text())["resources"]
    on_disk = sorted(p.name for p in DEPLOY.glob("*.yaml") if p.name != "kustomization.yaml")
    assert sorted(listed) == on_disk
    kinds = sorted(d["kind"] for d in documents())
    assert kinds == sorted(["ServiceAccount", "ClusterRoleBinding", "ClusterRoleBinding", "Role",
                            "RoleBinding", "RoleBinding", "ConfigMap", "Deployment"])


def test_configmap_holds_a_config_kubesched_accepts_beside_kube_scheduler() -> None:
    cfg = from_dict(scheduler_config(), source="deploy/configmap.yaml")
    assert [p.scheduler_name for p in cfg.profiles] == ["kubesched"]
    assert cfg.leader_election.leader_elect is True
    assert (cfg.leader_election.resource_namespace, cfg.leader_election.resource_name) == (
        "kube-system", "kubesched")
    assert cfg.client_connection.kubeconfig == ""  # in the pod: in-cluster config


def test_leader_election_role_names_the_configured_lease() -> None:
    le = scheduler_config()["leaderElection"]
    role = _one("Role", "kubesched:leader-election")
    assert role["metadata"]["namespace"] == le["resourceNamespace"]
    assert role["rules"] == [{"apiGroups": ["coordination.k8s.io"], "resources": ["leases"],
                              "resourceNames": [le["resourceName"]], "verbs": ["get", "update"]}]


def test_bindings_name_the_service_account_and_no_cluster_role_is_defined() -> None:
    namespace, name = service_account()
    bindings = [d for d in documents() if d["kind"] in ("ClusterRoleBinding", "RoleBinding")]
    for b in bindings:
        assert b["subjects"] == [{"kind": "ServiceAccount", "name": name, "namespace": namespace}]
    assert not [d for d in documents() if d["kind"] == "ClusterRole"]  # bound, never copied


def test_deployment_runs_kubesched_with_the_config_and_leader_election() -> None:
    dep = _one("Deployment")
    pod = dep["spec"]["template"]["spec"]
    c = _container()
    assert c["image"] == "kubesched:latest"
    argv = c["command"] + c.get("args", [])
    assert argv[:2] == ["kubesched", "run"] and "--leader-elect" in argv
    config_path = PurePosixPath(argv[argv.index("--config") + 1])
    assert pod["serviceAccountName"] == service_account()[1]
    # --config points into the ConfigMap's mount, at the ConfigMap's key
    (mount,) = [m for m in c["volumeMounts"] if config_path.parent == PurePosixPath(m["mountPath"])]
    (vol,) = [v for v in pod["volumes"] if v["name"] == mount["name"]]
    cm = _one("ConfigMap")
    assert vol["configMap"]["name"] == cm["metadata"]["name"]
    assert config_path.name in cm["data"]
    assert cm["metadata"]["namespace"] == dep["metadata"]["namespace"] == service_account()[0]


def test_deployment_is_non_root_read_only_and_probed_at_the_serving_port() -> None:
    pod = _one("Deployment")["spec"]["template"]["spec"]
    c = _container()
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["runAsUser"] != 0
    sc = c["securityContext"]
    assert sc["readOnlyRootFilesystem"] is True
    assert sc["allowPrivilegeEscalation"] is False
    assert sc["capabilities"]["drop"] == ["ALL"]
    assert [p["containerPort"] for p in c["ports"]] == [SERVING_PORT]
    # kubesched serves HTTPS (self-signed by default) on all addresses, so the kubelet reaches it
    argv = c["command"] + c.get("args", [])
    assert f"--bind-address=0.0.0.0:{SERVING_PORT}" in argv
    for probe, path in (("livenessProbe", "/healthz"), ("readinessProbe", "/readyz")):
        get = c[probe]["httpGet"]
        assert (get["path"], get["port"], get["scheme"]) == (path, SERVING_PORT, "HTTPS")
    res = c["resources"]
    assert set(res["requests"]) == set(res["limits"]) == {"cpu", "memory"}


def test_dockerfile_installs_the_live_extra_as_a_non_root_user_with_the_kubesched_entrypoint() -> None:
    ins = _dockerfile()
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert ins[0] == ("FROM", "python:3.11-slim")
    assert "live" in pyproject["project"]["optional-dependencies"]
    runs = [shlex.split(args) for op, args in ins if op == "RUN"]
    assert any(cmd[:3] == ["pip", "install", ".[live]"] for cmd in runs)
    # every file the image copies exists and is in the build context (the repository root,
    # filtered by .dockerignore: everything out, then the files the image needs back in)
    ignore = [ln.strip() for ln in (REPO / ".dockerignore").read_text().splitlines()
              if ln.strip() and not ln.startswith("#")]
    assert ignore[0] == "*"
    for op, args in ins:
        if op == "COPY":
            for src in args.split()[:-1]:
                assert (REPO / src).exists(), src
                assert "!" + src.rstrip("/") + ("/" if (REPO / src).is_dir() else "") in ignore, src
    users = [args for op, args in ins if op == "USER"]
    uid = users[-1].split(":")[0]
    assert uid.isdigit() and int(uid) != 0  # numeric, so runAsNonRoot can check it
    assert int(uid) == _one("Deployment")["spec"]["template"]["spec"]["securityContext"]["runAsUser"]
    (entrypoint,) = [yaml.safe_load(args) for op, args in ins if op == "ENTRYPOINT"]
    assert entrypoint == ["kubesched"]
    assert pyproject["project"]["scripts"]["kubesched"] == "kubesched.cli:main"
