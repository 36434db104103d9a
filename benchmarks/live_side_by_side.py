"""Side by side against a real API server: the real kube-scheduler, then ``kubesched run``.

For each scheduler in turn, on a freshly started control plane (etcd + kube-apiserver, the
``control-plane`` script of the k8s folder; authorization AlwaysAllow):

1. create ``--nodes`` nodes (the object, then its status through the status subresource:
   allocatable cpu 4 / memory 32Gi / pods 110, condition Ready, no taints: scheduler_perf's
   node-default template) and ``--bound-pods`` pods already bound (``spec.nodeName`` set, in
   their own namespace);
2. start the scheduler (clientConnection qps/burst ``--qps``, no leader election) and wait
   until it is ready (kube-scheduler: its ``/healthz``; kubesched: its "caches synced" line);
3. create ``--pods`` basic pods (scheduler_perf's pod-default: requests cpu 100m, memory 500Mi)
   as fast as the API server takes them, from ``--creators`` threads each holding one
   keep-alive HTTPS connection;
4. measure pods/s from the first creation request to the last binding seen by one watch on
   the measured namespace (the watch decodes only what it needs: the pod's name and whether it
   has a node), the creation rate, the scheduler's peak RSS (``VmHWM`` of its process) and its
   CPU seconds, then stop everything.

    python benchmarks/live_side_by_side.py --nodes 1000 --pods 5000
    python benchmarks/live_side_by_side.py --nodes 5000 --pods 10000
    python benchmarks/live_side_by_side.py --nodes 5 --pods 20 --scheduler kubesched   # smoke
    python benchmarks/live_side_by_side.py --nodes 1000 --pods 3000 \
        --scheduler kube-scheduler --scheduler kube-scheduler+extender

``--release 1.35``: the v1.35 control plane (``../shared/k8s-1.35``). ``--prequeued``: the
pods are created before the scheduler starts (between steps 1 and 2), and pods/s and CPU run from
its start to the last binding. ``--rounds N``: every scheduler N times, the order reversed every
other round, each round's ratio and their median. ``cpu_ms_per_pod``: the scheduler's CPU per pod.

    python benchmarks/live_side_by_side.py --release 1.35 --nodes 1000 --pods 5000 --prequeued --rounds 2

``kube-scheduler+extender``: the real kube-scheduler with ``kubesched extender`` (informer
mode, default plugins) as its extender (``filterVerb`` + ``prioritizeVerb``, ``weight: 1``,
``nodeCacheCapable: true``), started first on the same control plane; its CPU seconds and peak
RSS are reported in ``notes``. With ``kube-scheduler`` in the same run, the JSON has
``ratio_extender_pods_per_second`` (with the extender / without).
``kube-scheduler+extender-nodes``: the same with ``nodeCacheCapable: false`` (kube-scheduler
sends the Node objects), for comparison; ``ratio_extender_nodes_pods_per_second``.

The k8s folder is ``$KUBESCHED_K8S_DIR`` or ``../shared/k8s`` beside the repository. The JSON
result (one object per scheduler, and the ratio) goes to stdout; progress to stderr.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import shutil
import signal
import ssl
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, suppress
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

REPO = Path(__file__).resolve().parents[1]
SCHEDULERS = ("kube-scheduler", "kubesched")
EXTENDED = "kube-scheduler+extender"
# The same with ``nodeCacheCapable: false``: kube-scheduler sends the Node objects, for comparison.
EXTENDED_NODES = "kube-scheduler+extender-nodes"
BOUND_NS = "bench-bound"
MEASURED_NS = "bench"


def log(msg: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


RELEASES = {"1.32": "k8s", "1.35": "k8s-1.35"}
"""``--release``: the folder beside the repository's parent holding that control plane."""


def k8s_dir(release: str = "1.32") -> Path:
    env = os.environ.get("KUBESCHED_K8S_DIR")
    return Path(env) if env else REPO.parent / "shared" / RELEASES[release]


