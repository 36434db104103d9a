"""Drive ``kubesched ui`` in a real browser: the page served as a user serves it (the command, in
its own process, on a free loopback port) and Debian's Chromium, headless, through Playwright.

One module for the end-to-end tests (``tests/browser``), the screenshots of the documentation and
the page benchmark (``benchmarks/ui_bench.py``), so that all three see the same browser with the
same flags. Playwright is the ``browser`` extra; it drives the system's Chromium through
``executable_path`` and never downloads a browser of its own.

Why Playwright over Selenium + chromedriver: both start Debian's Chromium in about 2.5 s here
(the browser's own start dominates), but Playwright's locators wait for the element the page
has yet to draw, so the tests need no sleeps and no polling loops of their own, and it hovers,
evaluates in the page and takes full-page screenshots with no extra driver to keep in step with
the browser's release.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Playwright

__all__ = ["CHROMIUM_FLAGS", "UIServer", "chromium_executable", "launch_chromium"]

CHROMIUM_FLAGS: Final[tuple[str, ...]] = (
    "--headless",
    "--no-sandbox",  # CI runs as root, where Chromium's sandbox refuses to start
    "--disable-gpu",
    # the network is closed: nothing may be tried outside the loopback page under test
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
"""Every launch passes these (and Playwright adds a fresh ``--user-data-dir`` per launch)."""

DEBIAN_CHROMIUM: Final = "/usr/bin/chromium"
SERVING: Final = re.compile(r"serving on (http://\S+?)/? ")


def chromium_executable() -> str | None:
    """``$KUBESCHED_CHROMIUM``, else Debian's ``/usr/bin/chromium``, else ``chromium`` on the
    PATH; None when there is none."""
    env = os.environ.get("KUBESCHED_CHROMIUM")
    if env:
        return env if Path(env).is_file() else None
    if Path(DEBIAN_CHROMIUM).is_file():
        return DEBIAN_CHROMIUM
    return shutil.which("chromium")


def launch_chromium(playwright: Playwright, executable: str | None = None) -> Browser:
    """Headless Chromium with :data:`CHROMIUM_FLAGS`, from ``executable`` (default
    :func:`chromium_executable`). Raises FileNotFoundError when there is no Chromium."""
    path = executable or chromium_executable()
    if path is None:
        raise FileNotFoundError("no Chromium found: install Debian's chromium package "
                                "(apt-get install chromium) or set KUBESCHED_CHROMIUM")
    return playwright.chromium.launch(executable_path=path, headless=True, args=list(CHROMIUM_FLAGS))


class UIServer:
    """``kubesched ui ARGS... --port 0`` in a child process, until :meth:`stop` (or the end of a
    ``with`` block); :attr:`url` is where it serves (``http://127.0.0.1:PORT``, no trailing
    slash). Its standard error goes to a file (never a pipe that a chatty server could fill)."""

    def __init__(self, args: Sequence[str], *, cwd: str | Path | None = None, timeout: float = 120.0,
                 env: dict[str, str] | None = None) -> None:
        self._log = tempfile.NamedTemporaryFile(prefix="kubesched-ui-", suffix=".log", delete=False)  # noqa: SIM115
        src = str(Path(__file__).resolve().parents[2])
        child_env = {**os.environ, **(env or {})}
        child_env["PYTHONPATH"] = os.pathsep.join(p for p in (src, child_env.get("PYTHONPATH", "")) if p)
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "from kubesched.cli import main; main()", "ui", *args, "--port", "0"],
            cwd=cwd, env=child_env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=self._log)
        try:
            self.url = self._wait_for_url(timeout)
        except BaseException:
            self.stop()
            raise

    @property
    def pid(self) -> int:
        return self.proc.pid

    def log(self) -> str:
        """What the server wrote on its standard error so far."""
        return Path(self._log.name).read_text(errors="replace")

    def _wait_for_url(self, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            m = SERVING.search(self.log())
            if m:
                return m.group(1).rstrip("/")
            if self.proc.poll() is not None:
                raise RuntimeError(f"kubesched ui exited with {self.proc.returncode}: {self.log().strip()}")
            time.sleep(0.05)  # a child process's start-up: there is no event to wait on
        raise TimeoutError(f"kubesched ui did not serve within {timeout:.0f}s: {self.log().strip()}")

    def rss_bytes(self) -> int:
        """The server's resident memory now (Linux ``/proc``)."""
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
        raise RuntimeError(f"no VmRSS for process {self.pid}")

    def peak_rss_bytes(self) -> int:
        """The server's peak resident memory so far (Linux ``/proc``: VmHWM)."""
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
        raise RuntimeError(f"no VmHWM for process {self.pid}")

    def stop(self) -> int | None:
        """Interrupt the server as Ctrl-C does and wait for it; its exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self._log.close()
        Path(self._log.name).unlink(missing_ok=True)
        return self.proc.returncode

    def __enter__(self) -> UIServer:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()
