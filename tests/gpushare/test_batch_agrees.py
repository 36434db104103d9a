"""Each plugin's per-node path and batch path give the same answers (hypothesis)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from kubesched.api.loader import parse_object
from kubesched.cache import Snapshot
from kubesched.framework import CycleState, NodeBatch
from kubesched.replay.openb import TypicalPod

from .helpers import node, pod

TYPICAL = (TypicalPod(4000, 500, 1, "", 0.4), TypicalPod(8000, 1000, 1, "", 0.3),
           TypicalPod(2000, 0, 0, "", 0.2), TypicalPod(16000, 1000, 2, "T4", 0.1))


@st.composite
def clusters(draw: st.DrawFn) -> tuple[Snapshot, dict]:
    n = draw(st.integers(1, 6))
    objs, pods = [], []
    for i in range(n):
        gpus = draw(st.sampled_from([0, 1, 2, 4, 8]))
        model = draw(st.sampled_from(["T4", "G2"]))
        objs.append(parse_object(node(f"n{i}", cpu=draw(st.sampled_from([8000, 32000, 96000])), gpus=gpus,
                                      model=model)))
        left = [1000] * gpus
        for j in range(draw(st.integers(0, 4))):
            if not gpus:
                break
            g = draw(st.integers(0, gpus - 1))
            m = draw(st.sampled_from([100, 250, 500, 1000]))
            if left[g] >= m:
                left[g] -= m
                pods.append(parse_object(pod(f"p{i}-{j}", cpu=1000, milli=m, count=1, on=f"n{i}",
                                             index=str(g))))
    want = draw(st.sampled_from([(2000, 0, 0, ""), (4000, 500, 1, ""), (8000, 1000, 1, ""),
                                 (16000, 1000, 2, "T4"), (1000, 250, 1, "G2")]))
    new = pod("new", cpu=want[0], milli=want[1], count=want[2], spec=want[3])
    return Snapshot.from_objects(objs, pods), new


@settings(max_examples=60, deadline=None)
@given(clusters())
def test_scores_and_filter_agree(case: tuple[Snapshot, dict]) -> None:
    from kubesched_gpushare import (
        BestFitScore,
        DotProductScore,
        FGDScore,
        GpuClusteringScore,
        GpuPackingScore,
        GpuShare,
    )
    from kubesched_gpushare.fgd import FGDArgs

    snap, manifest = case
    p = parse_object(manifest)
    batch = NodeBatch.all(snap)
    state = CycleState()
    share = GpuShare()
    res = share.filter_batch(state, p, batch)
    for i, ni in enumerate(snap.node_info_list):
        st_ = share.filter(state, p, ni)
        assert (st_ is None and res.codes[i] == 0) or (st_ is not None and st_.code == res.codes[i]
                                                       and st_.reasons == res.reason_table[res.reason_ids[i]])
    fits = np.flatnonzero(res.codes == 0)
    if not len(fits):
        return
    feasible = NodeBatch(snap, fits.astype(np.int64))
    for pl in (BestFitScore(), DotProductScore(), GpuClusteringScore(), GpuPackingScore(),
               FGDScore(FGDArgs(typical_pods=TYPICAL))):
        arr, st_ = pl.score_batch(state, p, feasible)
        assert st_ is None
        one = [pl.score(state, p, ni)[0] for ni in feasible.node_infos()]
        assert arr.tolist() == one, pl.NAME
        assert all(0 <= s <= 100 for s in one) or pl.NAME == "BestFitScore"


def test_fgd_scores_distinct_node_states_once() -> None:
    """Many nodes: FGD scores each distinct (cpu, model, GPUs left) state once, same answers."""
    from kubesched_gpushare.fgd import FGDArgs, FGDScore

    objs, pods = [], []
    for i in range(40):
        objs.append(parse_object(node(f"n{i:02d}", cpu=32000, gpus=4, model="T4" if i % 3 else "G2")))
        if i % 4 == 1:
            pods.append(parse_object(pod(f"p{i}", cpu=2000 * (i % 3), milli=500, count=1, on=f"n{i:02d}",
                                         index=str(i % 4))))
    snap = Snapshot.from_objects(objs, pods)
    pl = FGDScore(FGDArgs(typical_pods=TYPICAL))
    for manifest in (pod("a", cpu=4000, milli=500, count=1), pod("b", cpu=8000, milli=1000, count=2)):
        p = parse_object(manifest)
        arr, _ = pl.score_batch(CycleState(), p, NodeBatch.all(snap))
        assert arr.tolist() == [pl.score(CycleState(), p, ni)[0] for ni in snap.node_info_list]
