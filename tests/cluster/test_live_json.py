"""The live client's JSON decoder: orjson when installed, and the same objects as the
standard library's json for every document (including those orjson alone would reject)."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubesched.api import _json
from kubesched.api.loader import parse_object

_scalars = (st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70)
            | st.floats(allow_nan=False) | st.text())
_docs = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=4)
                     | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=20)

_WATCH_EVENT = json.dumps({"type": "ADDED", "object": {
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "web-0", "namespace": "prod", "uid": "1f4c", "resourceVersion": "4211",
                 "labels": {"app": "web", "tier": "ünicode ✓"},
                 "annotations": {"a": "b"}, "creationTimestamp": "2026-01-02T03:04:05Z"},
    "spec": {"schedulerName": "default-scheduler", "priority": 1000, "terminationGracePeriodSeconds": 30,
             "containers": [{"name": "c", "image": "registry.invalid/pause",
                             "resources": {"requests": {"cpu": "250m", "memory": "64Mi"}}}],
             "tolerations": [{"key": "k", "operator": "Exists", "effect": "NoSchedule",
                              "tolerationSeconds": 300}]},
    "status": {"phase": "Pending"}}}).encode()


def test_orjson_is_used_when_installed() -> None:
    pytest.importorskip("orjson")
    assert _json.FAST


@settings(max_examples=300, deadline=None)
@given(_docs, st.booleans())
def test_both_decoders_give_identical_objects(doc: Any, ascii_only: bool) -> None:
    data = json.dumps(doc, ensure_ascii=ascii_only).encode()
    assert _json.loads(data) == _json.stdlib_loads(data)
    assert _json.loads(data.decode()) == _json.stdlib_loads(data)


def test_documents_only_json_accepts_decode_the_same() -> None:
    """Beyond 64-bit integers and NaN: orjson refuses them, json decides."""
    for text in ('{"n": 123456789012345678901234567890}', '{"x": NaN}', '[Infinity]'):
        got, want = _json.loads(text), _json.stdlib_loads(text)
        assert json.dumps(got) == json.dumps(want)
    with pytest.raises(ValueError):
        _json.loads(b'{"type": "ADDED", "object": ')


def test_a_watch_event_becomes_the_same_api_object() -> None:
    fast, ref = _json.loads(_WATCH_EVENT), _json.stdlib_loads(_WATCH_EVENT)
    assert fast == ref
    a, b = parse_object(fast["object"]), parse_object(ref["object"])  # equal by identity: compare fields
    assert {f.name: getattr(a, f.name) for f in dataclasses.fields(a)} == {
        f.name: getattr(b, f.name) for f in dataclasses.fields(b)}
