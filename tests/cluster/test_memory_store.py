"""MemoryStore: resourceVersions, optimistic concurrency, watch, binding, status, graceful deletion."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kubesched.api import PriorityClass
from kubesched.api.loader import KINDS, load_documents, load_paths
from kubesched.clock import VirtualClock
from kubesched.cluster import (
    AlreadyExists,
    ChangeLog,
    Conflict,
    Expired,
    Invalid,
    MemoryStore,
    NotFound,
    WatchEvent,
)
from kubesched.testing import make_node, make_pod

FIXTURES = Path(__file__).parent.parent / "fixtures"


def pc(name: str, value: int, global_default: bool = False) -> PriorityClass:
    return PriorityClass.from_dict(
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": name},
            "value": value,
            "globalDefault": global_default,
        }
    )


@pytest.fixture
def clock() -> VirtualClock:
    return VirtualClock(1000.0)


@pytest.fixture
def store(clock: VirtualClock) -> MemoryStore:
    return MemoryStore(clock)


def record(store: MemoryStore) -> list[WatchEvent]:
    out: list[WatchEvent] = []
    store.subscribe(out.append)
    return out


def test_builtins_exist(store: MemoryStore) -> None:
    assert store.get("PriorityClass", "", "system-node-critical").value == 2000001000
    assert store.get("Namespace", "", "kube-system").name == "kube-system"


def test_create_sets_identity_and_increasing_rv(store: MemoryStore) -> None:
    rv0 = store.resource_version
    a = store.create(make_node().name("a").obj())
    b = store.create(make_node().name("b").obj())
    assert int(a.meta.resource_version) == rv0 + 1 and int(b.meta.resource_version) == rv0 + 2
    assert a.meta.uid and a.meta.creation_timestamp == 1000.0
    with pytest.raises(AlreadyExists):
        store.create(make_node().name("a").obj())


def test_stale_update_conflicts(store: MemoryStore) -> None:
    n1 = store.create(make_node().name("n").obj())
    n2 = store.update(n1.with_changes({("metadata", "labels"): {"x": "1"}}))
    with pytest.raises(Conflict, match="the object has been modified"):
        store.update(n1.with_changes({("metadata", "labels"): {"x": "2"}}))
    assert store.get("Node", "", "n").labels == {"x": "1"}
    assert n2.meta.uid == n1.meta.uid


def test_get_missing(store: MemoryStore) -> None:
    with pytest.raises(NotFound, match='pods "x" not found'):
        store.get("Pod", "default", "x")


def test_every_kind_read_is_named_by_its_resource_when_missing(store: MemoryStore) -> None:
    """The API server's message names the resource (its plural), for every kind the loader reads."""
    for kind, info in KINDS.items():
        with pytest.raises(NotFound, match=f'^{info.plural} "x" not found$'):
            store.get(kind, "default" if info.namespaced else "", "x")


def test_watch_events_in_order_with_old_and_new(store: MemoryStore) -> None:
    events = record(store)
    n = store.create(make_node().name("n").obj())
    store.update(n.with_changes({("spec", "unschedulable"): True}))
    store.delete("Node", "", "n")
    assert [e.type for e in events] == ["ADDED", "MODIFIED", "DELETED"]
    assert events[1].old is not None and not events[1].old.unschedulable  # type: ignore[union-attr]
    assert events[1].new.unschedulable  # type: ignore[union-attr]
    assert events[2].new is None and events[2].obj.name == "n"
    rvs = [e.resource_version for e in events]
    assert rvs == sorted(rvs)


def test_nested_writes_are_delivered_in_order(store: MemoryStore) -> None:
    seen: list[tuple[str, str]] = []

    def first(e: WatchEvent) -> None:
        seen.append(("first", e.obj.meta.name))
        if e.obj.meta.name == "a":
            store.create(make_node().name("b").obj())

    store.subscribe(first)
    store.subscribe(lambda e: seen.append(("second", e.obj.meta.name)))
    store.create(make_node().name("a").obj())
    assert seen == [("first", "a"), ("second", "a"), ("first", "b"), ("second", "b")]


