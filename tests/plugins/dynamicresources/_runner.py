"""upstream's testPlugin loop (dynamicresources_test.go, master 2026) over kubesched's plugin:
PreEnqueue, PreFilter, Filter per node, Score + NormalizeScore when several nodes pass,
Reserve, then Unreserve / PreBind / PostFilter, checking after each step the status and the
claims in the store (and the in-flight ones) as upstream's ``verify`` does: for a status that
is not a success only the message is compared (``assert.ErrorContains``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kubesched.api import (
    NEWEST_KUBE_VERSION,
    DeviceClass,
    KubeVersion,
    Node,
    Pod,
    ResourceClaim,
    ResourceSlice,
)
from kubesched.clock import VirtualClock
from kubesched.cluster import MemoryStore
from kubesched.framework import Code, CycleState, Status
from kubesched.plugins.dynamicresources import DynamicResources
from kubesched.testing import snapshot_of

from ._fixtures import WORKER, Manifest, manifest_summary, summary

START = 1_780_000_000.0
"""The virtual clock's start (upstream's time.Now()): allocation time stamps are relative to it."""

Expected = tuple[Code, str] | None
"""None: success; else the code (only Success/Skip are compared exactly) and the message."""

ClaimChange = Callable[[Manifest], Manifest | None]
"""The expected claim after a step, None when the step deletes it."""


@dataclass
class Want:
    preenqueue: Expected = None
    prefilter: Expected = None
    filter: Mapping[str, Expected] = field(default_factory=dict)
    score: Mapping[str, int] | None = None
    normalized: Mapping[str, int] | None = None
    reserve_in_flight: Sequence[Manifest] = ()
    prebind_pre_flight: Expected = None
    prebind: Expected = None
    prebind_claims: ClaimChange | None = None
    prebind_added: Sequence[Manifest] = ()  # claims PreBind creates (the extended resource claim)
    postfilter: Expected = None
    postfilter_claims: ClaimChange | None = None
    unreserve_before_prebind: bool = False
    unreserve_after_bind_failure: ClaimChange | None = None


@dataclass
class Case:
    name: str
    pod: Pod
    claims: Sequence[Manifest] = ()
    classes: Sequence[Manifest] = ()
    slices: Sequence[Manifest] = ()
    nodes: Sequence[Node] = (WORKER,)
    gates: Mapping[str, bool] = field(default_factory=dict)
    prepare_prebind: ClaimChange | None = None
    want: Want = field(default_factory=Want)
    store_pod: bool = False  # upstream's objs hold the pod (its status gets patched)
    fail_patch: bool = False  # the pod status write fails ("patch error")
    fail_create: bool = False  # creating a claim fails ("claim creation errors")


# The gates upstream's test leaves off unless a case turns them on ("False is chosen so that the
# uncommon case doesn't need to be set").
BASE_GATES = {
    "DRAAdminAccess": False,
    "DRADeviceBindingConditions": False,
    "DRAResourceClaimDeviceStatus": False,
    "DRADeviceTaints": False,
    "DRAPrioritizedList": False,
    "DRAPartitionableDevices": False,
    "DRAConsumableCapacity": False,
    "DRAExtendedResource": False,
}


class _FailingStore(MemoryStore):
    """upstream's reactors: a failing pod status patch, a failing claim create."""

    fail_patch = False
    fail_create = False

    def update(self, obj: Any) -> Any:
        if self.fail_patch and isinstance(obj, Pod):
            raise RuntimeError("patch error")
        return super().update(obj)

    def update_status(self, obj: Any) -> Any:
        """upstream's fake clientset validates nothing: a status update is a plain update
        (no immutable allocation)."""
        return self.update(obj)

    def create(self, obj: Any) -> Any:
        if self.fail_create and isinstance(obj, ResourceClaim):
            raise RuntimeError("claim creation errors")
        return super().create(obj)


@dataclass
class _Handle:
    store: Any
    features: Mapping[str, bool]
    clock: VirtualClock
    kube_version: KubeVersion = NEWEST_KUBE_VERSION


