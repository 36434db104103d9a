"""What the page looks at: the inputs, the engine's options, and the current
:class:`~kubesched.ui.ClusterView` built from them.

The inputs come from the command's one input path (manifests, a live cluster, or both, read
by ``kubesched.cli``'s loader exactly as ``simulate`` and ``explain`` read them); the
workspace only keeps the loaded objects and runs the engine on them: the simulation
``simulate`` runs, with the same configuration, feature gates and seed, and, for one pod, the
explanation ``explain`` gives (a :class:`kubesched.simulator.PodExplainer` per view: the
loaded state's store and scheduler are built at the first decision and kept, each decision then
one dry run on them, with ``explain``'s answer). A new
input (a reload, the live cluster changing) builds a new view, replacing the old one whole:
readers never see half of one. Waiters (the page's event stream) are told each new version,
and, while a simulation runs (a large cluster takes a while), its progress.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Final

from ..api import NEWEST_KUBE_VERSION
from ..api.loader import LoadedObjects
from ..scheduler import ExplainError
from ..simulator import (
    PodExplainer,
    ProgressFn,
    Simulator,
    explanation_json,
    snapshot_pieces,
    split_pod_key,
    state_pieces,
)
from ._view import ClusterView

__all__ = ["Workspace"]

log = logging.getLogger(__name__)

PROGRESS_SECONDS: Final = 0.25
"""Waiters hear of a running simulation's progress at most this often."""

_DECISIONS_KEPT: Final = 64
"""Explanations kept per view (one is a scheduling cycle over every node: worth keeping)."""


