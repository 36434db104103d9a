"""``kubesched ui`` on a large cluster, measured in headless Chromium: how long the cluster page
and one pod's decision take to draw, and the server's memory.

The cluster is ``gen_dump.py``'s realistic ``kubectl get -A -o json`` dump (nodes with image
lists, pods with managedFields, owners, probes and statuses; 2% of the pods pending), written
as JSON (``--nodes`` 5000, ``--pods`` 50,000 by default). ``kubesched ui DUMP`` is started as a
user starts it (its own process, which reads the dump and schedules the pending pods first);
then Chromium (:mod:`kubesched.testing.browser`: Debian's, through Playwright):

- **cluster page**: a fresh tab loads ``/#/cluster``; from the navigation to the first page of
  node rows drawn (the totals, the first 100 nodes with their allocation bars);
- **decision**: on the Pods page of pending-then-scheduled pods, a click on a pod to its Filter
  and Score matrices drawn (every node's verdict computed by the server, as ``explain``, the
  first 200 rows drawn);
- **server RSS**: the server's peak resident memory (VmHWM) after all of the above;
- **export**: then the *Snapshot* download (``/api/export/snapshot``, ``kubesched snapshot``'s
  bytes) read to its end: its seconds, its size, and the server's peak memory after it.

Each page figure is the median of ``--repeat`` tries (the first try is reported apart: cold
caches). A benchmark, not a test: it prints the figures as JSON, with the targets (cluster page
< 2 s, decision < 1 s, RSS < 1.5 GiB) and whether each was met; it exits 0 either way.

    python benchmarks/ui_bench.py                        # 5000 nodes, 50,000 pods
    python benchmarks/ui_bench.py --nodes 500 --pods 5000 --repeat 3
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, sync_playwright

from kubesched.testing.browser import UIServer, launch_chromium


def _gen_dump() -> Any:
    """The sibling script ``gen_dump.py``: the project's realistic cluster dump."""
    spec = importlib.util.spec_from_file_location("gen_dump", Path(__file__).resolve().parent / "gen_dump.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


TARGETS = {"cluster_page_seconds": 2.0, "decision_seconds": 1.0, "server_peak_rss_bytes": 1.5 * 2**30}
TIMEOUT_MS = 120_000


def write_cluster(path: Path, nodes: int, pods: int, seed: int) -> None:
    with path.open("w") as f:
        json.dump(_gen_dump().dump(pods, nodes, 0, seed), f)


def cluster_page(page: Page, url: str) -> float:
    """Seconds from the navigation to the first node rows drawn."""
    page.goto("about:blank")
    t0 = time.perf_counter()
    page.goto(f"{url}/#/cluster")
    page.get_by_test_id("node-row").first.wait_for()
    return time.perf_counter() - t0


def decision(page: Page, url: str, index: int) -> tuple[str, float]:
    """The ``index``-th scheduled pod on the Pods page clicked; seconds to its matrices."""
    page.goto(f"{url}/#/pods?status=Scheduled")
    row = page.get_by_test_id("pod-row").nth(index)
    pod = row.get_attribute("data-pod") or ""
    t0 = time.perf_counter()
    row.click()
    page.get_by_test_id("filter-matrix").locator("tbody tr").first.wait_for()
    page.get_by_test_id("score-matrix").wait_for(state="attached")
    return pod, time.perf_counter() - t0


def export(url: str) -> tuple[float, int]:
    """Seconds and bytes of the snapshot download, read to its end (and dropped)."""
    t0 = time.perf_counter()
    size = 0
    with urllib.request.urlopen(f"{url}/api/export/snapshot", timeout=TIMEOUT_MS / 1000 * 10) as resp:
        while block := resp.read(1 << 20):
            size += len(block)
    return time.perf_counter() - t0, size


def measure(browser: Browser, url: str, repeat: int) -> tuple[list[float], list[tuple[str, float]]]:
    """``repeat`` + 1 tries of each page figure, in a fresh context."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    try:
        context.set_default_timeout(TIMEOUT_MS)
        page = context.new_page()
        pages = [cluster_page(page, url) for _ in range(repeat + 1)]
        picks = [decision(page, url, i) for i in range(repeat + 1)]
    finally:
        context.close()
    return pages, picks


def machine() -> dict[str, Any]:
    cpu = ""
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    mem = 0
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemTotal:"):
            mem = int(line.split()[1]) * 1024
    return {"cpu": cpu, "cores": os.cpu_count(), "memory_bytes": mem, "python": platform.python_version(),
            "system": f"{platform.system()} {platform.release()}"}


def main(argv: list[str] | None = None, browser: Browser | None = None) -> int:
    """Run and print; ``browser``: a Chromium already launched (by the smoke test's session),
    else one launched here."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--pods", type=int, default=50_000)
    ap.add_argument("--repeat", type=int, default=5, help="tries of each page figure (the median is kept)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="ui-bench-") as tmp:
        dump = Path(tmp) / "cluster.json"
        t0 = time.perf_counter()
        write_cluster(dump, args.nodes, args.pods, args.seed)
        generated = time.perf_counter() - t0
        t0 = time.perf_counter()
        with UIServer([str(dump)], timeout=1800) as server:
            serving = time.perf_counter() - t0
            if browser is not None:
                pages, picks = measure(browser, server.url, args.repeat)
            else:
                with sync_playwright() as pw:
                    own = launch_chromium(pw)
                    try:
                        pages, picks = measure(own, server.url, args.repeat)
                    finally:
                        own.close()
            rss = server.peak_rss_bytes()
            export_seconds, export_bytes = export(server.url)
            export_rss = server.peak_rss_bytes()

    figures: dict[str, Any] = {
        "cluster_page_seconds": round(statistics.median(pages[1:]), 3),
        "decision_seconds": round(statistics.median(s for _, s in picks[1:]), 3),
        "server_peak_rss_bytes": rss,
    }
    out = {
        "nodes": args.nodes, "pods": args.pods,
        "generate_seconds": round(generated, 1),
        "server_start_seconds": round(serving, 1),  # read the dump, schedule the pending pods, serve
        **figures,
        "server_peak_rss_mib": round(rss / 2**20),
        "first_cluster_page_seconds": round(pages[0], 3),
        "first_decision_seconds": round(picks[0][1], 3),
        "decision_pods": [p for p, _ in picks],
        "export_seconds": round(export_seconds, 1),
        "export_bytes": export_bytes,
        "export_peak_rss_mib": round(export_rss / 2**20),
        "targets": {k: {"target": v, "met": figures[k] < v} for k, v in TARGETS.items()},
        "machine": machine(),
    }
    json.dump(out, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