def test_the_embedded_store_keeps_a_change_log_the_live_store_does_not() -> None:
    """``events_since`` is the ChangeLog capability, not part of Store: the live store's
    informers resume their own watches and keep no history to answer it truthfully."""
    from kubesched.cluster.live import LiveStore

    assert isinstance(MemoryStore(), ChangeLog)
    assert not hasattr(LiveStore, "events_since")


def test_list_then_watch_from_rv(store: MemoryStore) -> None:
    store.create(make_node().name("a").obj())
    rv = store.resource_version
    listed = store.list("Node")
    store.create(make_node().name("b").obj())
    assert [n.name for n in listed] == ["a"]
    assert [e.obj.meta.name for e in store.events_since(rv)] == ["b"]


def test_watch_from_compacted_rv_expires(clock: VirtualClock) -> None:
    store = MemoryStore(clock, history_limit=2)
    for name in "abcd":
        store.create(make_node().name(name).obj())
    with pytest.raises(Expired):
        store.events_since(0)


def test_watch_without_history_expires_unless_current(clock: VirtualClock) -> None:
    """With no event kept, only the current version can resume: an older one is 410 Gone (a
    tracker that got [] here would miss the changes, e.g. hand out a device twice)."""
    store = MemoryStore(clock, history_limit=0)
    store.create(make_node().name("a").obj())
    rv = store.resource_version
    store.create(make_node().name("b").obj())
    with pytest.raises(Expired):
        store.events_since(rv)
    assert store.events_since(store.resource_version) == []


def test_unsubscribe(store: MemoryStore) -> None:
    events: list[WatchEvent] = []
    cancel = store.subscribe(events.append)
    cancel()
    store.create(make_node().name("a").obj())
    assert events == []


# -- admission -----------------------------------------------------------------------------------
def test_pod_admission_on_create(store: MemoryStore) -> None:
    store.create(pc("high", 100))
    assert store.create(make_pod().name("p").priority_class_name("high").obj()).priority == 100
    with pytest.raises(Invalid, match="no PriorityClass with name nope was found"):
        store.create(make_pod().name("q").priority_class_name("nope").obj())


def test_global_default_added_later_keeps_existing_pods(store: MemoryStore) -> None:
    store.create(make_pod().name("before").obj())
    store.create(pc("d", 42, True))
    store.create(make_pod().name("after").obj())
    assert store.get("Pod", "default", "before").priority == 0
    assert store.get("Pod", "default", "after").priority == 42


def test_priority_class_validation_on_create(store: MemoryStore) -> None:
    store.create(pc("d", 1, True))
    with pytest.raises(Invalid, match="already marked as default"):
        store.create(pc("e", 2, True))
    with pytest.raises(Invalid, match="reserved for system use"):
        store.create(pc("system-x", 1))


# -- binding ---------------------------------------------------------------------------------------
def test_bind_sets_node_and_pod_scheduled(clock: VirtualClock) -> None:
    store = MemoryStore(clock, simulate_kubelet=False)
    store.create(make_pod().name("p").obj())
    pod = store.bind("default", "p", "n1")
    assert pod.node_name == "n1" and pod.phase == "Pending" and pod.start_time is None
    cond = pod.condition("PodScheduled")
    assert cond is not None and cond["status"] == "True"


def test_bind_simulated_kubelet_runs_pod(store: MemoryStore, clock: VirtualClock) -> None:
    store.create(make_pod().name("p").obj())
    pod = store.bind("default", "p", "n1")
    assert (pod.phase, pod.start_time, pod.is_ready) == ("Running", 1000.0, True)


@pytest.mark.parametrize(
    ("pod", "error", "exc"),
    [
        pytest.param(
            make_pod().name("p").node("other"), 'already assigned to node "other"', Conflict, id="bound"
        ),
        pytest.param(make_pod().name("p").terminating(), "is being deleted", Conflict, id="terminating"),
    ],
)
def test_bind_fails(store: MemoryStore, pod: Any, error: str, exc: type[Exception]) -> None:
    store.create(pod.obj())
    with pytest.raises(exc, match=error):
        store.bind("default", "p", "n1")


