"""Building a framework from a profile: placement, multiPoint expansion, up-front validation
(framework.go NewFramework / expandMultiPointPlugins / getScoreWeights)."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.framework import FrameworkBuildError
from kubesched.framework.config import PluginSet

from ._toys import framework, pset, toy

ALL: dict[str, Any] = {
    "pre_filter": (None, None),
    "filter": None,
    "pre_score": None,
    "score": (0, None),
    "reserve": None,
    "unreserve": None,
    "permit": (None, 0),
    "pre_bind": None,
    "post_bind": None,
}
Multi = toy("Multi", **ALL)
Multi2 = toy("Multi2", **ALL)
FilterOnly = toy("FilterOnly", filter=None)
ScoreOnly = toy("ScoreOnly", score=(0, None))


def _names(plugins: list[Any]) -> list[str]:
    return [p.name() for p in plugins]


@pytest.mark.parametrize(
    ("sets", "want"),
    [
        pytest.param(
            {"multi_point": pset(("Multi", 5), "FilterOnly")},
            {
                "filter": ["Multi", "FilterOnly"],
                "score": ["Multi"],
                "reserve": ["Multi"],
                "weights": {"Multi": 5},
            },
            id="plugin-expansion",
        ),
        pytest.param(
            {
                "multi_point": pset("Multi"),
                "score": pset(disabled=["Multi"]),
                "pre_score": pset(disabled=["Multi"]),
            },
            {"filter": ["Multi"], "score": [], "pre_score": [], "weights": {"Multi": 1}},
            id="disable-MultiPoint-plugin-at-some-extension-points",
        ),
        pytest.param(
            {"multi_point": pset(("Multi", 5)), "score": pset(("Multi", 3))},
            {"score": ["Multi"], "weights": {"Multi": 3}},
            id="Override-MultiPoint-plugins-weights",
        ),
        pytest.param(
            {"multi_point": pset("Multi", "FilterOnly"), "filter": pset(disabled=["*"])},
            {"filter": [], "score": ["Multi"]},
            id="disable-all-at-extension-point-with-star",
        ),
        pytest.param(
            {"multi_point": pset("Multi", "Multi2"), "filter": pset("FilterOnly", "Multi2")},
            {"filter": ["Multi2", "Multi", "FilterOnly"]},
            id="Register-extension-point-via-multiPoint-and-regular-point-with-ordering",
        ),
        pytest.param(
            {"multi_point": pset("Multi"), "score": pset("ScoreOnly")},
            {"score": ["Multi", "ScoreOnly"], "weights": {"Multi": 1, "ScoreOnly": 1}},
            id="weight-0-means-1",
        ),
    ],
)
def test_multi_point_expansion(sets: dict[str, PluginSet], want: dict[str, Any]) -> None:
    fw = framework([Multi, Multi2, FilterOnly, ScoreOnly], **sets)
    lists = {
        "filter": fw.filter_plugins,
        "score": fw.score_plugins,
        "reserve": fw.reserve_plugins,
        "pre_score": fw.pre_score_plugins,
    }
    for key, names in want.items():
        if key == "weights":
            assert fw.score_weights == names
        else:
            assert _names(lists[key]) == names, key


@pytest.mark.parametrize(
    ("classes", "sets", "msg"),
    [
        pytest.param(
            [Multi],
            {"multi_point": pset("Multi", "Multi")},
            "plugin 'Multi' already registered as 'PreFilterPlugin'",
            id="Duplicate-MultiPoint-plugins",
        ),
        pytest.param(
            [FilterOnly],
            {"filter": pset("FilterOnly", "FilterOnly")},
            "plugin 'FilterOnly' already registered as 'FilterPlugin'",
            id="Duplicate-plugins-in-regular-extension-point",
        ),
        pytest.param(
            [],
            {"multi_point": pset("Nope")},
            "PreFilterPlugin 'Nope' does not exist",
            id="Invalid-plugin-name-in-multiPoint",
        ),
        pytest.param(
            [FilterOnly],
            {"score": pset("FilterOnly")},
            "plugin 'FilterOnly' does not extend ScorePlugin plugin",
            id="plugin-does-not-extend-point",
        ),
        pytest.param(
            [],
            {"queue_sort": pset()},
            "only one queue sort plugin required for profile with scheduler name 'toy-scheduler', but got 0",
            id="no-queue-sort",
        ),
        pytest.param(
            [],
            {"bind": pset()},
            "at least one bind plugin is needed for profile with scheduler name 'toy-scheduler'",
            id="no-bind",
        ),
    ],
)
def test_build_errors(classes: list[Any], sets: dict[str, PluginSet], msg: str) -> None:
    with pytest.raises(FrameworkBuildError) as exc:
        framework(classes, **sets)
    assert str(exc.value) == msg


def test_only_needed_plugins_are_built_with_their_args() -> None:
    built: list[tuple[str, Any]] = []

    def factory(name: str) -> Any:
        def make(args: Any, handle: Any) -> Any:
            built.append((name, args))
            return FilterOnly(None, handle)

        return make

    from kubesched.framework import Framework
    from kubesched.framework.config import PluginConfig, Plugins, Profile

    from ._toys import Binder, QueueSort

    prof = Profile(
        "p",
        plugins=Plugins(filter=pset("FilterOnly"), queue_sort=pset("QueueSort"), bind=pset("Binder")),
        plugin_config=(PluginConfig("FilterOnly", {"x": 1}),),
    )
    Framework(
        prof,
        {
            "FilterOnly": factory("FilterOnly"),
            "Unused": factory("Unused"),
            "QueueSort": QueueSort,
            "Binder": Binder,
        },
    )
    assert built == [("FilterOnly", {"x": 1})]
