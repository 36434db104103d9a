"""The claims pods name directly (``resourceClaimName``), pruned as their pods go.

Not upstream's: upstream's queue asks isSchedulableAfterClaimChange of every waiting pod, while
kubesched's registration names the candidate pods of a claim event (the claim's owners), and
falls back to every pod only for a claim some pod names directly (a claim anyone may create,
owned by nobody). Those names are remembered from the pods the plugin sees in PreEnqueue and
PreFilter (every pod it rejects has passed through one of them), each with the pods that named
it. An entry matters only while one of those pods exists (a pod that is gone waits for nothing),
so an entry whose pods are all gone is dropped: when it is looked up, and in a sweep each time
the table has doubled since the last one (amortized O(1) per entry). The table therefore stays
about as large as the set of claims named by existing pods, however many claims come and go.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from kubesched.api import Pod

__all__ = ["NamedClaims"]

_Key = tuple[str, str]
_PodRef = tuple[str, str]  # (name, uid); the namespace is the claim's
_MIN_SWEEP: int = 64


class NamedClaims:
    """(namespace, claim name) -> the pods seen naming it."""

    def __init__(self, pod_exists: Callable[[str, str, str], bool]) -> None:
        self._pod_exists = pod_exists  # (namespace, name, uid) -> does that pod still exist
        self._pods: dict[_Key, set[_PodRef]] = {}
        self._sweep_at = _MIN_SWEEP
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._pods)

    def __contains__(self, key: object) -> bool:
        """Whether an existing pod names the claim ``key`` (an entry whose pods are all gone is
        dropped here)."""
        refs = self._pods.get(key)  # type: ignore[call-overload]
        if refs is None:
            return False
        assert isinstance(key, tuple)
        if self._alive(key, refs):
            return True
        with self._lock:
            if self._pods.get(key) is refs:
                del self._pods[key]
        return False

    def note(self, pod: Pod) -> None:
        """Remember the claims ``pod`` names directly."""
        for pc in pod.resource_claims:
            if pc.resource_claim_name is None:
                continue
            key = (pod.namespace, pc.resource_claim_name)
            ref = (pod.name, pod.uid)
            refs = self._pods.get(key)
            if refs is not None and ref in refs:
                continue
            with self._lock:
                self._pods.setdefault(key, set()).add(ref)
            if len(self._pods) >= self._sweep_at:
                self._sweep()

    def _alive(self, key: _Key, refs: set[_PodRef]) -> bool:
        """Whether one of ``refs`` still exists; the gone ones are forgotten."""
        gone = {r for r in list(refs) if not self._pod_exists(key[0], r[0], r[1])}
        if gone:
            with self._lock:
                refs -= gone
        return bool(refs)

    def _sweep(self) -> None:
        for key, refs in list(self._pods.items()):
            if not self._alive(key, refs):
                with self._lock:
                    if self._pods.get(key) is refs and not refs:
                        del self._pods[key]
        self._sweep_at = max(_MIN_SWEEP, 2 * len(self._pods))
