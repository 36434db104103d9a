"""``benchmarks/README.md`` points at the documentation site for its figures, never at README
sections (the README is a short front page; its old sections moved to ``docs/``): every link
into ``docs/`` names a page that exists and, with ``#anchor``, a heading of that page, as
mkdocs' ``toc`` extension spells its id."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

from ._doctest import ROOT

BENCHMARKS_README = ROOT / "benchmarks" / "README.md"
_LINK = re.compile(r"\]\((\.\./docs/[^)#\s]+)(?:#([^)\s]+))?\)")
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*$", re.M)
_FENCE = re.compile(r"^```.*?^```", re.M | re.S)


def _slug(title: str) -> str:
    """python-markdown's toc slugify (the default mkdocs uses): NFKD, word characters, spaces
    and hyphens kept, lower case, runs of spaces and hyphens one hyphen."""
    text = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode()
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def _anchors(page: Path) -> set[str]:
    text = _FENCE.sub("", page.read_text(encoding="utf-8"))
    return {_slug(m.group(1)) for m in _HEADING.finditer(text)}


def test_the_benchmarks_readme_names_no_readme_section() -> None:
    text = BENCHMARKS_README.read_text(encoding="utf-8")
    assert not re.search(r"\bREADME\b", text), "point at a docs/ page instead of the README"


def test_the_benchmarks_readme_links_into_the_docs_resolve() -> None:
    text = BENCHMARKS_README.read_text(encoding="utf-8")
    links = _LINK.findall(text)
    assert links  # the figures live in docs/
    broken = []
    for target, anchor in links:
        page = (BENCHMARKS_README.parent / target).resolve()
        if not page.is_file():
            broken.append(target)
        elif anchor and anchor not in _anchors(page):
            broken.append(f"{target}#{anchor}")
    assert not broken, broken
