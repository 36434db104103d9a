"""The documentation site builds with ``mkdocs build --strict``, as ``.ci/run`` builds it.

Strict mode (and ``validation`` in ``mkdocs.yml``) turns every broken link or anchor between
pages, and every page missing from the nav, into a failure; the built pages load nothing from
the network (no web fonts, no CDN), so the site reads offline.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from ._doctest import ROOT

pytest.importorskip("mkdocs", reason="mkdocs is not installed (pip install -e '.[docs]')")
pytest.importorskip("material", reason="mkdocs-material is not installed (pip install -e '.[docs]')")

#: What a page may fetch: nothing outside the site (a link to read elsewhere is fine).
_REMOTE_ASSET = re.compile(r"<(?:script|link|img)\b[^>]*(?:src|href)=\"(?:https?:)?//", re.I)


def test_the_site_builds_strict_and_loads_nothing_remote(tmp_path: Path) -> None:
    site = tmp_path / "site"
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(site)],
        cwd=ROOT, capture_output=True, text=True, check=False,
        env={"PATH": "", "NO_MKDOCS_2_WARNING": "1", "HOME": str(tmp_path)},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    pages = sorted(site.rglob("*.html"))
    assert (site / "index.html") in pages and (site / "commands" / "simulate" / "index.html") in pages
    remote = {p.relative_to(site).as_posix(): m.group(0) for p in pages
              if (m := _REMOTE_ASSET.search(p.read_text(encoding="utf-8")))}
    assert not remote, remote