class Run:
    def __init__(self, case: Case) -> None:
        self.case = case
        self.clock = VirtualClock(START)
        self.store = _FailingStore(self.clock)
        objs: list[Any] = [
            *([case.pod] if case.store_pod else []),
            *case.nodes,
            *(DeviceClass.from_dict(c) for c in case.classes),
            *(ResourceSlice.from_dict(s) for s in case.slices),
            *(ResourceClaim.from_dict(c) for c in case.claims),
        ]
        self.store.load(objs)
        self.store.fail_patch, self.store.fail_create = case.fail_patch, case.fail_create
        self.plugin = DynamicResources(None, _Handle(self.store, {**BASE_GATES, **case.gates}, self.clock))
        self.state = CycleState()
        self.snap = snapshot_of(case.nodes)

    # -- what upstream's verify compares -------------------------------------------------------
    def claims(self) -> list[tuple[Any, ...]]:
        return sorted(summary(c) for c in self.store.list("ResourceClaim"))

    def in_flight(self) -> list[tuple[Any, ...]]:
        return sorted(summary(c) for c in self.plugin.manager._in_flight.values())

    def expect(self, step: str, want: Expected, got: Status | None) -> None:
        got = got or Status.success()
        if want is None:
            assert got.is_success(), f"{step}: want success, got {got}"
        elif want[0] in (Code.SUCCESS, Code.SKIP):
            assert (got.code, got.message()) == want, f"{step}: want {want}, got {got}"
        else:
            assert not got.is_success(), f"{step}: want {want}, got success"
            assert want[1] in got.message(), f"{step}: want {want[1]!r} in {got.message()!r}"

    def expect_claims(
        self,
        step: str,
        before: list[tuple[Any, ...]],
        change: ClaimChange | None,
        manifests: Sequence[Manifest],
        added: Sequence[Manifest] = (),
    ) -> None:
        want = before
        if change is not None:
            changed = [change(m) for m in manifests]
            want = sorted(manifest_summary(m) for m in changed if m is not None)
        if added:
            want = sorted([*want, *(manifest_summary(m) for m in added)])
        assert self.claims() == want, f"{step}: claims differ:\n want {want}\n got  {self.claims()}"

    def current_manifests(self) -> list[Manifest]:
        return [c.to_dict() for c in self.store.list("ResourceClaim")]

    def update_claims(self, change: ClaimChange) -> None:
        for c in self.store.list("ResourceClaim"):
            new = change(c.to_dict())
            if new != c.to_dict():
                self.store.update(ResourceClaim.from_dict(new))

    # -- the steps -------------------------------------------------------------------------------
    def run(self) -> None:
        case, want, pl, pod = self.case, self.case.want, self.plugin, self.case.pod
        st = pl.pre_enqueue(pod)
        self.expect("PreEnqueue", want.preenqueue, st)
        if st is not None and not st.is_success():
            return
        _, st = pl.pre_filter(self.state, pod, self.snap.node_info_list)
        self.expect("PreFilter", want.prefilter, st)
        unschedulable = st is not None and st.is_rejected()
        potential = []
        if not unschedulable:
            for ni in self.snap.node_info_list:
                before = self.claims()
                fst = pl.filter(self.state, pod, ni)
                self.expect(f"Filter/{ni.name}", want.filter.get(ni.name), fst)
                assert self.claims() == before
                fst = fst or Status.success()
                if fst.code == Code.SUCCESS:
                    potential.append(ni)
                if fst.code == Code.ERROR:
                    return  # an error aborts scheduling
            unschedulable = not potential
        scores: dict[str, int] = {}
        if not unschedulable and len(potential) > 1:
            for ni in potential:
                s, sst = pl.score(self.state, pod, ni)
                assert sst is None or sst.is_success(), sst
                scores[ni.name] = s
            assert scores == dict(want.score or {n.name: 0 for n in potential}), scores
            arr = np.array(list(scores.values()), dtype=np.int64)
            pl.normalize_score(self.state, pod, arr, list(scores))
            normalized = dict(zip(scores, arr.tolist(), strict=True))
            if want.normalized is not None:
                assert normalized == dict(want.normalized), normalized
            scores = normalized
        selected = ""
        if not unschedulable and potential:
            selected = max(scores, key=lambda n: scores[n]) if scores else potential[0].name
            if scores:  # upstream keeps the first of equal scores
                selected = next(n for n in scores if scores[n] == max(scores.values()))
            rst = pl.reserve(self.state, pod, selected)
            self.expect("Reserve", None, rst)
            assert self.in_flight() == sorted(manifest_summary(m) for m in want.reserve_in_flight), (
                f"in-flight differ: {self.in_flight()}"
            )
            unschedulable = rst is not None and not rst.is_success()
        if selected:
            if unschedulable:
                pl.unreserve(self.state, pod, selected)
                return
            if want.unreserve_before_prebind:
                before = self.claims()
                pl.unreserve(self.state, pod, selected)
                assert self.claims() == before and self.in_flight() == []
                return
            if case.prepare_prebind is not None:
                self.update_claims(case.prepare_prebind)
            manifests = self.current_manifests()
            before = self.claims()
            self.expect(
                "PreBindPreFlight", want.prebind_pre_flight, pl.pre_bind_pre_flight(self.state, pod, selected)
            )
            # PreBind as the binding cycle runs it: the wait for binding conditions polls on
            # the clock, which runs until the wait ends.
            fut = pl.pre_bind_async(self.state, pod, selected)
            while not fut.done() and self.clock.step():
                pass
            self.expect("PreBind", want.prebind, fut.status())
            self.expect_claims("PreBind", before, want.prebind_claims, manifests, want.prebind_added)
            assert self.in_flight() == [], "PreBind leaves nothing in flight"
            if want.unreserve_after_bind_failure is not None:
                manifests = self.current_manifests()
                pl.unreserve(self.state, pod, selected)
                self.expect_claims("Unreserve", [], want.unreserve_after_bind_failure, manifests)
        elif not potential:
            manifests = self.current_manifests()
            before = self.claims()
            _, pst = pl.post_filter(self.state, pod, None)
            self.expect("PostFilter", want.postfilter, pst)
            self.expect_claims("PostFilter", before, want.postfilter_claims, manifests)
