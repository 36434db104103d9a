"""``kubesched run`` and ``kubesched extender`` read the same serving flags the same way:
``--bind-address`` (an IP, or HOST:PORT), ``--secure-port``, ``--tls-cert-file`` /
``--tls-private-key-file`` (the extender's ``--tls-cert`` / ``--tls-key`` still accepted)."""

from __future__ import annotations

import re
import ssl
import urllib.request
from pathlib import Path
from typing import ClassVar

import pytest
from typer.testing import CliRunner

from kubesched.cli import app
from kubesched.testing.command import ServingCommand


def _kubeconfig(tmp_path: Path) -> str:
    kc = tmp_path / "kubeconfig"
    kc.write_text("apiVersion: v1\nkind: Config\ncurrent-context: c\n"
                  "clusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]\n"
                  "users: [{name: u, user: {token: t}}]\n"
                  "contexts: [{name: c, context: {cluster: c, user: u}}]\n")
    return str(kc)


@pytest.mark.parametrize("command", [["run"], ["extender", "--no-cache"]])
@pytest.mark.parametrize(("args", "message"), [
    (["--bind-address", "nowhere"], "--bind-address 'nowhere': want HOST:PORT or IP; expected HOST:PORT"),
    (["--bind-address", "127.0.0.1:1", "--secure-port", "2"],
     "--bind-address '127.0.0.1:1': want HOST:PORT or IP; the port is given twice (--secure-port 2)"),
    (["--bind-address", "example.com:1"], "'example.com' is not an IP address"),
    (["--tls-private-key-file", "k.pem"], "--tls-cert-file and --tls-private-key-file go together"),
    (["--tls-cert-file", "c.pem", "--tls-private-key-file", "k.pem"], "--tls-cert-file c.pem / "
     "--tls-private-key-file k.pem: [Errno 2] No such file or directory"),
])
def test_the_same_flags_the_same_errors(tmp_path: Path, command: list[str], args: list[str],
                                        message: str) -> None:
    result = CliRunner().invoke(app, [*command, "--kubeconfig", _kubeconfig(tmp_path), *args],
                                env={"KUBECONFIG": ""})
    assert result.exit_code == 2, result.output
    assert message in result.output


def test_the_old_and_the_new_tls_names_together_are_refused() -> None:
    result = CliRunner().invoke(app, ["extender", "--no-cache", "--tls-cert", "c.pem",
                                      "--tls-private-key-file", "k.pem"])
    assert result.exit_code == 2, result.output
    assert "--tls-cert and --tls-key are --tls-cert-file and --tls-private-key-file" in result.output


def test_the_extender_serves_on_an_ip_and_secure_port_with_upstreams_tls_flags(tmp_path: Path) -> None:
    trustme = pytest.importorskip("trustme")
    ca = trustme.CA()
    cert = ca.issue_cert("127.0.0.1")
    cert.cert_chain_pems[0].write_to_path(str(tmp_path / "c.pem"))
    cert.private_key_pem.write_to_path(str(tmp_path / "k.pem"))
    with ServingCommand("extender", "--no-cache", "--bind-address", "127.0.0.1", "--secure-port", "0",
                        "--tls-cert-file", str(tmp_path / "c.pem"),
                        "--tls-private-key-file", str(tmp_path / "k.pem")) as cmd:
        m = re.search(r"on (https://127\.0\.0\.1:\d+)", cmd.line)
        assert m, cmd.line
        ctx = ssl.create_default_context()
        ca.configure_trust(ctx)
        with urllib.request.urlopen(m.group(1) + "/healthz", context=ctx, timeout=10) as resp:
            assert (resp.status, resp.read()) == (200, b"ok")
        assert cmd.stop() == 0


class _FakeRun:
    """SchedulerRun's stand-in: records where the command would serve, runs nothing."""

    seen: ClassVar[list[str | None]] = []

    def __init__(self, live: object, *, leader_elect: bool, bind_address: str | None,
                 ssl_context: ssl.SSLContext | None = None, auth: object = None) -> None:
        self.seen.append(bind_address)
        self.auth = auth

    def run_until_stopped(self) -> int:
        if self.auth is not None:
            self.auth.close()  # type: ignore[attr-defined]
        return 0


@pytest.mark.parametrize(("args", "want"), [
    ([], "127.0.0.1:10259"),
    (["--bind-address", "0.0.0.0"], "0.0.0.0:10259"),
    (["--bind-address", "::1", "--secure-port", "10300"], "[::1]:10300"),
    (["--bind-address", ":8888"], "0.0.0.0:8888"),
    (["--bind-address", "0.0.0.0:10259"], "0.0.0.0:10259"),
    (["--secure-port", "0"], None),  # SecureServingOptions: port 0 serves nothing
    (["--bind-address", ""], None),
])
def test_run_serves_where_the_flags_say(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str],
                                        want: str | None) -> None:
    from kubesched.app import server

    monkeypatch.setattr(server, "SchedulerRun", _FakeRun)
    _FakeRun.seen = []
    result = CliRunner().invoke(app, ["run", "--kubeconfig", _kubeconfig(tmp_path), "--leader-elect=false",
                                      "--authentication-skip-lookup", *args])
    assert result.exit_code == 0, result.output
    assert _FakeRun.seen == [want]
