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

With ``--kubeconfig K`` the server is ``kubesched ui --kubeconfig K`` on the cluster K points at,
as it is (``--nodes``/``--pods`` unused); with ``--live`` a control plane of the k8s folder
(``$KUBESCHED_K8S_DIR`` or ``../shared/k8s``) is started for the run, filled with ``--nodes``
nodes and ``--pods`` pods (2% without a node, the rest bound round-robin; the helpers of
``live_side_by_side.py``), served so, and stopped. The server lists the cluster, schedules the
pending pods, serves, and its informers list the cluster again to follow it: the figures are
taken once its memory has settled (no growth over 1% in ``SETTLE`` seconds), and the start
time is to serving.

Each page figure is the median of ``--repeat`` tries (the first try is reported apart: cold
caches). A benchmark, not a test: it prints the figures as JSON, with the targets (cluster page
< 2 s, decision < 1 s, RSS < 1.5 GiB) and whether each was met; it exits 0 either way.

    python benchmarks/ui_bench.py                        # 5000 nodes, 50,000 pods
    python benchmarks/ui_bench.py --nodes 500 --pods 5000 --repeat 3
    python benchmarks/ui_bench.py --live                 # the same cluster on an API server
    python benchmarks/ui_bench.py --kubeconfig K         # the cluster K points at
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import platform
import statistics
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

from playwright.sync_api import Browser, Page, sync_playwright

from kubesched.testing.browser import UIServer, launch_chromium


def _sibling(name: str) -> ModuleType:
    """A sibling script: ``gen_dump`` (the project's realistic cluster dump) or
    ``live_side_by_side`` (its API client, workload and control-plane helpers)."""
    spec = importlib.util.spec_from_file_location(name, Path(__file__).resolve().parent / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


TARGETS = {"cluster_page_seconds": 2.0, "decision_seconds": 1.0, "server_peak_rss_bytes": 1.5 * 2**30}
TIMEOUT_MS = 120_000
SETTLE = 15.0
PENDING = 0.02
"""The share of ``--live``'s pods created without a node (``gen_dump.py``'s)."""


def write_cluster(path: Path, nodes: int, pods: int, seed: int) -> None:
    with path.open("w") as f:
        json.dump(_sibling("gen_dump").dump(pods, nodes, 0, seed), f)


@contextlib.contextmanager
def live_cluster(tmp: Path, nodes: int, pods: int) -> Iterator[tuple[str, float]]:
    """A control plane filled with ``nodes`` nodes and ``pods`` pods (PENDING of them without a
    node); its kubeconfig and the seconds filling took. Stopped on exit."""
    sbs = _sibling("live_side_by_side")
    pending = round(pods * PENDING)
    with sbs.control_plane(sbs.k8s_dir() / "control-plane", tmp) as (cp, env):
        api = sbs.Api(env["API_URL"], env["TOKEN"], cp / "ca.crt")
        t0 = time.perf_counter()
        sbs.populate(api, nodes, pods - pending, 16)

        def one_pending(i: int) -> None:
            status, data = api.request("POST", f"/api/v1/namespaces/{sbs.MEASURED_NS}/pods",
                                       sbs.pod_doc(f"pending-{i}", sbs.MEASURED_NS))
            if status >= 300:
                raise RuntimeError(f"pending-{i}: HTTP {status}: {data[:300]!r}")

        sbs.parallel(pending, 16, one_pending)
        yield env["KUBECONFIG"], time.perf_counter() - t0


def settle(server: UIServer, limit: float = 1800.0) -> float:
    """Waits for the server's memory to stop growing (its informers' first list done): no growth
    over 1% in SETTLE seconds. The seconds waited."""
    t0 = time.perf_counter()
    last, since = server.rss_bytes(), time.perf_counter()
    while time.perf_counter() - t0 < limit:
        time.sleep(1.0)  # another process's memory: there is no event to wait on
        now = server.rss_bytes()
        if now > last * 1.01:
            last, since = now, time.perf_counter()
        elif time.perf_counter() - since >= SETTLE:
            break
    return time.perf_counter() - t0


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
    source = ap.add_mutually_exclusive_group()
    source.add_argument("--kubeconfig", metavar="PATH", help="serve the cluster this kubeconfig points at")
    source.add_argument("--live", action="store_true", help="a control plane started and filled for the run")
    args = ap.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="ui-bench-") as tmp, contextlib.ExitStack() as stack:
        t0 = time.perf_counter()
        settled = 0.0
        if args.kubeconfig:
            serve, generated = ["--kubeconfig", args.kubeconfig], 0.0
        elif args.live:
            kubeconfig, generated = stack.enter_context(live_cluster(Path(tmp), args.nodes, args.pods))
            serve = ["--kubeconfig", kubeconfig]
        else:
            dump = Path(tmp) / "cluster.json"
            write_cluster(dump, args.nodes, args.pods, args.seed)
            serve, generated = [str(dump)], time.perf_counter() - t0
        t0 = time.perf_counter()
        with UIServer(serve, timeout=1800) as server:
            serving = time.perf_counter() - t0
            if len(serve) == 2:
                settled = settle(server)
            load = os.getloadavg()
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
        "input": "kubeconfig" if args.kubeconfig else "live" if args.live else "files",
        "nodes": args.nodes, "pods": args.pods,
        "generate_seconds": round(generated, 1),  # the dump written, or the API server filled
        "server_start_seconds": round(serving, 1),  # read the input, schedule the pending pods, serve
        "settle_seconds": round(settled, 1),  # live: then the informers' list, to a steady memory
        **figures,
        "server_peak_rss_mib": round(rss / 2**20),
        "first_cluster_page_seconds": round(pages[0], 3),
        "first_decision_seconds": round(picks[0][1], 3),
        "decision_pods": [p for p, _ in picks],
        "export_seconds": round(export_seconds, 1),
        "export_bytes": export_bytes,
        "export_peak_rss_mib": round(export_rss / 2**20),
        "targets": {k: {"target": v, "met": figures[k] < v} for k, v in TARGETS.items()},
        "load_average": [round(x, 1) for x in (*load, *os.getloadavg())],  # 1/5/15 min, before and after
        "machine": machine(),
    }
    json.dump(out, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
