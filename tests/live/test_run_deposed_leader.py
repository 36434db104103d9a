"""A deposed leader writes nothing: two ``kubesched run --leader-elect`` processes, pods being
created all along, the leader stopped (SIGSTOP) for longer than the lease and resumed (SIGCONT).
Meanwhile the other one takes the Lease over and binds the pods. The old leader, resumed with
its binding workers where they were, must exit non-zero at once and send no write of any kind
after the new leader acquired the Lease; every pod is bound exactly once and none is left with
``SchedulerError``.

The assertion is the API server's own record: it runs with an audit log of every write, and
each process authenticates as its own user, so the audit log says which process wrote what,
when the server received it. The new leader's first write of the Lease (a standby writes the
Lease only to take it over) is the moment the old one was deposed: the old leader's user must
have no write received after it. Short durations (lease 2 s, renew 1.5 s, retry 0.3 s) keep the
stop to 6 s, three lease durations.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
import uuid
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

import yaml

from ._kube import (
    KubeschedProcess,
    condition,
    create,
    get_pod,
    node_manifest,
    pod_manifest,
    rest_for,
    restart_api_server,
    wait_for,
)
from .conftest import ControlPlane

STOP = 6.0
"""Seconds the leader is stopped: three lease durations, so the other one takes over with
time to bind pods while the old one still believes it leads."""
SCHEDULED = 'scheduler_schedule_attempts_total{profile="kubesched-deposed",result="scheduled"}'
CREATE_EVERY = 0.05
"""A pod every 50 ms while the test runs (20 per second)."""

AUDIT_POLICY = {
    "apiVersion": "audit.k8s.io/v1", "kind": "Policy", "omitStages": ["RequestReceived"],
    "rules": [{"level": "Metadata", "verbs": ["create", "update", "patch", "delete", "deletecollection"]},
              {"level": "None"}],
}
WRITES = frozenset({"create", "update", "patch", "delete", "deletecollection"})


def _audited(cp: ControlPlane, users: list[str]) -> Path:
    """Restart the API server with an audit log of every write and a token (in group
    system:masters) per user in ``users``; a kubeconfig per user is written next to the admin's
    (DIR/kubeconfig-USER). Returns the audit log's path."""
    tokens = cp.dir / "tokens.csv"
    for u in users:
        token = uuid.uuid4().hex
        with tokens.open("a") as f:
            f.write(f'{token},{u},{u}-uid,"system:masters"\n')
        kc = yaml.safe_load(cp.kubeconfig.read_text())
        kc["users"][0]["user"] = {"token": token}
        (cp.dir / f"kubeconfig-{u}").write_text(yaml.safe_dump(kc))
    policy, log = cp.dir / "audit-policy.yaml", cp.dir / "audit.log"
    policy.write_text(yaml.safe_dump(AUDIT_POLICY))
    restart_api_server(cp, while_down=0.0, extra_args=(
        f"--audit-policy-file={policy}", f"--audit-log-path={log}", "--audit-log-maxsize=0"))
    return log


def _time(ts: str) -> float:
    return datetime.fromisoformat(ts).timestamp()


def _writes(log: Path) -> list[dict[str, Any]]:
    out = []
    for line in log.read_text().splitlines():
        ev = json.loads(line)
        if ev.get("stage") == "ResponseComplete" and ev.get("verb") in WRITES:
            out.append(ev)
    return out


class _Creator(threading.Thread):
    """Creates pods every CREATE_EVERY seconds until stopped."""

    def __init__(self, cp: ControlPlane, ns: str, sched: str) -> None:
        super().__init__(name="pod-creator", daemon=True)
        self.rest, self.ns, self.sched = rest_for(cp), ns, sched
        self.names: list[str] = []
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.wait(CREATE_EVERY):
            name = f"p{len(self.names)}"
            create(self.rest, pod_manifest(name, self.ns, self.sched, cpu="10m", memory="16Mi"))
            self.names.append(name)


