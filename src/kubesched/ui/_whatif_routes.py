"""The routes of the what-if, configuration, compare and over-time pages, mounted on
:class:`~kubesched.ui.UIApp` beside the cluster's (``UIApp.add_route``).

==============================  ==============================================================
``GET /api/lab``                the editors' starting texts, the effective score weights, the
                                traces that may be replayed, the request body limit, whether
                                the manifests are read ``--strict``
``POST /api/whatif``            ``{manifests, config}``: the inputs with the manifests on top,
                                under the configuration, against the inputs as served (with
                                ``Prefer: respond-async``: a job, 202)
``POST /api/config/check``      ``{config}``: the configuration's problems, or its weights
``POST /api/config/weights``    ``{config, weights}``: the text with the form's weights in it
``POST /api/compare``           ``{a, b, manifests}``: the pods two configurations place apart
                                (with ``Prefer: respond-async``: a job, 202)
``POST /api/compare/reasons``   ``{a, b, manifests, pod}``: each one's per-plugin reasons
``POST /api/replay``            ``{trace, config, compare, seed}``: start a replay (two, the
                                second under ``compare``), a job (202)
``GET /api/jobs/events?id=N``   a job's server-sent events: ``progress``, then ``result`` or
                                ``failed`` (:mod:`._jobs`)
==============================  ==============================================================

Requests carry text, never a path: a trace is chosen by name among those the command line gave
and the bundled example (:func:`~._timeline.bundled_traces`). A body is JSON of at most
:data:`MAX_BODY_BYTES` (413 beyond). Text the engine refuses is a 422 whose JSON lists each
problem with its line (:class:`~._problems.InputProblems`); nothing is run then and the server
goes on. State-changing requests are POSTs, which the app's Origin check guards
(:mod:`._security`).
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from ..api.loader import LoadedObjects
from ..framework.config import SchedulerConfig
from ..scheduler import ExplainError
from ..serving import TEXT, Request, Response
from ._compare import compare_configs, pod_reasons
from ._configedit import DEFAULT_CONFIG_TEXT, import_paths, parse_config, score_weights, set_score_weights
from ._jobs import Job, Jobs, RunProgress, prefers_async
from ._problems import InputProblems
from ._timeline import TraceInput, bundled_traces, run_timeline
from ._whatif import run_whatif, with_manifests

__all__ = ["MAX_BODY_BYTES", "WhatIfRoutes", "startup_config_text"]

log = logging.getLogger(__name__)

JSON: Final = "application/json"
MAX_BODY_BYTES: Final = 2 * 2**20
"""Largest request body: manifests and a configuration typed or pasted in the page."""
_LABELS: Final = ("A", "B")
"""A replay's runs: A under the configuration, B under the one it is compared with."""


def _json(data: Any, status: int = 200, headers: tuple[tuple[str, str], ...] = ()) -> Response:
    return Response(status, JSON, json.dumps(data, separators=(",", ":"), allow_nan=False).encode(), headers)


def _error(status: int, message: str) -> Response:
    return Response(status, TEXT, f"{message}\n".encode())


class _BodyError(ValueError):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def read_json(request: Request, limit: int = MAX_BODY_BYTES) -> dict[str, Any]:
    """The request's JSON object body; _BodyError (411, 413, 415 or 400) otherwise."""
    ctype = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    if ctype != JSON:
        raise _BodyError(415, f"the body must be {JSON}, not {ctype or 'untyped'}")
    length = request.headers.get("content-length")
    if length is None:
        raise _BodyError(411, "a Content-Length is required")
    try:
        n = int(length)
    except ValueError:
        raise _BodyError(400, f"Content-Length {length!r} is not a number") from None
    if n < 0:
        raise _BodyError(400, f"Content-Length {length!r} is not a number")
    if n > limit:
        raise _BodyError(413, f"request body of {n:,} bytes: more than the limit of {limit:,}")
    try:
        body = json.loads(request.read(n).decode("utf-8")) if n else {}
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise _BodyError(400, f"the body is not JSON: {exc}") from None
    if not isinstance(body, dict):
        raise _BodyError(400, "the body must be a JSON object")
    return body


def _text(body: Mapping[str, Any], key: str, default: str = "") -> str:
    v = body.get(key, default)
    if v is None:
        return default
    if not isinstance(v, str):
        raise _BodyError(400, f"{key}: must be a string (YAML text)")
    return v


def _texts(body: Mapping[str, Any], **defaults: str) -> dict[str, str]:
    """The body's text fields (``key=default``), checked before anything runs (a job too)."""
    return {key: _text(body, key, default) for key, default in defaults.items()}


