"""DefaultBinder (default_binder_test.go): binds through the store, errors become Error."""

from __future__ import annotations

from dataclasses import dataclass, field

from kubesched.framework import Code, CycleState
from kubesched.plugins.defaultbinder import DefaultBinder
from kubesched.testing import make_pod, snapshot_of

from .._harness import FakeHandle


@dataclass
class RecordingStore:
    fail: bool = False
    bound: list[tuple[str, str, str, str | None]] = field(default_factory=list)

    def bind(self, namespace: str, name: str, node_name: str, uid: str | None = None) -> None:
        if self.fail:
            raise RuntimeError("binding rejected")
        self.bound.append((namespace, name, node_name, uid))


def test_successful_binding() -> None:
    store = RecordingStore()
    pl = DefaultBinder(handle=FakeHandle(snapshot_of([]), store))  # type: ignore[arg-type]
    pod = make_pod().name("foo").namespace("ns").uid("u1").obj()
    assert pl.bind(CycleState(), pod, "foohost.kubernetes.mydomain.com") is None
    assert store.bound == [("ns", "foo", "foohost.kubernetes.mydomain.com", "u1")]


def test_binding_error() -> None:
    pl = DefaultBinder(handle=FakeHandle(snapshot_of([]), RecordingStore(fail=True)))  # type: ignore[arg-type]
    st = pl.bind(CycleState(), make_pod().name("foo").obj(), "n1")
    assert st is not None and st.code == Code.ERROR and st.reasons == ("binding rejected",)
