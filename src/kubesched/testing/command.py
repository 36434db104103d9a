"""A serving command (``kubesched run``, ``extender`` or ``ui``) in a child process, as a user
starts it: the one helper the tests, the browser tests and the page benchmark start, wait for
and stop such a command with.

The child runs this source tree's ``kubesched`` (its ``src`` first on ``PYTHONPATH``), its
standard error goes to a file (never a pipe a chatty server could fill while nobody reads it),
and :class:`ServingCommand` waits for the line the command prints once its port is bound
(``serving profile 'default-scheduler' on URL``, ``kubesched ui: serving on URL/``,
``Serving securely on URL``) before it returns.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import Final, Self

__all__ = ["SERVING_LINE", "ServingCommand"]

SERVING_LINE: Final = re.compile(r"^.*\b[Ss]erving\b.*? on (https?://[^\s/]+)/?(?:\s.*)?$", re.MULTILINE)
"""The line a serving command prints once it serves; group 1 is its URL (no trailing slash)."""

_SRC: Final = str(Path(__file__).resolve().parents[2])


class ServingCommand:
    """``kubesched ARGS...`` in a child process until :meth:`stop` (or the end of a ``with``
    block). With ``wait`` (the default), returns once the command says where it serves:
    :attr:`line` is that line and :attr:`url` its URL (``http://127.0.0.1:PORT``, no trailing
    slash); RuntimeError when it exits first, TimeoutError after ``timeout`` seconds, each with
    what it wrote. ``stop_signal``: what :meth:`stop` sends (SIGTERM as kube-scheduler's pod
    is stopped; SIGINT as Ctrl-C). ``env`` is laid over this process's environment (None
    unsets a variable), its ``PYTHONPATH`` after this tree's ``src``. ``log_path``: where the
    standard error goes and stays (default: a temporary file, removed by :meth:`stop`)."""

    def __init__(self, *args: str, cwd: str | Path | None = None,
                 env: Mapping[str, str | None] | None = None, timeout: float = 120.0, wait: bool = True,
                 stop_signal: signal.Signals = signal.SIGTERM, log_path: Path | None = None) -> None:
        self.args = args
        self.stop_signal = stop_signal
        self.line = ""
        self.url = ""
        self._stopped_log: str | None = None
        self._keep_log = log_path is not None
        self._log = (log_path.open("wb") if log_path is not None
                     else tempfile.NamedTemporaryFile(prefix="kubesched-", suffix=".log", delete=False))  # noqa: SIM115
        self.log_path = Path(self._log.name)
        child_env = dict(os.environ)
        for name, value in (env or {}).items():
            if value is None:
                child_env.pop(name, None)
            else:
                child_env[name] = value
        child_env["PYTHONPATH"] = os.pathsep.join(p for p in (_SRC, child_env.get("PYTHONPATH", "")) if p)
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "from kubesched.cli import main; main()", *args],
            cwd=cwd, env=child_env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self._log)
        if wait:
            try:
                self._wait_for_serving(timeout)
            except BaseException:
                self.stop()
                raise

    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def what(self) -> str:
        """``kubesched COMMAND``, for messages."""
        return f"kubesched {self.args[0]}" if self.args else "kubesched"

    def log(self) -> str:
        """What the command wrote on its standard error so far (all of it once stopped)."""
        if self._stopped_log is not None:
            return self._stopped_log
        return self.log_path.read_text(errors="replace")

    def _wait_for_serving(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            m = SERVING_LINE.search(self.log())
            if m:
                self.line, self.url = m.group(0), m.group(1)
                return
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.what} exited with {self.proc.returncode}: {self.log().strip()}")
            time.sleep(0.05)  # a child process's start-up: there is no event to wait on
        raise TimeoutError(f"{self.what} did not serve within {timeout:.0f}s: {self.log().strip()}")

    def _status(self, key: str) -> int:
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith(key):
                return int(line.split()[1]) * 1024
        raise RuntimeError(f"no {key.rstrip(':')} for process {self.pid}")

    def rss_bytes(self) -> int:
        """The command's resident memory now (Linux ``/proc``)."""
        return self._status("VmRSS:")

    def peak_rss_bytes(self) -> int:
        """The command's peak resident memory so far (Linux ``/proc``: VmHWM)."""
        return self._status("VmHWM:")

    def stop(self, timeout: float = 20.0) -> int | None:
        """Send :attr:`stop_signal` and wait for the command (killed after ``timeout`` seconds);
        its exit code. Its log stays readable (:meth:`log`)."""
        if self.proc.poll() is None:
            self.proc.send_signal(self.stop_signal)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        if self._stopped_log is None:
            self._stopped_log = self.log()
            self._log.close()
            if not self._keep_log:
                self.log_path.unlink(missing_ok=True)
        return self.proc.returncode

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()