def startup_config_text(config: Any) -> str:
    """The configuration editor's first text: the ``--config`` file ``kubesched ui`` was
    started with (its ``source``, a path from the command line), else the defaults' header."""
    source = getattr(config, "source", "")
    if source:
        try:
            return Path(source).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            log.warning("%s: cannot read it again for the editor: %s", source, exc)
    return DEFAULT_CONFIG_TEXT


class WhatIfRoutes:
    """The routes over ``workspace`` (the app's); ``config_text``: the configuration editor's
    first text (:func:`startup_config_text`); ``traces``: the traces the command line gave (the
    bundled example is always offered after them); ``strict``: the manifests typed in the page
    are read as ``--strict`` reads files (the command's own flag: an object of a kind the
    scheduler does not read is refused, on its line, instead of skipped)."""

    def __init__(self, workspace: Any, *, config_text: str = DEFAULT_CONFIG_TEXT,
                 traces: Sequence[TraceInput] = (), strict: bool = False) -> None:
        self.workspace = workspace
        self.strict = strict
        self.config_text = config_text
        self.allowed_imports = import_paths(config_text)
        self.traces = {t.name: t for t in [*traces, *bundled_traces()]}
        self.jobs = Jobs()
        self._one_replay = threading.Lock()  # replays run one after the other: a small machine

    def mount(self, app: Any) -> None:
        """Add the routes to ``app`` (:meth:`UIApp.add_route`)."""
        for method, path, handler in (
            ("GET", "/api/lab", self._lab),
            ("POST", "/api/whatif", self._whatif),
            ("POST", "/api/config/check", self._config_check),
            ("POST", "/api/config/weights", self._config_weights),
            ("POST", "/api/compare", self._compare),
            ("POST", "/api/compare/reasons", self._reasons),
            ("POST", "/api/replay", self._replay),
            ("GET", "/api/jobs/events", self._job_events),
        ):
            app.add_route(method, path, self._guarded(handler))

    def close(self) -> None:
        """End every event stream (the server is stopping)."""
        self.jobs.close()

    @staticmethod
    def _guarded(handler: Any) -> Any:
        """Bad bodies and refused text as answers (413, 422, ...), never a dead request."""

        def route(request: Request, params: dict[str, str]) -> Response:
            try:
                answer: Response = handler(request, params)
                return answer
            except _BodyError as exc:
                return _error(exc.status, str(exc))
            except InputProblems as exc:
                return _json(exc.to_dict(), 422)

        return route

    # -- helpers -----------------------------------------------------------------------------
    def _config(self, text: str) -> SchedulerConfig:
        ws = self.workspace
        version = getattr(ws.config, "kube_version", None)
        return parse_config(text, features=ws.features, kube_version=version,
                            allowed_imports=self.allowed_imports)

    def _sides(self, body: Mapping[str, Any]) -> tuple[SchedulerConfig, SchedulerConfig, LoadedObjects, str]:
        """The two configurations, the objects compared (the inputs, the manifests on top) and
        the manifests' text."""
        configs = []
        for side in ("a", "b"):
            try:
                configs.append(self._config(_text(body, side, self.config_text)))
            except InputProblems as exc:
                exc.what = f"configuration {side.upper()}"
                raise
        manifests = _text(body, "manifests")
        loaded, _, _ = with_manifests(self.workspace.view.loaded, manifests, strict=self.strict)
        return configs[0], configs[1], loaded, manifests

    # -- routes ------------------------------------------------------------------------------
    def _lab(self, _request: Request, _params: dict[str, str]) -> Response:
        try:
            weights = [w.to_dict() for w in score_weights(self.workspace.config)]
        except ValueError as exc:  # a startup configuration whose framework cannot be built
            weights, problem = [], str(exc)
        else:
            problem = ""
        return _json({"config": self.config_text, "weights": weights, "problem": problem,
                      "traces": [t.to_dict() for t in self.traces.values()], "maxBodyBytes": MAX_BODY_BYTES,
                      "strict": self.strict})

    def _whatif(self, request: Request, _params: dict[str, str]) -> Response:
        body = _texts(read_json(request), manifests="", config=self.config_text)
        return self._answer(request, "whatif", 1, lambda progress: self._run_whatif(body, progress))

    def _run_whatif(self, body: Mapping[str, Any], progress: RunProgress | None) -> dict[str, Any]:
        ws = self.workspace
        config_text = _text(body, "config", self.config_text)
        config = ws.config if config_text == self.config_text else self._config(config_text)
        view = ws.view
        result = run_whatif(view.loaded, _text(body, "manifests"), config=config, base_config=ws.config,
                            seed=ws.seed, features=ws.features, before=view.sim, strict=self.strict,
                            progress=progress)
        return {**result.to_dict(), "weights": [w.to_dict() for w in score_weights(config)]}

    def _answer(self, request: Request, kind: str, runs: int,
                work: Callable[[RunProgress | None], dict[str, Any]]) -> Response:
        """``work``'s answer now, or, asked with ``Prefer: respond-async``, a job doing it (202)
        whose progress and answer stream to the page (:mod:`._jobs`)."""
        if not prefers_async(request.headers):
            return _json(work(None))
        job = self.jobs.start(kind, lambda job: work(job.run_progress), runs=runs)
        return _json(job.progress(), 202, (("Preference-Applied", "respond-async"),))

    def _config_check(self, request: Request, _params: dict[str, str]) -> Response:
        config = self._config(_text(read_json(request), "config", self.config_text))
        return _json({"weights": [w.to_dict() for w in score_weights(config)]})

    def _config_weights(self, request: Request, _params: dict[str, str]) -> Response:
        body = read_json(request)
        weights = body.get("weights")
        if not isinstance(weights, dict) or not all(
                isinstance(p, dict) and all(_is_int(w) for w in p.values()) for p in weights.values()):
            raise _BodyError(400, "weights: must map a schedulerName to {plugin: integer weight}")
        text = set_score_weights(_text(body, "config", self.config_text), weights)
        config = self._config(text)
        return _json({"config": text, "weights": [w.to_dict() for w in score_weights(config)]})

    def _compare(self, request: Request, _params: dict[str, str]) -> Response:
        body = _texts(read_json(request), a=self.config_text, b=self.config_text, manifests="")
        return self._answer(request, "compare", 2, lambda progress: self._run_compare(body, progress))

    def _run_compare(self, body: Mapping[str, Any], progress: RunProgress | None) -> dict[str, Any]:
        a, b, loaded, manifests = self._sides(body)
        ws = self.workspace
        comparison = compare_configs(loaded, a, b, seed=ws.seed, features=ws.features, text=manifests,
                                     progress=progress)
        return comparison.to_dict()

    def _reasons(self, request: Request, _params: dict[str, str]) -> Response:
        body = read_json(request)
        pod = _text(body, "pod")
        a, b, loaded, _ = self._sides(body)
        ws = self.workspace
        try:
            return _json(pod_reasons(loaded, pod, [a, b], seed=ws.seed, features=ws.features))
        except ExplainError as exc:
            return _error(404, str(exc))

    # -- replays -----------------------------------------------------------------------------
    def _replay(self, request: Request, _params: dict[str, str]) -> Response:
        body = read_json(request)
        name = _text(body, "trace")
        trace = self.traces.get(name)
        if trace is None:
            return _error(404, f"trace {name!r}: no such trace (known: {', '.join(self.traces)})")
        seed = body.get("seed", self.workspace.seed)
        if not _is_int(seed):
            raise _BodyError(400, "seed: must be an integer")
        configs = [(_LABELS[0], self._served_or(_text(body, "config", self.config_text)))]
        other = _text(body, "compare")
        if other.strip():
            try:
                configs.append((_LABELS[1], self._served_or(other)))
            except InputProblems as exc:
                exc.what = "configuration B"
                raise
        job = self.jobs.start("replay", lambda job: self._run(job, trace, configs, seed), runs=len(configs),
                              trace=trace.name, failed_what="trace", one_at_a_time=self._one_replay)
        return _json(job.progress(), 202)

    def _served_or(self, text: str) -> Any:
        """The served configuration for its own text, else the text's."""
        return self.workspace.config if text == self.config_text else self._config(text)

    @staticmethod
    def _run(job: Job, trace: TraceInput, configs: list[tuple[str, Any]], seed: int) -> dict[str, Any]:
        """Each configuration's replay in turn (same trace and seed: ``kubesched compare``)."""
        timelines = []
        for i, (label, config) in enumerate(configs):
            job.begin(i)
            timelines.append(run_timeline(trace, config, seed=seed, progress=job.step, label=label))
        return {"runs": [t.to_dict() for t in timelines]}

    def _job_events(self, _request: Request, params: dict[str, str]) -> Response:
        job = self.jobs.get(params.get("id", ""))
        if job is None:
            return _error(404, f"job {params.get('id', '')!r}: no such job (or long gone)")
        return Response(200, "text/event-stream", b"", (("Cache-Control", "no-cache"),),
                        stream=self.jobs.stream(job))


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)
