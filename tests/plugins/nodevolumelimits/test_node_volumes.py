"""NodeVolumeLimits' batch path keeps per-node attached-volume counts across cycles
(_node_volumes.py): they must equal a fresh recount (the per-node Filter) after every kind of
change: pods added to or removed from nodes (snapshots kept up to date by the cache, so the
index follows ``Snapshot.last_update``), PVC / PV / StorageClass / CSINode writes, node updates."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st_

from kubesched.api import Pod
from kubesched.cache import Cache, Snapshot
from kubesched.clock import VirtualClock
from kubesched.cluster import MemoryStore
from kubesched.framework import CycleState, NodeBatch, Status
from kubesched.plugins.nodevolumelimits import CSILimits
from kubesched.plugins.nodevolumelimits._node_volumes import NodeVolumes
from kubesched.testing import make_node, make_pod

from .._harness import FakeHandle
from ..volumebinding.fixtures import make_csinode, make_pv, make_pvc, make_sc, store_of

EBS = "ebs.csi.aws.com"
GCE = "pd.csi.storage.gke.io"
NODES = ("n0", "n1", "n2", "n3")
# "eph-ok" / "eph-bad": a generic ephemeral volume whose claim the pod owns / does not own
CLAIMS = ("c0", "c1", "c2", "c3", "pending", "gce", "eph-ok", "eph-bad")
PVS = ("v0", "v1", "v2", "v3", "v-shared", "v-gce")


def _pv(name: str) -> Any:
    if name == "v-gce":
        return make_pv(name, source={"gcePersistentDisk": {"pdName": "disk"}},
                       labels={"topology.kubernetes.io/zone": "z1"})
    handle = "h0" if name == "v-shared" else f"h-{name}"  # v-shared is v0's volume again
    driver = GCE if name == "v3" else EBS
    return make_pv(name, source={"csi": {"driver": driver, "volumeHandle": handle}})


def _objects() -> list[Any]:
    objs: list[Any] = [_pv(v) for v in PVS]
    objs += [make_pvc(f"c{i}", volume=f"v{i}") for i in range(4)]
    objs += [
        make_sc("csi-sc", provisioner=EBS),
        make_pvc("pending", sc="csi-sc"),
        make_pvc("gce", volume="v-gce"),
    ]
    objs += [make_csinode(n, {EBS: 2, GCE: 1}) for n in NODES[:3]]
    return objs


def _ephemeral_claims(pod: str) -> list[Any]:
    """The claims of ``pod``'s ephemeral volumes (``<pod>-<volume>``), both on v1."""
    return [make_pvc(f"{pod}-eph-ok", volume="v1", owner_uid=pod),
            make_pvc(f"{pod}-eph-bad", volume="v1", owner_uid="someone-else")]


def _pod(name: str, claims: tuple[str, ...], node: str = "") -> Pod:
    pb = make_pod().name(name).uid(name)
    for c in claims:
        if c.startswith("eph-"):
            pb.volume({"name": c, "ephemeral": {"volumeClaimTemplate": {"spec": {}}}})
        else:
            pb.pvc(c)
    if node:
        pb.node(node)
    return pb.obj()


