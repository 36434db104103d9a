"""Bursts of identical pods (5 to 40 created together) under the default profile, side by side
with the real kube-scheduler of each release (the harness: ``_side_by_side.bursts``). With
the default profile the real v1.35 batches none of them (system default topology spreading
makes every pod unsignable, KEP-5598), so each placement is an ordinary cycle's."""

from __future__ import annotations

import pytest

from kubesched.api import KubeVersion

from . import _side_by_side as sbs
from ._kube import rest_for
from .conftest import ControlPlane


@pytest.mark.parametrize("seed", (1, 2))
def test_bursts_match_the_real_scheduler_of_the_release(
        release_plane: tuple[ControlPlane, KubeVersion], seed: int) -> None:
    cp, release = release_plane
    out = sbs.bursts(rest_for(cp), release, seed)
    assert out.compared >= 10
    assert not out.mismatches, "\n".join(out.mismatches)
