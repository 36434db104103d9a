"""Out-of-range quantities side by side with the real kube-scheduler of each release: a node
whose allocatable cpu is ``1E`` (10^21 millicores, beyond int64) and a pod asking ``cpu: 1E``.
Every release before v1.37 wraps such an amount (``MilliValue()`` of ``1E`` is 0: the node has
no cpu, the pod asks none); v1.37's apimachinery saturates it (kubernetes PR #141305).
kubesched reads them as the release it behaves as (the ``QuantityValueSaturates`` switch)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from kubesched.api import KubeVersion, parse_object, read_out_of_range_quantities
from kubesched.framework import read_quantities_as
from kubesched.framework.config import default_config
from kubesched.scheduler import explain

from . import _side_by_side as sbs
from ._kube import create, node_manifest, rest_for
from .conftest import ControlPlane


@contextmanager
def _reading_as(release: KubeVersion) -> Iterator[None]:
    read_quantities_as(release)
    try:
        yield
    finally:
        read_out_of_range_quantities(True)


def test_out_of_range_quantities_are_read_as_the_release_reads_them(
        release_plane: tuple[ControlPlane, KubeVersion]) -> None:
    cp, release = release_plane
    rest = rest_for(cp)
    namespace = "huge"
    huge = node_manifest("huge-n0", "1E", "8Gi")
    small = node_manifest("huge-n1", "2", "8Gi")
    pods = [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": namespace},
             "spec": {"terminationGracePeriodSeconds": 0, "containers": [{
                 "name": "c", "image": "registry.invalid/pause", "resources": {"requests": {"cpu": cpu}}}]}}
            for name, cpu in (("half-cpu", "500m"), ("exa-cpu", "1E"))]
    mismatches = []
    with sbs.scenario(rest, namespace) as owned:
        sbs.create_nodes(rest, [huge], owned)
        with _reading_as(release):
            ours = explain([parse_object(o) for o in (huge, pods[0])], namespace, "half-cpu",
                           config=default_config(kube_version=release))
        create(rest, pods[0])
        theirs = sbs.decided(rest, namespace, "half-cpu")
        if not sbs.agrees(ours, theirs):
            mismatches.append(f"half-cpu on cpu 1E: kube-scheduler {theirs}, kubesched {ours.selected_node} "
                              f"({ours.message})")
        sbs.create_nodes(rest, [small], owned)
        state = [huge, small] + ([pods[0] | {"spec": {**pods[0]["spec"], "nodeName": theirs}}]
                                 if isinstance(theirs, str) else [])
        with _reading_as(release):
            ours = explain([parse_object(o) for o in (*state, pods[1])], namespace, "exa-cpu",
                           config=default_config(kube_version=release))
        if theirs is True:  # the first is still pending: out of the way
            rest.request("DELETE", f"/api/v1/namespaces/{namespace}/pods/half-cpu")
        create(rest, pods[1])
        theirs = sbs.decided(rest, namespace, "exa-cpu")
        if not sbs.agrees(ours, theirs):
            mismatches.append(f"exa-cpu: kube-scheduler {theirs}, kubesched {ours.selected_node} "
                              f"({ours.message})")
    assert not mismatches, "\n".join(mismatches)
