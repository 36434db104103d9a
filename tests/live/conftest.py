"""A real control plane (etcd + kube-apiserver, optionally the real kube-scheduler) for the live
and extender integration tests, from the ``control-plane`` script of the ``k8s/`` folder that
sits beside the repository (``../shared/k8s``, or ``$KUBESCHED_K8S_DIR``).

Where that folder is absent (a user's clone) the tests skip with a message saying so; with
``KUBESCHED_REQUIRE_K8S=1`` (set by ``.ci/run``) a missing control plane fails them instead,
so CI always runs them. One control plane serves the whole session; tests keep out of each
other's way by namespace (``namespace`` fixture) and by the objects they create.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from kubesched.api import KubeVersion

if TYPE_CHECKING:
    from kubesched.app import LiveScheduler

REPO = Path(__file__).resolve().parents[2]


def k8s_dir() -> Path:
    """Where the real binaries and the control-plane script are."""
    env = os.environ.get("KUBESCHED_K8S_DIR")
    return Path(env) if env else REPO.parent / "shared" / "k8s"


def _require() -> bool:
    return os.environ.get("KUBESCHED_REQUIRE_K8S", "") not in ("", "0")


def _missing(why: str) -> None:
    msg = (f"live integration tests need a real control plane: {why} "
           "(set KUBESCHED_K8S_DIR to a folder with the control-plane script and the binaries)")
    if _require():
        pytest.fail(msg + "; KUBESCHED_REQUIRE_K8S is set", pytrace=False)
    pytest.skip(msg)


@dataclass(frozen=True)
class ControlPlane:
    """A running control plane: its folder, kubeconfig, API URL and admin token."""

    dir: Path
    script: Path
    kubeconfig: Path
    api_url: str
    token: str

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        """``control-plane ARGS... DIR`` (e.g. ``scheduler``, ``stop-scheduler``)."""
        cmd = [str(self.script), args[0], str(self.dir), *args[1:]]
        return subprocess.run(cmd, check=check, capture_output=True, text=True, timeout=180)


@pytest.fixture(scope="session")
def control_plane(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ControlPlane]:
    """etcd + kube-apiserver on loopback for the session; stopped (and its folder removed) after."""
    yield from started_control_plane(k8s_dir() / "control-plane", tmp_path_factory)


def started_control_plane(script: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ControlPlane]:
    """A control plane from ``script`` (``k8s/`` or ``k8s-1.35/``), for a fixture to yield from:
    skipped (or failed, in CI) when absent, stopped after."""
    if not script.is_file():
        _missing(f"{script} not found")
    for tool in ("curl", "openssl", "xz"):
        if shutil.which(tool) is None:
            _missing(f"{tool} is not installed")
    d = tmp_path_factory.mktemp("control-plane") / "cp"
    started = subprocess.run([str(script), "start", str(d)], capture_output=True, text=True, timeout=600)
    if started.returncode != 0:
        _missing(f"control-plane start failed: {started.stderr.strip()[-2000:]}")
    env = dict(line.split("=", 1) for line in (d / "env").read_text().splitlines() if "=" in line)
    cp = ControlPlane(dir=d, script=script, kubeconfig=Path(env["KUBECONFIG"]),
                      api_url=env["API_URL"], token=env["TOKEN"])
    try:
        yield cp
    finally:
        subprocess.run([str(script), "stop", str(d)], capture_output=True, text=True, timeout=180)


@pytest.fixture
def namespace_name() -> str:
    """A fresh namespace name per test, so tests sharing the control plane never collide."""
    return f"t-{uuid.uuid4().hex[:10]}"


@pytest.fixture
def live_scheduler(control_plane: ControlPlane, tmp_path: Path, namespace_name: str
                   ) -> Iterator[tuple[LiveScheduler, threading.Thread]]:
    """``kubesched run``'s scheduler on the control plane with the test's own profile
    (``kubesched-<namespace>``), and the thread that runs it, not started yet (the test creates
    its objects first); stopped and closed after the test."""
    from kubesched.app import LiveScheduler
    from kubesched.framework.config import load_config

    from ._kube import profile_config

    cfg = load_config(profile_config(tmp_path, f"kubesched-{namespace_name}"))
    live = LiveScheduler(cfg, str(control_plane.kubeconfig))
    thread = threading.Thread(target=lambda: live.start() and live.run(), name="kubesched-run")
    yield live, thread
    live.stop()
    if thread.is_alive():
        thread.join(20)
    live.close()
    assert not thread.is_alive()


@pytest.fixture
def own_control_plane(control_plane: ControlPlane, tmp_path: Path) -> Iterator[ControlPlane]:
    """A second control plane from the same script (the session's stays untouched)."""
    d = tmp_path / "cp"
    started = subprocess.run([str(control_plane.script), "start", str(d)], capture_output=True, text=True,
                             timeout=300)
    try:
        assert started.returncode == 0, started.stderr[-2000:]
        env = dict(line.split("=", 1) for line in (d / "env").read_text().splitlines() if "=" in line)
        yield ControlPlane(dir=d, script=control_plane.script, kubeconfig=Path(env["KUBECONFIG"]),
                           api_url=env["API_URL"], token=env["TOKEN"])
    finally:
        subprocess.run([str(control_plane.script), "stop", str(d)], capture_output=True, text=True,
                       timeout=180)


@pytest.fixture(scope="session", params=[pytest.param("1.32", id="v1.32"), pytest.param("1.35", id="v1.35")])
def release_plane(request: pytest.FixtureRequest,
                  tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ControlPlane, KubeVersion]]:
    """A control plane of each release compared side by side (``../shared/k8s``: v1.32;
    ``../shared/k8s-1.35``: kube-scheduler v1.35.4) with its real kube-scheduler running, for
    the whole session: the side-by-side test files share it, one release at a time."""
    from ._side_by_side import FOLDERS, start_scheduler

    release: str = request.param
    script = REPO.parent / "shared" / FOLDERS[release] / "control-plane"
    plane = started_control_plane(script, tmp_path_factory)
    cp = next(plane)
    try:
        start_scheduler(cp)
        yield cp, KubeVersion.parse(release)
    finally:
        plane.close()  # stops it
