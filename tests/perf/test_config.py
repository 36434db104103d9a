"""Workload config parsing in upstream's scheduler_perf shape (scheduler_perf.go)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubesched.perf import BUNDLED_CONFIG, ConfigError, load_config, parse_config, select_workloads

FIXTURES = Path(__file__).parent / "fixtures"


def _case(template: list[dict[str, object]], params: dict[str, object], **extra: object) -> list[object]:
    return [{"name": "Case", "workloadTemplate": template,
             "workloads": [{"name": "w", "params": params}], **extra}]


def test_count_param_is_substituted() -> None:
    cases = parse_config(_case([{"opcode": "createNodes", "countParam": "$initNodes"}],
                               {"initNodes": 7}), Path("."))
    op = cases[0].workloads[0].ops[0]
    assert (op.opcode, op.count, op.index) == ("createNodes", 7, 0)


def test_default_pod_template_applies_to_create_pods_without_one() -> None:
    cases = parse_config(_case([{"opcode": "createPods", "count": 1},
                                {"opcode": "createPods", "count": 1, "podTemplatePath": "b.yaml"}],
                               {}, defaultPodTemplatePath="a.yaml"), Path("."))
    ops = cases[0].workloads[0].ops
    assert [o.get("podTemplatePath") for o in ops] == ["a.yaml", "b.yaml"]


@pytest.mark.parametrize(("template", "params", "message"), [
    pytest.param([{"opcode": "createNodes", "countParam": "$missing"}], {}, "$missing is not defined",
                 id="undefined-param"),
    pytest.param([{"opcode": "createResourceClaims", "count": 1}], {}, "unsupported opcode",
                 id="unsupported-opcode"),
    pytest.param([{"opcode": "createPods", "count": 1}], {}, "needs podTemplatePath",
                 id="create-pods-without-template"),
])
def test_bad_configs_are_rejected_naming_the_op(template: list[dict[str, object]],
                                                 params: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("$", r"\$")) as info:
        parse_config(_case(template, params), Path("."))
    assert "Case/w" in str(info.value)


def test_negative_count_is_an_error() -> None:
    op = parse_config(_case([{"opcode": "createNodes", "count": -1}], {}), Path("."))[0].workloads[0].ops[0]
    with pytest.raises(ConfigError):
        _ = op.count


def test_workload_names_labels_and_thresholds() -> None:
    wls = select_workloads(load_config(FIXTURES / "tiny-config.yaml"), labels=["tiny"])
    assert [(w.full_name, w.threshold) for w in wls] == [("TinyBasic/3Nodes", 1.0)]


def test_select_by_test_case_and_full_name() -> None:
    cases = load_config(FIXTURES / "tiny-config.yaml")
    assert [w.full_name for w in select_workloads(cases, ["TinySpread"])] == ["TinySpread/6Nodes"]
    assert [w.full_name for w in select_workloads(cases, ["TinyBasic/3Nodes"])] == ["TinyBasic/3Nodes"]
    with pytest.raises(ConfigError, match="no workload named"):
        select_workloads(cases, ["Nope/1Node"])


REQUIRED = {
    "SchedulingBasic", "SchedulingPodAntiAffinity", "SchedulingPodAffinity",
    "SchedulingPreferredPodAffinity", "SchedulingPreferredPodAntiAffinity", "SchedulingNodeAffinity",
    "TopologySpreading", "PreferredTopologySpreading", "PreemptionBasic", "Unschedulable",
    "SchedulingWithMixedChurn", "MixedSchedulingBasePod", "SchedulingCSIPVs", "SchedulingDaemonset",
}


def test_bundled_config_has_every_workload_at_500_and_5000_nodes() -> None:
    cases = load_config(BUNDLED_CONFIG)
    assert {c.name for c in cases} >= REQUIRED
    for c in (c for c in cases if c.name in REQUIRED):  # upstream's; kubesched's own have no threshold
        nodes = {sum(o.count for o in w.ops if o.opcode == "createNodes") for w in c.workloads}
        big = 15001 if c.name == "SchedulingDaemonset" else 5000
        assert any(n in (500, 501) for n in nodes), c.name
        assert big in nodes, c.name
        assert any(w.threshold > 0 and "performance" in w.labels for w in c.workloads), c.name


def test_image_workloads_run_alone_by_label_and_differ_only_in_node_images() -> None:
    wls = {w.name: w for w in select_workloads(load_config(), labels=["images"])}
    assert set(wls) == {"5Nodes", "500Nodes", "2000Nodes_2000Pods", "2000Nodes_2000Pods_NoImages"}
    assert {w.test_case for w in wls.values()} == {"SchedulingWithImages"}
    assert "integration-test" in wls["5Nodes"].labels and "check" in wls["500Nodes"].labels
    with_images, without = wls["2000Nodes_2000Pods"], wls["2000Nodes_2000Pods_NoImages"]
    strategy = with_images.ops[0].get("nodeImageStrategy")
    assert strategy["imagesPerNode"] == [30, 50] and strategy["catalogPath"] == "templates/node-images.yaml"
    assert without.ops[0].get("nodeImageStrategy")["imagesPerNode"] == [0, 0]
    assert [o.fields for o in with_images.ops[1:]] == [o.fields for o in without.ops[1:]]
    assert [o.collect_metrics for o in with_images.ops] == [False, False, True]
