"""Which Python client should the live mode talk to the API server with? Measured against a real
kube-apiserver (the ``control-plane`` script of the k8s folder, authorization AlwaysAllow).

The three things the scheduler does with its client, for each candidate:

1. **list**: LIST of ``--pods`` pods (one namespace, no paging) decoded to Python objects
   (dicts, or the library's models where that is all it offers);
2. **watch**: a watch from ``resourceVersion=0`` (the API server replays every pod as an ADDED
   event from its watch cache), read and decoded until ``--pods`` events have arrived:
   the informers' hot path;
3. **bind**: ``--binds`` POSTs of ``pods/binding`` from ``--threads`` threads: throughput and
   latency percentiles (each client binds its own share of the pods).

Candidates: ``kubesched`` (the project's RestClient: urllib3 + stdlib json, as the live mode
uses it), ``urllib3+orjson`` (the same transport, orjson for decoding), ``httpx+orjson``,
``kubernetes`` (the official client: raw ``call_api(_preload_content=False)`` + json, and its
generated models), ``lightkube`` (its models; it has no dict mode).

    python benchmarks/client_libraries.py                     # 10,000 pods, 1500 binds each
    python benchmarks/client_libraries.py --pods 2000 --binds 300   # quicker

Needs ``pip install httpx orjson lightkube`` besides the project's own dependencies; a
candidate whose library is missing is skipped. JSON to stdout, progress to stderr.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import shutil
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from live_side_by_side import Api, control_plane, k8s_dir, log, namespace_doc, parallel

NS = "clients"
REQUESTS = {"cpu": "100m", "memory": "500Mi"}


def _pod(i: int) -> bytes:
    return json.dumps({"apiVersion": "v1", "kind": "Pod",
                       "metadata": {"name": f"p-{i}", "namespace": NS,
                                    "labels": {"app": "bench", "shard": str(i % 10)}},
                       "spec": {"schedulerName": "nobody", "terminationGracePeriodSeconds": 0,
                                "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10",
                                                "resources": {"requests": REQUESTS}}]}
                       }).encode()


def _binding(name: str, node: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": name, "namespace": NS},
            "target": {"apiVersion": "v1", "kind": "Node", "name": node}}


class Candidate:
    """One client: ``list()`` -> count, ``watch(n)`` -> count, ``bind(pod, node)``."""

    name = ""

    def list(self) -> int:
        raise NotImplementedError

    def watch(self, n: int) -> int:
        raise NotImplementedError

    def bind(self, pod: str, node: str) -> None:
        raise NotImplementedError


class KubeschedRest(Candidate):
    """The project's RestClient (urllib3, stdlib json), rate limiting off."""

    name = "kubesched (urllib3 + json)"

    def __init__(self, kubeconfig: Path, loads: Callable[[bytes], Any] | None = None) -> None:
        from kubesched.cluster.live import RestClient, load_rest_config
        from kubesched.cluster.live._config import ClientSettings
        self.rest = RestClient(load_rest_config(kubeconfig), ClientSettings(qps=-1, burst=1))
        self.loads = loads or json.loads
        if loads is not None:
            self.name = "urllib3 + orjson"

    def list(self) -> int:
        resp = self.rest._send("GET", f"/api/v1/namespaces/{NS}/pods", None, None, None, 60.0, stream=False)
        return len(self.loads(resp.data)["items"])

    def watch(self, n: int) -> int:
        from kubesched.cluster.live._rest import iter_lines
        resp = self.rest.stream(f"/api/v1/namespaces/{NS}/pods",
                                {"watch": "1", "resourceVersion": "0", "timeoutSeconds": "60"}, 60.0)
        seen = 0
        try:
            for line in iter_lines(resp):
                ev = self.loads(line)
                seen += ev["type"] == "ADDED"
                if seen >= n:
                    break
        finally:
            resp.release_conn()
            resp.close()
        return seen

    def bind(self, pod: str, node: str) -> None:
        body = json.dumps(_binding(pod, node)).encode()
        resp = self.rest._send("POST", f"/api/v1/namespaces/{NS}/pods/{pod}/binding", body, None,
                               "application/json", 30.0, stream=False)
        self.loads(resp.data)


