"""The one HTTP server both serving commands mount their routes on: keep-alive, HEAD without a
body, a route's bug answered 500, bad request lines refused, the route's headers sent."""

from __future__ import annotations

import http.client
import socket
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
