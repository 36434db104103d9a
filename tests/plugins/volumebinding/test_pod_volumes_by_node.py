"""PodVolumesByNode (VolumeBinding's podVolumesByNode, with whole batches of bound-only nodes
recorded as rows): it must read like the plain map in which passing a batch writes an empty
PodVolumes for each of its nodes."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st_

from kubesched.plugins.volumebinding.binder import BindingInfo, PodVolumes
from kubesched.plugins.volumebinding.volume_binding import PodVolumesByNode
from kubesched.testing import make_node, snapshot_of

from .fixtures import make_pv, make_pvc

NAMES = [f"n{i}" for i in range(6)]


def _decided() -> PodVolumes:
    """A non-empty decision (what the per-node Filter may record)."""
    return PodVolumes(static_bindings=[BindingInfo(make_pvc("c"), make_pv("v"))])


_ops = st_.lists(
    st_.one_of(
        st_.tuples(st_.just("set"), st_.sampled_from(NAMES)),
        st_.tuples(st_.just("pass"), st_.lists(st_.integers(0, len(NAMES) - 1), unique=True)),
        st_.tuples(st_.just("get"), st_.sampled_from(NAMES)),
        st_.tuples(st_.just("del"), st_.sampled_from(NAMES)),
        st_.tuples(st_.just("reserve"), st_.sampled_from(NAMES)),
    ),
    max_size=20,
)


def _shape(pv: PodVolumes | None) -> Any:
    return None if pv is None else (len(pv.static_bindings), len(pv.dynamic_provisions))


@settings(max_examples=200, deadline=None, derandomize=True)
@given(ops=_ops)
def test_reads_like_the_plain_map(ops: list[tuple[Any, ...]]) -> None:
    snap = snapshot_of([make_node().name(n).obj() for n in NAMES])
    lazy = PodVolumesByNode()
    plain: dict[str, PodVolumes] = {}
    for op in ops:
        kind = op[0]
        if kind == "set":
            lazy[op[1]] = _decided()
            plain[op[1]] = _decided()
        elif kind == "pass":
            rows = np.array(op[1], dtype=np.int64)
            lazy.pass_rows(snap, rows)
            plain.update({snap.node_names[r]: PodVolumes() for r in op[1]})
        elif kind == "del":
            assert (op[1] in lazy) == (op[1] in plain)
            if op[1] in plain:
                del lazy[op[1]]
                del plain[op[1]]
        elif kind == "reserve":  # Reserve rewrites the chosen node's decisions in place
            for m in (lazy, plain):
                pv = m.get(op[1])
                if pv is not None:
                    pv.static_bindings = [*pv.static_bindings, *_decided().static_bindings]
        assert _shape(lazy.get(op[1] if len(op) > 1 and isinstance(op[1], str) else "n0")) == _shape(
            plain.get(op[1] if len(op) > 1 and isinstance(op[1], str) else "n0"))
        assert sorted(lazy) == sorted(plain)
        assert len(lazy) == len(plain)
        assert {k: _shape(v) for k, v in lazy.items()} == {k: _shape(v) for k, v in plain.items()}
