"""``--max-pods`` for a trace: the pods a replay would make, counted while its events are checked.

What each object accounts for is :func:`kubesched.controllers.planned_share` (replicas,
completions or parallelism, a DaemonSet one pod per node, a pod one). Over a trace the count
only grows: a created workload adds its share, a ``scale`` or an ``update`` adds what it raises
the share by (scaling down and up again creates pods again), a new node one pod per DaemonSet,
a created pod one; a deletion gives nothing back (its pods were created). The event that takes
the count over the limit is named, with nothing applied.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..api import DaemonSet, Job, Node, kind_of
from ..api.loader import ApiObject
from ..controllers import planned_pods, planned_share
from ._reader import TraceError

__all__ = ["PodBudget"]

Key = tuple[str, str, str]


def _key(obj: ApiObject) -> Key:
    return (kind_of(obj), obj.meta.namespace, obj.meta.name)


def _describe(key: Key) -> str:
    kind, ns, name = key
    return f"{kind} {ns}/{name}" if ns else f"{kind} {name}"


class PodBudget:
    def __init__(self, max_pods: int, cluster: Sequence[ApiObject], where: str) -> None:
        """``cluster``: the objects admitted before the first event (``where`` names them)."""
        self.max_pods = max_pods
        self.nodes = sum(1 for o in cluster if isinstance(o, Node))
        self.daemonsets: set[Key] = {_key(o) for o in cluster if isinstance(o, DaemonSet)}
        self.completions: dict[Key, int | None] = {
            _key(o): o.completions for o in cluster if isinstance(o, Job)}
        planned = planned_pods(cluster)
        self.share: dict[Key, int] = {_key(p.obj): p.pods for p in planned}
        self.total = sum(p.pods for p in planned)
        if self.total > max_pods:
            most = max(planned, key=lambda p: p.pods)
            self._refuse(f"{where} ({_describe(_key(most.obj))}): {most.why}")

    def _refuse(self, what: str) -> None:
        raise TraceError(f"{what}: the trace would create {self.total:,} pods, more than --max-pods "
                         f"{self.max_pods:,} (raise --max-pods to run it)")

    def _add(self, n: int, what: str) -> None:
        self.total += max(n, 0)
        if self.total > self.max_pods:
            self._refuse(what)

    def create(self, obj: ApiObject, where: str) -> None:
        key = _key(obj)
        if isinstance(obj, Node):
            self.nodes += 1
            self._add(len(self.daemonsets), f"{where} ({_describe(key)}): one pod per DaemonSet, "
                                            f"{len(self.daemonsets):,} DaemonSets")
            return
        if isinstance(obj, DaemonSet):
            self.daemonsets.add(key)
        if isinstance(obj, Job):
            self.completions[key] = obj.completions
        share = planned_share(obj, self.nodes)
        if share is not None:
            self.share[key] = share.pods
            self._add(share.pods, f"{where} ({_describe(key)}): {share.why}")

    def update(self, obj: ApiObject, where: str) -> None:
        key = _key(obj)
        share = planned_share(obj, self.nodes)
        if share is None or isinstance(obj, Node):
            return
        if isinstance(obj, Job):
            self.completions[key] = obj.completions
        before = self.share.get(key, 0)
        self.share[key] = share.pods
        self._add(share.pods - before, f"{where} ({_describe(key)}): {share.why}")

    def scale(self, key: Key, replicas: int, where: str) -> None:
        """A Job's scale sets its parallelism: it changes nothing when completions is set."""
        pods = replicas if key[0] != "Job" or self.completions.get(key) is None else self.share.get(key, 0)
        before = self.share.get(key, 0)
        self.share[key] = pods
        self._add(pods - before, f"{where} ({_describe(key)}): scale to {replicas:,}")

    def delete(self, key: Key) -> None:
        self.share.pop(key, None)
        self.daemonsets.discard(key)
        if key[0] == "Node":
            self.nodes -= 1