# --- a minimal keep-alive HTTPS client (one connection per thread) ---------------------------


class Api:
    """Raw requests to the API server: one keep-alive connection per thread, the admin token."""

    def __init__(self, url: str, token: str, ca: Path) -> None:
        parts = urlsplit(url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 443
        self.headers = {"Authorization": f"Bearer {token}", "Accept": "application/json",
                        "Content-Type": "application/json"}
        self.ctx = ssl.create_default_context(cafile=str(ca))
        self._local = threading.local()

    def connection(self, timeout: float | None = 60.0) -> http.client.HTTPSConnection:
        return http.client.HTTPSConnection(self.host, self.port, context=self.ctx, timeout=timeout)

    def request(self, method: str, path: str, body: bytes | None = None,
                content_type: str = "application/json") -> tuple[int, bytes]:
        for attempt in range(5):
            conn = getattr(self._local, "conn", None)
            if conn is None:
                conn = self._local.conn = self.connection()
            try:
                conn.request(method, path, body=body, headers={**self.headers, "Content-Type": content_type})
                resp = conn.getresponse()
                data = resp.read()
            except (OSError, http.client.HTTPException):
                conn.close()
                self._local.conn = None
                if attempt == 4:
                    raise
                continue
            if resp.status == 429 or (resp.status >= 500 and attempt < 4):
                time.sleep(0.05 * (attempt + 1))
                continue
            return resp.status, data
        raise RuntimeError("unreachable")

    def must(self, method: str, path: str, doc: Any = None, content_type: str = "application/json") -> Any:
        status, data = self.request(method, path, json.dumps(doc).encode() if doc is not None else None,
                                    content_type)
        if status >= 300:
            raise RuntimeError(f"{method} {path}: HTTP {status}: {data[:300]!r}")
        return json.loads(data) if data else None


# --- the workload ------------------------------------------------------------------------------


def namespace_doc(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}


def node_doc(i: int) -> dict[str, Any]:
    name = f"node-{i}"
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}}}


NODE_STATUS = json.dumps({"status": {
    "capacity": {"cpu": "4", "memory": "32Gi", "pods": "110"},
    "allocatable": {"cpu": "4", "memory": "32Gi", "pods": "110"},
    "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady",
                    "lastHeartbeatTime": "2024-01-01T00:00:00Z",
                    "lastTransitionTime": "2024-01-01T00:00:00Z"}]}}).encode()


def pod_doc(name: str, namespace: str, node: str | None = None) -> bytes:
    res = {"cpu": "100m", "memory": "500Mi"}
    spec: dict[str, Any] = {"containers": [{"name": "pause", "image": "registry.k8s.io/pause:3.10",
                                            "resources": {"requests": res, "limits": res}}],
                            "terminationGracePeriodSeconds": 0}
    if node is not None:
        spec["nodeName"] = node
    return json.dumps({"apiVersion": "v1", "kind": "Pod",
                       "metadata": {"name": name, "namespace": namespace}, "spec": spec}).encode()


def parallel(n: int, workers: int, fn: Callable[[int], None]) -> float:
    """Run fn(0..n-1) on ``workers`` threads; the seconds it took."""
    t0 = time.monotonic()
    with ThreadPoolExecutor(workers) as pool:
        for _ in pool.map(fn, range(n)):
            pass
    return time.monotonic() - t0


def populate(api: Api, nodes: int, bound: int, workers: int) -> None:
    def one_node(i: int) -> None:
        api.must("POST", "/api/v1/nodes", node_doc(i))
        status, data = api.request("PATCH", f"/api/v1/nodes/node-{i}/status", NODE_STATUS,
                                   "application/merge-patch+json")
        if status >= 300:
            raise RuntimeError(f"node-{i} status: HTTP {status}: {data[:300]!r}")

    took = parallel(nodes, workers, one_node)
    log(f"{nodes} nodes in {took:.1f}s")
    for ns in (BOUND_NS, MEASURED_NS):
        api.must("POST", "/api/v1/namespaces", namespace_doc(ns))

    def one_bound(i: int) -> None:
        status, data = api.request("POST", f"/api/v1/namespaces/{BOUND_NS}/pods",
                                   pod_doc(f"bound-{i}", BOUND_NS, f"node-{i % nodes}"))
        if status >= 300:
            raise RuntimeError(f"bound-{i}: HTTP {status}: {data[:300]!r}")

    took = parallel(bound, workers, one_bound)
    log(f"{bound} bound pods in {took:.1f}s")


