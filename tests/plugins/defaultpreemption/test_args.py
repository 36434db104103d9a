"""DefaultPreemptionArgs: v1 defaults and ValidateDefaultPreemptionArgs."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.framework import ArgsError
from kubesched.framework.config import ConfigError, from_dict
from kubesched.plugins.defaultpreemption import DefaultPreemption, DefaultPreemptionArgs


def test_defaults() -> None:
    args = DefaultPreemptionArgs()
    assert (args.min_candidate_nodes_percentage, args.min_candidate_nodes_absolute) == (10, 100)
    assert args.to_dict() == {"minCandidateNodesPercentage": 10, "minCandidateNodesAbsolute": 100}


@pytest.mark.parametrize(("raw", "err"), [
    pytest.param({"minCandidateNodesPercentage": 50, "minCandidateNodesAbsolute": 0}, None,
                 id="valid config"),
    pytest.param({"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 5}, None,
                 id="percentage zero is fine alone"),
    pytest.param({"minCandidateNodesPercentage": -1}, "minCandidateNodesPercentage: Invalid value: -1: "
                 "not in valid range [0, 100]", id="negative minCandidateNodesPercentage"),
    pytest.param({"minCandidateNodesPercentage": 900}, "minCandidateNodesPercentage: Invalid value: 900: "
                 "not in valid range [0, 100]", id="minCandidateNodesPercentage over 100"),
    pytest.param({"minCandidateNodesAbsolute": -1}, "minCandidateNodesAbsolute: Invalid value: -1: "
                 "not in valid range [0, inf)", id="negative minCandidateNodesAbsolute"),
    pytest.param({"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 0},
                 "[minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as "
                 "minCandidateNodesAbsolute, minCandidateNodesAbsolute: Invalid value: 0: cannot be zero "
                 "at the same time as minCandidateNodesPercentage]", id="all zero"),
    pytest.param({"minCandidateNodesPercentage": -1, "minCandidateNodesAbsolute": -1},
                 "[minCandidateNodesPercentage: Invalid value: -1: not in valid range [0, 100], "
                 "minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)]",
                 id="both negative"),
    pytest.param({"minCandidateNodesAbsolute": "ten"}, "minCandidateNodesAbsolute: Invalid value: 'ten': "
                 "must be an integer", id="not an integer"),
    pytest.param({"minCandidateNodes": 1}, "minCandidateNodes: unknown field", id="unknown field"),
])
def test_validate(raw: dict[str, Any], err: str | None) -> None:
    if err is None:
        DefaultPreemptionArgs.from_dict(raw)
        return
    with pytest.raises(ArgsError) as exc:
        DefaultPreemptionArgs.from_dict(raw)
    assert str(exc.value) == err


def config(args: dict[str, Any]) -> Any:
    return from_dict({"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
                      "profiles": [{"pluginConfig": [{"name": "DefaultPreemption", "args": args}]}]})


def test_plugin_config_args_are_decoded_and_validated() -> None:
    cfg = config({"minCandidateNodesPercentage": 20, "minCandidateNodesAbsolute": 3})
    args = cfg.profiles[0].args_for("DefaultPreemption")
    assert args == DefaultPreemptionArgs(min_candidate_nodes_percentage=20, min_candidate_nodes_absolute=3)
    assert DefaultPreemption(args).calculate_num_candidates(100) == 20
    with pytest.raises(ConfigError, match="minCandidateNodesPercentage: Invalid value: 101"):
        config({"minCandidateNodesPercentage": 101})


def test_plugin_accepts_a_raw_mapping() -> None:
    pl = DefaultPreemption({"minCandidateNodesAbsolute": 7})
    assert pl.calculate_num_candidates(100) == 10
    assert pl.calculate_num_candidates(5) == 5