@dataclass
class _World:
    store: MemoryStore
    cache: Cache
    snap: Snapshot
    plugin: CSILimits  # kept across all the checks: its index must follow the changes
    pods: dict[str, Pod]
    created: int = 0

    @staticmethod
    def make() -> _World:
        # every pod's ephemeral claims up front: adding a pod writes no storage object
        claims = [pvc for name in ("incoming", *(f"e{i}" for i in range(1, 41)))
                  for pvc in _ephemeral_claims(name)]
        store = store_of(*_objects(), *claims)
        cache = Cache(VirtualClock())
        for n in NODES:
            cache.add_node(make_node().name(n).obj())
        snap = Snapshot()
        cache.update_snapshot(snap)
        return _World(store, cache, snap, CSILimits(handle=FakeHandle(store=store)), {})

    def check(self, incoming: Pod, rows: tuple[int, ...] | None = None) -> None:
        """The kept plugin's batch answer (on all nodes, or on ``rows``) equals a fresh
        plugin's per-node recount, and every row the index holds as fresh equals a fresh read
        of its node."""
        self.cache.update_snapshot(self.snap)
        batch = NodeBatch.all(self.snap)
        if rows is not None:
            batch = NodeBatch(self.snap, np.array(rows, dtype=np.int64))
        got = self.plugin.filter_batch(CycleState(), incoming, batch)
        fresh = CSILimits(handle=FakeHandle(store=self.store))
        for i, ni in enumerate(batch.node_infos()):
            want = fresh.filter(CycleState(), incoming, ni) or Status.success()
            g = got.status(i)
            assert (g.code, g.reasons) == (want.code, want.reasons), ni.name
        index = self.plugin._index
        # The invariant: once synced (as every use starts), a row not marked stale is exact.
        index.sync(self.snap, self.plugin._storage_version())
        for r, ni in enumerate(self.snap.node_info_list):
            e = index.entries[r]
            if e is not None and not index.stale[r]:
                _assert_same(e, fresh._read_node(ni, None))
                for key in ("attachable-volumes-csi-" + EBS, "attachable-volumes-csi-" + GCE):
                    assert index.headroom(key)[r] == e.headroom(key)


def _assert_same(kept: NodeVolumes, fresh: NodeVolumes) -> None:
    assert kept.generation == fresh.generation
    assert kept.has_csi_node == fresh.has_csi_node
    assert kept.limits == fresh.limits
    assert kept.attached == fresh.attached
    assert kept.counts == fresh.counts
    assert str(kept.error) == str(fresh.error)


_claims = st_.lists(st_.sampled_from(CLAIMS), max_size=3, unique=True).map(tuple)
_ops = st_.one_of(
    st_.tuples(st_.just("add_pod"), st_.sampled_from(NODES), _claims),
    st_.tuples(st_.just("remove_pod"), st_.integers(0, 20)),
    st_.tuples(st_.just("rebind_pvc"), st_.sampled_from(CLAIMS[:4]), st_.sampled_from((*PVS, "missing"))),
    st_.tuples(st_.just("delete_pv"), st_.sampled_from(PVS)),
    st_.tuples(st_.just("create_pv"), st_.sampled_from(PVS)),
    st_.tuples(st_.just("storage_class"), st_.sampled_from((None, EBS, "kubernetes.io/gce-pd", "other"))),
    st_.tuples(st_.just("csinode"), st_.sampled_from(NODES),
               st_.one_of(st_.none(), st_.integers(0, 3))),
    st_.tuples(st_.just("node_allocatable"), st_.sampled_from(NODES), st_.integers(0, 3)),
    st_.tuples(st_.just("check"), _claims,
               st_.lists(st_.integers(0, len(NODES) - 1), min_size=1, unique=True).map(tuple)),
    st_.tuples(st_.just("snapshot_only")),  # a cycle the plugin does not see
)


def _apply(w: _World, op: tuple[Any, ...]) -> None:
    kind = op[0]
    store = w.store
    if kind == "add_pod":
        w.created += 1
        name = f"e{w.created}"
        w.pods[name] = p = _pod(name, op[2], node=op[1])
        w.cache.add_pod(p)
    elif kind == "remove_pod" and w.pods:
        name = sorted(w.pods)[op[1] % len(w.pods)]
        w.cache.remove_pod(w.pods.pop(name))
    elif kind == "rebind_pvc":
        store.update(make_pvc(op[1], volume=op[2]))
    elif kind == "delete_pv":
        if store.try_get("PersistentVolume", "", op[1]) is not None:
            store.delete("PersistentVolume", "", op[1])
    elif kind == "create_pv":
        if store.try_get("PersistentVolume", "", op[1]) is None:
            store.create(_pv(op[1]))
    elif kind == "storage_class":
        if store.try_get("StorageClass", "", "csi-sc") is not None:
            store.delete("StorageClass", "", "csi-sc")
        if op[1] is not None:
            store.create(make_sc("csi-sc", provisioner=op[1]))
    elif kind == "csinode":
        if store.try_get("CSINode", "", op[1]) is not None:
            store.delete("CSINode", "", op[1])
        if op[2] is not None:
            store.create(make_csinode(op[1], {EBS: op[2], GCE: op[2]}))
    elif kind == "node_allocatable":
        old = w.cache.get_node_info(op[1]).node
        new = make_node().name(op[1]).capacity({"attachable-volumes-csi-" + EBS: str(op[2])}).obj()
        w.cache.update_node(old, new)
    elif kind == "check":
        w.check(_pod("incoming", op[1]), op[2])
    elif kind == "snapshot_only":
        w.cache.update_snapshot(w.snap)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(ops=st_.lists(st_.tuples(_ops, st_.booleans()), max_size=25))
