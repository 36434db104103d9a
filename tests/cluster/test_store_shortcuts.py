"""The store's shortcuts give what the long way round gives: events built without their
``__init__`` and condition upserts with an early exit and an append-only first write."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kubesched.api import PriorityClass, add_default_tolerations, admit_pod, dumps_json, format_time
from kubesched.cluster import MemoryStore
from kubesched.cluster._conditions import apply_scheduling_gated_condition, update_pod_conditions
from kubesched.cluster._store import Event, WatchEvent
from kubesched.testing.wrappers import make_pod

_COMPARED = ("status", "reason", "message", "lastProbeTime", "lastTransitionTime", "observedGeneration")


def _reference(conditions: list[dict[str, Any]], updates: list[dict[str, Any]],
               now: float) -> tuple[list[dict[str, Any]], bool]:
    """podutil.UpdatePodCondition applied in turn, spelled out."""
    out = [dict(c) for c in conditions]
    changed = False
    for cond in updates:
        new = {**cond, "lastTransitionTime": format_time(now)}
        idx = next((i for i, c in enumerate(out) if c.get("type") == new.get("type")), None)
        if idx is None:
            out.append(new)
            changed = True
            continue
        old = out[idx]
        if new.get("status") == old.get("status"):
            if "lastTransitionTime" in old:
                new["lastTransitionTime"] = old["lastTransitionTime"]
            else:
                del new["lastTransitionTime"]
        if any(new.get(k) != old.get(k) for k in _COMPARED):
            out[idx] = new
            changed = True
    return out, changed


_CONDITION = st.fixed_dictionaries(
    {"type": st.sampled_from(["PodScheduled", "Ready", "Initialized"]),
     "status": st.sampled_from(["True", "False"])},
    optional={"reason": st.sampled_from(["A", "B"]),
              "lastTransitionTime": st.sampled_from(["2020-01-01T00:00:00Z", "2021-01-01T00:00:00Z"])})


@given(st.lists(_CONDITION, max_size=4), st.lists(_CONDITION, max_size=4), st.sampled_from([0.0, 1e9]))
def test_update_pod_conditions_equals_repeated_upserts(conditions: list[dict[str, Any]],
                                                      updates: list[dict[str, Any]], now: float) -> None:
    before = [dict(c) for c in conditions]
    assert update_pod_conditions(conditions, updates, now) == _reference(conditions, updates, now)
    assert conditions == before  # the input is not edited


def test_event_make_equals_the_constructor_and_stays_frozen() -> None:
    args = ("Pod", "ns", "p", "u", "Normal", "Scheduled", "msg", 2, 1.0, 3.0)
    ev = Event._make(*args, "Binding")
    assert ev == Event(*args, action="Binding")
    assert dataclasses.asdict(ev) == dataclasses.asdict(Event(*args, action="Binding"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        ev.count = 3  # type: ignore[misc]


def test_watch_event_make_equals_the_constructor_and_stays_frozen() -> None:
    pod = make_pod().name("p").obj()
    for args in (("ADDED", "Pod", None, pod, 3), ("MODIFIED", "Node", pod, pod, 4),
                 ("DELETED", "Pod", pod, None, 5)):
        ev, want = WatchEvent._make(*args), WatchEvent(*args)
        assert ev == want and hash(ev) == hash(want) and repr(ev) == repr(want)
        assert dataclasses.astuple(ev) == dataclasses.astuple(want) and ev.obj is want.obj
        with pytest.raises(dataclasses.FrozenInstanceError):
            ev.resource_version = 9  # type: ignore[misc]


def test_store_writes_emit_what_the_constructor_builds() -> None:
    store = MemoryStore()
    seen: list[WatchEvent] = []
    store.subscribe(seen.append)
    pod = store.create(make_pod().name("p").obj())
    bound = store.bind("default", "p", "n1")
    store.delete("Pod", "default", "p", grace_period_seconds=0)
    assert [(e.type, e.kind, e.old, e.new) for e in seen] == [
        ("ADDED", "Pod", None, pod), ("MODIFIED", "Pod", pod, bound), ("DELETED", "Pod", bound, None)]
    assert seen == [WatchEvent(e.type, e.kind, e.old, e.new, e.resource_version) for e in seen]


def test_recorded_events_aggregate() -> None:
    store = MemoryStore()
    pod = store.create(make_pod().name("p").obj())
    first = store.record_event(pod, "Scheduled", "m")
    store.clock.advance(5.0)  # type: ignore[attr-defined]
    again = store.record_event(pod, "Scheduled", "m")
    assert (again.count, again.first_timestamp, again.last_timestamp) == (2, first.first_timestamp,
                                                                          first.first_timestamp + 5.0)
    assert again.reporting_controller == "default-scheduler" and store.events() == [again]


@pytest.mark.parametrize("edit", ["plain", "class", "tolerated", "gated", "admitted"])
def test_create_applies_admission_in_one_copy_as_in_turn(edit: str) -> None:
    """``create`` applies the Priority plugin's, DefaultTolerationSeconds' and the SchedulingGated
    edits with its own uid, time stamp and resourceVersion at once: the stored pod equals the
    one the three admission steps in turn, then the write's edits, give (manifest key order
    included)."""
    store = MemoryStore()
    store.create(PriorityClass.from_dict({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                                          "metadata": {"name": "high"}, "value": 1000}))
    b = make_pod().name("p").namespace("ns")
    if edit == "class":
        b = b.priority_class_name("high")
    elif edit == "tolerated":
        b = b.toleration(effect="NoExecute", operator="Exists")
    elif edit == "gated":
        b = b.scheduling_gates(["g"])
    elif edit == "admitted":
        b = b.priority(7)
    pod = b.obj()
    want = apply_scheduling_gated_condition(
        add_default_tolerations(admit_pod(pod, store.priority_classes())), store.clock.now)
    got = store.create(pod)
    want = want.with_changes({("metadata", "uid"): got.meta.uid,
                              ("metadata", "creationTimestamp"): got.raw["metadata"]["creationTimestamp"],
                              ("metadata", "resourceVersion"): got.meta.resource_version})
    assert dumps_json(got.raw) == dumps_json(want.raw)
    assert {k: v for k, v in vars(got).items() if k != "raw"} == \
        {k: v for k, v in vars(want).items() if k != "raw"}  # parsed fields and cached values
    assert store.admit(pod).raw == {**want.raw, "metadata": pod.raw["metadata"]}
