"""The selector of a pod's default topology spreading: helper.DefaultSelector and
helper.GetPodServices (pkg/scheduler/framework/plugins/helper/spread.go, master 2026).

Upstream's PodTopologySpread holds four informer listers (Services, ReplicationControllers,
ReplicaSets, StatefulSets: ``setListers``); here :class:`WorkloadListers` reads the same kinds
from the handle's cluster store, so a Service created or deleted mid-simulation is seen by the
next cycle. A plugin built without a store sees none of them (no default spreading).
"""

from __future__ import annotations

from ...api import (
    LabelSelector,
    LabelSelectorRequirement,
    Pod,
    ReplicaSet,
    ReplicationController,
    Service,
    StatefulSet,
)
from ...api.loader import ApiObject
from ...cluster import KindVersioned, Store
from ._affinity_terms import merge_label_requirements

__all__ = ["WorkloadListers", "default_selector", "get_pod_services", "parse_group_version"]

SERVICE = "Service"
REPLICATION_CONTROLLER = "ReplicationController"
REPLICA_SET = "ReplicaSet"
STATEFUL_SET = "StatefulSet"

# (group, version, kind) of the controllers whose selector joins the default selector.
_RC_KIND = ("", "v1", REPLICATION_CONTROLLER)
_RS_KIND = ("apps", "v1", REPLICA_SET)
_SS_KIND = ("apps", "v1", STATEFUL_SET)


class WorkloadListers:
    """The Service / ReplicationController / ReplicaSet / StatefulSet listers, over the store.

    Services are listed per namespace in every PreFilter and PreScore of a pod without
    constraints; with a store that versions each kind (:class:`~kubesched.cluster.KindVersioned`)
    a namespace's list is read once per change of any Service."""

    __slots__ = ("_kind_version", "_services", "_services_version", "_store")

    def __init__(self, store: Store | None) -> None:
        self._store = store
        self._kind_version = store.kind_version if isinstance(store, KindVersioned) else None
        self._services: dict[str, list[Service]] = {}
        self._services_version = -1

    def services(self, namespace: str) -> list[Service]:
        """ServiceLister.Services(namespace).List(labels.Everything())."""
        if self._store is None:
            return []
        if self._kind_version is None:
            return self._list_services(self._store, namespace)
        version = self._kind_version(SERVICE)
        if version != self._services_version:
            self._services.clear()
            self._services_version = version
        out = self._services.get(namespace)
        if out is None:
            out = self._services[namespace] = self._list_services(self._store, namespace)
        return out

    @staticmethod
    def _list_services(store: Store, namespace: str) -> list[Service]:
        return [s for s in store.list(SERVICE, namespace) if isinstance(s, Service)]

    def _get(self, kind: str, namespace: str, name: str) -> ApiObject | None:
        if self._store is None or not name:
            return None
        return self._store.try_get(kind, namespace, name)

    def replication_controller(self, namespace: str, name: str) -> ReplicationController | None:
        obj = self._get(REPLICATION_CONTROLLER, namespace, name)
        return obj if isinstance(obj, ReplicationController) else None

    def replica_set(self, namespace: str, name: str) -> ReplicaSet | None:
        obj = self._get(REPLICA_SET, namespace, name)
        return obj if isinstance(obj, ReplicaSet) else None

    def stateful_set(self, namespace: str, name: str) -> StatefulSet | None:
        obj = self._get(STATEFUL_SET, namespace, name)
        return obj if isinstance(obj, StatefulSet) else None


def get_pod_services(listers: WorkloadListers, pod: Pod) -> list[Service]:
    """GetPodServices: the Services of the pod's namespace whose selector matches its labels. A
    Service without a selector matches nothing; an empty selector matches every pod."""
    labels = pod.labels
    return [s for s in listers.services(pod.namespace)
            if s.selector is not None and all(labels.get(k) == v for k, v in s.selector.items())]


def parse_group_version(api_version: str) -> tuple[str, str] | None:
    """schema.ParseGroupVersion: ``""`` and ``"/"`` are the empty group version, ``v1`` the core
    group, ``apps/v1`` a group; more than one ``/`` is an error (None)."""
    if api_version in ("", "/"):
        return "", ""
    n = api_version.count("/")
    if n == 0:
        return "", api_version
    if n == 1:
        group, version = api_version.split("/")
        return group, version
    return None


def _requirements(selector: LabelSelector) -> tuple[LabelSelectorRequirement, ...]:
    """metav1.LabelSelectorAsSelector(s).Requirements(): matchLabels as single-value
    requirements, then the expressions."""
    return (*(LabelSelectorRequirement(k, "In", frozenset((v,))) for k, v in selector.match_labels),
            *selector.match_expressions)


def default_selector(pod: Pod, listers: WorkloadListers) -> LabelSelector:
    """DefaultSelector: the selectors of the Services selecting the pod, merged (a later
    selector's value wins for a key, as labels.Merge), and of its controlling owner found by
    name in the pod's namespace: a ReplicationController's label map merged in the same way, a
    ReplicaSet's or StatefulSet's label selector ANDed as requirements (selector.Add). The owner
    is metav1.GetControllerOf (the first reference with ``controller: true``), matched by its
    apiVersion's group and version and its kind; an owner that is not found, or of another kind,
    adds nothing. An empty result means no default spreading."""
    label_set: dict[str, str] = {}
    for svc in get_pod_services(listers, pod):
        assert svc.selector is not None
        label_set.update(svc.selector)
    extra: tuple[LabelSelectorRequirement, ...] = ()
    owner = next((o for o in pod.meta.owner_references if o.get("controller") is True), None)
    if owner is not None:
        gv = parse_group_version(str(owner.get("apiVersion") or ""))
        gvk = None if gv is None else (*gv, str(owner.get("kind") or ""))
        name = str(owner.get("name") or "")
        if gvk == _RC_KIND:
            rc = listers.replication_controller(pod.namespace, name)
            if rc is not None:
                label_set.update(rc.selector)
        elif gvk in (_RS_KIND, _SS_KIND):
            ctrl = (listers.replica_set if gvk == _RS_KIND else listers.stateful_set)(pod.namespace, name)
            if ctrl is not None:
                extra = _requirements(ctrl.selector)
    return merge_label_requirements(LabelSelector(tuple(sorted(label_set.items()))), extra)
