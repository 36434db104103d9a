"""Our endpoints answer as the real kube-scheduler's do: the same checks, in the same order,
with the same texts, for /healthz, /livez and /readyz (verbose, excluded checks); and, with no
delegated authorization configured (neither has a kubeconfig for it outside a pod), the same
403 for /metrics and for a path below the always-allowed ones."""

from __future__ import annotations

import ssl
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest

from kubesched.app._serving import new_endpoints_server
from kubesched.serving import DelegatedAuth

from .conftest import ControlPlane

PATHS = ["/healthz?verbose", "/livez?verbose", "/readyz?verbose", "/readyz",
         "/readyz?verbose&exclude=shutdown&exclude=nope", "/healthz?exclude=ping", "/metrics", "/livez/ping"]


def fetch(url: str, context: ssl.SSLContext | None = None) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=5, context=context) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as err:
        with err:
            return err.code, err.read().decode()


@pytest.fixture
def real_scheduler_url(control_plane: ControlPlane) -> Iterator[str]:
    """The real kube-scheduler (no leader election, the script's default configuration)."""
    control_plane.run("scheduler")
    try:
        env = (control_plane.dir / "env").read_text().splitlines()
        port = [line.split("=", 1)[1] for line in env if line.startswith("SCHED_PORT=")][-1]
        yield f"https://127.0.0.1:{port}"
    finally:
        control_plane.run("stop-scheduler", check=False)


def test_same_health_texts_as_kube_scheduler(real_scheduler_url: str) -> None:
    insecure = ssl.create_default_context()
    insecure.check_hostname = False
    insecure.verify_mode = ssl.CERT_NONE  # its self-signed serving certificate, on loopback
    deadline = time.monotonic() + 30
    while fetch(real_scheduler_url + "/readyz", insecure)[0] != 200:  # its informers syncing
        assert time.monotonic() < deadline, "kube-scheduler never became ready"
        time.sleep(0.1)
    theirs = {p: fetch(real_scheduler_url + p, insecure) for p in PATHS}
    with new_endpoints_server("127.0.0.1:0", synced=lambda: True, stopping=threading.Event(),
                              auth=DelegatedAuth()) as srv:
        ours = {p: fetch(srv.url + p) for p in PATHS}
    assert ours == theirs
