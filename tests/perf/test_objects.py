"""Objects made from templates: names, node strategies, volumes (scheduler_perf's makers)."""

from __future__ import annotations

import random
from pathlib import Path

from kubesched.api import CSINode, Node, PersistentVolume, PersistentVolumeClaim, Pod
from kubesched.perf import ObjectFactory, Op, resolve_template

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


def test_pods_with_volumes_get_their_own_bound_pv_and_pvc() -> None:
    op = _op("createPods", count=2, podTemplatePath="pod-default.yaml",
             persistentVolumeTemplatePath="pv-csi.yaml", persistentVolumeClaimTemplatePath="pvc.yaml")
    objs = ObjectFactory(random.Random(0)).pods(op, "ns")
    assert [type(o) for o in objs] == [PersistentVolume, PersistentVolumeClaim, Pod] * 2
    pv, pvc, pod = objs[:3]
    assert isinstance(pod, Pod) and isinstance(pvc, PersistentVolumeClaim)
    assert pod.namespace == "ns" and pod.pvc_names == (pvc.name,)
    assert pvc.raw["spec"]["volumeName"] == pv.name
    assert pv.raw["spec"]["claimRef"] == {"namespace": "ns", "name": pvc.name}
