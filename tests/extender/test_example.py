"""examples/extender: the package's entry point, and the kube-scheduler configuration."""

from __future__ import annotations

import importlib
import tomllib

import yaml

from kubesched.framework.config import decode_extender

from .helpers import EXAMPLE


def test_entry_point_names_the_plugin() -> None:
    project = tomllib.loads((EXAMPLE / "pyproject.toml").read_text())
    entry_points = project["project"]["entry-points"]["kubesched.plugins"]
    assert entry_points == {"AvoidLabel": "kubesched_example_extender:AvoidLabel"}
    module, _, attr = entry_points["AvoidLabel"].partition(":")
    assert getattr(importlib.import_module(module), attr).NAME == "AvoidLabel"


def test_kube_scheduler_configuration_has_the_extender() -> None:
    doc = yaml.safe_load((EXAMPLE / "kube-scheduler-config.yaml").read_text())
    [entry] = doc["extenders"]
    assert {"urlPrefix", "filterVerb", "prioritizeVerb", "preemptVerb", "weight", "nodeCacheCapable",
            "ignorable", "managedResources"} <= set(entry)
    ext = decode_extender(entry)  # valid by kube-scheduler's own validation rules
    assert (ext.filter_verb, ext.prioritize_verb, ext.preempt_verb) == ("filter", "prioritize", "preempt")
    assert ext.node_cache_capable is False
