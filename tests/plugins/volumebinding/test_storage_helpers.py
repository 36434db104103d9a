"""The shared storage rules (component-helpers/storage/volume), after upstream pv_helpers_test.go
(TestFindMatchingVolume) and helpers_test.go."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.api import PersistentVolume
from kubesched.plugins.helper.volume.storage_helpers import (
    ANN_STORAGE_CLASS,
    check_node_affinity,
    claim_class,
    find_matching_volume,
    match_topology_selector_terms,
    pod_claim_refs,
)
from kubesched.testing import make_pod

from .fixtures import ZONE, make_pv, make_pvc


def _deleting(pv: PersistentVolume) -> PersistentVolume:
    d = pv.to_dict()
    d["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    return PersistentVolume.from_dict(d)


def _with_vac(pv: PersistentVolume, vac: str) -> PersistentVolume:
    d = pv.to_dict()
    d["spec"]["volumeAttributesClassName"] = vac
    return PersistentVolume.from_dict(d)


SC = "gold"
PV5, PV10, PV20 = (make_pv(f"pv-{n}", sc=SC, capacity=f"{n}Gi") for n in (5, 10, 20))

CASES = [
    pytest.param(
        make_pvc("c", sc=SC, request="8Gi"),
        [PV20, PV10, PV5],
        "pv-10",
        id="successful match PVC to the smallest fitting PV",
    ),
    pytest.param(make_pvc("c", sc=SC, request="30Gi"), [PV20, PV10, PV5], None, id="no volume big enough"),
    pytest.param(
        make_pvc("c", sc=SC, request="1Gi"),
        [make_pv("a", sc=SC, capacity="5Gi"), make_pv("b", sc=SC, capacity="5Gi")],
        "a",
        id="equal sizes keep the first listed",
    ),
    pytest.param(
        make_pvc("c", sc=SC, request="1Gi"),
        [PV20, make_pv("pre", sc=SC, capacity="50Gi", claim=("default", "c"), phase="Bound")],
        "pre",
        id="volume pre-bound to the claim wins over a smaller one",
    ),
    pytest.param(
        make_pvc("c", sc=SC, request="1Gi"),
        [make_pv("other", sc=SC, claim=("default", "x"))],
        None,
        id="volume bound to another claim",
    ),
    pytest.param(make_pvc("c", sc=SC), [_deleting(PV5)], None, id="volume being deleted"),
    pytest.param(make_pvc("c", sc=SC), [_with_vac(PV5, "fast")], None, id="volume attributes class mismatch"),
    pytest.param(make_pvc("c", sc="silver"), [PV5], None, id="class mismatch"),
    pytest.param(
        make_pvc("c", sc=None, annotations={ANN_STORAGE_CLASS: SC}),
        [PV5],
        "pv-5",
        id="beta storage-class annotation",
    ),
    pytest.param(
        make_pvc("c", sc=SC), [make_pv("b", sc=SC, volume_mode="Block")], None, id="volume mode mismatch"
    ),
    pytest.param(
        make_pvc("c", sc=SC, modes=("ReadWriteOnce", "ReadOnlyMany")),
        [make_pv("rwo", sc=SC), make_pv("both", sc=SC, modes=("ReadOnlyMany", "ReadWriteOnce"))],
        "both",
        id="every requested access mode must be offered",
    ),
    pytest.param(
        make_pvc("c", sc=SC),
        [
            make_pv("far", sc=SC, affinity={ZONE: ["b"]}),
            make_pv("near", sc=SC, capacity="9Gi", affinity={ZONE: ["a"]}),
        ],
        "near",
        id="node affinity filters",
    ),
]


@pytest.mark.parametrize(("pvc", "pvs", "want"), CASES)
def test_find_matching_volume(pvc: Any, pvs: list[PersistentVolume], want: str | None) -> None:
    got = find_matching_volume(pvc, pvs, {ZONE: "a"}, set())
    assert (got.name if got else None) == want


def test_find_matching_volume_excludes_chosen() -> None:
    got = find_matching_volume(make_pvc("c", sc=SC), [PV5, PV10], {}, {"pv-5"})
    assert got is not None and got.name == "pv-10"


def test_claim_class() -> None:
    assert claim_class(make_pvc("c")) == ""
    assert claim_class(make_pvc("c", sc="x", annotations={ANN_STORAGE_CLASS: "y"})) == "y"


def test_check_node_affinity() -> None:
    assert check_node_affinity(make_pv("p"), {})
    assert check_node_affinity(make_pv("p", affinity={ZONE: ["a"]}), {ZONE: "a"})
    assert not check_node_affinity(make_pv("p", affinity={ZONE: ["a"]}), {ZONE: "b"})


@pytest.mark.parametrize(
    ("terms", "labels", "want"),
    [
        pytest.param([], {}, True, id="no terms match everything"),
        pytest.param([{}], {ZONE: "a"}, False, id="an empty term matches nothing"),
        pytest.param(
            [{"matchLabelExpressions": [{"key": ZONE, "values": ["a", "b"]}]}],
            {ZONE: "b"},
            True,
            id="value in the list",
        ),
        pytest.param(
            [{"matchLabelExpressions": [{"key": ZONE, "values": ["a"]}]}],
            {ZONE: "b"},
            False,
            id="value not in the list",
        ),
        pytest.param(
            [
                {"matchLabelExpressions": [{"key": ZONE, "values": ["a"]}]},
                {"matchLabelExpressions": [{"key": "rack", "values": ["1"]}]},
            ],
            {"rack": "1"},
            True,
            id="terms are ORed",
        ),
    ],
)
def test_match_topology_selector_terms(
    terms: list[dict[str, Any]], labels: dict[str, str], want: bool
) -> None:
    assert match_topology_selector_terms(terms, labels) is want


def test_pod_claim_refs() -> None:
    pod = (
        make_pod()
        .name("web")
        .pvc("data")
        .volume({"name": "tmp", "emptyDir": {}})
        .volume({"name": "scratch", "ephemeral": {"volumeClaimTemplate": {}}})
        .obj()
    )
    assert [(r.claim_name, r.ephemeral) for r in pod_claim_refs(pod)] == [
        ("data", False),
        ("web-scratch", True),
    ]
