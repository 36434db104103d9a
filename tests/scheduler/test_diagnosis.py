"""FitError.Error(): the aggregated failure message (upstream framework/types_test.go)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubesched.framework import Code, Diagnosis, FitError, NodeToStatus, Status
from kubesched.testing.wrappers import make_pod

POD = make_pod().name("p").obj()
PREEMPTION_MSG = "preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod."


def _d(statuses: dict[str, str], pre: str = "", post: str = "",
       absent: Status | None = None) -> Diagnosis:
    nts = NodeToStatus()
    for node, reason in statuses.items():
        nts.set(node, Status(Code.UNSCHEDULABLE, (reason,)))
    if absent is not None:
        nts.set_absent_nodes_status(absent)
    return Diagnosis(node_to_status=nts, pre_filter_msg=pre, post_filter_msg=post)


PRE = "Node(s) failed PreFilter plugin FalsePreFilter"
F1 = "Node(s) failed Filter plugin FalseFilter-1"
F2 = "Node(s) failed Filter plugin FalseFilter-2"

CASES = [
    pytest.param(3, _d({}, pre=PRE, absent=Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (PRE,))),
                 f"0/3 nodes are available: {PRE}.", id="nodes failed Prefilter plugin"),
    pytest.param(3, _d({}, pre=PRE, post=PREEMPTION_MSG,
                       absent=Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (PRE,))),
                 f"0/3 nodes are available: {PRE}. {PREEMPTION_MSG}",
                 id="nodes failed Prefilter plugin and the preemption also failed"),
    pytest.param(3, _d({"node1": F1, "node2": F1, "node3": F1}),
                 f"0/3 nodes are available: 3 {F1}.",
                 id="nodes failed one Filter plugin with an empty PostFilterMsg"),
    pytest.param(3, _d({"node1": F1, "node2": F1, "node3": F1}, post=PREEMPTION_MSG),
                 f"0/3 nodes are available: 3 {F1}. {PREEMPTION_MSG}",
                 id="nodes failed one Filter plugin with a non-empty PostFilterMsg"),
    pytest.param(3, _d({"node1": F1, "node2": F1, "node3": F2}),
                 f"0/3 nodes are available: 1 {F2}, 2 {F1}.",
                 id="nodes failed two Filter plugins with an empty PostFilterMsg"),
    pytest.param(1, _d({"node1": "Node failed Permit plugin Permit-1"}),
                 "0/1 nodes are available: 1 Node failed Permit plugin Permit-1.",
                 id="failed to Permit on node"),
    pytest.param(1, _d({"node1": "Node failed Reserve plugin Reserve-1"}),
                 "0/1 nodes are available: 1 Node failed Reserve plugin Reserve-1.",
                 id="failed to Reserve on node"),
    # Absent nodes (excluded by a PreFilterResult) are counted with the absent status's reasons.
    pytest.param(5, _d({"n1": "Insufficient cpu", "n2": "Insufficient cpu"},
                       absent=Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                                     ("node(s) didn't satisfy plugin(s) [NodeAffinity]",))),
                 "0/5 nodes are available: 2 Insufficient cpu, 3 node(s) didn't satisfy plugin(s) "
                 "[NodeAffinity].", id="absent nodes counted with the absent status"),
    # Counts sort as strings, as Go's sort.Strings: "10 b" before "2 a".
    pytest.param(12, _d({**{f"a{i}": "b" for i in range(10)}, "x": "a", "y": "a"}),
                 "0/12 nodes are available: 10 b, 2 a.", id="histogram sorted as strings"),
]


@pytest.mark.parametrize(("num_all_nodes", "diagnosis", "want"), CASES)
def test_fit_error_message(num_all_nodes: int, diagnosis: Diagnosis, want: str) -> None:
    assert FitError(POD, num_all_nodes, diagnosis).error() == want


def test_multiple_reasons_per_node_are_each_counted() -> None:
    nts = NodeToStatus()
    nts.set("n1", Status(Code.UNSCHEDULABLE, ("Insufficient cpu", "Insufficient memory")))
    nts.set("n2", Status(Code.UNSCHEDULABLE, ("Insufficient cpu",)))
    got = FitError(POD, 2, Diagnosis(node_to_status=nts)).error()
    assert got == "0/2 nodes are available: 1 Insufficient memory, 2 Insufficient cpu."


@pytest.mark.parametrize(("status", "unsched", "pending"), [
    pytest.param(Status(Code.UNSCHEDULABLE, ("x",), "A"), {"A"}, set(), id="unschedulable"),
    pytest.param(Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("x",), "A"), {"A"}, set(),
                 id="unresolvable"),
    pytest.param(Status(Code.PENDING, ("x",), "A"), {"A"}, {"A"}, id="pending counts as rejected too"),
    pytest.param(Status(Code.ERROR, ("x",), "A"), set(), set(), id="error is not a rejection"),
    pytest.param(Status(Code.UNSCHEDULABLE, ("x",)), set(), set(), id="no plugin"),
])
def test_add_plugin_status(status: Status, unsched: set[str], pending: set[str]) -> None:
    d = Diagnosis()
    d.add_plugin_status(status)
    assert d.unschedulable_plugins == unsched
    assert d.pending_plugins == pending


def test_node_to_status_absent_default() -> None:
    nts = NodeToStatus()
    assert nts.get("missing").code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    nts.set("a", Status(Code.UNSCHEDULABLE, ("r",)))
    assert nts.nodes_for_status_code(["a", "b"], Code.UNSCHEDULABLE) == ["a"]
    assert nts.nodes_for_status_code(["a", "b"], Code.UNSCHEDULABLE_AND_UNRESOLVABLE) == ["b"]


# -- statuses recorded in bulk by the batch filter pass -------------------------------------------
def _bulk() -> NodeToStatus:
    m = NodeToStatus()
    table = [Status(Code.UNSCHEDULABLE, ("Insufficient cpu",), "NodeResourcesFit"),
             Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("node(s) were unschedulable",),
                    "NodeUnschedulable")]
    m.set_many(np.array(["n1", "n2", "n3"], dtype=object), np.array([0, 1, 0], dtype=np.intp), table)
    return m


def test_bulk_statuses_read_like_single_ones() -> None:
    m = _bulk()
    assert len(m) == 3
    assert m.get("n2").reasons == ("node(s) were unschedulable",)
    assert m.get("n1").plugin == "NodeResourcesFit"
    assert "n3" in m and "n4" not in m
    assert m.get("n4") is m.absent_nodes_status()
    assert [name for name, _ in m.items()] == ["n1", "n2", "n3"]


def test_bulk_statuses_count_reasons_and_codes_without_a_map() -> None:
    m = _bulk()
    assert m.reason_counts() == {"Insufficient cpu": 2, "node(s) were unschedulable": 1}
    names = ["n0", "n1", "n2", "n3"]
    assert m.nodes_for_status_code(names, Code.UNSCHEDULABLE) == ["n1", "n3"]
    # Absent nodes count with the absent status (UnschedulableAndUnresolvable by default).
    assert m.nodes_for_status_code(names, Code.UNSCHEDULABLE_AND_UNRESOLVABLE) == ["n0", "n2"]
    m.set_absent_nodes_status(Status(Code.UNSCHEDULABLE))
    assert m.nodes_for_status_code(names, Code.UNSCHEDULABLE) == ["n0", "n1", "n3"]


def test_a_single_status_after_bulk_ones_overrides_and_keeps_the_count() -> None:
    m = _bulk()
    m.set("n1", Status(Code.UNSCHEDULABLE, ("x",)))
    m.set("n9", Status(Code.UNSCHEDULABLE, ("y",)))
    assert len(m) == 4
    assert m.get("n1").reasons == ("x",)
    assert m.reason_counts() == {"x": 1, "y": 1, "Insufficient cpu": 1, "node(s) were unschedulable": 1}
    table = [Status(Code.UNSCHEDULABLE, ("z",))]
    m.set_many(np.array(["n2", "n8"], dtype=object), np.array([0, 0], dtype=np.intp), table)
    assert len(m) == 5 and m.get("n2").reasons == ("z",)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.integers(0, 9), st.integers(0, 2)), max_size=12, unique_by=lambda t: t[0]),
       st.lists(st.tuples(st.integers(0, 12), st.integers(0, 2)), max_size=5), st.booleans())
def test_names_by_plugin_and_reason_counts_equal_reading_every_status(
        bulk: list[tuple[int, int]], single: list[tuple[int, int]], materialize: bool) -> None:
    """The chunk and map readings (``names_with_plugin``, ``reason_counts``) equal asking every
    node's status, whether or not the map was built and single statuses overrode bulk ones."""
    table = [Status.of(Code.UNSCHEDULABLE, "Insufficient cpu").with_plugin("Fit"),
             Status.of(Code.UNSCHEDULABLE, "a", "b").with_plugin("Taint"),
             Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "a").with_plugin("Fit")]
    m = NodeToStatus()
    m.set_many(np.array([f"n{i}" for i, _ in bulk], dtype=object),
               np.array([k for _, k in bulk], dtype=np.intp), table)
    if materialize:
        m.get("n0")
    for i, k in single:
        m.set(f"n{i}", table[k])
    by_plugin = {plugin: m.names_with_plugin(plugin) for plugin in ("Fit", "Taint", "Other")}
    counts = m.reason_counts()
    everything = dict(m.items())  # builds the map: read last
    for plugin, names in by_plugin.items():
        assert names == {n for n, st_ in everything.items() if st_.plugin == plugin}
    want: Counter[str] = Counter()
    for st_ in everything.values():
        want.update(st_.reasons)
    assert counts == want


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(st.lists(st.tuples(st.integers(0, 9), st.integers(0, 3)), max_size=6,
                         unique_by=lambda t: t[0]), max_size=3),
       st.lists(st.tuples(st.integers(0, 12), st.integers(0, 3)), max_size=3))
