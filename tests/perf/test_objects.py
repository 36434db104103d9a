"""Objects made from templates: names, node strategies, volumes (scheduler_perf's makers)."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import pytest

from kubesched.api import CSINode, Node, PersistentVolume, PersistentVolumeClaim, Pod
from kubesched.perf import ConfigError, ObjectFactory, Op, resolve_template

BUNDLED = Path(__file__).parent / "nowhere"


def _op(opcode: str, **fields: object) -> Op:
    return Op(opcode, 0, fields, BUNDLED)


def test_upstream_relative_paths_resolve_to_bundled_templates() -> None:
    assert resolve_template("../templates/pod-default.yaml", BUNDLED).name == "pod-default.yaml"
    assert resolve_template("config/churn/node-default.yaml", BUNDLED).parent.name == "churn"


def test_nodes_get_generated_names_and_hostname_labels() -> None:
    nodes = ObjectFactory(random.Random(0)).nodes(_op("createNodes", count=3))
    assert all(isinstance(n, Node) for n in nodes)
    assert [n.name for n in nodes] == ["scheduler-perf-0", "scheduler-perf-1", "scheduler-perf-2"]
    assert [n.labels["kubernetes.io/hostname"] for n in nodes] == [n.name for n in nodes]
    assert nodes[0].allocatable["cpu"] == 4000 and nodes[0].allocatable["pods"] == 110


def test_label_node_prepare_strategy_picks_seeded_values() -> None:
    op = _op("createNodes", count=30, labelNodePrepareStrategy={
        "labelKey": "topology.kubernetes.io/zone", "labelValues": ["a", "b", "c"]})
    zones = [n.labels["topology.kubernetes.io/zone"] for n in ObjectFactory(random.Random(1)).nodes(op)]
    again = [n.labels["topology.kubernetes.io/zone"] for n in ObjectFactory(random.Random(1)).nodes(op)]
    assert zones == again and set(zones) == {"a", "b", "c"}


def test_node_allocatable_strategy_adds_allocatable_and_a_csinode() -> None:
    op = _op("createNodes", count=1, nodeAllocatableStrategy={
        "nodeAllocatable": {"attachable-volumes-csi-ebs.csi.aws.com": "39"},
        "csiNodeAllocatable": {"ebs.csi.aws.com": {"count": 39}}})
    node, csinode = ObjectFactory(random.Random(0)).nodes(op)
    assert isinstance(node, Node) and isinstance(csinode, CSINode)
    assert node.allocatable["attachable-volumes-csi-ebs.csi.aws.com"] == 39
    assert csinode.name == node.name


def test_pods_are_made_one_at_a_time() -> None:
    # The runner creates each in the store as it comes: an op's pods are never all held twice.
    op = _op("createPods", count=1_000_000_000, podTemplatePath="pod-default.yaml")
    pods = ObjectFactory(random.Random(0)).pods(op, "ns")
    first, second = next(pods), next(pods)
    assert isinstance(first, Pod) and isinstance(second, Pod) and first.name != second.name


def test_pods_with_volumes_get_their_own_bound_pv_and_pvc() -> None:
    op = _op("createPods", count=2, podTemplatePath="pod-default.yaml",
             persistentVolumeTemplatePath="pv-csi.yaml", persistentVolumeClaimTemplatePath="pvc.yaml")
    objs = list(ObjectFactory(random.Random(0)).pods(op, "ns"))
    assert [type(o) for o in objs] == [PersistentVolume, PersistentVolumeClaim, Pod] * 2
    pv, pvc, pod = objs[:3]
    assert isinstance(pod, Pod) and isinstance(pvc, PersistentVolumeClaim)
    assert pod.namespace == "ns" and pod.pvc_names == (pvc.name,)
    assert pvc.raw["spec"]["volumeName"] == pv.name
    assert pv.raw["spec"]["claimRef"] == {"namespace": "ns", "name": pvc.name}


def test_instantiated_objects_share_no_mutable_part_with_the_template() -> None:
    tmpl = {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"generateName": "p-", "labels": {"a": "{{.Name}}"}},
            "spec": {"containers": [{"name": "c", "ports": [{"containerPort": 80}]}], "volumes": []}}
    factory = ObjectFactory(random.Random(0))
    first = factory.instantiate(tmpl, 0, "ns")
    first["spec"]["containers"][0]["ports"].append({"containerPort": 81})
    first["spec"]["volumes"].append({"name": "v"})
    second = factory.instantiate(tmpl, 1, "ns")
    assert second["spec"] == {"containers": [{"name": "c", "ports": [{"containerPort": 80}]}], "volumes": []}
    assert second["metadata"] == {"labels": {"a": "p-1"}, "name": "p-1", "namespace": "ns"}
    assert tmpl["metadata"] == {"generateName": "p-", "labels": {"a": "{{.Name}}"}}


def test_pods_derived_from_the_first_equal_pods_parsed_one_by_one(tmp_path: Path) -> None:
    # Only metadata is templated: the factory parses the first pod and derives the others.
    shared = tmp_path / "shared.yaml"
    shared.write_text("apiVersion: v1\nkind: Pod\n"
                      "metadata:\n  generateName: s-\n  labels: {app: '{{.Name}}'}\n"
                      "spec:\n  containers: [{name: c, resources: {requests: {cpu: 100m}}}]\n"
                      "  volumes: [{name: scratch, ephemeral: {}}]\n")
    # The spec is templated too: every pod is parsed on its own.
    indexed = tmp_path / "indexed.yaml"
    indexed.write_text("apiVersion: v1\nkind: Pod\nmetadata: {generateName: x-}\n"
                       "spec: {containers: [{name: c}], nodeSelector: {slot: '{{.Index}}'}}\n")
    for path in (shared, indexed):
        op = Op("createPods", 0, {"count": 3, "podTemplatePath": str(path)}, tmp_path)
        pods = list(ObjectFactory(random.Random(0)).pods(op, "ns"))
        again = ObjectFactory(random.Random(0))
        tmpl = again.template(op, "podTemplatePath")
        for i, pod in enumerate(pods):
            want = Pod.from_dict(again.instantiate(tmpl, i, "ns", fallback="pod-"))
            assert isinstance(pod, Pod)
            assert pod.raw == want.raw
            assert {f.name: getattr(pod, f.name) for f in dataclasses.fields(pod)} == \
                {f.name: getattr(want, f.name) for f in dataclasses.fields(want)}
            assert (pod.requests, pod.pvc_names) == (want.requests, want.pvc_names)
    assert [p.name for p in pods] == ["x-0", "x-1", "x-2"]
    assert [p.node_selector for p in pods] == [{"slot": "0"}, {"slot": "1"}, {"slot": "2"}]


# -- nodeImageStrategy (kubesched's own) ------------------------------------------------------

CATALOG = "node-images.yaml"


def _image_nodes(count: int, per_node: list[int], seed: int = 0) -> list[Node]:
    op = _op("createNodes", count=count,
             nodeImageStrategy={"catalogPath": CATALOG, "imagesPerNode": per_node})
    return [n for n in ObjectFactory(random.Random(seed)).nodes(op) if isinstance(n, Node)]


def test_node_image_strategy_gives_each_node_a_kubelet_like_image_list() -> None:
    nodes = _image_nodes(200, [30, 50])
    counts = [len(n.images) for n in nodes]
    assert min(counts) >= 30 and max(counts) <= 50 and len(set(counts)) > 5
    for n in nodes:
        sizes = [im.size_bytes for im in n.images]
        assert sizes == sorted(sizes, reverse=True)  # the kubelet lists the largest first
        assert all(any("@sha256:" in name for name in im.names) and len(im.names) >= 2 for im in n.images)
    on = {name: sum(any(name in im.names for im in n.images) for n in nodes)
          for name in ("registry.k8s.io/kube-proxy:v1.31.2", "docker.io/istio/proxyv2:1.23.2",
                       "docker.io/pytorch/pytorch:2.4.1-cuda12.1-cudnn9-runtime")}
    assert on["registry.k8s.io/kube-proxy:v1.31.2"] == 200  # nodeFraction 1.0
    assert 150 <= on["docker.io/istio/proxyv2:1.23.2"] < 200  # 0.85
    assert 4 <= on["docker.io/pytorch/pytorch:2.4.1-cuda12.1-cudnn9-runtime"] <= 35  # 0.08
    assert [n.images for n in _image_nodes(200, [30, 50])] == [n.images for n in nodes]  # seeded


def test_node_image_strategy_with_no_images_per_node_gives_none() -> None:
    assert all(n.images == () for n in _image_nodes(5, [0, 0]))


@pytest.mark.parametrize(("strategy", "catalog", "message"), [
    pytest.param({"imagesPerNode": [1, 2]}, None, "catalogPath is required", id="no-catalog"),
    pytest.param({"catalogPath": CATALOG, "imagesPerNode": [3, 2]}, None,
                 r"imagesPerNode must be \[min, max\]", id="min-above-max"),
    pytest.param({"catalogPath": CATALOG, "imagesPerNode": 5}, None, "imagesPerNode", id="not-a-range"),
    pytest.param({"imagesPerNode": [1, 2]}, "- names: [a:1]\n  sizeBytes: -1\n",
                 "images.yaml: image 0: sizeBytes must be a non-negative integer", id="negative-size"),
    pytest.param({"imagesPerNode": [1, 2]}, "- sizeBytes: 1\n", "image 0: names must be", id="no-names"),
    pytest.param({"imagesPerNode": [1, 2]}, "- names: [a:1]\n  sizeBytes: 1\n  nodeFraction: 2\n",
                 "image 0: nodeFraction must be", id="fraction-above-one"),
    pytest.param({"imagesPerNode": [1, 2]}, "{}\n", "a non-empty list of images", id="not-a-list"),
])
def test_bad_node_image_strategy_is_a_config_error(tmp_path: Path, strategy: dict[str, object],
                                                   catalog: str | None, message: str) -> None:
    if catalog is not None:
        (tmp_path / "images.yaml").write_text(catalog)
        strategy = {**strategy, "catalogPath": "images.yaml"}
    op = Op("createNodes", 0, {"count": 1, "nodeImageStrategy": strategy}, tmp_path)
    with pytest.raises(ConfigError, match=message):
        ObjectFactory(random.Random(0)).nodes(op)
