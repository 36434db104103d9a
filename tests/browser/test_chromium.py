"""The browser the other tests drive: Debian's Chromium, headless, with the flags of a closed
network and a profile of its own (chrome://version shows the command line it runs)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from kubesched.testing.browser import CHROMIUM_FLAGS

if TYPE_CHECKING:
    from playwright.sync_api import Page


def test_chromium_runs_headless_with_the_closed_network_flags_and_a_fresh_profile(page: Page) -> None:
    page.goto("chrome://version")
    argv = page.inner_text("#command_line").split()
    assert set(CHROMIUM_FLAGS) <= set(argv)
    (profile,) = [a.split("=", 1)[1] for a in argv if a.startswith("--user-data-dir=")]
    # a directory made for this launch (removed when the browser closes), not the user's profile
    assert Path(profile).is_dir() and not Path(profile).is_relative_to(Path.home())
