"""The scheduler's endpoints over real HTTP on 127.0.0.1 (an ephemeral port): health, liveness
and readiness with the apiserver's texts (healthz.go), the leader election watchdog, the
Prometheus exposition of the scheduler's metrics, HTTPS when given a context, clean shutdown."""

from __future__ import annotations

import socket
import ssl
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest

from kubesched.app._serving import (
    DEFAULT_BIND_ADDRESS,
    NamedCheck,
    SchedulerServer,
    new_endpoints_server,
    parse_bind_address,
)
from kubesched.clock import VirtualClock
from kubesched.cluster.live.leaderelection import (
    HealthzAdaptor,
    LeaderCallbacks,
    LeaderElectionConfig,
    LeaderElectionRecord,
    LeaderElector,
    LeaderMetrics,
)
from kubesched.metrics import process_registry
from kubesched.scheduler._metrics import SCHEDULED, SchedulerMetrics


def get(url: str, context: ssl.SSLContext | None = None) -> tuple[int, str, str]:
    """(status, content type, body) of a GET, errors included."""
    try:
        with urllib.request.urlopen(url, timeout=5, context=context) as resp:
            return resp.status, resp.headers["Content-Type"], resp.read().decode()
    except urllib.error.HTTPError as err:
        with err:
            return err.code, err.headers["Content-Type"], err.read().decode()


class Ready:
    def __init__(self) -> None:
        self.synced = False

    def __call__(self) -> bool:
        return self.synced


@pytest.fixture
def ready() -> Ready:
    return Ready()


@pytest.fixture
def stopping() -> threading.Event:
    return threading.Event()


@pytest.fixture
def server(ready: Ready, stopping: threading.Event) -> Iterator[SchedulerServer]:
    metrics = SchedulerMetrics()
    metrics.observe_attempt(SCHEDULED, "default-scheduler", 0.002)
    with new_endpoints_server("127.0.0.1:0", registries=[metrics.registry], synced=ready,
                              stopping=stopping) as srv:
        yield srv


def test_default_bind_address() -> None:
    assert DEFAULT_BIND_ADDRESS == "127.0.0.1:10259"
    assert parse_bind_address("0.0.0.0:10259") == ("0.0.0.0", 10259)
    assert parse_bind_address("[::1]:0") == ("::1", 0)


@pytest.mark.parametrize(("address", "want"), [
    pytest.param("10259", "expected HOST:PORT", id="no-host"),
    pytest.param("127.0.0.1:http", "port must be a number", id="port-not-a-number"),
    pytest.param("127.0.0.1:70000", "port must be a number in [0, 65535]", id="port-out-of-range"),
    pytest.param("example.com:10259", "'example.com' is not an IP address", id="host-name"),
])
def test_bad_bind_address(address: str, want: str) -> None:
    with pytest.raises(ValueError) as err:
        parse_bind_address(address)
    assert str(err.value).startswith(f"bind address {address!r}: ") and want in str(err.value)


def test_healthz_and_livez(server: SchedulerServer) -> None:
    assert server.port != 0
    for path in ("/healthz", "/livez", "/healthz/ping", "/livez/ping"):
        assert get(server.url + path) == (200, "text/plain; charset=utf-8", "ok")
    assert get(server.url + "/healthz?verbose")[2] == "[+]ping ok\nhealthz check passed\n"
    assert get(server.url + "/nope")[:1] == (404,)


def test_readyz_waits_for_the_informers(server: SchedulerServer, ready: Ready,
                                        stopping: threading.Event) -> None:
    assert get(server.url + "/readyz") == (
        500, "text/plain; charset=utf-8",
        "[+]shutdown ok\n[-]sched-handler-sync failed: reason withheld\nreadyz check failed\n")
    assert get(server.url + "/readyz/sched-handler-sync") == (
        500, "text/plain; charset=utf-8", "internal server error: handlers are not fully synchronized\n")
    ready.synced = True
    assert get(server.url + "/readyz") == (200, "text/plain; charset=utf-8", "ok")
    assert get(server.url + "/readyz?verbose")[2] == (
        "[+]shutdown ok\n[+]sched-handler-sync ok\nreadyz check passed\n")
    stopping.set()  # a terminating scheduler leaves the endpoints of its Service
    assert get(server.url + "/readyz")[:1] == (500,)
    assert get(server.url + "/readyz/shutdown")[2] == "internal server error: process is shutting down\n"
    assert get(server.url + "/healthz")[0] == 200  # still alive


def test_readyz_exclude(server: SchedulerServer) -> None:
    status, _, body = get(server.url + "/readyz?verbose&exclude=sched-handler-sync&exclude=nope")
    assert status == 200
    assert body == ('[+]shutdown ok\n[+]sched-handler-sync excluded: ok\n'
                    'warn: some health checks cannot be excluded: no matches for "nope"\n'
                    'readyz check passed\n')


def test_metrics(server: SchedulerServer) -> None:
    status, ctype, body = get(server.url + "/metrics")
    assert status == 200 and ctype.startswith("text/plain; version=0.0.4")
    assert 'scheduler_schedule_attempts_total{profile="default-scheduler",result="scheduled"} 1.0' in body
    assert "# TYPE scheduler_scheduling_attempt_duration_seconds histogram" in body
    assert "_created" not in body  # prometheus_client's creation timestamps; client_golang has none


