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
import shutil
import signal
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final

from .command import ServingCommand

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


class UIServer(ServingCommand):
    """``kubesched ui ARGS... --port 0`` (:class:`~kubesched.testing.command.ServingCommand`),
    interrupted as Ctrl-C does; :attr:`url` is where it serves (``http://127.0.0.1:PORT``, no
    trailing slash)."""

    def __init__(self, args: Sequence[str], *, cwd: str | Path | None = None, timeout: float = 120.0,
                 env: dict[str, str] | None = None) -> None:
        super().__init__("ui", *args, "--port", "0", cwd=cwd, env=env, timeout=timeout,
                         stop_signal=signal.SIGINT)
