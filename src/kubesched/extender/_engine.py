"""The extender's decisions: a kubesched profile answering kube-scheduler's extender verbs.

What kube-scheduler asks an extender (pkg/scheduler/extender.go, master 2026) answered with one
profile of a kubesched configuration, by the same framework calls the scheduler makes
(schedule_one.go's findNodesThatFitPod and prioritizeNodes, DefaultPreemption's
SelectVictimsOnNode), so that the answers agree with ``kubesched explain``:

- **filter**: PreFilter, then every Filter plugin on every node named (no
  ``percentageOfNodesToScore`` cut-off and no nominated-node shortcut: the extender answers
  for each node it is given);
- **prioritize**: PreFilter (for the cycle state), PreScore, Score, NormalizeScore and the
  weights, the totals scaled to 0..MaxExtenderPriority by :func:`scale_to_extender` (the
  best node 10, as DefaultNormalizeScore);
- **preempt**: ProcessPreemption (:mod:`._preempt`);
- **bind**: the Binding, written through the store (``pods/binding`` on a live cluster).

Where node and pod state comes from (:class:`NodeView`): ``request`` (``--no-cache``): the full
Node objects of each request are the cluster, with no pods (an extender without informers sees
none); ``store``: a :class:`~kubesched.cluster.Store` kept in sync by the scheduler's event
handlers (a MemoryStore in tests; the live store's informers for ``nodeCacheCapable: true``),
the request naming the nodes; ``hybrid`` (``--no-cache`` with a kubeconfig): the request's
Node objects replace the store's copies in the cache, the pods on them are the store's.
Calls are serialized by one lock: the framework, its cycle state
and the cache are not thread-safe, and one cycle is milliseconds. The store's changes reach the
cache under the same lock: synchronously for a MemoryStore (its writes are made under it), and
for the live store by its clock's delivery (:attr:`ExtenderEngine.catch_up`) at the start of
each answer and from a delivery thread (see :mod:`._live`), so that an answer never sees a
cache half-updated.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from ..api import Node, Pod
from ..api.extenderv1 import (
    MAX_EXTENDER_PRIORITY,
    ExtenderArgs,
    ExtenderBindingArgs,
    ExtenderBindingResult,
    ExtenderFilterResult,
    ExtenderPreemptionArgs,
    ExtenderPreemptionResult,
    HostPriority,
)
from ..clock import VirtualClock
from ..cluster import MemoryStore, NotFound, Store, StoreError
from ..framework import Code, NodeBatch, Status
from ..framework.config import SchedulerConfig, default_config
from ..process import HeapFreezer
from ..scheduler import DryRun, FeasibleNodes, Scheduler

if TYPE_CHECKING:
    from ..cache import NodeInfo
    from ..framework import Framework

__all__ = ["EngineError", "ExtenderEngine", "NodeView", "RequestError", "profile_name", "scale_to_extender"]

_log = logging.getLogger(__name__)


_ROWS_REMEMBERED = 128
"""Node name lists whose snapshot rows the engine remembers (see ExtenderEngine._rows): 3.4 KB
each at 420 names."""


class RequestError(ValueError):
    """The request cannot be answered as asked (a client error: HTTP 4xx)."""


class EngineError(RuntimeError):
    """A plugin failed (an Error status): the server's fault, HTTP 500."""


class NodeView(StrEnum):
    """Where node and pod state comes from."""

    request = "request"
    store = "store"
    hybrid = "hybrid"
    """Nodes from each request's Node objects, pods on them from the store (``--no-cache``
    with a kubeconfig)."""


def _log_blind(verb: str, what: str, detail: str) -> None:
    _log.debug("%s: answered without seeing %s (%s)", verb, what, detail)


_TYPE_META = frozenset({"kind", "apiVersion"})


