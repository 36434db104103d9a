"""Preemption side by side with the real kube-scheduler of each release (the harness:
``_side_by_side.preemption``): the victims, the node the preemptor is bound to, and the bound
pod's ``nominatedNodeName``, which v1.32 keeps and v1.35's API server clears at binding
(ClearingNominatedNodeNameAfterBinding, KEP-5278): kubesched's simulated API server follows
the release."""

from __future__ import annotations

import pytest

from kubesched.api import KubeVersion

from . import _side_by_side as sbs
from ._kube import rest_for
from .conftest import ControlPlane


@pytest.mark.parametrize("seed", (1, 2))
def test_preemption_matches_the_real_scheduler_of_the_release(
        release_plane: tuple[ControlPlane, KubeVersion], seed: int) -> None:
    cp, release = release_plane
    out = sbs.preemption(rest_for(cp), release, seed)
    assert out.compared >= 1
    assert not out.mismatches, "\n".join(out.mismatches)
