"""The HTML shell, rendered on the server: the header (what the inputs are, the release, the
seed), the navigation, and the element each page's script fills.

The pages are ES modules under ``static/pages/`` (no build step); the navigation is
:data:`PAGES`: a page another part of the UI adds is one entry here and one module there
(``static/pages/<slug>.js`` exporting ``render(root, params)``)."""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import Final

__all__ = ["PAGES", "Page", "render_shell"]


@dataclass(frozen=True, slots=True)
class Page:
    slug: str  # the route (#/slug) and the module static/pages/<slug>.js
    title: str
    nav: bool = True  # False: reached by a link (a pod's decision), not listed in the bar


PAGES: Final[tuple[Page, ...]] = (
    Page("cluster", "Cluster"),
    Page("pods", "Pods"),
    Page("decision", "Decision", nav=False),
    Page("whatif", "What-if"),
    Page("config", "Configuration"),
    Page("compare", "Compare"),
    Page("timeline", "Over time"),
)


def render_shell(describe: str, kube_version: str, seed: int, live: bool) -> bytes:
    nav = "".join(f'<a href="#/{p.slug}" data-page="{p.slug}">{escape(p.title)}</a>'
                  for p in PAGES if p.nav)
    facts = " · ".join(escape(x) for x in (
        describe, f"Kubernetes {kube_version}" if kube_version else "", f"seed {seed}") if x)
    live_badge = '<span class="badge live" id="live">live</span>' if live else ""
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>kubesched</title>
<link rel="stylesheet" href="/static/style.css">
<script type="module" src="/static/app.js"></script>
</head>
<body>
<header>
  <a class="brand" href="#/cluster">kubesched</a>
  <nav id="nav">{nav}</nav>
  <span class="facts" id="facts">{facts}</span>
  {live_badge}
  <span class="actions">
    <button type="button" id="reload" title="Read the inputs again and re-run">Reload</button>
    <a href="/api/export/snapshot" download="snapshot.yaml"
       title="The input, as kubesched snapshot writes it">Snapshot</a>
    <a href="/api/export/state" download="state.yaml"
       title="The simulated end state, as simulate -o yaml writes it">State</a>
  </span>
</header>
<div id="banner" hidden></div>
<main id="main" data-pages="{escape(",".join(p.slug for p in PAGES))}"><p class="muted">Loading…</p></main>
<noscript>This page needs JavaScript; the same answers are in <code>kubesched simulate</code> and
<code>kubesched explain</code>.</noscript>
</body>
</html>
""".encode()
