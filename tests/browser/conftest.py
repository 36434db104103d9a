"""End-to-end tests of ``kubesched ui`` in Debian's Chromium, headless, through Playwright
(:mod:`kubesched.testing.browser`).

Where Chromium or Playwright is absent (a user's clone without the ``browser`` extra or the
``chromium`` package) the tests skip with a message saying what to install; with
``KUBESCHED_REQUIRE_K8S=1`` (set by ``.ci/run``, which installs both) a missing browser fails
them instead, so CI always runs them. One browser serves the whole session (its start is most
of these tests' time); each test gets a fresh context (no cookies or storage from another) and
the server it needs: ``quickstart_ui`` is shared by the tests that leave it as it was, a
test that changes the server's state starts its own with ``ui_server``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from typer.testing import CliRunner

from kubesched.cli import app
from kubesched.testing.browser import UIServer, chromium_executable, launch_chromium

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page, Playwright

REPO = Path(__file__).resolve().parents[2]
QUICKSTART = REPO / "examples" / "quickstart"
TIMEOUT_MS = 20_000  # per action and assertion; a shared CI machine can be slow, never this slow


def _missing(why: str) -> None:
    msg = f"browser tests need {why}"
    if os.environ.get("KUBESCHED_REQUIRE_K8S", "") not in ("", "0"):
        pytest.fail(msg + "; KUBESCHED_REQUIRE_K8S is set", pytrace=False)
    pytest.skip(msg)


@pytest.fixture(scope="session")
def playwright() -> Iterator[Playwright]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("Playwright (pip install -e '.[browser]'; it drives the system's Chromium, "
                 "no browser download)")
    with sync_playwright() as pw:
        yield pw


@pytest.fixture(scope="session")
def chromium(playwright: Playwright) -> str:
    """The Chromium the tests drive (skipped, or failed in CI, where there is none)."""
    path = chromium_executable()
    if path is None:
        _missing("Chromium (apt-get install chromium, or set KUBESCHED_CHROMIUM to its path)")
    assert path is not None
    return path


@pytest.fixture(scope="session")
def browser(playwright: Playwright, chromium: str) -> Iterator[Browser]:
    """Headless Chromium for the whole session."""
    b = launch_chromium(playwright, chromium)
    yield b
    b.close()


@pytest.fixture()
def page(browser: Browser) -> Iterator[Page]:
    """A page in a fresh context; the console's errors fail the test (a page that throws is
    broken even when the element looked for is there)."""
    context = browser.new_context(viewport={"width": 1400, "height": 900}, accept_downloads=True)
    context.set_default_timeout(TIMEOUT_MS)
    p = context.new_page()
    errors: list[str] = []
    p.on("pageerror", lambda exc: errors.append(str(exc)))
    yield p
    context.close()
    assert not errors, f"the page threw: {errors}"


@pytest.fixture()
def ui_server(tmp_path: Path) -> Iterator[Callable[..., UIServer]]:
    """Start ``kubesched ui ARGS...`` (stopped after the test); returns its server."""
    started: list[UIServer] = []

    def start(*args: str | Path) -> UIServer:
        server = UIServer([str(a) for a in args], cwd=tmp_path)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture(scope="session")
def quickstart_ui(browser: Browser) -> Iterator[UIServer]:
    """``kubesched ui examples/quickstart/``, shared by the tests that leave its state as it
    was (a what-if, a replay or a decision changes nothing served); asks for the browser first,
    so that a missing one skips before a server starts."""
    # relative, as the quick start types it: the page shows its inputs as given
    with UIServer(["examples/quickstart/"], cwd=REPO) as server:
        yield server


def kubesched(*args: str | Path) -> str:
    """The command's standard output (in this process, as the CLI tests run it); it must succeed."""
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.stdout


def explain_json(*args: str | Path) -> dict[str, Any]:
    """``kubesched explain ARGS... -o json``, parsed."""
    out: dict[str, Any] = json.loads(kubesched("explain", *args, "-o", "json"))
    return out
