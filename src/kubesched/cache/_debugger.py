"""Cache consistency check: compare the cache with the store's objects.

Mirrors pkg/scheduler/backend/cache/debugger/comparer.go (master 2026): nodes and pods the store
has but the cache lacks are "missed", those the cache has but the store lacks are "redundant".
Pods waiting in the scheduling queue count as known to the scheduler, as upstream passes the
queue's pending pods alongside the cache's. Upstream lists pods through the scheduler's pod
lister, whose informer never holds finished pods (Succeeded or Failed): they are not missed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..api import Node, Pod

if TYPE_CHECKING:
    from ._cache import Cache

__all__ = ["CacheDiff", "compare"]


@dataclass(frozen=True, slots=True)
class CacheDiff:
    missed_nodes: tuple[str, ...] = ()
    redundant_nodes: tuple[str, ...] = ()
    missed_pods: tuple[str, ...] = ()  # pod uids
    redundant_pods: tuple[str, ...] = ()

    @property
    def consistent(self) -> bool:
        return not (self.missed_nodes or self.redundant_nodes or self.missed_pods or self.redundant_pods)


def _diff(actual: Iterable[str], cached: Iterable[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """compareStrings: (in actual not cached, in cached not actual), sorted."""
    a, c = set(actual), set(cached)
    return tuple(sorted(a - c)), tuple(sorted(c - a))


def compare(cache: Cache, nodes: Iterable[Node], pods: Iterable[Pod],
            pending_pods: Iterable[Pod] = ()) -> CacheDiff:
    """CacheComparer.Compare: ``pods`` are all the store's pods (finished ones are skipped, as
    the scheduler's pod lister never returns them); ``pending_pods`` the queue's."""
    dump = cache.dump()
    missed_nodes, redundant_nodes = _diff((n.name for n in nodes), dump.nodes)
    cached = [pi.pod.uid for ni in dump.nodes.values() for pi in ni.pods]
    cached.extend(p.uid for p in pending_pods)
    missed_pods, redundant_pods = _diff((p.uid for p in pods if not p.is_terminal), cached)
    return CacheDiff(missed_nodes, redundant_nodes, missed_pods, redundant_pods)