@pytest.mark.parametrize(
    ("clear", "expected"), [(True, ""), (False, "n2")], ids=["feature-on", "feature-off"]
)
def test_bind_clears_nominated_node_name(clock: VirtualClock, clear: bool, expected: str) -> None:
    # KEP-5278 / kubernetes PR #132443: the binding API clears status.nominatedNodeName.
    store = MemoryStore(clock, clear_nominated_node_name_after_binding=clear)
    store.create(make_pod().name("p").nominated_node_name("n2").obj())
    assert store.bind("default", "p", "n1").nominated_node_name == expected


def test_bind_gone_pod(store: MemoryStore) -> None:
    with pytest.raises(NotFound):
        store.bind("default", "gone", "n1")


# -- status ---------------------------------------------------------------------------------------------
def test_patch_pod_status_upserts_condition(store: MemoryStore, clock: VirtualClock) -> None:
    events = record(store)
    store.create(make_pod().name("p").obj())
    unsched = {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": "0/1 nodes"}
    p1 = store.patch_pod_status("default", "p", conditions=[unsched], nominated_node_name="n1")
    assert p1.nominated_node_name == "n1"
    first_time = p1.condition("PodScheduled")["lastTransitionTime"]  # type: ignore[index]
    clock.run(until=1010.0)
    p2 = store.patch_pod_status("default", "p", conditions=[unsched])
    assert p2 is p1  # nothing changed: no write, no event
    p3 = store.patch_pod_status("default", "p", conditions=[{**unsched, "message": "0/2 nodes"}])
    assert p3.condition("PodScheduled")["lastTransitionTime"] == first_time  # type: ignore[index]
    p4 = store.patch_pod_status("default", "p", nominated_node_name="")
    assert p4.nominated_node_name == "" and "nominatedNodeName" not in p4.raw["status"]
    assert [e.type for e in events] == ["ADDED", "MODIFIED", "MODIFIED", "MODIFIED"]


# -- deletion -------------------------------------------------------------------------------------------
def test_graceful_deletion_of_bound_pod(store: MemoryStore, clock: VirtualClock) -> None:
    events = record(store)
    store.create(make_pod().name("p").node("n1").termination_grace_period(30).obj())
    store.delete("Pod", "default", "p")
    pod = store.get("Pod", "default", "p")
    assert pod.is_terminating and pod.meta.deletion_grace_period_seconds == 30
    assert pod.meta.deletion_timestamp == 1030.0
    clock.run(until=1029.0)
    assert store.try_get("Pod", "default", "p") is not None
    clock.run(until=1030.0)
    assert store.try_get("Pod", "default", "p") is None
    assert [e.type for e in events] == ["ADDED", "MODIFIED", "DELETED"]


@pytest.mark.parametrize(
    ("pod", "grace"),
    [
        pytest.param(make_pod().name("p"), None, id="unscheduled pod goes at once"),
        pytest.param(make_pod().name("p").node("n1"), 0, id="grace zero"),
        pytest.param(make_pod().name("p").node("n1").termination_grace_period(0), None, id="spec grace zero"),
        pytest.param(
            make_pod().name("p").node("n1").phase("Succeeded"), None, id="finished pod goes at once"
        ),
    ],
)
def test_immediate_deletion(store: MemoryStore, pod: Any, grace: int | None) -> None:
    store.create(pod.obj())
    store.delete("Pod", "default", "p", grace_period_seconds=grace)
    assert store.try_get("Pod", "default", "p") is None


def test_shorter_grace_shortens_deletion(store: MemoryStore, clock: VirtualClock) -> None:
    store.create(make_pod().name("p").node("n1").obj())
    store.delete("Pod", "default", "p")
    store.delete("Pod", "default", "p", grace_period_seconds=5)
    clock.run(until=1005.0)
    assert store.try_get("Pod", "default", "p") is None


def test_recreated_pod_not_removed_by_old_timer(store: MemoryStore, clock: VirtualClock) -> None:
    store.create(make_pod().name("p").node("n1").obj())
    store.delete("Pod", "default", "p")
    store.delete("Pod", "default", "p", grace_period_seconds=0)
    store.create(make_pod().name("p").node("n1").obj())
    clock.run(until=1100.0)
    assert store.try_get("Pod", "default", "p") is not None


# -- events -------------------------------------------------------------------------------------------
def test_events_aggregate_with_count(store: MemoryStore, clock: VirtualClock) -> None:
    pod = store.create(make_pod().name("p").obj())
    store.record_event(pod, "FailedScheduling", "0/1 nodes are available", "Warning")
    clock.run(until=1005.0)
    ev = store.record_event(pod, "FailedScheduling", "0/1 nodes are available", "Warning")
    store.record_event(pod, "Scheduled", "Successfully assigned default/p to n1")
    assert (ev.count, ev.first_timestamp, ev.last_timestamp) == (2, 1000.0, 1005.0)
    assert [(e.reason, e.count) for e in store.events()] == [("FailedScheduling", 2), ("Scheduled", 1)]
    assert store.events()[0].to_dict()["involvedObject"]["name"] == "p"


# -- load ---------------------------------------------------------------------------------------------------
def test_load_kubectl_dump(store: MemoryStore) -> None:
    created = store.load(load_paths([FIXTURES / "kubectl-dump.yaml"]))
    assert len(created) == 14
    assert store.get("PriorityClass", "", "system-node-critical").meta.uid.startswith("9d0e1f2a")
    web = store.get("Pod", "shop", "web-6d4cf56db6-x7k2p")
    assert web.priority == 5000 and web.meta.uid == "9f8e7d6c-0003-4b5a-8c7d-6e5f4a3b2c73"


def test_load_admits_pods_after_classes_whatever_the_order(store: MemoryStore) -> None:
    text = (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
        "spec: {priorityClassName: high, containers: [{name: c}]}\n---\n"
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 9\n"
    )
    store.load(load_documents(text, "m.yaml"))
    assert store.get("Pod", "default", "p").priority == 9


def test_load_is_all_or_nothing_and_names_the_object(store: MemoryStore) -> None:
    text = (
        "apiVersion: v1\nkind: Node\nmetadata: {name: n}\n---\n"
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
        "spec: {priorityClassName: missing, containers: [{name: c}]}\n"
    )
    rv = store.resource_version
    with pytest.raises(
        Invalid, match=r"m\.yaml: document 2 \(Pod default/p\): .*no PriorityClass with name missing"
    ):
        store.load(load_documents(text, "m.yaml"))
    assert store.resource_version == rv and store.list("Node") == []


def test_load_accepts_overcommitted_bound_pods(store: MemoryStore) -> None:
    node = make_node().name("n").capacity({"cpu": "1"}).obj()
    pods = [make_pod().name(f"p{i}").req({"cpu": "1"}).node("n").obj() for i in range(3)]
    store.load([node, *pods])
    assert len(store.list("Pod")) == 3


def test_create_adds_default_tolerations(store: MemoryStore) -> None:
    pod = store.create(make_pod().name("p").obj())
    assert {t.key for t in pod.tolerations} == {
        "node.kubernetes.io/not-ready",
        "node.kubernetes.io/unreachable",
    }


# -- simulated disruption controller ----------------------------------------------------------------
def pdb_manifest(spec: dict[str, Any]) -> str:
    return json.dumps(
        {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "b"}, "spec": spec}
    )