def test_a_deposed_leader_exits_at_once_and_writes_nothing_after_the_takeover(
        own_control_plane: ControlPlane, tmp_path: Path) -> None:
    cp = own_control_plane
    audit = _audited(cp, ["sched-a", "sched-b"])
    ns, sched, lease = "deposed", "kubesched-deposed", "kubesched-deposed"
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump({
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "leaderElection": {"leaderElect": True, "leaseDuration": "2s", "renewDeadline": "1500ms",
                           "retryPeriod": "300ms", "resourceNamespace": "kube-system", "resourceName": lease},
        "profiles": [{"schedulerName": sched}]}))
    rest = rest_for(cp)
    create(rest, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
    for i in range(3):
        create(rest, node_manifest(f"n{i}", "64", "256Gi"))

    def args(user: str) -> tuple[str, ...]:
        return ("--config", str(config), "--kubeconfig", str(cp.dir / f"kubeconfig-{user}"))

    creator = _Creator(cp, ns, sched)
    with KubeschedProcess(tmp_path / "a.log", *args("sched-a")) as a, \
            KubeschedProcess(tmp_path / "b.log", *args("sched-b")) as b:
        users = {a: "sched-a", b: "sched-b"}
        old, new = wait_for("one of them to lead", lambda: (a, b) if a.leading else (
            (b, a) if b.leading else None), timeout=30)
        wait_for("the standby to serve", lambda: new.metric("leader_election_master_status{") == 0.0)
        creator.start()
        try:
            wait_for("the leader to bind pods", lambda: (old.metric(SCHEDULED) or 0) >= 10, timeout=20)
            os.kill(old.proc.pid, signal.SIGSTOP)
            try:
                time.sleep(STOP)
                assert new.leading, new.log()  # took over while the old one was stopped
            finally:
                os.kill(old.proc.pid, signal.SIGCONT)
            resumed = time.monotonic()
            code = old.proc.wait(10)
            exited_after = time.monotonic() - resumed  # at once, as kube-scheduler's OnStoppedLeading
            time.sleep(1.0)  # the new leader goes on with pods still being created
        finally:
            creator.stop.set()
            creator.join(10)
        assert code == 1, old.log()
        assert exited_after < 5.0, exited_after  # its elector's next wake-up, not a drain
        assert "Leaderelection lost" in old.log()

        names = list(creator.names)
        wait_for("every pod to be bound", lambda: all(
            get_pod(rest, ns, n)["spec"].get("nodeName") for n in names), timeout=30)
        assert new.proc.poll() is None, new.log()
        assert new.stop(30) == 0, new.log()

    writes = _writes(audit)
    old_user, new_user = users[old], users[new]
    takeover = min(_time(e["requestReceivedTimestamp"]) for e in writes
                   if e["user"]["username"] == new_user and e["objectRef"].get("resource") == "leases"
                   and e["objectRef"].get("name") == lease and e["responseStatus"]["code"] < 300)
    late = [f'{e["verb"]} {e["requestURI"]} {e["requestReceivedTimestamp"]} {e["responseStatus"]["code"]}'
            for e in writes if e["user"]["username"] == old_user
            and _time(e["requestReceivedTimestamp"]) >= takeover]
    assert late == [], f"the deposed leader wrote after the takeover at {takeover}: {late[:20]}"

    bindings = [e for e in writes if e["objectRef"].get("subresource") == "binding"]
    by_user = Counter(e["user"]["username"] for e in bindings if e["responseStatus"]["code"] == 201)
    assert by_user[old_user] >= 10 and by_user[new_user] >= 10, by_user  # both bound pods
    assert [e for e in bindings if e["responseStatus"]["code"] != 201] == []  # no 409: none bound twice
    bound = Counter(e["objectRef"]["name"] for e in bindings)
    assert set(bound) == set(names) and set(bound.values()) == {1}
    for n in names:
        cond = condition(get_pod(rest, ns, n), "PodScheduled")
        assert cond is not None and cond.get("status") == "True", (n, cond)