def test_rejections_added_later_read_like_ones_added_at_once(
        chunks: list[list[tuple[int, int]]], single: list[tuple[int, int]]) -> None:
    """Deferred rejections (``add_rejected_later``) give the same statuses, count and plugin
    sets as ``set_many`` plus AddPluginStatus at once; only ``len`` is known before a read."""
    table = [Status.of(Code.UNSCHEDULABLE, "Insufficient cpu").with_plugin("Fit"),
             Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "x").with_plugin("Taint"),
             Status.of(Code.PENDING, "wait").with_plugin("Gate"),
             Status.of(Code.UNSCHEDULABLE, "y")]
    eager, lazy = Diagnosis(), Diagnosis()
    calls = [0]
    nonempty = 0
    seen: set[str] = set()
    for k, chunk in enumerate(chunks):
        fresh = [(i, t) for i, t in chunk if f"c{k}n{i}" not in seen]
        names = np.array([f"c{k}n{i}" for i, _ in fresh], dtype=object)
        seen.update(names.tolist())
        keys = np.array([t for _, t in fresh], dtype=np.intp)
        eager.node_to_status.set_many(names, keys, table)
        for st_ in table:
            if (keys == table.index(st_)).any():
                eager.add_plugin_status(st_)

        def produce(keys: np.ndarray = keys) -> tuple[np.ndarray, list[Status]]:
            calls[0] += 1
            used = sorted(set(keys.tolist()))
            return np.array([used.index(x) for x in keys.tolist()], dtype=np.intp), [table[x] for x in used]

        lazy.add_rejected_later(names, produce)
        nonempty += bool(fresh)
    assert len(lazy.node_to_status) == len(eager.node_to_status) and calls[0] == 0
    for i, t in single:
        eager.node_to_status.set(f"c0n{i}", table[t])
        lazy.node_to_status.set(f"c0n{i}", table[t])
    assert dict(lazy.node_to_status.items()) == dict(eager.node_to_status.items())
    assert lazy.unschedulable_plugins == eager.unschedulable_plugins
    assert lazy.pending_plugins == eager.pending_plugins
    assert calls[0] == nonempty  # each built once


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.integers(0, 30), st.integers(0, 2), st.lists(st.integers(0, 2), min_size=1, max_size=30),
       st.booleans())
