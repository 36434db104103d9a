"""PluginBase: args are type-checked and validated once, as upstream's plugin factories do."""

from __future__ import annotations

import pytest

from kubesched.framework import ArgsError, Code
from kubesched.plugins.interpodaffinity import InterPodAffinity, InterPodAffinityArgs
from kubesched.plugins.podtopologyspread import PodTopologySpreadArgs


def test_wrong_args_type_is_rejected_with_upstreams_message() -> None:
    want = "want args to be of type InterPodAffinityArgs, got PodTopologySpreadArgs"
    with pytest.raises(TypeError, match=want):
        InterPodAffinity(PodTopologySpreadArgs())


def test_args_are_validated_at_construction() -> None:
    with pytest.raises(ArgsError, match="hardPodAffinityWeight"):
        InterPodAffinity(InterPodAffinityArgs(hard_pod_affinity_weight=101))


def test_no_args_means_v1_defaults() -> None:
    assert InterPodAffinity().args == InterPodAffinityArgs()


def test_error_status_names_the_plugin() -> None:
    st = InterPodAffinity().error_status(RuntimeError("boom"))
    assert (st.code, st.plugin, st.reasons) == (Code.ERROR, "InterPodAffinity", ("boom",))