class Workspace:
    """``loaded``: the objects read; ``config``: the SchedulerConfig (None: kube-scheduler's
    defaults); ``features``, ``seed``: as ``simulate --feature-gates --seed``; ``reload``:
    reads the inputs again (``POST /api/reload``), None when there is nothing to re-read;
    ``describe``: what the inputs are, for the page's header; ``progress``: also told each
    simulation's progress (pods placed, pods to place), as ``Simulator.run`` tells it."""

    def __init__(self, loaded: LoadedObjects, config: Any = None, *, seed: int = 0,
                 features: Mapping[str, bool] | None = None,
                 reload: Callable[[], LoadedObjects] | None = None, describe: str = "",
                 live: bool = False, progress: ProgressFn | None = None) -> None:
        self.config = config
        self.seed = seed
        self.features = dict(features or {})
        self.describe = describe
        self.live = live
        self._reload = reload
        self._cond = threading.Condition()
        self._closed = False
        self._building = threading.Lock()
        self.error = ""
        """Why the last rebuild failed (the view before it is kept), or empty."""
        self._progress_to = progress
        self.progress: tuple[int, int] | None = None
        """(pods placed, pods to place) of the simulation running now, None between runs."""
        self._tick = 0  # counts the progress told, so that a waiter sees each
        self._told = 0.0
        self._decisions: OrderedDict[tuple[int, str], tuple[int, bytes]] = OrderedDict()
        self._explainer: tuple[int, PodExplainer] | None = None  # the view's version, its explainer
        self._explaining = threading.Lock()  # one explainer per view, one decision at a time
        self._view = self._build(1, loaded)

    # -- the view ----------------------------------------------------------------------------
    @property
    def view(self) -> ClusterView:
        return self._view

    @property
    def kube_version(self) -> str:
        """The release the engine behaves as (the configuration's; kube-scheduler's newest
        without one, as the scheduler's defaults)."""
        version = getattr(self.config, "kube_version", None)
        return str(version if version is not None else NEWEST_KUBE_VERSION)

    def _build(self, version: int, loaded: LoadedObjects) -> ClusterView:
        try:
            sim = Simulator(loaded, self.config, self.seed, self.features).run(self._on_progress)
        finally:
            self.progress = None
        return ClusterView(version, loaded, sim)

    def _on_progress(self, done: int, total: int) -> None:
        if self._progress_to is not None:
            self._progress_to(done, total)
        now = time.monotonic()  # called on every pod placed: waiters are told now and then
        if now - self._told < PROGRESS_SECONDS:
            return
        self._told = now
        self.progress = (done, total)
        with self._cond:
            self._tick += 1
            self._cond.notify_all()

    def replace(self, loaded: LoadedObjects) -> ClusterView:
        """Build the view of ``loaded`` and make it current; waiters are woken. Raises what
        the simulation raises (the current view stays)."""
        with self._building:
            try:
                view = self._build(self._view.version + 1, loaded)
            except Exception as exc:
                self.failed(exc)
                raise
            self.error = ""
            self._view = view
            self._notify()
            return view

    def failed(self, exc: BaseException) -> None:
        """A new input could not be read or run: said in :attr:`error` (one line) and told to
        waiters; the current view stays."""
        self.error = " ".join(str(exc).split("\n"))
        self._notify()

    def reload(self) -> ClusterView:
        """Read the inputs again and rebuild; ValueError when there is nothing to re-read, or
        what reading raises (told as :meth:`failed`)."""
        if self._reload is None:
            raise ValueError("nothing to reload: the input was read from stdin")
        try:
            loaded = self._reload()
        except Exception as exc:
            self.failed(exc)
            raise
        return self.replace(loaded)

    # -- answers -----------------------------------------------------------------------------
    def decision(self, key: str) -> tuple[int, bytes]:
        """``explain -o json``'s bytes for ``--pod key`` on the current view's input: (200,
        the JSON), or (400/404, a one-line error). Kept per view."""
        view = self._view
        cached = self._decisions.get((view.version, key))
        if cached is not None:
            return cached
        with self._explaining:
            try:
                kind, namespace, name = split_pod_key(key)
                e, simulated = self._explainer_for(view.version, view.loaded).explain(kind, namespace, name)
                answer = (200, explanation_json(e, simulated).encode())
            except ExplainError as exc:  # an unknown, bound or deleted pod
                answer = (404, f"{exc}\n".encode())
            except ValueError as exc:  # a key that is no pod's
                answer = (400, f"{exc}\n".encode())
        self._decisions[(view.version, key)] = answer
        while len(self._decisions) > _DECISIONS_KEPT:
            self._decisions.popitem(last=False)
        return answer

    def _explainer_for(self, version: int, loaded: LoadedObjects) -> PodExplainer:
        """The explainer of view ``version`` (the one before it, if any, is closed: a newer
        view replaced it)."""
        if self._explainer is not None and self._explainer[0] == version:
            return self._explainer[1]
        if self._explainer is not None:
            self._explainer[1].close()
        explainer = PodExplainer(loaded, config=self.config, seed=self.seed, features=self.features)
        self._explainer = (version, explainer)
        return explainer

    def snapshot(self) -> Iterator[str]:
        """The input as ``kubesched snapshot`` writes it, a piece at a time (of the view as it
        is now: a reload meanwhile does not change it)."""
        return snapshot_pieces(self._view.loaded)

    def state(self) -> Iterator[str]:
        """The simulated end state as ``simulate -o yaml`` writes it, a piece at a time."""
        return state_pieces(self._view.sim)

    # -- waiting for a change ----------------------------------------------------------------
    def _notify(self) -> None:
        with self._cond:
            self._tick += 1
            self._cond.notify_all()

    def wait_for_change(self, seen: int, seen_tick: int, timeout: float) -> tuple[int, int] | None:
        """(the view's version, the progress tick) once either differs from ``seen``,
        ``seen_tick`` (at once if one does), else the same after ``timeout`` seconds; None once
        the workspace is closed. The progress itself is :attr:`progress`."""
        def changed() -> bool:
            return self._closed or self._view.version != seen or self._tick != seen_tick

        with self._cond:
            self._cond.wait_for(changed, timeout)
            return None if self._closed else (self._view.version, self._tick)

    def close(self) -> None:
        """Wake and end every waiter (the server is stopping)."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