def test_kept_counts_equal_a_fresh_recount(ops: list[tuple[tuple[Any, ...], bool]]) -> None:
    """Random changes, each followed (or not: the plugin misses cycles) by a check."""
    w = _World.make()
    for op, check_after in ops:
        _apply(w, op)
        if check_after:
            w.check(_pod("incoming", ("c0", "c1")))
    w.check(_pod("incoming", ("c0", "c2", "pending")))


def test_counts_follow_pods_and_storage_writes() -> None:
    """Staleness, step by step: each change below flips the answer on n0 (limit 2 for EBS)."""
    w = _World.make()
    incoming = _pod("incoming", ("c0",))

    def n0() -> str:
        w.cache.update_snapshot(w.snap)
        res = w.plugin.filter_batch(CycleState(), incoming, NodeBatch.all(w.snap))
        st = res.status(w.snap.node_index["n0"])
        return st.code.name

    assert n0() == "SUCCESS"
    for name, claims in (("e1", ("c1",)), ("e2", ("c2",))):
        w.pods[name] = _pod(name, claims, node="n0")
        w.cache.add_pod(w.pods[name])
    assert n0() == "UNSCHEDULABLE"  # two EBS volumes attached, limit 2
    w.store.update(make_pvc("c2", volume="v3"))  # c2 now a GCE volume
    assert n0() == "SUCCESS"
    w.store.update(make_pvc("c2", volume="v2"))
    assert n0() == "UNSCHEDULABLE"
    w.store.update(make_pvc("c0", volume="v-shared"))  # the incoming volume is v0's: h0
    assert n0() == "UNSCHEDULABLE"
    w.store.update(make_pvc("c1", volume="v-shared"))  # ... now attached on n0 already
    assert n0() == "SUCCESS"
    w.store.update(make_pvc("c1", volume="v1"))
    assert n0() == "UNSCHEDULABLE"
    w.store.delete("CSINode", "", "n0")  # no limits any more
    assert n0() == "SUCCESS"
    w.store.create(make_csinode("n0", {EBS: 3}))
    assert n0() == "SUCCESS"
    w.store.update(make_csinode("n0", {EBS: 2}))
    assert n0() == "UNSCHEDULABLE"
    w.store.delete("PersistentVolume", "", "v2")  # c2's PV gone: not counted
    assert n0() == "SUCCESS"
    w.store.create(_pv("v2"))
    assert n0() == "UNSCHEDULABLE"
    w.cache.remove_pod(w.pods.pop("e2"))
    assert n0() == "SUCCESS"
    # the same pod (uid) with other volumes: its kept volumes must not be reused
    changed = _pod("e1", ("c1", "c2"), node="n0")
    w.cache.update_pod(w.pods["e1"], changed)
    w.pods["e1"] = changed
    assert n0() == "UNSCHEDULABLE"
    w.cache.update_pod(changed, _pod("e1", ("c1",), node="n0"))
    w.pods["e1"] = _pod("e1", ("c1",), node="n0")
    assert n0() == "SUCCESS"
    w.pods["e3"] = _pod("e3", ("pending",), node="n0")  # unbound: its class's provisioner
    w.cache.add_pod(w.pods["e3"])
    assert n0() == "UNSCHEDULABLE"
    w.store.delete("StorageClass", "", "csi-sc")
    assert n0() == "SUCCESS"
    w.store.create(make_sc("csi-sc", provisioner=EBS))
    assert n0() == "UNSCHEDULABLE"


