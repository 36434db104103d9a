"""``kubesched run --leader-elect`` wires the write fence (cluster/live/_fence.py) into every
client that writes, and a lost Lease ends the process at once; the whole scenario runs against
a real API server in tests/live/test_run_deposed_leader.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubesched.app import LiveScheduler, SchedulerRun
from kubesched.cluster.live import Fenced
from kubesched.framework.config import default_config


def _live(tmp_path: Path) -> LiveScheduler:
    kc = tmp_path / "kubeconfig"  # never contacted
    kc.write_text("apiVersion: v1\nkind: Config\ncurrent-context: c\n"
                  "clusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]\n"
                  "users: [{name: u, user: {token: t}}]\n"
                  "contexts: [{name: c, context: {cluster: c, user: u}}]\n")
    return LiveScheduler(default_config(), str(kc))


def test_every_writing_client_is_fenced_and_a_standby_writes_nothing(tmp_path: Path) -> None:
    live = _live(tmp_path)
    try:
        run = SchedulerRun(live, leader_elect=True, bind_address=None, exit_process=lambda code: None)
        assert run.le_config is not None and run.elector is not None
        work, lock = run.le_config.fences
        assert live.store.rest.fence is work and live.store.sink.rest.fence is work
        with pytest.raises(Fenced, match="not held"):  # not leading yet: no binding, no event
            work.check("POST", "/api/v1/namespaces/ns/pods/p/binding")
        lock.check("PUT", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-scheduler")
        work.hold_until(live.clock.now + 60)  # as the elector does once it holds the Lease
        work.check("POST", "/api/v1/namespaces/ns/pods/p/binding")
    finally:
        live.close()


def test_without_leader_election_nothing_is_fenced(tmp_path: Path) -> None:
    live = _live(tmp_path)
    try:
        SchedulerRun(live, leader_elect=False, bind_address=None)
        assert live.store.rest.fence is None and live.store.sink.rest.fence is None
    finally:
        live.close()


def test_a_lost_lease_exits_1_at_once(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    live = _live(tmp_path)
    codes: list[int] = []
    try:
        run = SchedulerRun(live, leader_elect=True, bind_address=None, exit_process=codes.append)
        assert run.elector is not None
        run.elector._lose()  # what the elector does on a lost lease, before OnStoppedLeading
        run._on_stopped_leading()
        assert codes == [1]
        assert "Leaderelection lost" in caplog.text
        assert all(f.closed for f in run.le_config.fences)  # type: ignore[union-attr]
        run.release.set()  # a stop, not a loss: no exit
        codes.clear()
        run.elector._lost = False
        run._on_stopped_leading()
        assert codes == []
    finally:
        live.close()
