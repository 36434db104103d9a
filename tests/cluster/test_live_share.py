"""Objects read from a live cluster hold equal branches once, as the loader's do: the items of
one list (``list_cluster``, an informer's list) share them, a watched version shares the
listed ones, and no object ever changes through another."""

from __future__ import annotations

import copy
import json
import threading
from collections.abc import Iterator, Mapping
from typing import Any

from kubesched.cluster import WatchEvent
from kubesched.cluster.live import Informer, list_cluster


def _pod(name: str, image: str = "app:1", rv: str = "10") -> dict[str, Any]:
    return {"metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}", "resourceVersion": rv,
                         "labels": {"app": "web"}},
            "spec": {"nodeName": "n1", "containers": [
                {"name": "app", "image": image,
                 "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}],
                "tolerations": [{"key": "k", "operator": "Exists", "effect": "NoSchedule"}]},
            "status": {"phase": "Running"}}


class _Watch:
    """A watch response: ``lines`` then the end of the stream; or, with none, open until shut."""

    def __init__(self, lines: list[bytes]) -> None:
        self.lines = lines
        self.closed = threading.Event()

    def stream(self, _n: int, decode_content: bool = True) -> Iterator[bytes]:
        if not self.lines:
            self.closed.wait(30)
        yield from self.lines

    def shutdown(self) -> None:
        self.closed.set()

    def release_conn(self) -> None:
        pass


class FakeApi:
    """The pods list (``items``, fresh copies each time: as decoded from the server's bytes)
    and one watch carrying ``events``, then a watch open until the informer stops."""

    host = "https://api.example"

    def __init__(self, items: list[dict[str, Any]], events: list[dict[str, Any]]) -> None:
        self.items = items
        self.watches = [_Watch([json.dumps(e).encode() + b"\n" for e in events]), _Watch([])]

    def request(self, method: str, path: str, body: Any = None, *, query: Mapping[str, Any] | None = None,
                **_: Any) -> Any:
        assert (method, path) == ("GET", "/api/v1/pods")
        return {"metadata": {"resourceVersion": "10"}, "items": json.loads(json.dumps(self.items))}

    def stream(self, path: str, query: Mapping[str, Any], timeout: float) -> Any:
        return self.watches.pop(0) if len(self.watches) > 1 else self.watches[0]


def test_listed_objects_hold_equal_branches_once() -> None:
    loaded = list_cluster(FakeApi([_pod("a"), _pod("b")], []), kinds=("Pod",))  # type: ignore[arg-type]
    a, b = loaded.objects
    assert a.raw["spec"]["containers"] is b.raw["spec"]["containers"]
    assert a.raw["spec"]["tolerations"] is b.raw["spec"]["tolerations"]
    assert a.raw["metadata"] is not b.raw["metadata"]  # names differ
    assert a.raw == {"kind": "Pod", "apiVersion": "v1", **_pod("a")}
    assert a.containers[0].image == b.containers[0].image == "app:1"


def _informer(items: list[dict[str, Any]], events: list[dict[str, Any]], expected: int,
              known: Mapping[tuple[str, str], Any] | None = None, share_watched: bool = True) -> Informer:
    """A pod informer on FakeApi, stopped once it has listed and handed on ``expected`` events."""
    seen: list[WatchEvent] = []
    done = threading.Event()

    def on_event(ev: WatchEvent) -> None:
        seen.append(ev)
        if len(seen) == expected:
            done.set()

    inf = Informer(FakeApi(items, events), "Pod", threading.RLock(), on_event,  # type: ignore[arg-type]
                   known=known, share_watched=share_watched)
    inf.start()
    try:
        assert inf.synced.wait(30)
        if expected:
            assert done.wait(30), seen
    finally:
        inf.stop()
        inf.join(30)
    return inf


def test_a_watched_update_of_one_of_two_sharing_pods_leaves_the_other_as_it_was() -> None:
    updated = _pod("a", image="app:2", rv="11")
    updated["metadata"]["labels"] = {"app": "web", "tier": "new"}
    updated["spec"]["tolerations"][0]["key"] = "k2"
    inf = _informer([_pod("a"), _pod("b")], [{"type": "MODIFIED", "object": updated}], expected=1)
    a, b = inf.items[("default", "a")], inf.items[("default", "b")]
    assert a.meta.resource_version == "11" and a.containers[0].image == "app:2"
    assert a.meta.labels == {"app": "web", "tier": "new"}
    assert [t.key for t in a.tolerations] == ["k2"]
    # b, whose branches a's listed version shared, is untouched
    assert b.raw == {"kind": "Pod", "apiVersion": "v1", **_pod("b")}
    assert b.containers[0].image == "app:1" and [t.key for t in b.tolerations] == ["k"]
    assert b.meta.labels == {"app": "web"}


def test_watched_versions_share_the_listed_branches_and_are_not_kept() -> None:
    before = [_pod("a"), _pod("b")]
    added = [{"type": "ADDED", "object": _pod("c", rv="11")},
             {"type": "ADDED", "object": _pod("d", image="app:3", rv="12")},
             {"type": "ADDED", "object": _pod("e", image="app:3", rv="13")}]
    inf = _informer(before, added, expected=3)
    a, c, d, e = (inf.items[("default", n)] for n in "acde")
    assert c.raw["spec"]["containers"] is a.raw["spec"]["containers"]  # as a listed sibling's
    assert d.raw["spec"]["tolerations"] is a.raw["spec"]["tolerations"]
    # what only the watch carried is matched against the list, never kept for the next events
    assert d.raw["spec"]["containers"] == e.raw["spec"]["containers"]
    assert d.raw["spec"]["containers"] is not e.raw["spec"]["containers"]


def test_objects_read_before_are_kept_by_the_first_list_and_shared_by_the_watch() -> None:
    read = {(o.meta.namespace, o.meta.name): o
            for o in list_cluster(FakeApi([_pod("a"), _pod("b")], []), kinds=("Pod",)).objects}  # type: ignore[arg-type]
    a_raw = copy.deepcopy(read[("default", "a")].raw)
    now = [_pod("a"), _pod("b", rv="11")]  # b changed since
    inf = _informer(now, [{"type": "ADDED", "object": _pod("c", rv="12")}], expected=1, known=read)
    assert inf.items[("default", "a")] is read[("default", "a")]  # the same version: not a copy
    b = inf.items[("default", "b")]
    assert b is not read[("default", "b")] and b.meta.resource_version == "11"
    c = inf.items[("default", "c")]
    assert c.raw["spec"]["containers"] is read[("default", "a")].raw["spec"]["containers"]
    assert read[("default", "a")].raw == a_raw  # kept as it was


def test_the_scheduler_informers_parse_watched_versions_without_matching_them() -> None:
    """``run``'s informers (share_watched off, the default) pay nothing per event for sharing:
    a watched pod holds its own branches, as before sharing."""
    inf = _informer([_pod("a")], [{"type": "ADDED", "object": _pod("c", rv="11")}], expected=1,
                    share_watched=False)
    a, c = inf.items[("default", "a")], inf.items[("default", "c")]
    assert c.raw["spec"]["containers"] == a.raw["spec"]["containers"]
    assert c.raw["spec"]["containers"] is not a.raw["spec"]["containers"]