def test_a_nominated_node_rejected_again_by_the_full_pass_counts_once(
        nominated: int, first: int, rest: list[int], read_before: bool) -> None:
    """The nominated-node pass rejects one node, then the pass over all nodes rejects it again
    (upstream's map overwrites it): ``len``, ``get`` and the reason counts read like one map
    built in that order, whether or not a status was read (``get`` builds no map) in between."""
    table = [Status.of(Code.UNSCHEDULABLE, "Insufficient cpu").with_plugin("Fit"),
             Status.of(Code.UNSCHEDULABLE, "a", "b").with_plugin("Taint"),
             Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "c").with_plugin("Fit")]
    m = NodeToStatus()
    want: dict[str, Status] = {}
    m.set_many(np.array([f"n{nominated}"], dtype=object), np.array([first], dtype=np.intp), table)
    want[f"n{nominated}"] = table[first]
    if read_before:
        assert m.get(f"n{nominated}") is table[first]
    names = [f"n{i}" for i in range(len(rest))]
    m.set_many(np.array(names, dtype=object), np.array(rest, dtype=np.intp), table)
    want.update(zip(names, [table[k] for k in rest], strict=True))
    assert len(m) == len(want)
    assert all(m.get(n) is st_ for n, st_ in want.items())
    counts: Counter[str] = Counter()
    for st_ in want.values():
        counts.update(st_.reasons)
    assert m.reason_counts() == counts
    assert dict(m.items()) == want


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=20), st.integers(1, 3), st.integers(-1, 19),
       st.booleans())
