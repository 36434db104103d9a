"""The configuration editor (as --config reads a file, errors on their lines), the weights form,
and two configurations compared on the same inputs."""

from __future__ import annotations

import pytest
import yaml

from kubesched.ui import (
    CONFIG_SOURCE,
    DEFAULT_CONFIG_TEXT,
    InputProblems,
    compare_configs,
    import_paths,
    parse_config,
    pod_reasons,
    run_whatif,
    score_weights,
    set_score_weights,
)

from ._fixtures import CONFIG_HEAD, FIT_WEIGHS_10, WEIGHTS, load, pod


def _weights(text: str) -> dict[str, int]:
    (profile,) = score_weights(parse_config(text))
    return dict(profile.weights)


def test_default_weights_are_kube_schedulers() -> None:
    w = _weights(DEFAULT_CONFIG_TEXT)
    got = (w["TaintToleration"], w["NodeAffinity"], w["NodeResourcesFit"], w["ImageLocality"])
    assert got == (3, 2, 1, 1)


def test_the_weights_form_writes_the_score_set_which_wins_over_multipoint() -> None:
    text = set_score_weights(DEFAULT_CONFIG_TEXT, {"default-scheduler": {"NodeResourcesFit": 10}})
    assert yaml.safe_load(text)["profiles"][0]["plugins"]["score"]["enabled"] == [
        {"name": "NodeResourcesFit", "weight": 10}]
    w = _weights(text)
    assert w["NodeResourcesFit"] == 10 and w["TaintToleration"] == 3
    # A second change updates the entry, keeps the rest of the text.
    again = set_score_weights(text, {"default-scheduler": {"NodeResourcesFit": 4, "ImageLocality": 7}})
    w = _weights(again)
    assert (w["NodeResourcesFit"], w["ImageLocality"]) == (4, 7)
    assert yaml.safe_load(again)["kind"] == "KubeSchedulerConfiguration"


def test_the_weights_form_refuses_a_text_it_cannot_edit() -> None:
    with pytest.raises(InputProblems) as err:
        set_score_weights("profiles: [\n", {"default-scheduler": {"NodeResourcesFit": 2}})
    assert err.value.problems[0].line == 2


def test_every_invalid_field_is_reported_on_its_line() -> None:
    text = CONFIG_HEAD + """percentageOfNodesToScore: 200
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: Sideways
"""
    with pytest.raises(InputProblems) as err:
        parse_config(text)
    got = {p.line: p.message for p in err.value.problems}
    assert got == {
        3: f"{CONFIG_SOURCE}: percentageOfNodesToScore: Invalid value: 200: not in valid range [0-100]",
        10: f'{CONFIG_SOURCE}: profiles[0].pluginConfig[0].args.scoringStrategy.type: Unsupported value: '
            '"Sideways": supported values: "LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"',
    }
    assert err.value.what == "configuration"


def test_invalid_yaml_and_an_empty_text_are_refused_as_config_would() -> None:
    with pytest.raises(InputProblems) as err:
        parse_config(CONFIG_HEAD + "profiles: [\n")
    (p,) = err.value.problems
    assert p.line == 4 and "invalid YAML" in p.message
    with pytest.raises(InputProblems) as err:
        parse_config("# nothing\n")
    assert "empty: a configuration needs at least apiVersion" in str(err.value)


def test_a_plugin_by_import_path_only_from_the_startup_config() -> None:
    text = CONFIG_HEAD + """profiles:
- schedulerName: default-scheduler
  plugins:
    score:
      enabled:
      - name: os:system
        weight: 1
"""
    with pytest.raises(InputProblems) as err:
        parse_config(text)
    (p,) = err.value.problems
    assert p.line == 8 and "Forbidden: 'os:system'" in p.message
    assert import_paths(text) == {"os:system"}
    # Allowed (named on the command line): the decoder judges it as --config would.
    with pytest.raises(InputProblems) as err:
        parse_config(text, allowed_imports=import_paths(text))
    assert "Forbidden" not in str(err.value)


def test_a_weight_changes_a_placement_and_compare_lists_the_pod() -> None:
    base = load(WEIGHTS)
    c = compare_configs(base, None, parse_config(FIT_WEIGHS_10))
    assert [(ch.pod, ch.before.node if ch.before else None, ch.after.node if ch.after else None)
            for ch in c.changes] == [("default/web", "node-b", "node-a")]
    assert c.to_dict()["differing"] == [{
        "pod": "default/web",
        "a": {"node": "node-b", "status": "Scheduled", "message": ""},
        "b": {"node": "node-a", "status": "Scheduled", "message": ""}}]
    # The same change through the what-if's configuration: the re-run differs from the inputs'.
    w = run_whatif(base, "", config=parse_config(FIT_WEIGHS_10), base_config=None)
    assert [(ch.pod, ch.change) for ch in w.changes] == [("default/web", "moved")]


def test_per_plugin_reasons_show_why_each_config_chose_its_node() -> None:
    base = load(WEIGHTS)
    r = pod_reasons(base, "default/web", [None, parse_config(FIT_WEIGHS_10)])
    assert r["nodes"] == ["node-b", "node-a"]
    a, b = r["configs"]
    assert (a["selectedNode"], b["selectedNode"]) == ("node-b", "node-a")
    # TaintToleration: node-a's PreferNoSchedule taint, weight 3 by default.
    assert a["nodes"]["node-a"]["scores"]["TaintToleration"] == {"weight": 3, "normalized": 0, "weighted": 0}
    assert a["nodes"]["node-b"]["scores"]["TaintToleration"]["weighted"] == 300
    assert b["nodes"]["node-a"]["scores"]["NodeResourcesFit"]["weight"] == 10
    assert a["nodes"]["node-b"]["totalScore"] > a["nodes"]["node-a"]["totalScore"]
    assert b["nodes"]["node-a"]["totalScore"] > b["nodes"]["node-b"]["totalScore"]
    assert a["rejectedBy"] == {} and a["nodes"]["node-a"]["filters"] == []


def test_per_plugin_reasons_of_a_pod_nobody_places() -> None:
    w = run_whatif(load(WEIGHTS), pod("huge", "5"))
    r = pod_reasons(w.objects, "default/huge", [None, parse_config(FIT_WEIGHS_10)])
    assert r["nodes"] == []
    for side in r["configs"]:
        assert side["selectedNode"] is None
        assert side["message"].startswith("0/2 nodes are available: 2 Insufficient cpu.")
        assert side["rejectedBy"] == {"NodeResourcesFit": 2}


def test_per_plugin_reasons_need_a_pod_name() -> None:
    with pytest.raises(ValueError, match="expected namespace/name"):
        pod_reasons(load(WEIGHTS), "web", [None])


def test_a_text_nested_too_deeply_is_one_problem_not_a_crash() -> None:
    deep = CONFIG_HEAD + "profiles: " + "[" * 50_000 + "]" * 50_000 + "\n"
    for edit in (lambda: parse_config(deep),
                 lambda: set_score_weights(deep, {"default-scheduler": {"NodeResourcesFit": 2}})):
        with pytest.raises(InputProblems, match="nested too deeply"):
            edit()


def test_config_reads_a_file_nested_too_deeply_as_bad_input(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from typer.testing import CliRunner

    from kubesched.cli import app

    f = tmp_path / "deep.yaml"
    f.write_text(CONFIG_HEAD + "profiles: " + "[" * 50_000 + "]" * 50_000 + "\n")
    r = CliRunner().invoke(app, ["validate", str(WEIGHTS), "--config", str(f)])
    assert r.exit_code == 2 and "<file>: invalid YAML: nested too deeply" in r.output