class BindWatch(threading.Thread):
    """One watch on the measured namespace: the monotonic time each pod was first seen bound.

    Decodes only the name and ``"nodeName"`` of each event with a regex (no full JSON decode),
    so measuring costs the machine little next to the schedulers under test."""

    _NAME = re.compile(rb'"metadata":\{"name":"([^"]+)"')
    _NODE = re.compile(rb'"nodeName":"')

    def __init__(self, api: Api, resource_version: str, expected: int) -> None:
        super().__init__(daemon=True, name="bind-watch")
        self.api, self.rv, self.expected = api, resource_version, expected
        self.bound: dict[bytes, float] = {}
        self.done = threading.Event()
        self.error: BaseException | None = None
        self._conn: http.client.HTTPSConnection | None = None

    def run(self) -> None:
        try:
            while not self.done.is_set():
                self._watch_once()
        except BaseException as exc:
            if not self.done.is_set():
                self.error = exc
            self.done.set()

    def _watch_once(self) -> None:
        conn = self._conn = self.api.connection(timeout=None)
        path = (f"/api/v1/namespaces/{MEASURED_NS}/pods?watch=1&allowWatchBookmarks=true"
                f"&resourceVersion={self.rv}&timeoutSeconds=3600")
        conn.request("GET", path, headers=self.api.headers)
        resp = conn.getresponse()
        if resp.status != 200:
            raise RuntimeError(f"watch: HTTP {resp.status}: {resp.read()[:300]!r}")
        for line in resp:
            now = time.monotonic()
            if line.startswith(b'{"type":"BOOKMARK"'):
                m = re.search(rb'"resourceVersion":"(\d+)"', line)
                if m:
                    self.rv = m.group(1).decode()
                continue
            if line.startswith(b'{"type":"ERROR"'):
                raise RuntimeError(f"watch error: {line[:300]!r}")
            m = re.search(rb'"resourceVersion":"(\d+)"', line)
            if m:
                self.rv = m.group(1).decode()
            if not self._NODE.search(line):
                continue
            name = self._NAME.search(line)
            if name and name.group(1) not in self.bound:
                self.bound[name.group(1)] = now
                if len(self.bound) >= self.expected:
                    self.done.set()
                    return
        conn.close()

    def stop(self) -> None:
        self.done.set()
        if self._conn is not None and self._conn.sock is not None:
            with suppress(OSError):
                self._conn.sock.shutdown(2)


# --- the schedulers ----------------------------------------------------------------------------


def proc_status(pid: int) -> dict[str, int]:
    """VmHWM/VmRSS in bytes and CPU seconds (utime+stime) of a live process."""
    out: dict[str, int] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, rest = line.partition(":")
        if key in ("VmHWM", "VmRSS"):
            out[key] = int(rest.split()[0]) * 1024
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    out["cpu_ticks"] = int(fields[11]) + int(fields[12])
    out["sys_ticks"] = int(fields[12])
    out["ctx_switches"] = sum(_context_switches(task) for task in Path(f"/proc/{pid}/task").iterdir())
    return out