def test_row_readings_equal_reading_every_status(
        codes: list[int], parts: int, nominated: int, absent_unschedulable: bool) -> None:
    """``rows_for_status_code`` and ``rows_with_plugin`` (filter passes that gave their rows)
    equal asking every node's status by name, with a nominated-node pass first or not; a chunk
    without rows, or of another snapshot, makes them decline."""
    table = [Status.of(Code.UNSCHEDULABLE, "Insufficient cpu").with_plugin("Fit"),
             Status.of(Code.UNSCHEDULABLE, "a").with_plugin("Taint"),
             Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "c").with_plugin("Fit"),
             Status.of(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "d").with_plugin("Other")]
    n = len(codes) + 2  # two rows stay absent
    source = np.array([f"n{i}" for i in range(n)], dtype=object)
    d = Diagnosis()

    def add(rows: np.ndarray) -> None:
        keys = np.array([codes[r] for r in rows.tolist()], dtype=np.intp)
        d.add_rejected_later(source[rows], lambda: (keys, table), rows, source)

    if 0 <= nominated < len(codes):
        add(np.array([nominated], dtype=np.int64))
    for part in np.array_split(np.arange(len(codes), dtype=np.int64), parts):
        add(part)
    m = d.node_to_status
    if absent_unschedulable:
        m.set_absent_nodes_status(Status(Code.UNSCHEDULABLE))
    for code in (Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE):
        mask = m.rows_for_status_code(code, source, n)
        assert mask is not None
        assert source[mask].tolist() == m.nodes_for_status_code(source.tolist(), code)
    rows = m.rows_with_plugin("Fit", source)
    assert rows is not None and set(source[rows].tolist()) == m.names_with_plugin("Fit")
    assert m.rows_with_plugin("Fit", source.copy()) is None  # another snapshot's rows
    assert len(m) == len(codes)


def test_diagnosis_types_are_the_frameworks_and_the_scheduler_reexports_them() -> None:
    """As upstream (framework/types.go), the diagnosis types live in the framework, which
    preemption builds them in; ``kubesched.scheduler`` still exports the same classes."""
    import kubesched.framework as fw
    import kubesched.scheduler as sched

    assert sched.Diagnosis is fw.Diagnosis and sched.FitError is fw.FitError
    assert sched.NodeToStatus is fw.NodeToStatus
    assert fw.FitError.__module__ == "kubesched.framework._diagnosis"
