"""helper.DefaultSelector and GetPodServices (upstream's helper/spread.go and spread_test.go),
reading Services and controllers from a MemoryStore."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.api import ApiObject, LabelSelector, Pod
from kubesched.cluster import KindVersioned, MemoryStore, Store
from kubesched.plugins.helper import WorkloadListers, default_selector, get_pod_services, parse_group_version
from kubesched.testing import make_pod

from .._workloads import replica_set, replication_controller, service, stateful_set, store_with


def test_get_pod_services() -> None:
    """TestGetPodServices: services test-0..2 select app=test-<i>; pods 3 and 4 have none."""
    services = [service(f"service-{i}", {"app": f"test-{i}"}, namespace="test") for i in range(3)]
    listers = WorkloadListers(store_with(*services))
    for i in range(5):
        pod = make_pod().name(f"test-pod-{i}").namespace("test").labels(
            {"app": f"test-{i}", "label": f"label-{i}"}).obj()
        want = [f"service-{i}"] if i < 3 else []
        assert [s.name for s in get_pod_services(listers, pod)] == want


def test_get_pod_services_selectors() -> None:
    """A Service without a selector selects nothing; an empty selector selects every pod of its
    namespace, and only of its namespace."""
    listers = WorkloadListers(store_with(service("none", None), service("all", {}),
                                         service("other-ns", {}, namespace="other")))
    pod = make_pod().name("p").label("app", "web").obj()
    assert [s.name for s in get_pod_services(listers, pod)] == ["all"]


class _Unversioned:
    """A store without per-kind versions (as the live store): only what WorkloadListers reads."""

    def __init__(self, inner: MemoryStore) -> None:
        self._inner = inner

    def list(self, kind: str, namespace: str | None = None) -> list[Any]:
        return self._inner.list(kind, namespace)

    def try_get(self, kind: str, namespace: str, name: str) -> Any:
        return self._inner.try_get(kind, namespace, name)


@pytest.mark.parametrize("versioned", [True, False], ids=["kind-versioned", "unversioned"])
def test_services_created_after_a_read_are_seen(versioned: bool) -> None:
    """The namespace's Services are kept only while the store says no Service changed; a store
    that cannot say so (not KindVersioned) is read again every time."""
    inner = store_with(service("a", {"app": "web"}))
    store: Any = inner if versioned else _Unversioned(inner)
    assert isinstance(store, KindVersioned) is versioned
    listers = WorkloadListers(store)
    pod = make_pod().name("p").label("app", "web").obj()
    assert [s.name for s in get_pod_services(listers, pod)] == ["a"]
    inner.create(service("b", {}))
    assert [s.name for s in get_pod_services(listers, pod)] == ["a", "b"]


def test_the_memory_store_is_kind_versioned() -> None:
    store: Store = MemoryStore()
    assert isinstance(store, KindVersioned)


def owned_by(kind: str, name: str, api_version: str, **labels: str) -> Pod:
    return make_pod().name("p").labels(labels).owner_reference(name, kind=kind, api_version=api_version).obj()


FOO_EXISTS = {"matchExpressions": [{"key": "foo", "operator": "Exists"}]}


def _cases() -> list[Any]:
    plain = make_pod().name("p").labels({"app": "web", "tier": "fe"}).obj()
    return [
        pytest.param(plain, [], [], id="no controller and no service: empty"),
        pytest.param(plain, [service("a", {"app": "web"}), service("b", {"app": "other"}),
                             service("c", {"tier": "fe"})],
                     [({"app": "web", "tier": "fe"}, True), ({"app": "web"}, False)],
                     id="the selectors of the services selecting the pod, merged"),
        pytest.param(plain, [service("a", {})], [], id="an empty service selector adds nothing"),
        pytest.param(owned_by("ReplicaSet", "rs1", "apps/v1", foo="tar", baz="sup"),
                     [replica_set("rs1", FOO_EXISTS)],
                     [({"foo": "x"}, True), ({"baz": "sup"}, False)], id="the owning replica set"),
        pytest.param(owned_by("ReplicaSet", "rs2", "apps/v1", foo="bar", baz="sup"),
                     [replica_set("rs1", {"matchExpressions": [{"key": "tar", "operator": "Exists"}]})],
                     [], id="the owning replica set is not found: not the pod's labels"),
        pytest.param(owned_by("ReplicaSet", "rs1", "extensions/v1beta1", foo="bar"),
                     [replica_set("rs1", FOO_EXISTS)], [], id="owner of another group version"),
        pytest.param(owned_by("ReplicaSet", "rs1", "apps/v1", app="web"),
                     [replica_set("rs1", FOO_EXISTS, namespace="other")], [],
                     id="a replica set of another namespace"),
        pytest.param(owned_by("StatefulSet", "db", "apps/v1", app="db"),
                     [stateful_set("db", {"matchLabels": {"app": "db"}}), service("s", {"app": "db"})],
                     [({"app": "db", "statefulset.kubernetes.io/pod-name": "db-0"}, True),
                      ({"app": "x"}, False)],
                     id="the owning stateful set and a service"),
        pytest.param(owned_by("StatefulSet", "db", "apps/v1", app="db", role="primary"),
                     [stateful_set("db", {"matchLabels": {"app": "db", "role": "replica"}})],
                     [({"app": "db", "role": "primary"}, False), ({"app": "db", "role": "replica"}, True)],
                     id="a controller's selector counts even when it does not select the pod"),
        pytest.param(owned_by("ReplicationController", "rc", "v1", app="web", v="1"),
                     [replication_controller("rc", {"app": "web", "v": "1"}), service("s", {"app": "web"})],
                     [({"app": "web", "v": "1"}, True), ({"app": "web"}, False)],
                     id="the owning replication controller, merged with the services"),
        pytest.param(owned_by("ReplicationController", "rc", "v1", app="web"),
                     [replication_controller("rc", {"app": "api"}), service("s", {"app": "web"})],
                     [({"app": "api"}, True), ({"app": "web"}, False)],
                     id="the replication controller's value wins for a shared key (labels.Merge)"),
        pytest.param(owned_by("ReplicationController", "rc", "/v1", app="web"),
                     [replication_controller("rc", {"app": "web"})], [({"app": "web"}, True)],
                     id="apiVersion /v1 parses as core v1"),
        pytest.param(owned_by("ReplicaSet", "rs1", "apps/v1/x", app="web"),
                     [replica_set("rs1", FOO_EXISTS), service("s", {"app": "web"})],
                     [({"app": "web"}, True), ({"app": "web", "foo": ""}, True)],
                     id="an unparsable owner apiVersion: the services only"),
        pytest.param(owned_by("Job", "j", "batch/v1", app="batch"), [service("s", {})], [],
                     id="other controllers add nothing"),
        pytest.param(make_pod().name("p").label("foo", "").owner_reference("rs1", controller=False).obj(),
                     [replica_set("rs1", FOO_EXISTS)], [], id="an owner that is not the controller"),
    ]


@pytest.mark.parametrize(("pod", "objects", "checks"), _cases())
def test_default_selector(pod: Pod, objects: list[ApiObject],
                          checks: list[tuple[dict[str, str], bool]]) -> None:
    sel = default_selector(pod, WorkloadListers(store_with(*objects)))
    assert sel.is_empty == (not checks)
    for labels, want in checks:
        assert sel.matches(labels) == want, labels


def test_default_selector_shape() -> None:
    """Services give label pairs; a ReplicaSet's selector is ANDed as requirements."""
    pod = owned_by("ReplicaSet", "rs1", "apps/v1", app="web", foo="x")
    store = store_with(service("s", {"app": "web"}),
                       replica_set("rs1", {"matchLabels": {"app": "web"}, **FOO_EXISTS}))
    sel = default_selector(pod, WorkloadListers(store))
    assert sel.match_labels == (("app", "web"),)
    assert [(r.key, r.operator, sorted(r.values)) for r in sel.match_expressions] == [
        ("app", "In", ["web"]), ("foo", "Exists", [])]


