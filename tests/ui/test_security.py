"""What keeps a page elsewhere from using the local app: loopback unless asked otherwise, the
Host of a loopback server checked (DNS rebinding), changes only from the page's own origin, no
request naming a file, and headers that keep the page to its own assets."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from kubesched.cli import app

from .conftest import QUICKSTART, served

runner = CliRunner()


@pytest.mark.parametrize("address", ["0.0.0.0", "192.0.2.10", ":8080", "[::]:8080", "10.1.2.3:9999"])
def test_a_non_loopback_address_needs_allow_remote(address: str) -> None:
    result = runner.invoke(app, ["ui", str(QUICKSTART), "--bind-address", address])
    assert result.exit_code == 2, result.output
    assert "not a loopback address" in result.output and "--allow-remote" in result.output
    assert result.output.startswith("error: ") and result.output.count("\n") == 1
    assert "simulating" not in result.output  # refused before reading anything


@pytest.mark.parametrize("host", ["evil.example", "evil.example:10280", "127.0.0.1.evil.example", "10.0.0.1"])
def test_a_loopback_server_refuses_another_host(host: str) -> None:
    with served(QUICKSTART) as ui:
        got = ui.get("/api/summary", Host=host)
        assert got.status == 403
        assert "is not this loopback server's" in got.body.decode()
        assert ui.get("/", Host=host).status == 403


@pytest.mark.parametrize("host", ["localhost:1234", "[::1]:1234", "127.0.0.1"])
def test_loopback_names_are_served(host: str) -> None:
    with served(QUICKSTART) as ui:
        assert ui.get("/api/summary", Host=host).status == 200


def test_with_allow_remote_any_host_is_served() -> None:
    with served(QUICKSTART, allow_remote=True) as ui:
        assert ui.get("/api/summary", Host="scheduler.example:10280").status == 200


@pytest.mark.parametrize(("origin", "why"), [
    (None, "needs an Origin header"),
    ("http://evil.example", "cross-origin POST"),
    ("null", "cross-origin POST"),
    ("https://127.0.0.1", "cross-origin POST"),  # another scheme, another port
])
def test_a_change_from_another_origin_is_refused(origin: str | None, why: str) -> None:
    with served(QUICKSTART) as ui:
        got = ui.post("/api/reload", origin=origin)
        assert got.status == 403, got.body
        assert why in got.body.decode()
        assert ui.get("/api/summary").json()["version"] == 1  # nothing changed
        assert ui.post("/api/reload").status == 200  # the page's own origin


def test_the_other_origin_check_applies_to_every_changing_method() -> None:
    with served(QUICKSTART) as ui:
        for method in ("PUT", "DELETE", "PATCH"):
            got = ui.request("/api/reload", method, headers={"Origin": "http://evil.example"})
            assert got.status == 403, method


@pytest.mark.parametrize("path", [
    "/static/../pyproject.toml", "/static/%2e%2e/%2e%2e/pyproject.toml", "/static//etc/passwd",
    "/static/..%2f..%2fpyproject.toml", "/static/pages/../../_app.py", "/static/_app.py",
    "/static/%2fetc%2fpasswd",
])
def test_no_request_reads_a_file(path: str) -> None:
    with served(QUICKSTART) as ui:
        got = ui.request(path.replace("/static/", "/static/", 1))
        assert got.status == 404
        assert b"[project]" not in got.body and b"root:" not in got.body


def test_a_reload_reads_only_the_given_inputs(tmp_path: Path) -> None:
    other = tmp_path / "other.yaml"
    other.write_text("apiVersion: v1\nkind: Node\nmetadata: {name: sneaky}\n")
    with served(QUICKSTART) as ui:
        before = ui.get("/api/export/snapshot").body
        assert ui.post(f"/api/reload?path={other}&paths={other}").status == 200
        assert ui.get("/api/export/snapshot").body == before
        assert ui.get(f"/api/nodes?q=sneaky&file={other}").json()["total"] == 0


def test_answers_keep_the_page_to_its_own_assets() -> None:
    with served(QUICKSTART) as ui:
        for path in ("/", "/api/summary", "/static/app.js", "/api/nope"):
            h = ui.get(path).headers
            assert "default-src 'self'" in h["content-security-policy"]
            assert "frame-ancestors 'none'" in h["content-security-policy"]
            assert h["x-content-type-options"] == "nosniff"
            assert h["x-frame-options"] == "DENY"