def _same_manifest(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Whether two manifests are equal but for their TypeMeta (kube-scheduler's copy of a pod
    has no ``kind`` and ``apiVersion``; the informers' has them): then they parse to the same
    Pod (the parser reads neither)."""
    if a is b:
        return True
    if a.get("metadata") != b.get("metadata"):  # another pod or version: most often told here
        return False
    return all(a.get(k) == b.get(k) for k in a.keys() | b.keys() if k not in _TYPE_META)


def _ignore(_: str) -> None:
    pass


def scale_to_extender(totals: npt.ArrayLike) -> list[int]:
    """The nodes' framework totals (sum of normalized score x weight) as extender scores
    0..MaxExtenderPriority: DefaultNormalizeScore(MaxExtenderPriority, false, scores)
    (pkg/scheduler/framework/plugins/helper/normalize_score.go), ``total * 10 // max`` over the
    nodes of the request. The node the profile ranks first gets 10, as a plugin's best node
    gets MaxNodeScore, so the profile's first choice stays first behind kube-scheduler's own
    scores; a node scoring below it gets less than 10 however small the gap. (Scaling against
    the best *possible* total instead gave nodes within a tenth of the range the same score,
    and kube-scheduler's own LeastAllocated then broke the tie: a MostAllocated profile's pods
    spread.) All totals 0 (no score plugin): all 0. kube-scheduler multiplies each score back
    by MaxNodeScore / MaxExtenderPriority (10) and by the extender's ``weight``."""
    arr = np.asarray(totals, dtype=np.int64)
    best = int(arr.max()) if arr.size else 0
    if best <= 0:
        return [0] * int(arr.size)
    # non-negative totals: // is Go's /
    out: list[int] = (np.clip(arr, 0, None) * MAX_EXTENDER_PRIORITY // best).tolist()
    return out


def _every_node(cfg: SchedulerConfig) -> SchedulerConfig:
    """The configuration as the extender runs it: every node evaluated (percentage 100), no
    extenders of its own (an extender does not call extenders)."""
    profiles = tuple(dataclasses.replace(p, percentage_of_nodes_to_score=100) for p in cfg.profiles)
    return dataclasses.replace(cfg, percentage_of_nodes_to_score=100, profiles=profiles, extenders=())


def profile_name(cfg: SchedulerConfig, profile: str | None) -> str:
    """The profile to serve: ``profile`` (a ``schedulerName`` of ``cfg``), else the first;
    ValueError naming the profiles when there is no such one."""
    names = [p.scheduler_name for p in cfg.profiles]
    name = profile if profile is not None else names[0]
    if name not in names:
        raise ValueError(f"--profile {name!r}: the configuration has no such profile "
                         f"(profiles: {', '.join(names)})")
    return name


@dataclasses.dataclass(frozen=True, slots=True)
class _Ahead:
    """Scores computed after a filter answer (:meth:`ExtenderEngine.warm_prioritize`): for
    ``pod`` and ``names`` with the cluster as of ``cluster``."""

    pod: Pod
    names: list[str]
    cluster: tuple[int, int]
    totals: npt.NDArray[np.int64]


@dataclasses.dataclass(frozen=True, slots=True)
class _Filtered:
    """The nodes a filter answer kept (``names``) and their snapshot ``rows``, for ``pod``
    with the cluster as of ``cluster``: what scoring ahead starts from."""

    pod: Pod
    names: list[str]
    cluster: tuple[int, int]
    rows: npt.NDArray[np.int64]


class ExtenderEngine:
    """One profile serving the extender verbs over a node view.

    ``config``: a SchedulerConfig (kube-scheduler's defaults when None); ``profile``: its
    ``schedulerName`` (the first profile when None); ``store``: the cluster for the ``store``
    view (None: the ``request`` view over an internal store); ``nodes_from_request`` with a
    store: the ``hybrid`` view (the request's Node objects, the store's pods)."""

    def __init__(self, config: SchedulerConfig | None = None, profile: str | None = None, *,
                 store: Store | None = None, seed: int = 0, nodes_from_request: bool = False) -> None:
        cfg = _every_node(config if config is not None else default_config())
        name = profile_name(cfg, profile)
        if store is None:
            self.view = NodeView.request
        else:
            self.view = NodeView.hybrid if nodes_from_request else NodeView.store
        self.store: Store = store if store is not None else MemoryStore(VirtualClock())
        self.sched = Scheduler(self.store, config=cfg, seed=seed)
        self.fwk: Framework = self.sched.profiles[name]
        self.profile_name = name
        self.freezer = HeapFreezer()
        self._lock = threading.Lock()
        self._seen: dict[str, Any] = {}  # request view: node name -> the manifest last synced
        self._request_only: set[str] = set()  # hybrid view: nodes the informers did not know
        self._epoch = 0  # bumped by every delivery of the store's changes (_catch_up)
        self.catch_up: Callable[[], int] | None = None
        """Applies the store's changes received so far to the cache (the live view's clock's
        ``run_due``; None when the store delivers them as it makes them); how many ran."""
        self._last_pod: Pod | None = None  # the pod of the last filter or prioritize
        self._warm: _Ahead | None = None
        self._filtered: _Filtered | None = None
        self._rows_of: dict[str, npt.NDArray[np.int64]] = {}  # see _rows
        self._rows_index: dict[str, int] | None = None
        self.blind: Callable[[str, str, str], None] = _log_blind
        self.ahead: Callable[[str], None] = _ignore
        """Told how each /prioritize met the scores computed ahead (:meth:`warm_prioritize`):
        ``hit`` (answered from them), ``stale`` (computed for this pod and these names, but
        the cluster changed since), ``other`` (for another pod or other names), ``none``."""
        """Told (verb, what, detail) whenever an answer is given without seeing something it
        depends on: ``what`` is ``pods``, ``nodes`` or ``victims`` (a metric label, bounded),
        ``detail`` names the objects (for the log only)."""

    def close(self) -> None:
        self.sched.close()
        self.freezer.release()

    def settle(self) -> None:
        """Take the first snapshot and move everything built so far (the cluster as listed or
        loaded) out of the cyclic garbage collector's reach, the young generation collected
        less often (the process's policy: :class:`~kubesched.process.HeapFreezer`'s
        ``settle``; ``close`` releases it). Those objects live as long as the server; left in
        the collector's view, every full collection walks all of them (hundreds of
        milliseconds at 5000 nodes), inside whichever request triggers it. Objects built later
        (the informers' updates) are collected as usual. Call once, when the engine is ready
        to serve."""
        with self._lock:
            self.sched.cache.update_snapshot(self.sched.snapshot)
        self.freezer.settle()

    def deliver(self) -> int:
        """Apply the store's changes received so far to the cache (:attr:`catch_up`, under the
        engine's lock): the live view's delivery thread calls it between answers; how many
        timers ran."""
        with self._lock:
            return self._catch_up()

    def _catch_up(self) -> int:
        """(Lock held.) :attr:`catch_up`; a delivery that ran anything is a change of the
        cluster (:meth:`_cluster_key`)."""
        if self.catch_up is None:
            return 0
        try:
            n = self.catch_up()
        except Exception:  # a handler's bug: the answer goes on, as the delivery thread does
            _log.exception("delivering cluster changes")
            n = 1  # something may have changed
        if n:
            self._epoch += 1
        return n

    @contextlib.contextmanager
    def _answering(self) -> Iterator[None]:
        """The engine's lock for an answer, with the store's changes received before it
        applied first: an answer sees every change its informers had when it began."""
        with self._lock:
            self._catch_up()
            yield

    def _cluster_key(self) -> tuple[int, int]:
        """What an answer depends on besides the pod: the cluster's state (the store's
        resourceVersion and the deliveries of its changes)."""
        return self.store.resource_version, self._epoch

    def args(self, doc: Any) -> ExtenderArgs:
        """A filter or prioritize request's ExtenderArgs, its pod parsed only when no equal
        manifest was parsed already (:meth:`known_pod`). Raises WireError."""
        args = ExtenderArgs.from_json(doc, self.known_pod)
        self._last_pod = args.pod
        return args

    def known_pod(self, raw: Mapping[str, Any]) -> Pod | None:
        """A Pod parsed from a manifest equal to ``raw`` but for TypeMeta, else None.

        Parsing the pod is a fifth of a request's work, and kube-scheduler sends the same pod
        twice per cycle (/filter, then /prioritize) as its informer holds it: in the store's
        views the same version the extender's own informers parsed already. The last request's
        pod, then the store's copy of that pod (the store view: a pending pod is in the
        informers' cache), are taken when their manifests equal ``raw``, so the Pod is the one
        parsing ``raw`` would give."""
        last = self._last_pod
        if last is not None and _same_manifest(last.raw, raw):
            return last
        if self.view is NodeView.request:  # the internal store holds no pods
            return None
        md = raw.get("metadata")
        name = md.get("name") if isinstance(md, Mapping) else None
        namespace = md.get("namespace") or "" if isinstance(md, Mapping) else None
        if not isinstance(name, str) or not isinstance(namespace, str):
            return None
        held = self.store.try_get("Pod", namespace, name)
        if isinstance(held, Pod) and _same_manifest(held.raw, raw):
            return held
        return None

    # -- the node view --------------------------------------------------------------------------
    def _nodes_of(self, args: ExtenderArgs, verb: str) -> tuple[list[str], FeasibleNodes]:
        """The request's node names and their NodeInfos in a fresh snapshot, in the request's
        order, as snapshot rows (so that the batch filter and score paths read the columns
        without looking each node up again)."""
        if self.view is NodeView.request:
            if args.nodes is None:
                raise RequestError("this extender runs with --no-cache and needs full Node objects "
                                   "(nodeCacheCapable: false), got node names only")
            self._sync(args.nodes)
            names = [n.name for n in args.nodes]
            self.blind(verb, "pods", "--no-cache: no pod is visible on any node")
        elif self.view is NodeView.hybrid:
            if args.nodes is None:
                raise RequestError("this extender runs with --no-cache and needs full Node objects "
                                   "(nodeCacheCapable: false), got node names only")
            self._apply(args.nodes)
            names = [n.name for n in args.nodes]
        else:
            names = list(args.node_names if args.node_names is not None
                         else [n.name for n in args.nodes or []])
        self.sched.cache.update_snapshot(self.sched.snapshot)
        snap = self.sched.snapshot
        return names, FeasibleNodes(snap.infos_array(), self._rows(names, snap.node_index))

    def _rows(self, names: list[str], index: dict[str, int]) -> npt.NDArray[np.int64]:
        """The snapshot rows of ``names`` (read-only), remembered for the last
        ``_ROWS_REMEMBERED`` lists while the snapshot's node index stays the same object.

        Looking up hundreds of freshly decoded names (hashing each) was the largest single
        step of a /filter; kube-scheduler sends the same lists again and again (its node list
        walked from a rotating start, the feasible ones after its own filters), and joining
        the names into one key is a single pass in C."""
        if self._rows_index is not index:
            self._rows_of.clear()
            self._rows_index = index
        try:
            key = "\0".join(names)
        except TypeError:  # the wire layer lets only strings through
            raise RequestError("node names must be strings") from None
        # No name holds a NUL (node names cannot): then the key tells the list it came from.
        known = len(names) > 1 and key.count("\0") == len(names) - 1
        rows = self._rows_of.get(key) if known else None
        if rows is not None:
            return rows
        try:
            rows = np.fromiter(map(index.__getitem__, names), dtype=np.int64, count=len(names))
        except KeyError as exc:
            raise RequestError(f'node "{exc.args[0]}" not found') from None
        if known:
            rows.flags.writeable = False
            if len(self._rows_of) >= _ROWS_REMEMBERED:
                del self._rows_of[next(iter(self._rows_of))]
            self._rows_of[key] = rows
        return rows

    def _sync(self, nodes: Sequence[Node]) -> None:
        """Make the internal store hold exactly ``nodes`` (the request view)."""
        want: dict[str, Node] = {}
        for n in nodes:
            if not n.name:
                raise RequestError("a node without metadata.name")
            if n.name in want:
                raise RequestError(f'node "{n.name}" is listed twice')
            want[n.name] = n
        for name in [k for k in self._seen if k not in want]:
            del self._seen[name]
            with contextlib.suppress(NotFound):
                self.store.delete("Node", "", name)
        for name, node in want.items():
            raw = node.raw
            if self._seen.get(name) == raw:
                continue
            # The store stamps its own resourceVersion and uid: the request's would conflict.
            meta = {k: v for k, v in (raw.get("metadata") or {}).items() if k != "resourceVersion"}
            clean = Node.from_dict({**raw, "metadata": meta})
            try:
                if name in self._seen:
                    self.store.update(clean)
                else:
                    self.store.create(clean)
            except StoreError as exc:  # the store's admission refused the object
                raise RequestError(f'node "{name}": {exc}') from exc
            self._seen[name] = raw

    def _apply(self, nodes: Sequence[Node]) -> None:
        """The hybrid view: the request's Node objects replace the cache's (the informers'
        version, or none) for the nodes named; the pods on them stay the store's. A node the
        informers updated since is put back to the request's version.

        A node only requests have shown (the informers do not know it) exists for as long as
        the requests naming it: the next request without it removes it from the cache (it
        would otherwise stay in every later snapshot, e.g. as an empty topology domain of
        PodTopologySpread), or hands it back to the informers' copy if they have one by then."""
        seen: set[str] = set()
        cache = self.sched.cache
        for n in nodes:
            if not n.name:
                raise RequestError("a node without metadata.name")
            if n.name in seen:
                raise RequestError(f'node "{n.name}" is listed twice')
            seen.add(n.name)
            if self.store.try_get("Node", "", n.name) is None:
                self._request_only.add(n.name)
            held = cache.node(n.name)
            if held is n or (held is not None and held.raw == n.raw):
                continue
            cache.update_node(held, n)
        for name in self._request_only - seen:
            self._request_only.discard(name)
            held = cache.node(name)
            if held is None:
                continue
            informers = self.store.try_get("Node", "", name)
            if not isinstance(informers, Node):
                cache.remove_node(held)
            elif held is not informers:
                cache.update_node(held, informers)

    # -- filter ---------------------------------------------------------------------------------
    def filter(self, args: ExtenderArgs) -> ExtenderFilterResult:
        """The profile's PreFilter and Filter on every node of the request."""
        with self._answering():
            names, infos = self._nodes_of(args, "filter")
            statuses = self._filter_statuses(args.pod, infos)
            cluster = self._cluster_key()
        failed: dict[str, str] = {}
        unresolvable: dict[str, str] = {}
        messages: dict[int, str] = {}  # thousands of nodes share a handful of Status objects
        for name, st in statuses.items():
            if st.is_success():
                continue
            msg = messages.get(id(st))
            if msg is None:
                msg = messages[id(st)] = st.message()
            if st.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                unresolvable[name] = msg
            else:
                failed[name] = msg
        keep, rows = names, infos.rows
        if failed or unresolvable:
            fits = [n not in failed and n not in unresolvable for n in names]
            keep = [n for n, fit in zip(names, fits, strict=True) if fit]
            rows = rows[np.fromiter(fits, dtype=bool, count=len(fits))]
        result = ExtenderFilterResult(failed_nodes=failed, failed_and_unresolvable_nodes=unresolvable)
        if args.nodes is not None:
            kept = set(keep)
            result.nodes = [n for n in args.nodes if n.name in kept]
        else:
            result.node_names = keep
            self._filtered = _Filtered(args.pod, keep, cluster, rows)
        return result

    def _filter_statuses(self, pod: Pod, infos: Sequence[NodeInfo]) -> dict[str, Status]:
        """findNodesThatFitPod without its shortcuts (the dry run over every node named): each
        rejected node's status."""
        try:
            return DryRun(self.sched, self.fwk, pod).filter(infos)
        except Exception as err:  # an Error status of PreFilter or of a Filter plugin
            raise EngineError(str(err)) from err

    # -- prioritize -----------------------------------------------------------------------------
    def prioritize(self, args: ExtenderArgs) -> list[HostPriority]:
        """PreScore, Score, NormalizeScore and weights on every node named, scaled 0..10."""
        names, scores = self.prioritize_scores(args)
        return list(map(HostPriority, names, scores))

    def warm_prioritize(self, args: ExtenderArgs, result: ExtenderFilterResult) -> None:
        """Score the nodes a filter answer kept, for the /prioritize kube-scheduler sends next.

        kube-scheduler's cycle calls /filter, runs its own Score plugins, then calls
        /prioritize with the nodes that passed every filter: with a node-cache-capable
        extender, the names the filter answer kept, in the same order. Scoring them once the
        filter answer is sent does the work while kube-scheduler scores, off its critical
        path; :meth:`prioritize_scores` uses the result only for the same pod, the same names
        and an unchanged cluster (no store change, no delivery since), so the answer is the
        one it would compute. The informer view only (the others take nodes from requests)."""
        names = result.node_names
        if self.view is not NodeView.store or names is None or result.error or args.node_names is None:
            return
        with self._answering():
            self._warm = None
            key = self._cluster_key()
            done, self._filtered = self._filtered, None
            try:
                if done is not None and done.names is names and done.pod is args.pod and done.cluster == key:
                    # the snapshot as the filter saw it: its rows of the kept nodes stand
                    infos = FeasibleNodes(self.sched.snapshot.infos_array(), done.rows)
                else:
                    names, infos = self._nodes_of(ExtenderArgs(args.pod, None, names), "prioritize")
                totals = self._scores(args.pod, infos)
            except (RequestError, EngineError) as exc:  # /prioritize will say so, if it comes
                _log.debug("scoring ahead for %s: %s", args.pod.key, exc)
                return
            self._warm = _Ahead(args.pod, names, key, totals)

    def prioritize_scores(self, args: ExtenderArgs) -> tuple[list[str], list[int]]:
        """:meth:`prioritize` as (node names, scores): what the server encodes, without an
        object per node."""
        with self._answering():
            warm, self._warm = self._warm, None
            if warm is None:
                self.ahead("none")
            elif (args.nodes is not None or args.node_names != warm.names
                  or not _same_manifest(warm.pod.raw, args.pod.raw)):
                self.ahead("other")
                warm = None
            elif warm.cluster != self._cluster_key():
                self.ahead("stale")
                warm = None
            else:
                self.ahead("hit")
            if warm is not None:
                names, totals = warm.names, warm.totals
            else:
                names, infos = self._nodes_of(args, "prioritize")
                totals = self._scores(args.pod, infos)
        return names, scale_to_extender(totals)

    def _scores(self, pod: Pod, infos: FeasibleNodes) -> npt.NDArray[np.int64]:
        """The framework totals aligned with ``infos``: prioritizeNodes without extenders, in
        a dry run whose PreFilter fills the cycle state."""
        if not infos or not self.fwk.has_score_plugins():
            return np.zeros(len(infos), dtype=np.int64)
        cycle = DryRun(self.sched, self.fwk, pod)
        _, st, _ = cycle.pre_filter()
        if not st.is_success():
            if not st.is_rejected():
                raise EngineError(st.message())
            _log.info("prioritize %s: PreFilter rejects the pod (%s); every node scores 0",
                      pod.key, st.message())
            return np.zeros(len(infos), dtype=np.int64)
        result, st = cycle.score(infos, NodeBatch(self.sched.snapshot, infos.rows))
        if result is None or not st.is_success():
            raise EngineError(st.message())
        return np.asarray(result.totals, dtype=np.int64)

    # -- preempt --------------------------------------------------------------------------------
    def preempt(self, args: ExtenderPreemptionArgs) -> ExtenderPreemptionResult:
        """ProcessPreemption over the candidates (see :mod:`._preempt`)."""
        from ._preempt import process_preemption

        with self._answering():
            if self.view is not NodeView.request:
                self.sched.cache.update_snapshot(self.sched.snapshot)
            return process_preemption(self, args)

    # -- bind -----------------------------------------------------------------------------------
    def bind(self, args: ExtenderBindingArgs) -> ExtenderBindingResult:
        """The Binding kube-scheduler delegates to a binder extender (DefaultBinder's write),
        through the store: ``pods/binding`` on a live cluster. The API's refusal (the pod is
        gone, already bound, another UID) is the result's ``Error``, as HTTPExtender.Bind reads
        it."""
        if self.view is NodeView.request:
            raise RequestError("binding needs the API server: this extender runs with --no-cache")
        if not args.pod_name or not args.node:
            raise RequestError("ExtenderBindingArgs: PodName and Node are required")
        uid = args.pod_uid or None
        write = getattr(self.store, "create_binding", None)
        try:
            if write is not None:  # the API call alone: no cache state is touched, no lock held
                write(args.pod_namespace, args.pod_name, args.node, uid)
            else:  # an in-process store delivers its events at once: to a cache under the lock
                with self._lock:
                    self.store.bind(args.pod_namespace, args.pod_name, args.node, uid)
        except StoreError as exc:
            # an error, as kube-scheduler logs a failed binding (the API refused it or could
            # not be reached); kube-scheduler gets it in the result too
            _log.error('Failed to bind pod pod="%s/%s" node="%s" err="%s"', args.pod_namespace, args.pod_name,
                       args.node, exc)
            return ExtenderBindingResult(error=str(exc))
        return ExtenderBindingResult()

    def node_info(self, name: str) -> NodeInfo | None:
        """The node as the view knows it (store view), None when it does not."""
        if self.view is NodeView.request:
            return None
        return self.sched.snapshot.get(name)

    def pdbs(self) -> list[Any]:
        return list(self.store.list("PodDisruptionBudget"))
