"""``--bind-address`` and ``--secure-port`` read once for every serving command: upstream's IP
plus port, and the ``HOST:PORT`` forms kubesched has always taken."""

from __future__ import annotations

import pytest

from kubesched.serving import join_host_port, parse_bind_address


@pytest.mark.parametrize(("address", "port", "default", "want"), [
    pytest.param("127.0.0.1", None, 10259, ("127.0.0.1", 10259), id="ip-default-port"),
    pytest.param("0.0.0.0", 8888, 10259, ("0.0.0.0", 8888), id="ip-secure-port"),
    pytest.param("::1", 0, None, ("::1", 0), id="v6-free-port"),
    pytest.param("127.0.0.1:10259", None, None, ("127.0.0.1", 10259), id="host-port"),
    pytest.param("127.0.0.1:10259", 10259, None, ("127.0.0.1", 10259), id="host-port-same-secure-port"),
    pytest.param("[::1]:8888", None, 10259, ("::1", 8888), id="v6-host-port"),
    pytest.param(":8888", None, 10259, ("0.0.0.0", 8888), id="every-interface"),
    pytest.param("localhost:8888", None, None, ("localhost", 8888), id="localhost"),
])
def test_accepted(address: str, port: int | None, default: int | None, want: tuple[str, int]) -> None:
    assert parse_bind_address(address, port, default) == want


@pytest.mark.parametrize(("address", "port", "want"), [
    pytest.param("127.0.0.1", None, "expected HOST:PORT, or an IP with a port", id="ip-without-port"),
    pytest.param("127.0.0.1:1", 2, "the port is given twice (--secure-port 2)", id="two-ports"),
    pytest.param("127.0.0.1", 70000, "port must be a number in [0, 65535]", id="secure-port-range"),
    pytest.param("nowhere", None, "expected HOST:PORT or an IP address", id="a-word"),
    pytest.param("nowhere:1", None, "'nowhere' is not an IP address", id="host-name"),
    pytest.param(":", None, "expected HOST:PORT or an IP address", id="colon"),
])
def test_refused(address: str, port: int | None, want: str) -> None:
    with pytest.raises(ValueError) as err:
        parse_bind_address(address, port)
    assert str(err.value) == f"bind address {address!r}: {want}"


def test_join_host_port() -> None:
    assert join_host_port("::1", 1) == "[::1]:1"
    assert parse_bind_address(join_host_port("::1", 1)) == ("::1", 1)
    assert join_host_port("0.0.0.0", 2) == "0.0.0.0:2"
