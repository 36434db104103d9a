"""The allocator's pools gathered once per node view, and its answers shared between nodes
that see the same pools (the pools of upstream's partitionable and consumable-capacity
scheduler_perf variants: thousands of slices selected by a node label).

Neither may change a decision: the pools each node gets equal GatherPools on that node's
slices, and one allocator asked on many nodes answers as a fresh allocator per node does.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kubesched.api import DeviceClass, Node, NodeSelector, ResourceClaim, ResourceSlice
from kubesched.dra.cel import get_compiler
from kubesched.dra.structured import DEFAULT_FEATURES, AllocatedState, AllocatorError, DeviceID, new_allocator
from kubesched.dra.structured._pools import gather_pools

get_compiler()  # the CEL parser raises the recursion limit once: before hypothesis watches it

DRIVER = "gpu.example.com"
CLASS = DeviceClass.from_dict(
    {
        "metadata": {"name": "gpu"},
        "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]},
    }
)


class _Classes:
    def list(self) -> list[DeviceClass]:
        return [CLASS]

    def get(self, name: str) -> DeviceClass | None:
        return CLASS if name == "gpu" else None


# How a slice selects nodes: by name, all nodes, by a label, by the node name field, per device.
selection = st.sampled_from(["node-0", "node-1", "all", "zone-a", "zone-b", "no-gpu", "field", "per-device"])
slice_spec = st.tuples(
    st.integers(0, 3),  # pool
    st.integers(1, 2),  # generation
    st.integers(1, 2),  # resourceSliceCount
    selection,
    st.integers(0, 3),  # devices
)
node_spec = st.tuples(st.sampled_from(["a", "b", None]), st.booleans())


def _selection(kind: str) -> dict[str, Any]:
    if kind.startswith("node-"):
        return {"nodeName": kind}
    if kind == "all":
        return {"allNodes": True}
    if kind == "per-device":
        return {"perDeviceNodeSelection": True}
    if kind == "field":
        term = {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["node-2"]}]}
    elif kind == "no-gpu":
        term = {"matchExpressions": [{"key": "gpu", "operator": "DoesNotExist"}]}
    else:
        term = {"matchExpressions": [{"key": "zone", "operator": "In", "values": [kind[-1]]}]}
    return {"nodeSelector": {"nodeSelectorTerms": [term]}}


def _slices(specs: list[tuple[int, int, int, str, int]]) -> tuple[ResourceSlice, ...]:
    out = []
    for i, (pool, generation, count, kind, devices) in enumerate(specs):
        per_device = kind == "per-device"
        out.append(
            ResourceSlice.from_dict(
                {
                    "metadata": {"name": f"slice-{i}"},
                    "spec": {
                        "driver": DRIVER,
                        "pool": {
                            "name": f"pool-{pool}",
                            "generation": generation,
                            "resourceSliceCount": count,
                        },
                        **_selection(kind),
                        "devices": [
                            {
                                "name": f"dev-{i}-{d}",
                                **(_selection("zone-a" if d % 2 else "node-1") if per_device else {}),
                            }
                            for d in range(devices)
                        ],
                    },
                }
            )
        )
    return tuple(out)


def _nodes(specs: list[tuple[str | None, bool]]) -> list[Node]:
    out = []
    for i, (zone, gpu) in enumerate(specs):
        labels = {**({"zone": zone} if zone else {}), **({"gpu": "true"} if gpu else {})}
        out.append(Node.from_dict({"metadata": {"name": f"node-{i}", "labels": labels}}))
    return out


def _claim(count: int) -> ResourceClaim:
    return ResourceClaim.from_dict(
        {
            "metadata": {"name": "claim", "namespace": "default"},
            "spec": {
                "devices": {
                    "requests": [{"name": "r", "exactly": {"deviceClassName": "gpu", "count": count}}]
                }
            },
        }
    )


def _answer(allocator: Any, node: Node, claims: list[ResourceClaim]) -> Any:
    try:
        return allocator.allocate(node, claims)
    except AllocatorError as exc:
        return str(exc)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(
    st.lists(slice_spec, max_size=8),
    st.lists(node_spec, min_size=1, max_size=5),
    st.integers(1, 3),
    st.sets(st.integers(0, 7), max_size=3),
)
def test_shared_pools_and_answers_agree_with_a_search_per_node(
    slice_specs: list[tuple[int, int, int, str, int]],
    node_specs: list[tuple[str | None, bool]],
    count: int,
    allocated_idx: set[int],
) -> None:
    slices = _slices(slice_specs)
    nodes = _nodes(node_specs)
    allocated = {DeviceID(DRIVER, s.pool.name, s.devices[0].name) for i, s in enumerate(slices)
                 if i in allocated_idx and s.devices}
    claims = [_claim(count)]
    shared = new_allocator(DEFAULT_FEATURES, AllocatedState(set(allocated)), _Classes(), slices)
    for node in nodes + nodes:  # twice: the second round reads what the first kept
        own = [s for s in slices if s.node_name == node.name]
        rest = [s for s in slices if not s.node_name]
        assert shared.pools_for(node) == gather_pools([*own, *rest], node, DEFAULT_FEATURES, list(slices))
        fresh = new_allocator(DEFAULT_FEATURES, AllocatedState(set(allocated)), _Classes(), list(slices))
        assert _answer(shared, node, claims) == _answer(fresh, node, claims)


def _label_selected(n: int) -> tuple[ResourceSlice, ...]:
    return _slices([(i, 1, 1, "zone-a", 2) for i in range(n)])


def test_label_selected_pools_are_gathered_once_for_all_nodes(monkeypatch: Any) -> None:
    slices = _label_selected(200)
    nodes = _nodes([("a", False)] * 50)
    calls = 0
    matches = NodeSelector.matches

    def counting(self: NodeSelector, node_name: str, labels: Any) -> bool:
        nonlocal calls
        calls += 1
        return matches(self, node_name, labels)

    monkeypatch.setattr(NodeSelector, "matches", counting)
    for _ in range(3):  # one allocator per scheduling cycle, over the same slice tuple
        allocator = new_allocator(DEFAULT_FEATURES, AllocatedState(set()), _Classes(), slices)
        for node in nodes:
            assert len(allocator.pools_for(node)) == 200
    assert calls == 200  # was 200 per node and cycle


def test_nodes_with_the_same_view_share_one_search() -> None:
    slices = _label_selected(100)
    allocated = {DeviceID(DRIVER, f"pool-{i}", f"dev-{i}-{d}") for i in range(99) for d in range(2)}
    nodes = _nodes([("a", False)] * 20 + [("b", False)])
    allocator = new_allocator(DEFAULT_FEATURES, AllocatedState(allocated), _Classes(), slices)
    first = allocator.allocate(nodes[0], [_claim(2)])
    steps = allocator.stats().num_allocate_one_invocations
    claims = [_claim(2)]
    allocator = new_allocator(DEFAULT_FEATURES, AllocatedState(allocated), _Classes(), slices)
    answers = [allocator.allocate(node, claims) for node in nodes[:20]]
    assert all(a == first for a in answers)
    assert first and first[0].results[0].pool == "pool-99"
    assert allocator.stats().num_allocate_one_invocations == steps  # one search, not twenty
    assert allocator.allocate(nodes[20], claims) == []  # zone b sees no pool
