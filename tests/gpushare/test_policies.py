"""The GPU-share model and the FGD paper's six policies, each on a tiny cluster worked by hand,
through kubesched's Scheduler (the plugins loaded by import path from examples/gpushare)."""

from __future__ import annotations

from kubesched.replay.openb import TypicalPod

from .helpers import node, placed, pod, run


def test_filter_gpu_model_count_and_share() -> None:
    cluster = [node("cpu-only", gpus=0), node("t4", gpus=2, model="T4"),
               node("v100", gpus=2, model="V100M32"),
               pod("x", milli=500, count=1, on="t4", index="0"),
               pod("y", milli=500, count=1, on="t4", index="1"),
               pod("z", milli=1000, count=1, on="v100", index="0")]
    store = run("BestFit", cluster, [
        pod("share-600", milli=600, count=1, spec="T4"),  # T4 GPUs have 500 left each
        pod("two-gpus", milli=1000, count=2),  # no node has two free GPUs
        pod("share-500", milli=500, count=1, spec="T4"),
        pod("cpu", cpu=1000),
    ])
    assert placed(store, "share-600") == ("", "")
    assert placed(store, "two-gpus") == ("", "")
    assert placed(store, "share-500") == ("t4", "0")  # the tightest fitting GPU, the first on ties
    assert placed(store, "cpu")[0] != ""
    msg = next(e for e in store.events() if e.reason == "FailedScheduling"
               and e.involved_name == "share-600").message
    assert "1 Insufficient GPU" in msg
    assert "1 node(s) had no GPU" in msg and "1 node(s) didn't have the requested GPU model" in msg


def test_reserve_records_gpus_and_node_state_follows_bound_pods() -> None:
    cluster = [node("n", cpu=64000, gpus=4), pod("old", milli=1000, count=2, on="n", index="1-2")]
    store = run("Packing", cluster, [pod("whole", milli=1000, count=1), pod("a", milli=300, count=1),
                                     pod("b", milli=700, count=1), pod("c", milli=1000, count=1)])
    assert placed(store, "whole") == ("n", "0")  # the first free GPU
    assert placed(store, "a") == ("n", "3")
    assert placed(store, "b") == ("n", "3")  # 700 left on GPU 3, the tightest that fits
    assert placed(store, "c") == ("", "")  # no GPU is free any more


def test_best_fit_prefers_the_node_left_least_free() -> None:
    # a: 1 - (28000/128000*0.5 + 1000/8000*0.5) = 0.828 -> 82; b: 1 - 4000/128000*0.5 -> 98
    store = run("BestFit", [node("a", cpu=32000, gpus=2), node("b", cpu=8000, gpus=1)],
                [pod("p", cpu=4000, milli=1000, count=1)])
    assert placed(store, "p") == ("b", "0")


def test_dot_product_prefers_the_least_aligned_node() -> None:
    # a: free (64000, 8000)/(128000, 8000) . req (4000/128000, 1000/8000) = 0.1406 -> int(100*(1-0.0703)) = 92
    # b: free (8000, 1000) -> 0.0176 -> 99
    store = run("DotProd", [node("a", cpu=64000, gpus=8), node("b", cpu=8000, gpus=1)],
                [pod("p", cpu=4000, milli=1000, count=1)])
    assert placed(store, "p")[0] == "b"


def test_gpu_packing_prefers_shared_gpus_then_used_nodes() -> None:
    cluster = [node("a-idle", gpus=2), node("b-shared", gpus=2), node("c-used", gpus=2),
               pod("s", milli=600, count=1, on="b-shared", index="1"),
               pod("w", milli=1000, count=1, on="c-used", index="0")]
    # share pod 300: b-shared GPU 1 has 400 left -> 100 - 40/10 = 96; c-used takes a free GPU -> 49;
    # a-idle -> 33 - 2 = 31
    store = run("Packing", cluster, [pod("p", milli=300, count=1)])
    assert placed(store, "p") == ("b-shared", "1")
    # a whole GPU: c-used 50 - 1 = 49, b-shared 49 too (ties: the smallest name), a-idle 31
    store = run("Packing", cluster, [pod("q", milli=1000, count=1)])
    assert placed(store, "q") == ("b-shared", "0")


