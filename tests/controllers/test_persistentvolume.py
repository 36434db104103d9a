"""The PersistentVolume controller inside simulations: Immediate claims bound to the PV upstream's
controller would pick, or provisioned through their class, and the pods using them scheduled;
claims it cannot serve stay Pending with upstream's message."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import yaml

from kubesched.api import PersistentVolumeClaim
from kubesched.cli import app
from kubesched.cluster import WatchEvent
from kubesched.replay import Replay, read_trace

from ._manifests import generated, node, runner, simulate_json, write

CASSANDRA = Path(__file__).parent / "fixtures" / "cassandra"
WORKER_TEMPLATE = Path(__file__).parents[2] / "examples" / "capacity" / "worker-template.yaml"
RWO, ROX, RWX = "ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany"
LOCAL = "kubernetes.io/no-provisioner"


def storage_class(name: str, provisioner: str = LOCAL, **extra: Any) -> dict[str, Any]:
    return {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": name},
            "provisioner": provisioner, **extra}


def pv(name: str, size: str, modes: tuple[str, ...] = (RWO,), cls: str = "manual",
       labels: dict[str, str] | None = None, claim: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"capacity": {"storage": size}, "accessModes": list(modes),
                            "storageClassName": cls, "hostPath": {"path": f"/data/{name}"}}
    if claim is not None:
        spec["claimRef"] = {"namespace": "default", "name": claim}
    return {"apiVersion": "v1", "kind": "PersistentVolume",
            "metadata": {"name": name, "labels": labels or {}}, "spec": spec}


def pvc(name: str, size: str = "1Gi", modes: tuple[str, ...] = (RWO,), cls: str | None = "manual",
        **spec: Any) -> dict[str, Any]:
    s: dict[str, Any] = {"accessModes": list(modes), "resources": {"requests": {"storage": size}}, **spec}
    if cls is not None:
        s["storageClassName"] = cls
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": name, "namespace": "default"}, "spec": s}


def pod(name: str, *claims: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": "100m"}}}],
                     "volumes": [{"name": f"v{i}", "persistentVolumeClaim": {"claimName": c}}
                                 for i, c in enumerate(claims)]}}


def _state(report: dict[str, Any], kind: str) -> dict[str, dict[str, Any]]:
    """The objects of ``kind`` in ``simulate -o yaml``'s end state, by name."""
    return {o["metadata"]["name"]: o for o in report if o and o.get("kind") == kind}


def simulate_yaml(path: Path, *args: str) -> list[dict[str, Any]]:
    result = runner.invoke(app, ["simulate", str(path), "-o", "yaml", *args])
    assert result.exit_code == 0, result.output
    return list(yaml.safe_load_all(result.stdout))


def _bound_to(tmp_path: Path, docs: list[dict[str, Any]]) -> dict[str, str]:
    """claim -> the PV it ends bound to ("" when it stays unbound)."""
    state = simulate_yaml(write(tmp_path, [node("n1"), storage_class("manual"), *docs]))
    claims = _state(state, "PersistentVolumeClaim")
    return {name: c["spec"].get("volumeName", "") for name, c in claims.items()}