@pytest.mark.parametrize(
    ("spec", "allowed", "desired"),
    [
        pytest.param(
            {"minAvailable": 2, "selector": {"matchLabels": {"app": "x"}}}, 1, 2, id="min-available-int"
        ),
        pytest.param(
            {"minAvailable": "50%", "selector": {"matchLabels": {"app": "x"}}}, 1, 2, id="min-available-pct"
        ),
        pytest.param(
            {"maxUnavailable": 1, "selector": {"matchLabels": {"app": "x"}}}, 1, 2, id="max-unavailable"
        ),
        pytest.param(
            {"maxUnavailable": "10%", "selector": {}}, 1, 2, id="empty-selector-matches-all-pct-rounds-up"
        ),
        pytest.param({"minAvailable": 1}, 0, 1, id="no-selector-matches-nothing"),
    ],
)
def test_pdb_status_follows_pods(
    store: MemoryStore, spec: dict[str, Any], allowed: int, desired: int
) -> None:
    store.load(load_documents(pdb_manifest(spec), "pdb.json", json_only=True))
    for i in range(3):
        store.create(make_pod().name(f"p{i}").label("app", "x").obj())
        store.bind("default", f"p{i}", "n1")
    status = store.get("PodDisruptionBudget", "default", "b").raw["status"]
    assert (status["disruptionsAllowed"], status["desiredHealthy"]) == (allowed, desired)