def test_gpu_clustering_keeps_gpu_shapes_together() -> None:
    cluster = [node("a-idle", gpus=4), node("b-share", gpus=4), node("c-whole", gpus=4),
               pod("s", milli=500, count=1, on="b-share", index="0"),
               pod("w", milli=1000, count=1, on="c-whole", index="0")]
    # share pod: b-share 25*(8000-3500)/8000 + 75 = 89; c-whole 3 + 0; a-idle 0 + 25
    assert placed(run("Clustering", cluster, [pod("p", milli=200, count=1)]), "p")[0] == "b-share"
    assert placed(run("Clustering", cluster, [pod("q", milli=1000, count=1)]), "q")[0] == "c-whole"


def test_random_is_seeded() -> None:
    cluster = [node(f"n{i}", gpus=1) for i in range(6)]
    got = {seed: placed(run("Random", cluster, [pod("p", milli=100, count=1)], seed=seed), "p")[0]
           for seed in range(8)}
    assert len(set(got.values())) > 1
    assert placed(run("Random", cluster, [pod("p", milli=100, count=1)], seed=3), "p")[0] == got[3]


def test_fgd_lowers_fragmentation_against_the_typical_pods() -> None:
    whole = (TypicalPod(cpu=1000, milli=1000, count=1, spec="", freq=1.0),)
    cluster = [node("a", gpus=2), node("b", gpus=2), pod("s", milli=500, count=1, on="b", index="1")]
    # typical pods want whole GPUs. b = [1000, 500]: fragment 500 (GPU 1 is too small for them).
    # A 500 pod on b GPU 1 -> [1000, 0]: fragment 0, score int(sigmoid(0.5)*100) = 62;
    # on b GPU 0 -> [500, 500]: no whole GPU left, fragment 1000 -> 37; on a -> [500, 1000] -> 37
    store = run("FGD", cluster, [pod("p", milli=500, count=1)], typical=whole)
    assert placed(store, "p") == ("b", "1")


def test_ties_go_to_the_smallest_node_name() -> None:
    """The simulator's host selection (see name_order.py): equal scores, smallest name."""
    cluster = [node("0002-z", gpus=1), node("0001-y", gpus=1), node("0003-x", gpus=1)]
    for seed in range(4):
        assert placed(run("BestFit", cluster, [pod("p", milli=1000, count=1)], seed=seed), "p")[0] == "0001-y"


def test_unreserve_forgets_the_gpus_and_their_annotation() -> None:
    import random

    from kubesched_gpushare import GpuShare

    from kubesched.api.loader import parse_object
    from kubesched.cache import Snapshot
    from kubesched.clock import VirtualClock
    from kubesched.cluster import MemoryStore
    from kubesched.framework import CycleState
    from kubesched.replay.openb import GPU_INDEX

    clock = VirtualClock()
    store = MemoryStore(clock)
    n = parse_object(node("n", gpus=2))
    p = parse_object(pod("p", milli=1000, count=1))
    store.load([n])
    p = store.create(p)
    snap = Snapshot.from_objects([n])

    class Handle:
        rng = random.Random(0)

        def __init__(self) -> None:
            self.store = store

        def snapshot(self) -> Snapshot:
            return snap

    plugin = GpuShare(None, Handle())
    assert plugin.reserve(CycleState(), p, "n") is None
    assert store.get("Pod", "default", "p").meta.annotations[GPU_INDEX] == "0"
    assert plugin.state.assigned == {p.uid: [0]}
    plugin.unreserve(CycleState(), p, "n")
    assert GPU_INDEX not in store.get("Pod", "default", "p").meta.annotations
    assert plugin.state.assigned == {}
