"""The one HTTP server both serving commands mount their routes on: keep-alive, HEAD without a
body, a route's bug answered 500, bad request lines refused, the route's headers sent."""

from __future__ import annotations

import http.client
import socket
import threading
from collections.abc import Iterator

import pytest

from kubesched.serving import TEXT, HTTPServer, Request, Response


def _route(request: Request) -> Response:
    if request.path == "/boom":
        raise RuntimeError("a bug in a route")
    if request.method == "POST":
        n = int(request.headers["content-length"])
        return Response(200, TEXT, request.read(n)[::-1])
    return Response(200, TEXT, f"{request.method} {request.path}".encode(), (("X-Test", "yes"),))


@pytest.fixture
def server() -> Iterator[HTTPServer]:
    srv = HTTPServer(_route, "127.0.0.1", 0).start()
    try:
        yield srv
    finally:
        srv.close()


def test_keep_alive_head_and_headers(server: HTTPServer) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    try:
        conn.request("GET", "/a?b=c")
        resp = conn.getresponse()
        assert (resp.status, resp.read(), resp.headers["X-Test"]) == (200, b"GET /a?b=c", "yes")
        sock = conn.sock
        conn.request("POST", "/echo", body=b"abc")
        assert conn.getresponse().read() == b"cba"
        conn.request("HEAD", "/h")
        resp = conn.getresponse()
        assert resp.headers["Content-Length"] == str(len(b"HEAD /h")) and resp.read() == b""
        assert conn.sock is sock  # one connection for the three
    finally:
        conn.close()


def test_a_route_bug_is_a_500_and_the_server_serves_on(server: HTTPServer) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    try:
        conn.request("GET", "/boom")
        resp = conn.getresponse()
        assert (resp.status, resp.read()) == (500, b"internal server error\n")
    finally:
        conn.close()
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as s:
        s.sendall(b"nonsense\r\n\r\n")
        assert s.recv(1024).startswith(b"HTTP/1.1 400 Bad Request\r\n")


def test_close_frees_the_port() -> None:
    srv = HTTPServer(_route, "127.0.0.1", 0).start()
    port = srv.port
    with pytest.raises(OSError):
        HTTPServer(_route, "127.0.0.1", port)
    srv.close()
    srv.close()
    HTTPServer(_route, "127.0.0.1", port).close()
    assert srv.url == f"http://127.0.0.1:{port}"


def test_a_streamed_answer_is_chunked_flushed_per_piece_and_closed_when_the_client_goes() -> None:
    """server-sent events: each piece reaches the client as the route yields it, the stream
    ends with the last chunk and the connection; a client that goes away ends the route's
    iterator (its ``finally`` runs)."""
    gate = threading.Event()
    closed = threading.Event()

    def pieces(n: int) -> Iterator[bytes]:
        try:
            yield b"first\n"
            gate.wait(5)  # the client has read "first" before the second piece exists
            for i in range(n):
                yield f"piece {i}\n".encode()
        finally:
            closed.set()

    def route(request: Request) -> Response:
        n = 2 if request.path == "/short" else 10**9
        return Response(200, "text/event-stream", b"", (("X-Test", "yes"),), stream=pieces(n))

    srv = HTTPServer(route, "127.0.0.1", 0).start()
    try:
        conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=5)
        conn.request("GET", "/short")
        resp = conn.getresponse()
        assert resp.headers["Transfer-Encoding"] == "chunked" and resp.headers["X-Test"] == "yes"
        assert resp.readline() == b"first\n"
        gate.set()
        assert resp.read() == b"piece 0\npiece 1\n"
        assert closed.wait(5)
        conn.close()

        gate.clear()
        closed.clear()
        sock = socket.create_connection(("127.0.0.1", srv.port), timeout=5)
        sock.sendall(b"GET /endless HTTP/1.1\r\nHost: x\r\n\r\n")
        got = b""
        while b"first" not in got:
            data = sock.recv(4096)
            assert data, got
            got += data
        sock.close()  # gone: the next writes fail
        gate.set()
        assert closed.wait(10)
    finally:
        srv.close()
