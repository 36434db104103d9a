"""FGDScore's vectorised rule against a line-by-line scalar port of the simulator's Go code."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubesched.replay.openb import FragModel, PodGpu, TypicalPod

from . import scalar_port as sp

TYPICAL = (TypicalPod(3152, 810, 1, "", 0.3), TypicalPod(11300, 1000, 1, "", 0.2),
           TypicalPod(11908, 470, 1, "", 0.2), TypicalPod(2000, 0, 0, "", 0.1),
           TypicalPod(88000, 1000, 8, "", 0.1), TypicalPod(8000, 250, 1, "T4|P100", 0.1))
GPU_LEFT = st.sampled_from([0, 100, 250, 470, 500, 700, 810, 1000, 1000, 1000])


@settings(max_examples=300, deadline=None)
@given(n=st.sampled_from([1, 2, 4, 8]), lefts=st.lists(GPU_LEFT, min_size=8, max_size=8),
       cpu_left=st.sampled_from([0, 2000, 8000, 32000, 96000]), model=st.sampled_from(["T4", "G2"]),
       req=st.sampled_from([PodGpu(4000, 500, 1), PodGpu(8000, 1000, 1), PodGpu(1000, 250, 1),
                            PodGpu(2000, 0, 0), PodGpu(16000, 1000, 2), PodGpu(6000, 1000, 4)]))
def test_fgd_matches_the_scalar_port(n: int, lefts: list[int], cpu_left: int, model: str,
                                     req: PodGpu) -> None:
    from kubesched_gpushare._state import GpuRows
    from kubesched_gpushare.fgd import FGDArgs, FGDScore

    left = lefts[:n]
    rows = GpuRows(np.array([left + [-1] * (8 - n)], dtype=np.int64), np.array([n]),
                   np.array([model], dtype=object), np.zeros(1, dtype=np.int64),
                   np.array([cpu_left], dtype=np.int64), np.array([96000], dtype=np.int64))
    m = FragModel(TYPICAL)
    assert m.fragment(rows.cpu_left, rows.left, m.access([model]))[0] == pytest.approx(
        sp.node_frag(cpu_left, left, model, TYPICAL))
    plugin = FGDScore(FGDArgs(typical_pods=TYPICAL))
    want, gpu = sp.fgd_score(cpu_left, left, model, TYPICAL, req.cpu, req.milli, req.count)
    if req.is_share and gpu is None:
        return  # fits no GPU: the filter keeps the pod off this node
    assert int(plugin.scores(rows, req, None)[0]) == want  # type: ignore[arg-type]
    if req.is_share:
        assert plugin.select_gpus(rows, req) == [gpu]
