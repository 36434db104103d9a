"""Out-of-tree plugins: import path, entry point, a config file enabling them, load-time checks."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from kubesched.framework import CycleState, Framework, NodeBatch, PluginLoadError, load_plugin
from kubesched.framework.config import ConfigError, from_dict, load_config
from kubesched.testing import make_node, make_pod, snapshot_of

from ._toys import Binder, QueueSort

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "plugins"

PLUGIN_SRC = textwrap.dedent("""
    from kubesched.framework import PluginBase

    class Prefer(PluginBase):
        NAME = "Prefer"
        def score(self, state, pod, node_info):
            return (100 if node_info.name == "b" else 0), None

    class Broken(PluginBase):
        NAME = "Broken"
        def score(self, state):
            return 0, None

    class NoName:
        def filter(self, state, pod, node_info):
            return None
""")

# A profile that needs nothing in-tree: everything disabled but toy sort/bind and the plugin.
BARE = {
    "multiPoint": {"disabled": [{"name": "*"}]},
    "queueSort": {"enabled": [{"name": "QueueSort"}]},
    "bind": {"enabled": [{"name": "Binder"}]},
}
TOY_REGISTRY = {"QueueSort": QueueSort, "Binder": Binder}


@pytest.fixture
def plugin_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    (tmp_path / "oot_plugins.py").write_text(PLUGIN_SRC)
    monkeypatch.syspath_prepend(str(tmp_path))
    return "oot_plugins"


def test_load_by_import_path(plugin_module: str) -> None:
    loaded = load_plugin(f"{plugin_module}:Prefer")
    assert loaded is not None and loaded.name == "Prefer" and loaded.source == "oot_plugins:Prefer"
    assert load_plugin("NotAnEntryPoint") is None


@pytest.mark.parametrize(
    ("spec", "msg"),
    [
        pytest.param("oot_plugins:NoName", "has no NAME", id="no-name"),
        pytest.param("oot_plugins:Missing", "has no attribute 'Missing'", id="missing-class"),
        pytest.param("no_such_module_xyz:X", "cannot import module", id="missing-module"),
    ],
)
def test_load_errors(plugin_module: str, spec: str, msg: str) -> None:
    with pytest.raises(PluginLoadError, match=msg):
        load_plugin(spec)


def test_config_checks_methods_at_load(plugin_module: str) -> None:
    doc = {"profiles": [{"plugins": {**BARE, "score": {"enabled": [{"name": "oot_plugins:Broken"}]}}}]}
    with pytest.raises(ConfigError) as exc:
        from_dict(doc, registry=TOY_REGISTRY)
    assert (
        "profiles[0].plugins.score.enabled[0].name: Invalid value: \"oot_plugins:Broken\": plugin 'Broken' "
        "(oot_plugins:Broken) is enabled for score but score(state) must accept (state, pod, node_info)"
    ) in str(exc.value)
    doc = {"profiles": [{"plugins": {**BARE, "filter": {"enabled": [{"name": "oot_plugins:Prefer"}]}}}]}
    with pytest.raises(
        ConfigError, match=r"is enabled for filter but does not define filter\(state, pod, node_info\)"
    ):
        from_dict(doc, registry=TOY_REGISTRY)


def test_import_path_plugin_schedules(plugin_module: str) -> None:
    doc = {
        "profiles": [
            {"plugins": {**BARE, "score": {"enabled": [{"name": "oot_plugins:Prefer", "weight": 2}]}}}
        ]
    }
    cfg = from_dict(doc, registry=TOY_REGISTRY)
    assert [p.name for p in cfg.profiles[0].plugins.score.enabled] == ["Prefer"]
    snap = snapshot_of([make_node().name(n).obj() for n in ("a", "b")])
    fw = Framework(cfg.profiles[0], {**TOY_REGISTRY, **cfg.out_of_tree}, snapshot=snap)
    res, st = fw.run_score_plugins(CycleState(), make_pod().name("p").obj(), NodeBatch.all(snap))
    assert st.is_success() and res is not None and res.totals.tolist() == [0, 200]


def test_entry_point_plugin(plugin_module: str, tmp_path: Path) -> None:
    dist = tmp_path / "oot_plugins-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: oot-plugins\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[kubesched.plugins]\nPreferB = oot_plugins:Prefer\n")
    loaded = load_plugin("PreferB")
    assert loaded is not None and loaded.name == "Prefer" and "oot-plugins" in loaded.source
    doc = {
        "profiles": [
            {
                "plugins": {**BARE, "score": {"enabled": [{"name": "PreferB"}]}},
                "pluginConfig": [{"name": "PreferB", "args": {"k": "v"}}],
            }
        ]
    }
    cfg = from_dict(doc, registry=TOY_REGISTRY)
    assert cfg.profiles[0].plugins.score.enabled_names() == ["Prefer"]
    assert cfg.profiles[0].args_for("Prefer") == {"k": "v"}, "args given under the entry-point name"


def test_example_plugin_from_config_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.syspath_prepend(str(EXAMPLES))
    cfg = load_config(EXAMPLES / "scheduler-config.yaml")
    prof = cfg.profiles[0]
    assert "NodeLabelPreference" in prof.plugins.multi_point.enabled_names()
    args = prof.args_for("NodeLabelPreference")
    assert (args.label_key, args.values) == ("node.example.com/ssd", ("true",))
    # Build just the example plugin (the in-tree ones are not needed to check it).
    cfg_file = tmp_path / "only-example.yaml"
    cfg_file.write_text(
        textwrap.dedent("""
        profiles:
        - plugins:
            multiPoint:
              disabled: [{name: "*"}]
              enabled: [{name: "label_preference:NodeLabelPreference", weight: 5}]
            queueSort: {enabled: [{name: QueueSort}]}
            bind: {enabled: [{name: Binder}]}
          pluginConfig:
          - name: label_preference:NodeLabelPreference
            args: {labelKey: disk, values: [ssd]}
    """)
    )
    cfg = load_config(cfg_file, registry=TOY_REGISTRY)
    snap = snapshot_of(
        [
            make_node().name("hdd").label("disk", "hdd").obj(),
            make_node().name("ssd").label("disk", "ssd").obj(),
            make_node().name("none").obj(),
        ]
    )
    pod = make_pod().name("p").obj()
    fast = Framework(cfg.profiles[0], {**TOY_REGISTRY, **cfg.out_of_tree}, snapshot=snap)
    slow = Framework(cfg.profiles[0], {**TOY_REGISTRY, **cfg.out_of_tree}, snapshot=snap, per_node=True)
    assert fast.score_weights == {"NodeLabelPreference": 5}
    for fw in (fast, slow):
        res, st = fw.run_score_plugins(CycleState(), pod, NodeBatch.all(snap))
        assert st.is_success() and res is not None and res.totals.tolist() == [0, 500, 0]


def test_example_args_validated(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(EXAMPLES))
    doc = {
        "profiles": [
            {
                "plugins": {"multiPoint": {"enabled": [{"name": "label_preference:NodeLabelPreference"}]}},
                "pluginConfig": [{"name": "NodeLabelPreference", "args": {"labelKey": ""}}],
            }
        ]
    }
    with pytest.raises(
        ConfigError, match=r"profiles\[0\]\.pluginConfig\[0\]\.args\.labelKey: Required value"
    ):
        from_dict(doc)
