"""The routes of ``kubesched ui``, mounted on the one serving stack
(:class:`kubesched.serving.HTTPServer`, as ``run`` and ``extender`` mount theirs).

==========================  ==============================================================
``GET /``                   the HTML shell (:mod:`._page`)
``GET /static/NAME``        an asset of the package (:mod:`._assets`)
``GET /api/summary``        counts, resources, workloads, preemptions; the inputs and release
``GET /api/nodes``          nodes, a page at a time (``q``, ``sort``, ``order``, ``offset``,
                            ``limit``: :class:`~kubesched.ui.Query`)
``GET /api/node?name=N``    one node and its pods
``GET /api/pods``           pods, a page at a time (also ``status``, ``node``)
``GET /api/decision?pod=K`` ``explain --pod K -o json``, byte for byte (``download=1``: as a file)
``GET /api/export/snapshot`` the input as ``kubesched snapshot`` writes it
``GET /api/export/state``   the simulated end state as ``simulate -o yaml`` writes it
``GET /api/events``         server-sent events: ``version`` each time the view changes,
                            ``progress`` while a simulation runs
``POST /api/reload``        read the inputs again, re-run
==========================  ==============================================================

Every request passes :func:`~._security.refusal` first. More routes (what-if, compare,
replay) are added with :meth:`UIApp.add_route`.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator
from typing import Any, Final
from urllib.parse import parse_qsl, urlsplit

from ..serving import TEXT, Request, Response
from ._assets import load_assets
from ._page import render_shell
from ._security import SECURITY_HEADERS, refusal
from ._view import Query
from ._workspace import Workspace

__all__ = ["Handler", "UIApp"]

log = logging.getLogger(__name__)

JSON: Final = "application/json"
YAML: Final = "application/yaml; charset=utf-8"
KEEPALIVE_SECONDS: Final = 15.0
"""A comment line on an idle event stream this often: proxies and browsers keep it open, and a
client that went away is noticed at the next write."""

Handler = Callable[[Request, dict[str, str]], Response]
"""A route: the request and its query parameters to an answer."""


def _json(data: Any, status: int = 200) -> Response:
    return Response(status, JSON, json.dumps(data, separators=(",", ":")).encode())


def _yaml_download(name: str, pieces: Iterator[str]) -> Response:
    return Response(200, YAML, b"", (("Content-Disposition", f'attachment; filename="{name}"'),),
                    stream=(piece.encode() for piece in pieces))


def _error(status: int, message: str) -> Response:
    return Response(status, TEXT, f"{message}\n".encode())


class UIApp:
    """The routes over ``workspace``; ``scheme`` and ``allow_remote`` as served (see
    :mod:`._security`). Call it with a request (the server's ``routes``)."""

    def __init__(self, workspace: Workspace, *, scheme: str = "http", allow_remote: bool = False) -> None:
        self.workspace = workspace
        self.scheme = scheme
        self.allow_remote = allow_remote
        self.assets = load_assets()
        self.routes: dict[tuple[str, str], Handler] = {}
        for method, path, handler in (
            ("GET", "/", self._shell),
            ("GET", "/api/summary", self._summary),
            ("GET", "/api/nodes", self._nodes),
            ("GET", "/api/node", self._node),
            ("GET", "/api/pods", self._pods),
            ("GET", "/api/decision", self._decision),
            ("GET", "/api/export/snapshot", self._export_snapshot),
            ("GET", "/api/export/state", self._export_state),
            ("GET", "/api/events", self._events),
            ("POST", "/api/reload", self._reload),
        ):
            self.add_route(method, path, handler)

    def add_route(self, method: str, path: str, handler: Handler) -> None:
        """Mount ``handler`` on ``method path`` (an exact path); a route already there is an error."""
        if (method, path) in self.routes:
            raise ValueError(f"route {method} {path} is already mounted")
        self.routes[(method, path)] = handler

    def __call__(self, request: Request) -> Response:
        why = refusal(request.method, request.headers, self.scheme, self.allow_remote)
        if why is not None:
            log.warning("%s %s: %s", request.method, request.path, why)
            return self._secure(_error(403, why))
        url = urlsplit(request.path)
        params = dict(parse_qsl(url.query, keep_blank_values=True))
        method = "GET" if request.method == "HEAD" else request.method
        handler = self.routes.get((method, url.path))
        if handler is None and method == "GET" and url.path.startswith("/static/"):
            handler = self._static
        if handler is None:
            known = any(path == url.path for _, path in self.routes)
            return self._secure(_error(405 if known else 404,
                                       f"{request.method} {url.path}: " + ("method not allowed" if known
                                                                           else "not found")))
        try:
            answer = handler(request, params)
        except ValueError as exc:
            answer = _error(400, str(exc))
        return self._secure(answer)

    @staticmethod
    def _secure(answer: Response) -> Response:
        return Response(answer.status, answer.content_type, answer.body,
                        (*answer.headers, *SECURITY_HEADERS), answer.stream)

    # -- the page ----------------------------------------------------------------------------
    def _shell(self, _request: Request, _params: dict[str, str]) -> Response:
        ws = self.workspace
        return Response(200, "text/html; charset=utf-8",
                        render_shell(ws.describe, ws.kube_version, ws.seed, ws.live),
                        (("Cache-Control", "no-cache"),))

    def _static(self, request: Request, _params: dict[str, str]) -> Response:
        name = urlsplit(request.path).path.removeprefix("/static/")
        asset = self.assets.get(name)
        if asset is None:
            return _error(404, f"{name!r}: no such asset")
        return Response(200, asset[0], asset[1], (("Cache-Control", "no-cache"),))

    # -- the cluster -------------------------------------------------------------------------
    def _summary(self, _request: Request, _params: dict[str, str]) -> Response:
        ws = self.workspace
        data = ws.view.summary()
        data.update(input=ws.describe, kubeVersion=ws.kube_version, live=ws.live, error=ws.error,
                    features={k: v for k, v in sorted(ws.features.items())})
        return _json(data)

    def _nodes(self, _request: Request, params: dict[str, str]) -> Response:
        return _json(self.workspace.view.list_nodes(Query.from_params(params)))

    def _node(self, _request: Request, params: dict[str, str]) -> Response:
        view = self.workspace.view
        name = params.get("name", "")
        node = view.node(name)
        if node is None:
            return _error(404, f"node {name!r} not found")
        return _json({**node.to_dict(), "devices": {"published": list(node.devices),
                                                    "allocated": sorted(node.used_devices)}})

    def _pods(self, _request: Request, params: dict[str, str]) -> Response:
        return _json(self.workspace.view.list_pods(Query.from_params(params)))

    def _decision(self, _request: Request, params: dict[str, str]) -> Response:
        key = params.get("pod", "")
        if not key:
            return _error(400, "pod: give the pod as NAMESPACE/NAME (or KIND/NAMESPACE/NAME)")
        status, body = self.workspace.decision(key)
        if status != 200:
            return Response(status, TEXT, body)
        headers: tuple[tuple[str, str], ...] = ()
        if params.get("download"):
            name = key.replace("/", "_")
            headers = (("Content-Disposition", f'attachment; filename="explain-{name}.json"'),)
        return Response(200, JSON, body, headers)

    # -- export ------------------------------------------------------------------------------
    # Streamed (chunked), each piece sent as it is written: at 50,000 pods the text is a few
    # hundred megabytes, which built whole before sending took the server's memory from about
    # 1.4 GiB to 2.1 GiB.
    def _export_snapshot(self, _request: Request, _params: dict[str, str]) -> Response:
        return _yaml_download("snapshot.yaml", self.workspace.snapshot())

    def _export_state(self, _request: Request, _params: dict[str, str]) -> Response:
        return _yaml_download("state.yaml", self.workspace.state())

    # -- changes -----------------------------------------------------------------------------
    def _events(self, _request: Request, _params: dict[str, str]) -> Response:
        return Response(200, "text/event-stream", b"", (("Cache-Control", "no-cache"),),
                        stream=self._event_stream())

    def _event_stream(self) -> Iterator[bytes]:
        ws = self.workspace
        yield b"retry: 3000\n\n"
        seen, seen_tick, seen_error = 0, 0, ""
        while True:
            now = ws.wait_for_change(seen, seen_tick, KEEPALIVE_SECONDS)
            if now is None:
                return
            version, tick = now
            if (version, tick) == (seen, seen_tick):
                yield b": keepalive\n\n"
                continue
            progress = ws.progress
            if tick != seen_tick and progress is not None:
                data = json.dumps({"done": progress[0], "total": progress[1]})
                yield f"event: progress\ndata: {data}\n\n".encode()
            error = ws.error
            if version != seen or error != seen_error:
                data = json.dumps({"version": version, "error": error})
                yield f"event: version\ndata: {data}\n\n".encode()
            seen, seen_tick, seen_error = version, tick, error

    def _reload(self, _request: Request, _params: dict[str, str]) -> Response:
        try:
            view = self.workspace.reload()
        except (ValueError, OSError) as exc:
            return _error(400 if isinstance(exc, ValueError) else 500, str(exc).replace("\n", "; "))
        return _json({"version": view.version})