class Httpx(Candidate):
    name = "httpx + orjson"

    def __init__(self, url: str, token: str, ca: Path) -> None:
        import httpx
        import orjson
        self.loads, self.dumps = orjson.loads, orjson.dumps
        self.client = httpx.Client(base_url=url, verify=str(ca), timeout=60.0,
                                   headers={"Authorization": f"Bearer {token}", "Accept": "application/json"},
                                   limits=httpx.Limits(max_connections=32, max_keepalive_connections=32))

    def list(self) -> int:
        r = self.client.get(f"/api/v1/namespaces/{NS}/pods")
        r.raise_for_status()
        return len(self.loads(r.content)["items"])

    def watch(self, n: int) -> int:
        seen = 0
        with self.client.stream("GET", f"/api/v1/namespaces/{NS}/pods",
                                params={"watch": "1", "resourceVersion": "0", "timeoutSeconds": "60"}) as r:
            for line in r.iter_lines():
                if line:
                    seen += self.loads(line)["type"] == "ADDED"
                    if seen >= n:
                        break
        return seen

    def bind(self, pod: str, node: str) -> None:
        r = self.client.post(f"/api/v1/namespaces/{NS}/pods/{pod}/binding",
                             content=self.dumps(_binding(pod, node)),
                             headers={"Content-Type": "application/json"})
        r.raise_for_status()
        self.loads(r.content)


class Official(Candidate):
    """The official client. ``models``: its generated models (deserialize); else raw bytes + json."""

    def __init__(self, kubeconfig: Path, models: bool) -> None:
        from kubernetes import client, config
        cfg = client.Configuration()
        config.load_kube_config(config_file=str(kubeconfig), client_configuration=cfg, persist_config=False)
        cfg.connection_pool_maxsize = 32
        self.api_client = client.ApiClient(cfg)
        self.core = client.CoreV1Api(self.api_client)
        self.models = models
        self.name = "kubernetes (generated models)" if models else "kubernetes (raw call_api + json)"

    def list(self) -> int:
        if self.models:
            return len(self.core.list_namespaced_pod(NS).items)
        r = self.core.list_namespaced_pod(NS, _preload_content=False)
        return len(json.loads(r.data)["items"])

    def watch(self, n: int) -> int:
        from kubernetes import watch
        w = watch.Watch()
        seen = 0
        kw: dict[str, Any] = {"resource_version": "0", "timeout_seconds": 60}
        if not self.models:
            from kubesched.cluster.live._rest import iter_lines
            r = self.core.list_namespaced_pod(NS, watch=True, _preload_content=False, **kw)
            try:
                for line in iter_lines(r):
                    seen += json.loads(line)["type"] == "ADDED"
                    if seen >= n:
                        break
            finally:
                r.release_conn()
            return seen
        for ev in w.stream(self.core.list_namespaced_pod, NS, **kw):
            seen += ev["type"] == "ADDED"
            if seen >= n:
                w.stop()
                break
        return seen

    def bind(self, pod: str, node: str) -> None:
        # create_namespaced_pod_binding's model decoding of the answer fails on the API
        # server's Status (a known issue of the generated client): raw answer either way.
        r = self.core.create_namespaced_pod_binding(pod, NS, _binding(pod, node), _preload_content=False)
        json.loads(r.data)


class Lightkube(Candidate):
    name = "lightkube (models)"

    def __init__(self, kubeconfig: Path) -> None:
        from lightkube import Client, KubeConfig
        self.client = Client(KubeConfig.from_file(str(kubeconfig)), namespace=NS)

    def list(self) -> int:
        from lightkube.resources.core_v1 import Pod
        return sum(1 for _ in self.client.list(Pod, namespace=NS))

    def watch(self, n: int) -> int:
        from lightkube.resources.core_v1 import Pod
        seen = 0
        for typ, _obj in self.client.watch(Pod, namespace=NS, resource_version="0", server_timeout=60):
            seen += typ == "ADDED"
            if seen >= n:
                break
        return seen

    def bind(self, pod: str, node: str) -> None:
        import msgspec
        from lightkube.models.core_v1 import ObjectReference
        from lightkube.models.meta_v1 import ObjectMeta
        from lightkube.resources.core_v1 import PodBinding
        # Bound when the answer is a Status, which lightkube cannot decode as a Binding.
        with suppress(msgspec.ValidationError):
            self.client.create(PodBinding(metadata=ObjectMeta(name=pod, namespace=NS),
                                          target=ObjectReference(apiVersion="v1", kind="Node", name=node)),
                               pod, namespace=NS)


