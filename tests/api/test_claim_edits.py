"""ResourceClaim.with_changes: an edit that leaves the spec alone (the status a scheduler writes,
a finalizer) keeps the parsed spec and gives what parsing from scratch gives; an edit of the
spec parses it again."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.api import ResourceClaim

_CLAIM: dict[str, Any] = {
    "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
    "metadata": {"name": "c", "namespace": "ns", "uid": "u1"},
    "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu"}}]}},
}
_ALLOCATION = {"devices": {"results": [{"request": "gpu", "driver": "d", "pool": "p", "device": "x"}]}}


def test_a_status_edit_keeps_the_parsed_spec_and_reads_the_status() -> None:
    claim = ResourceClaim.from_dict(_CLAIM)
    edited = claim.with_changes({("status", "allocation"): _ALLOCATION,
                                 ("metadata", "finalizers"): ["resource.kubernetes.io/delete-protection"]})
    assert edited.devices is claim.devices  # not parsed again
    fresh = ResourceClaim.from_dict(edited.raw)
    assert edited.allocation == fresh.allocation and edited.allocation is not None
    assert edited.meta == fresh.meta


def test_a_status_edit_is_still_validated() -> None:
    claim = ResourceClaim.from_dict(_CLAIM)
    result = {"request": "no-such-request", "driver": "d", "pool": "p", "device": "x"}
    bad = {"devices": {"results": [result]}}
    with pytest.raises(ValueError, match="no-such-request"):
        claim.with_changes({("status", "allocation"): bad})


def test_a_spec_edit_parses_the_spec_again() -> None:
    claim = ResourceClaim.from_dict(_CLAIM)
    edited = claim.with_changes({("spec", "devices", "requests"): [
        {"name": "two", "exactly": {"deviceClassName": "gpu", "count": 2}}]})
    assert [(r.name, r.exactly.count) for r in edited.devices.requests if r.exactly] == [("two", 2)]
