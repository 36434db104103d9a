"""Volumes side by side with the real kube-scheduler of each release (the harness:
``_side_by_side.volumes``): WaitForFirstConsumer claims, local PVs with node affinity and a
provisioning class; the placement and the binding the scheduler writes (the PV's claimRef,
the claim's selected-node annotation). The test plays the PV controller's part."""

from __future__ import annotations

import pytest

from kubesched.api import KubeVersion

from . import _side_by_side as sbs
from ._kube import rest_for
from .conftest import ControlPlane


@pytest.mark.parametrize("seed", (1, 2))
def test_volumes_match_the_real_scheduler_of_the_release(
        release_plane: tuple[ControlPlane, KubeVersion], seed: int) -> None:
    cp, release = release_plane
    out = sbs.volumes(rest_for(cp), release, seed)
    assert out.compared >= 3
    assert not out.mismatches, "\n".join(out.mismatches)
