"""``kubesched extender``: bad options exit 2 with one error; the command serves until
SIGTERM (a real process on 127.0.0.1)."""

from __future__ import annotations

import re
import urllib.error
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kubesched.cli import app
from kubesched.testing.command import ServingCommand

from .helpers import EXAMPLE, get, node, pod, post


@pytest.mark.parametrize(("args", "message"), [
    (["extender", "--no-cache", "--kubeconfig", "/nonexistent/kubeconfig"],  # together: the informers' client
     "kubeconfig /nonexistent/kubeconfig: no such file"),
    (["extender", "--no-cache", "--bind"], "--bind needs the API server: drop --no-cache"),
    (["extender", "--kubeconfig", "/nonexistent/kubeconfig"],
     "kubeconfig /nonexistent/kubeconfig: no such file"),
    (["extender", "--profile", "nope"], "--profile 'nope': the configuration has no such profile"),
    (["extender", "--no-cache", "--bind-address", "nowhere"], "--bind-address 'nowhere': want HOST:PORT"),
    (["extender", "--no-cache", "--profile", "nope"],
     "--profile 'nope': the configuration has no such profile"),
    (["extender", "--no-cache", "--config", "/nonexistent.yaml"], "/nonexistent.yaml"),
    (["extender", "--no-cache", "--tls-cert", "c.pem"], "--tls-cert and --tls-key go together"),
    (["extender", "--no-cache", "--authorization-always-allow-paths", "/a*b"], "only a trailing *"),
    (["extender", "--no-cache", "--authentication-skip-lookup=nah"],
     'invalid argument "nah" for "--authentication-skip-lookup" flag'),
    (["extender", "--no-cache", "--bogus"], "unknown flag: --bogus"),
])
def test_bad_options_exit_2(args: list[str], message: str) -> None:
    result = CliRunner().invoke(app, args, env={"KUBECONFIG": ""})
    assert result.exit_code == 2, result.output
    assert message in result.output


def test_informer_mode_without_any_cluster_exits_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No --kubeconfig, $KUBECONFIG, ~/.kube/config or service account: `kubesched run`'s
    resolution ends in-cluster, which is not there."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    result = CliRunner().invoke(app, ["extender"], env={"KUBECONFIG": "", "HOME": str(tmp_path)})
    assert result.exit_code == 2, result.output
    assert "in-cluster service account" in result.output and "no ~/.kube/config" in result.output


def test_serves_until_sigterm(tmp_path: Path) -> None:
    cfg = tmp_path / "config.yaml"
    cfg.write_text((EXAMPLE / "kubesched-config.yaml").read_text().replace(
        "- name: AvoidLabel ", "- name: kubesched_example_extender:AvoidLabel "))
    with ServingCommand("extender", "--no-cache", "--config", str(cfg), "--bind-address", "127.0.0.1:0",
                        env={"PYTHONPATH": str(EXAMPLE)}) as cmd:  # a warning line comes first
        m = re.search(r"serving profile 'default-scheduler' on (http://127\.0\.0\.1:\d+)", cmd.line)
        assert m, cmd.line
        url = m.group(1)
        assert get(url, "healthz") == (200, "ok")
        with pytest.raises(urllib.error.HTTPError) as refused:  # no delegation outside a cluster
            get(url, "metrics")
        assert refused.value.code == 403
        refused.value.close()
        code, out = post(url, "filter", {"Pod": pod("p"), "Nodes": {"items": [
            node("a", labels={"example.com/avoid": ""})]}})
        assert code == 200
        assert out["FailedAndUnresolvableNodes"] == {"a": "node(s) had the label example.com/avoid"}
        assert cmd.stop() == 0


def test_serving_collects_the_young_generation_less_often() -> None:
    """Once the engine serves, the young generation is collected every 10,000 allocations
    (CPython's 700 ran a collection several times per pod, inside its requests)."""
    import gc

    from kubesched.cli._extender import _settle
    from kubesched.extender import ExtenderEngine

    before = gc.get_threshold()
    engine = ExtenderEngine()
    try:
        _settle(engine)
        assert gc.get_threshold() == (10_000, 10, 10)
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()
        engine.close()