class _GlobalVersionStore:
    """A store with only the global resourceVersion (no per-kind versions)."""

    def __init__(self, inner: MemoryStore) -> None:
        self._inner = inner

    @property
    def resource_version(self) -> int:
        return self._inner.resource_version

    def try_get(self, kind: str, namespace: str, name: str) -> Any:
        return self._inner.try_get(kind, namespace, name)


def test_a_store_without_kind_versions_still_sees_writes() -> None:
    w = _World.make()
    w.plugin = CSILimits(handle=FakeHandle(store=_GlobalVersionStore(w.store)))
    for name, claims in (("e1", ("c1",)), ("e2", ("c2",))):
        w.cache.add_pod(_pod(name, claims, node="n0"))
    w.check(_pod("incoming", ("c0",)))
    w.store.update(make_pvc("c2", volume="v3"))
    w.check(_pod("incoming", ("c0",)))
    w.store.delete("CSINode", "", "n1")
    w.check(_pod("incoming", ("c0",)))


def test_a_node_reread_resolves_only_its_new_pods() -> None:
    """Re-reading a node after a pod joined it resolves that pod only (the others' volumes are
    kept per pod, by uid, while the storage objects are unchanged)."""
    w = _World.make()
    w.cache.add_pod(_pod("e1", ("c1",), node="n0"))
    w.check(_pod("incoming", ("c0",)))
    calls: list[str] = []
    orig = w.plugin._existing_pod_volumes

    def spy(pod: Pod, csi: bool) -> Any:
        calls.append(pod.name)
        return orig(pod, csi)

    w.plugin._existing_pod_volumes = spy  # type: ignore[method-assign]
    w.cache.add_pod(_pod("e2", ("c2",), node="n0"))
    w.check(_pod("incoming", ("c0",)))
    assert calls == ["e2"]
    w.store.update(make_pvc("c2", volume="v3"))  # a storage write: everything is resolved again
    calls.clear()
    w.check(_pod("incoming", ("c0",)))
    assert sorted(calls) == ["e1", "e2"]


def test_cycles_the_plugin_missed_are_caught_up() -> None:
    """Two snapshot updates since the index last looked (``last_update`` then names only the
    second one's nodes): every row's generation is compared instead."""
    w = _World.make()
    incoming = _pod("incoming", ("c0",))
    w.cache.add_pod(_pod("e1", ("c1",), node="n0"))
    w.check(incoming)
    w.cache.add_pod(_pod("e2", ("c2",), node="n0"))
    w.cache.update_snapshot(w.snap)  # a cycle whose pod had no volumes
    w.check(incoming)  # n0: two EBS volumes attached, limit 2
    assert w.plugin.filter_batch(CycleState(), incoming, NodeBatch.all(w.snap)).codes[
        w.snap.node_index["n0"]] != 0


def test_store_kind_versions_move_with_writes_of_their_kind_only() -> None:
    """MemoryStore.kind_version, what the kept counts are keyed by: any create, update or
    delete of a kind moves its version, and no other kind's."""
    store = store_of()
    kinds = ("PersistentVolumeClaim", "PersistentVolume", "StorageClass", "CSINode", "Pod")

    def versions() -> dict[str, int]:
        return {k: store.kind_version(k) for k in kinds}

    steps: list[tuple[str, Any]] = [
        ("PersistentVolume", lambda: store.create(_pv("v0"))),
        ("PersistentVolumeClaim", lambda: store.create(make_pvc("c0", volume="v0"))),
        ("PersistentVolumeClaim", lambda: store.update(make_pvc("c0", volume="v1"))),
        ("StorageClass", lambda: store.create(make_sc("csi-sc", provisioner=EBS))),
        ("CSINode", lambda: store.create(make_csinode("n0", {EBS: 1}))),
        ("Pod", lambda: store.create(_pod("p", ("c0",)))),
        ("PersistentVolume", lambda: store.delete("PersistentVolume", "", "v0")),
        ("CSINode", lambda: store.delete("CSINode", "", "n0")),
    ]
    before = versions()
    for kind, write in steps:
        write()
        after = versions()
        assert {k for k in kinds if after[k] != before[k]} == {kind}
        before = after