def _context_switches(task: Path) -> int:
    """A thread's context switches, voluntary and not (0 when it just ended)."""
    try:
        text = (task / "status").read_text()
    except OSError:
        return 0
    return sum(int(line.split()[1]) for line in text.splitlines()
               if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")))


@dataclass
class Running:
    pid: int
    stop: Callable[[], None]


def scheduler_config(path: Path, qps: int, kubeconfig: str, profile: str = "default-scheduler",
                     extender: str = "", node_cache: bool = True) -> Path:
    """The configuration; ``extender``: a URL prefix for an ``extenders`` entry (filter and
    prioritize; node names only unless ``node_cache`` is false)."""
    ext = ("extenders:\n"
           f"- {{urlPrefix: \"{extender}\", filterVerb: filter, prioritizeVerb: prioritize, weight: 1, "
           f"nodeCacheCapable: {str(node_cache).lower()}, enableHTTPS: false, httpTimeout: 30s}}\n"
           ) if extender else ""
    path.write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\n"
        "kind: KubeSchedulerConfiguration\n"
        f"clientConnection: {{kubeconfig: \"{kubeconfig}\", qps: {qps}, burst: {qps}}}\n"
        "leaderElection: {leaderElect: false}\n"
        f"profiles:\n- schedulerName: {profile}\n" + ext)
    return path


def start_kube_scheduler(script: Path, cp: Path, qps: int, extender: str = "",
                         node_cache: bool = True) -> Running:
    cfg = scheduler_config(cp.parent / "kube-scheduler.yaml", qps, "@KUBECONFIG@", extender=extender,
                           node_cache=node_cache)
    subprocess.run([str(script), "scheduler", str(cp), str(cfg)], check=True, capture_output=True,
                   text=True, timeout=180)
    pid = int((cp / "pids" / "kube-scheduler.pid").read_text())

    def stop() -> None:
        subprocess.run([str(script), "stop-scheduler", str(cp)], capture_output=True, timeout=60)

    return Running(pid, stop)


THREAD_CPU = Path(__file__).resolve().parent / "_thread_cpu"
"""A sitecustomize that records kubesched's per-thread CPU and collector time (--thread-cpu)."""