def test_no_store_no_selector() -> None:
    pod = owned_by("ReplicaSet", "rs1", "apps/v1", app="web")
    assert default_selector(pod, WorkloadListers(None)) == LabelSelector()


def test_listers_follow_the_store() -> None:
    """A Service created or deleted after the first read is seen by the next one."""
    store = store_with()
    listers = WorkloadListers(store)
    pod = make_pod().name("p").label("app", "web").obj()
    assert default_selector(pod, listers).is_empty
    store.create(service("s", {"app": "web"}))
    assert default_selector(pod, listers).match_labels == (("app", "web"),)
    events: list[tuple[str, str]] = []
    store.subscribe(lambda ev: events.append((ev.type, ev.kind)))
    store.update(service("s", {"app": "web", "tier": "fe"}))
    assert default_selector(pod, listers).is_empty  # the Service no longer selects the pod
    store.delete("Service", "default", "s")
    assert default_selector(pod, listers).is_empty
    assert events == [("MODIFIED", "Service"), ("DELETED", "Service")]


@pytest.mark.parametrize(("text", "want"), [
    ("", ("", "")), ("/", ("", "")), ("v1", ("", "v1")), ("apps/v1", ("apps", "v1")), ("/v1", ("", "v1")),
    ("a/b/c", None),
])
def test_parse_group_version(text: str, want: tuple[str, str] | None) -> None:
    assert parse_group_version(text) == want