def test_pdb_terminating_pod_is_not_healthy(store: MemoryStore) -> None:
    store.load(
        load_documents(
            pdb_manifest({"minAvailable": 1, "selector": {"matchLabels": {"app": "x"}}}),
            "pdb.json",
            json_only=True,
        )
    )
    for i in range(2):
        store.create(make_pod().name(f"p{i}").label("app", "x").obj())
        store.bind("default", f"p{i}", "n1")
    assert store.get("PodDisruptionBudget", "default", "b").disruptions_allowed == 1
    store.delete("Pod", "default", "p0")
    pdb = store.get("PodDisruptionBudget", "default", "b")
    assert (pdb.disruptions_allowed, pdb.raw["status"]["currentHealthy"]) == (0, 1)


def test_pdb_status_from_manifest_kept_on_load(store: MemoryStore) -> None:
    store.load(load_paths([FIXTURES / "kubectl-dump.yaml"]))
    assert store.get("PodDisruptionBudget", "shop", "web").raw["status"]["observedGeneration"] == 1
    assert store.get("PodDisruptionBudget", "shop", "web").disruptions_allowed == 1


def test_disruption_controller_can_be_off(clock: VirtualClock) -> None:
    store = MemoryStore(clock, simulate_disruption_controller=False)
    store.load(load_documents(pdb_manifest({"minAvailable": 1, "selector": {}}), "pdb.json", json_only=True))
    store.create(make_pod().name("p").obj())
    assert "status" not in store.get("PodDisruptionBudget", "default", "b").raw


def test_memory_store_satisfies_store_protocol(store: MemoryStore) -> None:
    from kubesched.cluster import Store

    def use(s: Store) -> int:
        return s.resource_version

    assert use(store) == store.resource_version
    assert {n for n in dir(Store) if not n.startswith("_")} <= set(dir(store))


@pytest.mark.parametrize(
    ("deletion_at", "gone_at"),
    [
        pytest.param(1010.0, 1010.0, id="due at its deletion time stamp"),
        pytest.param(900.0, 1000.0, id="overdue goes at once"),
        pytest.param(5000.0, 1030.0, id="never longer than the grace period"),
    ],
)
def test_loaded_terminating_pod_is_removed(
    store: MemoryStore, clock: VirtualClock, deletion_at: float, gone_at: float
) -> None:
    pod = make_pod().name("p").node("n1").container({"name": "c"}).deletion_timestamp(deletion_at).to_dict()
    pod["metadata"]["deletionGracePeriodSeconds"] = 30
    store.load(load_documents(json.dumps(pod), "p.json", json_only=True))
    assert store.get("Pod", "default", "p").is_terminating
    clock.run(until=gone_at)
    assert store.try_get("Pod", "default", "p") is None
    assert store.events_since(0)[-1].type == "DELETED"
    assert clock.now == gone_at


def test_evict_uses_the_pods_grace_period(store: MemoryStore, clock: VirtualClock) -> None:
    store.create(make_pod().name("p").node("n1").termination_grace_period(7).obj())
    store.evict("default", "p")
    assert store.get("Pod", "default", "p").meta.deletion_timestamp == 1007.0
    clock.run(until=1007.0)
    assert store.try_get("Pod", "default", "p") is None


def test_kinds_not_held_list_empty_and_get_not_found(store: MemoryStore) -> None:
    assert store.list("Service") == []
    with pytest.raises(LookupError):
        store.get("Service", "default", "web")


def test_pdb_not_rewritten_for_pods_it_does_not_select(store: MemoryStore) -> None:
    store.load(
        load_documents(
            pdb_manifest({"minAvailable": 1, "selector": {"matchLabels": {"app": "x"}}}),
            "pdb.json",
            json_only=True,
        )
    )
    events = record(store)
    store.create(make_pod().name("other").label("app", "y").obj())
    store.create(make_pod().name("mine").label("app", "x").obj())
    assert [(e.type, e.kind) for e in events] == [
        ("ADDED", "Pod"),
        ("ADDED", "Pod"),
        ("MODIFIED", "PodDisruptionBudget"),
    ]