def start_kubesched(cp: Path, qps: int, timeout: float, verbosity: int, thread_cpu: str = "") -> Running:
    cfg = scheduler_config(cp.parent / "kubesched.yaml", qps, str(cp / "kubeconfig"))
    first = [str(THREAD_CPU)] if thread_cpu else []
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (*first, str(REPO / "src"), os.environ.get("PYTHONPATH", "")) if p)}
    if thread_cpu:
        env["KUBESCHED_THREAD_CPU"] = thread_cpu
    errlog = (cp.parent / "kubesched.log").open("w")
    # Endpoints on a free port: two runs at once (or a kube-scheduler on 10259) never collide.
    proc = subprocess.Popen([sys.executable, "-c", "from kubesched.cli import main; main()",
                             "run", "--config", str(cfg), "-v", str(verbosity),
                             "--bind-address", "127.0.0.1:0"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    synced = threading.Event()

    def pump() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            errlog.write(line)
            errlog.flush()
            if "caches synced" in line:
                synced.set()
        errlog.close()

    threading.Thread(target=pump, daemon=True).start()
    deadline = time.monotonic() + timeout
    while not synced.wait(0.1):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            proc.wait()
            raise RuntimeError(f"kubesched run did not sync (see {cp.parent / 'kubesched.log'})")

    def stop() -> None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    return Running(proc.pid, stop)


def start_extender(cp: Path, timeout: float) -> tuple[Running, str]:
    """``kubesched extender`` in informer mode on a free port: (the process, its URL) once
    ``/readyz`` answers 200 (the informers have synced)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (str(REPO / "src"), os.environ.get("PYTHONPATH", "")) if p)}
    errlog = (cp.parent / "extender.log").open("w")
    proc = subprocess.Popen([sys.executable, "-c", "from kubesched.cli import main; main()",
                             "extender", "--kubeconfig", str(cp / "kubeconfig"),
                             "--bind-address", "127.0.0.1:0",
                             # its /metrics is read below without credentials (loopback)
                             "--authorization-always-allow-paths", "/healthz,/readyz,/livez,/metrics"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    found: list[str] = []
    seen = threading.Event()

    def pump() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            errlog.write(line)
            errlog.flush()
            m = re.search(r"serving profile .* on (http://127\.0\.0\.1:\d+)", line)
            if m and not found:
                found.append(m.group(1))
                seen.set()
        errlog.close()

    def stop() -> None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    threading.Thread(target=pump, daemon=True).start()
    deadline = time.monotonic() + timeout
    try:
        while not seen.wait(0.1):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"kubesched extender did not start (see {cp.parent / 'extender.log'})")
        url = found[0]
        while True:
            with suppress(OSError):
                conn = http.client.HTTPConnection(url.split("//")[1], timeout=5)
                conn.request("GET", "/readyz")
                if conn.getresponse().status == 200:
                    return Running(proc.pid, stop), url
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"kubesched extender did not sync (see {cp.parent / 'extender.log'})")
            time.sleep(0.2)
    except BaseException:
        stop()
        raise


def extender_metrics(url: str) -> str:
    conn = http.client.HTTPConnection(url.split("//")[1], timeout=10)
    conn.request("GET", "/metrics")
    return conn.getresponse().read().decode()


def extender_ahead(text: str) -> dict[str, int]:
    """How the extender's ``/prioritize`` calls met its scores computed ahead (hit, stale,
    other, none), from its ``/metrics`` text."""
    return {m.group(1): int(float(m.group(2))) for m in re.finditer(
        r'^kubesched_extender_prioritize_ahead_total\{result="(\w+)"\} (\S+)$', text, re.M)}


def extender_requests(text: str) -> dict[str, tuple[float, float]]:
    """Per verb, from the extender's ``/metrics`` text: (requests answered 200, mean seconds)."""
    count: dict[str, float] = {}
    total: dict[str, float] = {}
    for m in re.finditer(r'^kubesched_extender_requests_total\{code="200",verb="(\w+)"\} (\S+)$', text, re.M):
        count[m.group(1)] = float(m.group(2))
    for m in re.finditer(r'^kubesched_extender_request_duration_seconds_(sum|count)\{verb="(\w+)"\} (\S+)$',
                         text, re.M):
        if m.group(1) == "sum":
            total[m.group(2)] = float(m.group(3))
    return {v: (n, total.get(v, 0.0) / n if n else 0.0) for v, n in count.items()}


def py_spy(out: str, which: str, pid: int) -> subprocess.Popen[bytes] | None:
    """``py-spy record`` of kubesched (``kubesched run``, or the extender of
    ``kube-scheduler+extender``) over the measured phase (``--py-spy``), else None.

    ``--gil``: only the thread holding the GIL is sampled, so the profile shows where the
    interpreter's one core goes (threads waiting on a socket are left out)."""
    if not out or which == "kube-scheduler":
        return None
    exe = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    fmt = ["--format", "raw"] if out.endswith(".txt") else []  # collapsed stacks, for grep
    cmd = [exe, "record", "-o", out, "--pid", str(pid), "--threads", "--gil", "--nonblocking", *fmt]
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


@contextmanager
def control_plane(script: Path, base: Path) -> Iterator[tuple[Path, dict[str, str]]]:
    cp = base / "cp"
    env = {**os.environ, "AUTHZ": "AlwaysAllow"}
    subprocess.run([str(script), "start", str(cp)], check=True, capture_output=True, text=True,
                   timeout=600, env=env)
    try:
        vals = dict(line.split("=", 1) for line in (cp / "env").read_text().splitlines() if "=" in line)
        yield cp, vals
    finally:
        subprocess.run([str(script), "stop", str(cp)], capture_output=True, timeout=180)


# --- one measured run --------------------------------------------------------------------------


@dataclass
class Result:
    scheduler: str
    nodes: int
    bound_pods: int
    pods: int
    release: str = "1.32"
    prequeued: bool = False
    round: int = 1
    scheduled: int = 0
    seconds: float = 0.0
    pods_per_second: float = 0.0
    creation_seconds: float = 0.0
    creation_per_second: float = 0.0
    lag_seconds: float = 0.0
    peak_rss_mib: float = 0.0
    scheduler_cpu_seconds: float = 0.0
    apiserver_cpu_seconds: float = 0.0
    pods_per_cpu_second: float = 0.0
    cpu_ms_per_pod: float = 0.0
    timed_out: bool = False
    notes: list[str] = field(default_factory=list)
    thread_cpu: dict[str, Any] = field(default_factory=dict)


def create_pods(api: Api, count: int, creators: int) -> tuple[float, float]:
    """Create the measured pods from ``creators`` threads: (start, seconds it took)."""
    names = [f"pod-{i}" for i in range(count)]
    bodies = [pod_doc(n, MEASURED_NS) for n in names]
    path = f"/api/v1/namespaces/{MEASURED_NS}/pods"

    def create(i: int) -> None:
        status, data = api.request("POST", path, bodies[i])
        if status >= 300:
            raise RuntimeError(f"{names[i]}: HTTP {status}: {data[:300]!r}")

    log(f"creating {count} pods from {creators} threads")
    t0 = time.monotonic()
    took = parallel(count, creators, create)
    log(f"created in {took:.1f}s ({count / took:.0f}/s)")
    return t0, took


def measure(which: str, args: argparse.Namespace, script: Path, round_no: int = 1) -> Result:
    res = Result(which, args.nodes, args.bound_pods, args.pods, args.release, args.prequeued, round_no)
    base = Path(tempfile.mkdtemp(prefix=f"bench-{which}-"))
    try:
        with control_plane(script, base) as (cp, env):
            api = Api(env["API_URL"], env["TOKEN"], cp / "ca.crt")
            populate(api, args.nodes, args.bound_pods, args.creators)
            watch: BindWatch | None = None
            apiserver = int((cp / "pids" / "kube-apiserver.pid").read_text())
            if args.prequeued:
                # The measured pods wait in the API server before the scheduler starts; the
                # clock runs from the scheduler's start (its process launch) to the last binding.
                _, res.creation_seconds = create_pods(api, args.pods, args.creators)
                res.creation_per_second = args.pods / res.creation_seconds
                listed = api.must("GET", f"/api/v1/namespaces/{MEASURED_NS}/pods?limit=1")
                watch = BindWatch(api, listed["metadata"]["resourceVersion"], args.pods)
                watch.start()
                api_cpu0 = proc_status(apiserver)["cpu_ticks"]
            log(f"starting {which}")
            t0 = time.monotonic()
            ext: Running | None = None
            url = ""
            if which in (EXTENDED, EXTENDED_NODES):
                ext, url = start_extender(cp, args.timeout)
                try:
                    running = start_kube_scheduler(script, cp, args.qps, extender=url,
                                                   node_cache=which == EXTENDED)
                except BaseException:
                    ext.stop()
                    raise
            elif which == "kube-scheduler":
                running = start_kube_scheduler(script, cp, args.qps)
            else:
                running = start_kubesched(cp, args.qps, args.timeout, args.verbosity,
                                          str(base / "thread-cpu.json") if args.thread_cpu else "")
            try:
                if watch is None:
                    # The scheduler's own informers must have listed the bound pods before we start.
                    time.sleep(args.settle)
                    listed = api.must("GET", f"/api/v1/namespaces/{MEASURED_NS}/pods?limit=1")
                    rv = listed["metadata"]["resourceVersion"]
                    watch = BindWatch(api, rv, args.pods)
                    watch.start()
                    cpu0 = proc_status(running.pid)["cpu_ticks"]
                    ext0 = proc_status(ext.pid) if ext is not None else {}
                    api_cpu0 = proc_status(apiserver)["cpu_ticks"]
                else:
                    # Prequeued: the scheduler's whole life so far (start-up, listing) counts.
                    cpu0, ext0 = 0, {"cpu_ticks": 0, "sys_ticks": 0, "ctx_switches": 0}
                if args.thread_cpu and which == "kubesched":
                    os.kill(running.pid, signal.SIGUSR1)  # the per-thread baseline
                spy = py_spy(args.py_spy, which, ext.pid if ext is not None else running.pid)
                if not args.prequeued:
                    t0, res.creation_seconds = create_pods(api, args.pods, args.creators)
                    res.creation_per_second = args.pods / res.creation_seconds
                watch.done.wait(args.timeout)
                watch.stop()
                if spy is not None:
                    spy.send_signal(signal.SIGINT)  # py-spy writes its flame graph on SIGINT
                    spy.wait(60)
                if watch.error is not None:
                    raise RuntimeError(f"watch failed: {watch.error}")
                st = proc_status(running.pid)
                res.scheduled = len(watch.bound)
                res.timed_out = res.scheduled < args.pods
                last = max(watch.bound.values(), default=t0)
                res.seconds = last - t0
                res.lag_seconds = max(0.0, res.seconds - (0.0 if args.prequeued else res.creation_seconds))
                res.pods_per_second = res.scheduled / res.seconds if res.seconds > 0 else 0.0
                res.peak_rss_mib = st["VmHWM"] / 2**20
                res.scheduler_cpu_seconds = (st["cpu_ticks"] - cpu0) / os.sysconf("SC_CLK_TCK")
                res.apiserver_cpu_seconds = ((proc_status(apiserver)["cpu_ticks"] - api_cpu0)
                                             / os.sysconf("SC_CLK_TCK"))
                if ext is not None:
                    est = proc_status(ext.pid)
                    ext_cpu = (est["cpu_ticks"] - ext0["cpu_ticks"]) / os.sysconf("SC_CLK_TCK")
                    ext_sys = (est["sys_ticks"] - ext0["sys_ticks"]) / os.sysconf("SC_CLK_TCK")
                    rss = est["VmHWM"] / 2**20
                    per_pod = ext_cpu / max(1, res.scheduled) * 1e3
                    switches = est["ctx_switches"] - ext0["ctx_switches"]  # of the threads alive at the end
                    res.notes.append(f"extender: {ext_cpu:.1f} CPU s ({per_pod:.2f} ms per pod; system "
                                     f"{ext_sys:.1f} s), {switches} context switches, peak RSS {rss:.0f} MiB")
                    text = extender_metrics(url)
                    for verb, (n, mean) in sorted(extender_requests(text).items()):
                        res.notes.append(f"extender /{verb}: {n:.0f} requests, mean {mean * 1000:.1f} ms")
                    ahead = extender_ahead(text)
                    if ahead:
                        res.notes.append("extender scores ahead: " + ", ".join(
                            f"{k} {v}" for k, v in sorted(ahead.items())))
                    log("; ".join(res.notes))
                if res.scheduler_cpu_seconds > 0:
                    res.pods_per_cpu_second = res.scheduled / res.scheduler_cpu_seconds
                    res.cpu_ms_per_pod = res.scheduler_cpu_seconds * 1e3 / max(1, res.scheduled)
                log(f"{which}: {res.scheduled}/{args.pods} bound in {res.seconds:.1f}s "
                    f"({res.pods_per_second:.0f} pods/s), peak RSS {res.peak_rss_mib:.0f} MiB, "
                    f"{res.scheduler_cpu_seconds:.1f} CPU s (API server {res.apiserver_cpu_seconds:.1f}), "
                    f"{res.cpu_ms_per_pod:.2f} CPU ms per pod, last binding {res.lag_seconds:.1f}s "
                    + ("after the start" if args.prequeued else "after the last creation"))
            finally:
                running.stop()
                if ext is not None:
                    ext.stop()
            if args.thread_cpu and which == "kubesched" and (base / "thread-cpu.json").exists():
                res.thread_cpu = json.loads((base / "thread-cpu.json").read_text())
                log(f"kubesched thread CPU s: {res.thread_cpu}")
            if args.keep_logs:
                dest = Path(args.keep_logs) / which
                dest.mkdir(parents=True, exist_ok=True)
                for f in list((cp / "logs").glob("*.log")) + list(cp.parent.glob("*.log")):
                    shutil.copy(f, dest / f.name)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return res


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--nodes", type=int, default=1000)
    p.add_argument("--bound-pods", type=int, default=1000)
    p.add_argument("--pods", type=int, default=5000)
    p.add_argument("--scheduler", action="append", choices=(*SCHEDULERS, EXTENDED, EXTENDED_NODES),
                   help="which to run, in order (repeatable; default: both, kube-scheduler first)")
    p.add_argument("--creators", type=int, default=16, help="pod-creating threads (one connection each)")
    p.add_argument("--qps", type=int, default=5000, help="clientConnection qps and burst of both schedulers")
    p.add_argument("--settle", type=float, default=2.0, help="seconds between ready and the first creation")
    p.add_argument("--timeout", type=float, default=600.0, help="seconds to wait for the last binding")
    p.add_argument("-v", "--verbosity", type=int, default=0, help="kubesched run's -v")
    p.add_argument("--thread-cpu", action="store_true",
                   help="report kubesched's CPU seconds per thread and in the garbage collector "
                        "over the measured phase (thread_cpu in the JSON)")
    p.add_argument("--py-spy", default="", metavar="SVG",
                   help="record kubesched (or the extender) with py-spy over the measured phase "
                        "(.svg: flame graph; .txt: collapsed stacks)")
    p.add_argument("--keep-logs", default="", help="copy the control plane's and schedulers' logs here")
    p.add_argument("--release", choices=tuple(RELEASES), default="1.32",
                   help="the control plane: 1.32 (kube-scheduler v1.32) or 1.35 (kube-scheduler v1.35, "
                        "its newer API server); KUBESCHED_K8S_DIR overrides the folder")
    p.add_argument("--prequeued", action="store_true",
                   help="create the measured pods before the scheduler starts and time from its "
                        "start to the last binding (its CPU from its start)")
    p.add_argument("--rounds", type=int, default=1,
                   help="measure every scheduler this many times, the order reversed every other "
                        "round (a loaded machine drifts); the ratios are per round, with their median")
    args = p.parse_args(argv)
    script = k8s_dir(args.release) / "control-plane"
    if not script.is_file():
        print(f"error: {script} not found (set KUBESCHED_K8S_DIR)", file=sys.stderr)
        return 2
    load_start = os.getloadavg()[0]
    order = list(args.scheduler or SCHEDULERS)
    results: list[Result] = []
    ratios: dict[str, list[float]] = {}
    for round_no in range(1, args.rounds + 1):
        this = order if round_no % 2 else order[::-1]
        by = {w: measure(w, args, script, round_no) for w in this}
        results.extend(by[w] for w in this)
        for key, num in (("ratio_pods_per_second", "kubesched"),
                         ("ratio_extender_pods_per_second", EXTENDED),
                         ("ratio_extender_nodes_pods_per_second", EXTENDED_NODES)):
            if num in by and "kube-scheduler" in by and by["kube-scheduler"].pods_per_second > 0:
                ratios.setdefault(key, []).append(round(by[num].pods_per_second
                                                        / by["kube-scheduler"].pods_per_second, 3))
    out: dict[str, Any] = {"machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0],
                                       "loadavg_start": load_start, "loadavg_end": os.getloadavg()[0]},
                           "release": args.release, "prequeued": args.prequeued,
                           "results": [asdict(r) for r in results]}
    for key, values in ratios.items():
        out[key] = statistics.median(values)
        if len(values) > 1:
            out[key + "_rounds"] = values
    print(json.dumps(out, indent=2))
    return 1 if any(r.timed_out for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