def timed(fn: Callable[[], int], repeat: int) -> tuple[float, float, int]:
    """Median wall seconds and median CPU seconds of this process (the client's own work, what
    a loaded machine does not blur) over ``repeat`` calls, and what the last one returned."""
    times, cpus, out = [], [], 0
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        times.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    return statistics.median(times), statistics.median(cpus), out


def binds(c: Candidate, pods: list[str], threads: int, nodes: int) -> dict[str, float]:
    lat: list[float] = []
    lock = threading.Lock()

    def one(i: int) -> None:
        t0 = time.perf_counter()
        c.bind(pods[i], f"node-{i % nodes}")
        dt = time.perf_counter() - t0
        with lock:
            lat.append(dt)

    took = parallel(len(pods), threads, one)
    lat.sort()
    pct = lambda p: lat[min(len(lat) - 1, int(len(lat) * p))] * 1000  # noqa: E731
    return {"binds_per_second": round(len(pods) / took, 1), "p50_ms": round(pct(0.5), 2),
            "p99_ms": round(pct(0.99), 2)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--pods", type=int, default=10_000)
    p.add_argument("--binds", type=int, default=1500, help="bindings per candidate")
    p.add_argument("--threads", type=int, default=16, help="binding threads")
    p.add_argument("--nodes", type=int, default=100)
    p.add_argument("--repeat", type=int, default=3, help="LIST and watch runs per candidate (median)")
    args = p.parse_args(argv)
    script = k8s_dir() / "control-plane"
    if not script.is_file():
        print(f"error: {script} not found (set KUBESCHED_K8S_DIR)", file=sys.stderr)
        return 2
    base = Path(tempfile.mkdtemp(prefix="bench-clients-"))
    results: list[dict[str, Any]] = []
    try:
        with control_plane(script, base) as (cp, env):
            kubeconfig, ca = cp / "kubeconfig", cp / "ca.crt"
            api = Api(env["API_URL"], env["TOKEN"], ca)
            api.must("POST", "/api/v1/namespaces", namespace_doc(NS))
            parallel(args.nodes, 8, lambda i: api.must("POST", "/api/v1/nodes", {
                "apiVersion": "v1", "kind": "Node", "metadata": {"name": f"node-{i}"}}))
            took = parallel(args.pods, 16, lambda i: _create(api, i))
            log(f"{args.pods} pods created in {took:.1f}s")
            have = lambda mod: importlib.util.find_spec(mod) is not None  # noqa: E731
            makers: list[Callable[[], Candidate]] = [lambda: KubeschedRest(kubeconfig)]
            if have("orjson"):
                import orjson
                makers.append(lambda: KubeschedRest(kubeconfig, orjson.loads))
            if have("httpx") and have("orjson"):
                makers.append(lambda: Httpx(env["API_URL"], env["TOKEN"], ca))
            if have("kubernetes"):
                makers += [lambda: Official(kubeconfig, False), lambda: Official(kubeconfig, True)]
            if have("lightkube"):
                makers.append(lambda: Lightkube(kubeconfig))
            next_pod = 0
            for make in makers:
                c = make()
                row: dict[str, Any] = {"client": c.name}
                list_s, list_cpu, n = timed(c.list, args.repeat)
                assert n == args.pods, (c.name, n)
                row["list_seconds"] = round(list_s, 3)
                row["list_cpu_seconds"] = round(list_cpu, 3)
                watch_s, watch_cpu, n = timed(lambda c=c: c.watch(args.pods), args.repeat)
                row["watch_events_per_second"] = round(n / watch_s)
                row["watch_events_per_cpu_second"] = round(n / watch_cpu) if watch_cpu > 0 else None
                take = [f"p-{i}" for i in range(next_pod, min(next_pod + args.binds, args.pods))]
                next_pod += len(take)
                if take:
                    row.update(binds(c, take, args.threads, args.nodes))
                log(json.dumps(row))
                results.append(row)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    print(json.dumps({"pods": args.pods, "threads": args.threads, "results": results}, indent=2))
    return 0


def _create(api: Api, i: int) -> None:
    status, data = api.request("POST", f"/api/v1/namespaces/{NS}/pods", _pod(i))
    if status >= 300:
        raise RuntimeError(f"p-{i}: HTTP {status}: {data[:200]!r}")


if __name__ == "__main__":
    sys.exit(main())
