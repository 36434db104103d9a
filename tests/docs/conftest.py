"""``--doc-update``: rewrite the docs' expected outputs in place instead of failing.

The option itself is registered in ``tests/conftest.py`` so that it is known however pytest is
started; the rewrites are collected here and written when the session ends.
"""

from __future__ import annotations

import pytest

from ._doctest import Rewrite, apply

REWRITES = pytest.StashKey[list[Rewrite]]()


@pytest.fixture
def doc_rewrites(request: pytest.FixtureRequest) -> list[Rewrite] | None:
    """Where a test puts the outputs to write back, or None when not updating."""
    config = request.config
    if not config.getoption("doc_update"):
        return None
    return config.stash.setdefault(REWRITES, [])


def pytest_sessionfinish(session: pytest.Session) -> None:
    rewrites = session.config.stash.get(REWRITES, [])
    if rewrites:
        pages = apply(rewrites)
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            names = ", ".join(str(p) for p in pages)
            reporter.write_line(f"--doc-update rewrote {len(rewrites)} output(s) in {names}")