# What kube-scheduler's process collector exposes (client_golang's NewProcessCollector on Linux).
UPSTREAM_PROCESS_METRICS = {
    "process_cpu_seconds_total": "counter", "process_max_fds": "gauge", "process_open_fds": "gauge",
    "process_resident_memory_bytes": "gauge", "process_start_time_seconds": "gauge",
    "process_virtual_memory_bytes": "gauge", "process_virtual_memory_max_bytes": "gauge",
}


def test_process_metrics_as_upstream_names_them() -> None:
    with new_endpoints_server("127.0.0.1:0", registries=[process_registry()]) as srv:
        _, _, body = get(srv.url + "/metrics")
    types = dict(line.split()[2:4] for line in body.splitlines() if line.startswith("# TYPE "))
    assert types == UPSTREAM_PROCESS_METRICS
    samples = {line.split()[0]: float(line.split()[1])
               for line in body.splitlines() if not line.startswith("#")}
    assert set(samples) == set(UPSTREAM_PROCESS_METRICS)
    assert samples["process_resident_memory_bytes"] > 1e6 and samples["process_open_fds"] >= 3
    assert samples["process_start_time_seconds"] > 1.6e9


class _OneLock:
    """A lock nobody else contends for: every write succeeds."""

    record: LeaderElectionRecord | None = None

    def get(self) -> LeaderElectionRecord:
        from kubesched.cluster.live.leaderelection import LockError

        if self.record is None:
            raise LockError("not found", 404)
        return self.record

    def create(self, record: LeaderElectionRecord) -> None:
        self.record = record

    def update(self, record: LeaderElectionRecord) -> None:
        self.record = record

    def identity(self) -> str:
        return "me"

    def describe(self) -> str:
        return "kube-system/kube-scheduler"

    def record_event(self, message: str) -> None:
        pass


def test_leader_election_health_and_metrics() -> None:
    """With leader election on, /healthz and /readyz check the watchdog: a leader that has not
    renewed for leaseDuration + 20 s is unhealthy (and gets restarted by its liveness probe)."""
    clock = VirtualClock(1_800_000_000.0)
    watchdog = HealthzAdaptor()
    le_metrics = LeaderMetrics()
    callbacks = LeaderCallbacks(lambda _s: None, lambda: None)
    cfg = LeaderElectionConfig(lock=_OneLock(), callbacks=callbacks, name="kube-scheduler", watchdog=watchdog)
    elector = LeaderElector(cfg, clock=clock, metrics=le_metrics)
    with new_endpoints_server("127.0.0.1:0", registries=[le_metrics.registry],
                              leader_election=watchdog) as srv:
        assert get(srv.url + "/healthz?verbose")[2] == "[+]leaderElection ok\nhealthz check passed\n"
        assert elector.try_acquire_or_renew()
        le_metrics.leader_on("kube-scheduler")
        assert 'leader_election_master_status{name="kube-scheduler"} 1.0' in get(srv.url + "/metrics")[2]
        clock.advance(35.5)
        assert get(srv.url + "/healthz") == (
            500, "text/plain; charset=utf-8",
            "[-]leaderElection failed: reason withheld\nhealthz check failed\n")
        assert get(srv.url + "/healthz/leaderElection")[2] == (
            "internal server error: failed election to renew leadership on lease kube-scheduler\n")
        assert "[-]leaderElection failed" in get(srv.url + "/readyz")[2]
        assert get(srv.url + "/livez")[0] == 200
        assert elector.try_acquire_or_renew()
        assert get(srv.url + "/healthz")[:1] == (200,)


def test_a_failing_check_is_a_500_not_a_dead_server() -> None:
    def boom() -> str | None:
        raise RuntimeError("bug in a check")

    with SchedulerServer("127.0.0.1:0", healthz=[NamedCheck("boom", boom)]) as srv:
        assert get(srv.url + "/healthz")[:1] == (500,)
        assert get(srv.url + "/livez")[:1] == (200,)


def test_port_in_use_and_clean_shutdown() -> None:
    srv = SchedulerServer("127.0.0.1:0").start()
    url = srv.url
    with pytest.raises(OSError):
        SchedulerServer(f"127.0.0.1:{srv.port}").start()
    assert get(url + "/livez")[0] == 200
    srv.shutdown()
    srv.shutdown()  # twice is fine
    assert not any(t.name == "kubesched-serving" and t.is_alive() for t in threading.enumerate())
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(url + "/livez", timeout=2)
    again = SchedulerServer(f"127.0.0.1:{int(url.rsplit(':', 1)[1])}").start()  # the port is free again
    again.shutdown()


def test_https_with_a_certificate() -> None:
    trustme = pytest.importorskip("trustme")
    ca = trustme.CA()
    cert = ca.issue_cert("127.0.0.1")
    server_ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    cert.configure_cert(server_ctx)
    client_ctx = ssl.create_default_context()
    ca.configure_trust(client_ctx)
    with SchedulerServer("127.0.0.1:0", ssl_context=server_ctx) as srv:
        assert srv.url.startswith("https://127.0.0.1:")
        # a client that connects and never says hello does not hold up the others
        with socket.create_connection(("127.0.0.1", srv.port), timeout=5):
            assert get(srv.url + "/healthz", context=client_ctx) == (200, "text/plain; charset=utf-8", "ok")