# -- the cassandra example ----------------------------------------------------------------------
def test_cassandra_statefulset_schedules_every_replica() -> None:
    report = simulate_json(CASSANDRA)
    assert report["workloads"][0]["placed"] == 3
    assert [p["status"] for p in report["pods"]] == ["Scheduled"] * 3
    claims = {c["metadata"]["name"]: c for c in generated(report, "PersistentVolumeClaim")}
    volumes = {v["metadata"]["name"]: v for v in generated(report, "PersistentVolume")}
    assert sorted(claims) == [f"cassandra-data-cassandra-{i}" for i in range(3)]
    assert len(volumes) == 3
    for name, c in claims.items():
        uid = c["metadata"]["uid"]
        v = volumes[f"pvc-{uid}"]
        assert v["metadata"]["annotations"] == {"pv.kubernetes.io/provisioned-by": "k8s.io/minikube-hostpath"}
        assert v["spec"]["claimRef"]["name"] == name and v["spec"]["claimRef"]["uid"] == uid
        assert v["spec"]["capacity"] == {"storage": "1Gi"} and v["spec"]["storageClassName"] == "fast"
        assert v["spec"]["csi"]["driver"] == "k8s.io/minikube-hostpath"
        assert v["spec"]["persistentVolumeReclaimPolicy"] == "Delete"
        assert v["status"] == {"phase": "Bound"}
        assert c["spec"]["volumeName"] == f"pvc-{uid}"
        assert c["status"] == {"phase": "Bound", "capacity": {"storage": "1Gi"}, "accessModes": [RWO]}
        ann = c["metadata"]["annotations"]
        for key in ("volume.kubernetes.io/storage-provisioner",
                    "volume.beta.kubernetes.io/storage-provisioner"):
            assert ann[key] == "k8s.io/minikube-hostpath"
        assert ann["pv.kubernetes.io/bind-completed"] == "yes"
        assert ann["pv.kubernetes.io/bound-by-controller"] == "yes"


