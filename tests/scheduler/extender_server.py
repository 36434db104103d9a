"""A real HTTP scheduler extender on 127.0.0.1 for tests (a thread, shut down on exit).

It speaks k8s.io/kube-scheduler/extender/v1 JSON (Go's field names, as kube-scheduler writes
them; it answers in those too): ``/filter`` keeps the nodes whose name is
not in ``reject`` (reporting them in failedNodes, or failedAndUnresolvableNodes for
``unresolvable``), ``/prioritize`` scores nodes from ``scores`` (0..10), ``/bind`` records the
binding, ``/preempt`` returns the victims it was given. Every request is kept in ``requests``.
``hold``: an Event the handler waits on before answering (a server that answers too late; set
it to release the handler). ``tls``: serve HTTPS with this server-side SSL context.
"""

from __future__ import annotations

import json
import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class ExtenderBehaviour:
    reject: dict[str, str] = field(default_factory=dict)
    unresolvable: dict[str, str] = field(default_factory=dict)
    scores: dict[str, int] = field(default_factory=dict)
    fail_with: int = 0  # HTTP status to answer every request with (0: answer normally)
    error: str = ""  # an "error" field in filter/bind results
    requests: list[tuple[str, Any]] = field(default_factory=list)
    bound: list[dict[str, Any]] = field(default_factory=list)
    hold: threading.Event | None = None


def _names(args: dict[str, Any]) -> list[str]:
    if args.get("NodeNames") is not None:
        return list(args["NodeNames"])
    return [n["metadata"]["name"] for n in (args.get("Nodes") or {}).get("items", [])]


def _handler(b: ExtenderBehaviour) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # quiet
            return

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            args = json.loads(self.rfile.read(length) or b"null")
            verb = self.path.rsplit("/", 1)[-1]
            b.requests.append((verb, args))
            if b.hold is not None:
                b.hold.wait(timeout=10)  # bounded: a test that forgets to release cannot hang
                return  # too late: the client gave up, nothing to answer
            if b.fail_with:
                self.send_response(b.fail_with)
                self.end_headers()
                return
            out: Any
            if verb == "filter":
                names = _names(args)
                keep = [n for n in names if n not in b.reject and n not in b.unresolvable]
                out = {"FailedNodes": {n: m for n, m in b.reject.items() if n in names},
                       "FailedAndUnresolvableNodes": {n: m for n, m in b.unresolvable.items() if n in names},
                       "Error": b.error}
                if args.get("NodeNames") is not None:
                    out["NodeNames"] = keep
                else:
                    out["Nodes"] = {"items": [n for n in args["Nodes"]["items"]
                                              if n["metadata"]["name"] in keep]}
            elif verb == "prioritize":
                out = [{"Host": n, "Score": b.scores.get(n, 0)} for n in _names(args)]
            elif verb == "bind":
                b.bound.append(args)
                out = {"Error": b.error}
            elif verb == "preempt":
                victims = args.get("NodeNameToMetaVictims")
                if victims is None:
                    victims = {n: {"Pods": [{"UID": p["metadata"]["uid"]} for p in v["Pods"]],
                                   "NumPDBViolations": v["NumPDBViolations"]}
                               for n, v in (args.get("NodeNameToVictims") or {}).items()}
                out = {"NodeNameToMetaVictims": victims}
            else:
                self.send_response(404)
                self.end_headers()
                return
            body = json.dumps(out).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return Handler


@contextmanager
def running_extender(behaviour: ExtenderBehaviour, tls: ssl.SSLContext | None = None) -> Iterator[str]:
    """Serve ``behaviour`` on 127.0.0.1; yields the URL prefix (``https://`` with ``tls``)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(behaviour))
    server.daemon_threads = True
    if tls is not None:
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    scheme = "https" if tls is not None else "http"
    try:
        yield f"{scheme}://127.0.0.1:{server.server_address[1]}/ext"
    finally:
        if behaviour.hold is not None:
            behaviour.hold.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
