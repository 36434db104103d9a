"""Talking to kubesched's serving ports in tests (``kubesched run`` and ``kubesched extender``):
a GET with an optional bearer token, and a serving command as a child process whose
``serving ... on URL`` line is read from its stderr."""

from __future__ import annotations

import os
import signal
import ssl
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Mapping
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"


def http_get(url: str, token: str | None = None, *, context: ssl.SSLContext | None = None,
             timeout: float = 10.0) -> tuple[int, str]:
    """(status, body) of a GET on ``url``, with ``token`` as a bearer token; an HTTP error
    status is returned, not raised."""
    req = urllib.request.Request(url)
    if token is not None:
        req.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=timeout, context=context) as resp:
            return int(resp.status), resp.read().decode()
    except urllib.error.HTTPError as err:
        with err:
            return int(err.code), err.read().decode()


def insecure_context() -> ssl.SSLContext:
    """A client context accepting any certificate (a self-signed serving certificate, as the
    kubelet's HTTPS probes accept it)."""
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    return ctx


class ServingCommand:
    """``kubesched ARGS`` as a child process, stderr piped; :attr:`line` is the first stderr
    line saying ``serving`` (empty when the process ended first). Use as a context manager:
    the process is killed on exit if still running."""

    def __init__(self, *args: str, env: Mapping[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "from kubesched.cli import main; main()", *args],
            env={**os.environ, "PYTHONPATH": str(SRC), **(env or {})}, stderr=subprocess.PIPE, text=True)
        assert self.proc.stderr is not None
        self.stderr = self.proc.stderr
        line = ""
        for _ in range(20):
            line = self.stderr.readline()
            if "serving" in line or not line:
                break
        self.line = line

    def stop(self, timeout: float = 20.0) -> int:
        """SIGTERM, then the exit code."""
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=timeout)

    def __enter__(self) -> ServingCommand:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self.stderr.close()