def test_cassandra_capacity_add_nodes_is_finite(tmp_path: Path) -> None:
    # One worker with 1 cpu: two replicas fit, the third needs one more node.
    small = write(tmp_path, [node("worker-1", cpu="1")], "nodes.yaml")
    args = ["capacity", str(CASSANDRA / "cassandra-statefulset.yaml"), str(small),
            "--add-nodes", str(WORKER_TEMPLATE), "-o", "json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["nodesToAdd"] == 1


def test_cassandra_capacity_next_replicas_get_their_volumes() -> None:
    # The next replicas' claims are provisioned as the StatefulSet creates them: memory
    # (2 x 4Gi, 1Gi each, 3 taken) is what stops them, not their claims.
    args = ["capacity", str(CASSANDRA), "--workload", "StatefulSet/default/cassandra", "-o", "json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["fits"] == 5 and out["reasons"] == {"Insufficient cpu": 2, "Insufficient memory": 2}


# -- matching existing volumes (findBestMatchForClaim) ---------------------------------------------
def test_smallest_volume_that_fits(tmp_path: Path) -> None:
    docs = [pv("pv-5g", "5Gi"), pv("pv-512m", "512Mi"), pv("pv-2g", "2Gi"), pv("pv-10g", "10Gi"),
            pvc("data", "1Gi"), pod("p", "data")]
    assert _bound_to(tmp_path, docs) == {"data": "pv-2g"}


def test_access_modes_fewest_offered_first(tmp_path: Path) -> None:
    # The RWO group is searched before the RWO+ROX group, whatever the sizes (index.go findByClaim);
    # an RWX claim only fits a volume offering RWX.
    docs = [pv("pv-rwo-rox", "2Gi", (RWO, ROX)), pv("pv-rwo", "10Gi", (RWO,)), pv("pv-rwx", "3Gi", (RWX,)),
            pvc("a", "1Gi", (RWO,)), pvc("b", "1Gi", (RWX,)), pod("p", "a", "b")]
    assert _bound_to(tmp_path, docs) == {"a": "pv-rwo", "b": "pv-rwx"}


def test_storage_class_and_selector(tmp_path: Path) -> None:
    docs = [storage_class("other"), pv("pv-other", "1Gi", cls="other"), pv("pv-plain", "2Gi"),
            pv("pv-gold", "4Gi", labels={"tier": "gold"}),
            pvc("gold", "1Gi", selector={"matchLabels": {"tier": "gold"}}), pvc("any", "1Gi"),
            pod("p", "gold", "any")]
    assert _bound_to(tmp_path, docs) == {"gold": "pv-gold", "any": "pv-plain"}


def test_claim_ref_pre_binding_is_honoured(tmp_path: Path) -> None:
    # pv-big is reserved for "mine": "mine" takes it though pv-small fits, "other" cannot.
    docs = [pv("pv-big", "8Gi", claim="mine"), pv("pv-small", "1Gi"),
            pvc("mine", "1Gi"), pvc("other", "2Gi"), pod("p", "mine", "other")]
    state = simulate_yaml(write(tmp_path, [node("n1"), storage_class("manual"), *docs]))
    claims = _state(state, "PersistentVolumeClaim")
    assert claims["mine"]["spec"]["volumeName"] == "pv-big"
    assert "volumeName" not in claims["other"]["spec"]
    big = _state(state, "PersistentVolume")["pv-big"]
    assert big["spec"]["claimRef"]["uid"] == claims["mine"]["metadata"]["uid"]
    # A user's pre-binding: the volume was bound to the claim already, not by the controller.
    assert "pv.kubernetes.io/bound-by-controller" not in big["metadata"].get("annotations", {})


def test_claim_naming_its_volume(tmp_path: Path) -> None:
    docs = [pv("pv-a", "1Gi"), pv("pv-b", "5Gi"), pvc("data", "1Gi", volumeName="pv-b"), pod("p", "data")]
    state = simulate_yaml(write(tmp_path, [node("n1"), storage_class("manual"), *docs]))
    claim = _state(state, "PersistentVolumeClaim")["data"]
    assert claim["spec"]["volumeName"] == "pv-b" and claim["status"]["phase"] == "Bound"
    assert "pv.kubernetes.io/bound-by-controller" not in claim["metadata"]["annotations"]


# -- provisioning ------------------------------------------------------------------------------------
def test_provisioned_volume_carries_allowed_topologies(tmp_path: Path) -> None:
    zone = "topology.kubernetes.io/zone"
    sc = storage_class("zonal", "ebs.csi.aws.com", reclaimPolicy="Retain", mountOptions=["noatime"],
                       allowedTopologies=[{"matchLabelExpressions": [{"key": zone, "values": ["zone-b"]}]}])
    nodes = [node(f"n-{z}", labels={zone: f"zone-{z}"}) for z in "abc"]
    report = simulate_json(write(tmp_path, [*nodes, sc, pvc("data", "3Gi", cls="zonal"), pod("p", "data")]))
    [volume] = generated(report, "PersistentVolume")
    assert volume["spec"]["nodeAffinity"] == {"required": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": zone, "operator": "In", "values": ["zone-b"]}]}]}}
    assert volume["spec"]["persistentVolumeReclaimPolicy"] == "Retain"
    assert volume["spec"]["mountOptions"] == ["noatime"]
    assert volume["spec"]["capacity"] == {"storage": "3Gi"}
    [p] = report["pods"]
    assert (p["status"], p["node"]) == ("Scheduled", "n-b")


def test_default_class_is_assigned_then_provisioned(tmp_path: Path) -> None:
    sc = storage_class("standard", "csi.example.com")
    sc["metadata"]["annotations"] = {"storageclass.kubernetes.io/is-default-class": "true"}
    state = simulate_yaml(write(tmp_path, [node("n1"), sc, pvc("data", cls=None), pod("p", "data")]))
    claim = _state(state, "PersistentVolumeClaim")["data"]
    assert claim["spec"]["storageClassName"] == "standard" and claim["status"]["phase"] == "Bound"


# -- nothing to bind to ------------------------------------------------------------------------------
def test_no_match_and_no_provisioner_stays_pending(tmp_path: Path) -> None:
    docs = [node("n1"), storage_class("manual"), pv("pv-small", "1Gi"), pvc("data", "2Gi"), pod("p", "data")]
    report = simulate_json(write(tmp_path, docs))
    [p] = report["pods"]
    assert p["status"] == "Unschedulable"
    assert p["message"] == ("0/1 nodes are available: pod has unbound immediate PersistentVolumeClaims. "
                            "not found")
    state = simulate_yaml(write(tmp_path, docs))
    claim = _state(state, "PersistentVolumeClaim")["data"]
    assert "volumeName" not in claim["spec"] and claim.get("status", {}).get("phase", "Pending") == "Pending"


def test_a_volume_created_later_is_bound_at_the_next_resync(tmp_path: Path) -> None:
    """A waiting claim is looked at again by the 15 s resync, not when the volume appears."""
    lines = [{"time": 20, "op": "create", "object": pv("pv-late", "5Gi")}]
    path = tmp_path / "t.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    trace = read_trace([path])
    trace.cluster = [copy.deepcopy(o) for o in
                     (node("n1"), storage_class("manual"), pvc("data", "2Gi"), pod("p", "data"))]
    rep = Replay(trace)
    bound_at: list[float] = []

    def watch(ev: WatchEvent) -> None:
        if isinstance(ev.new, PersistentVolumeClaim) and ev.new.volume_name and not bound_at:
            bound_at.append(rep.clock.now - rep.start)

    rep.store.subscribe(watch)
    rep.run()
    assert bound_at == [30.0]
    assert rep.store.get("Pod", "default", "p").node_name == "n1"


# -- explain: what the pod's unbound immediate claims wait for -------------------------------------
def _explain(path: Path, pod_key: str) -> tuple[dict[str, Any], str]:
    as_json = runner.invoke(app, ["explain", str(path), "--pod", pod_key, "-o", "json"])
    as_text = runner.invoke(app, ["explain", str(path), "--pod", pod_key], env={"COLUMNS": "250"})
    assert as_json.exit_code == 0 and as_text.exit_code == 0, as_json.output + as_text.output
    out: dict[str, Any] = json.loads(as_json.stdout)
    return out, as_text.stdout


def test_explain_says_the_claim_waits_for_the_pv_controller(tmp_path: Path) -> None:
    docs = [node("n1"), storage_class("manual"), pv("pv-small", "1Gi"), pvc("data", "2Gi"), pod("p", "data")]
    out, text = _explain(write(tmp_path, docs), "default/p")
    assert out["nodes"][0]["filters"] == [{"plugin": "VolumeBinding", "code": "UnschedulableAndUnresolvable",
                                           "reasons": ["pod has unbound immediate PersistentVolumeClaims"]}]
    message = ("waiting for the PersistentVolume controller, which cannot bind it: no PersistentVolume "
               "matches it; no volume plugin matched name: kubernetes.io/no-provisioner")
    assert out["waitingClaims"] == [{"claim": "default/data", "message": message}]
    assert f"PersistentVolumeClaim default/data: {message}." in text


def test_explain_says_what_the_pv_controller_would_do(tmp_path: Path) -> None:
    docs = [node("n1"), storage_class("manual"), storage_class("fast", "csi.example.com"),
            pv("pv-a", "4Gi"), pvc("a", "2Gi"), pvc("b", cls="fast"), pvc("c", volumeName="pv-gone"),
            pod("p", "a", "b", "c")]
    out, _ = _explain(write(tmp_path, docs), "default/p")
    wait = "waiting for the PersistentVolume controller"
    assert out["waitingClaims"] == [
        {"claim": "default/a", "message": f'{wait} to bind it to PersistentVolume "pv-a"'},
        {"claim": "default/b", "message": f'{wait} to provision a volume for it (StorageClass "fast", '
                                          'provisioner "csi.example.com")'},
        {"claim": "default/c", "message": f'{wait}, which cannot bind it: volume "pv-gone" requested by '
                                          'the claim does not exist'},
    ]


def test_explain_lists_no_claim_for_bound_or_wait_for_first_consumer_claims(tmp_path: Path) -> None:
    wffc = storage_class("local", volumeBindingMode="WaitForFirstConsumer")
    docs = [node("n1"), wffc, pv("pv-a", "4Gi", cls="local"), pvc("data", cls="local"), pod("p", "data")]
    out, _ = _explain(write(tmp_path, docs), "default/p")
    assert out["waitingClaims"] == [] and out["selectedNode"] == "n1"


def test_volumes_the_scheduler_provisions_bring_no_resync(tmp_path: Path) -> None:
    """A WaitForFirstConsumer claim waits for the scheduler, which provisions its volume at
    PreBind: nothing is left for a resync, so simulated time does not move to one."""
    wffc = storage_class("wffc", "csi.example.com", volumeBindingMode="WaitForFirstConsumer")
    report = simulate_json(write(tmp_path, [node("n1"), wffc, pvc("data", cls="wffc"), pod("p", "data")]))
    assert report["pods"][0]["status"] == "Scheduled"
    assert report["endTime"] == report["startTime"]
