"""Extenders wired into the scheduler against real local HTTP(S) servers on 127.0.0.1:
binding through a binder extender (extendersBinding), ignoredByScheduler resources handed to
NodeResourcesFit (buildExtenders), TLS (makeTransport), httpTimeout, and the one warning an
ignorable extender that fails gives."""

from __future__ import annotations

import base64
import logging
import socket
import ssl
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trustme
import yaml
from typer.testing import CliRunner

from kubesched.cli import app
from kubesched.framework.config import ConfigError

from .env import BASIC, START, Env, Recorder, plugin, profile
from .extender_server import ExtenderBehaviour, running_extender
from .test_schedule_one import _node, _pod

GPU = "example.com/gpu"


def _recorder_registry(rec: Recorder) -> dict[str, Any]:
    return {"Rec": plugin(
        "Rec",
        reserve=lambda self, st, pod, node: None,
        unreserve=lambda self, st, pod, node: rec.add("unreserve", pod, 0),
        post_bind=lambda self, st, pod, node: rec.add("postbind", pod, 0))}


# -- binding -------------------------------------------------------------------------------
def test_binder_extender_binds_the_pod_in_the_store() -> None:
    """The extender's success is the Binding: the store shows the pod bound, the cache confirms
    the assumed pod, PostBind runs, the Scheduled event and condition are there."""
    rec = Recorder()
    b = ExtenderBehaviour()
    with running_extender(b) as url:
        env = Env(profile(plugins=(*BASIC, "Rec")), registry=_recorder_registry(rec),
                  extenders=[{"urlPrefix": url, "bindVerb": "bind"}])
        env.add(_node("n0"), _pod("p"))
        summary = env.run()
    assert b.bound == [{"PodName": "p", "PodNamespace": "default", "PodUID": "p-uid", "Node": "n0"}]
    pod = env.pod("p")
    assert pod.node_name == "n0" and summary.scheduled == 1 and summary.pending == []
    assert env.sched.cache.get_pod(pod) is not None and not env.sched.cache.is_assumed_pod(pod)
    assert env.sched.cache.assumed_pod_count() == 0
    assert rec.of("postbind") == [("postbind", "p", 0)] and rec.of("unreserve") == []
    assert [e.message for e in env.events("Scheduled", "p")] == ["Successfully assigned default/p to n0"]
    cond = env.scheduled_condition("p")
    assert cond is not None and cond["status"] == "True"


def test_binder_extender_error_is_a_binding_cycle_error() -> None:
    """handleBindingCycleError: Unreserve, forget the assumed pod, SchedulerError, retried."""
    rec = Recorder()
    b = ExtenderBehaviour(error="no room on the device")
    with running_extender(b) as url:
        env = Env(profile(plugins=(*BASIC, "Rec")), registry=_recorder_registry(rec),
                  extenders=[{"urlPrefix": url, "bindVerb": "bind"}])
        env.add(_node("n0"), _pod("p"))
        env.run(until=START + 5)
    pod = env.pod("p")
    assert pod.node_name == "" and len(b.bound) >= 2  # retried after its backoff
    assert env.sched.cache.get_pod(pod) is None
    assert rec.of("unreserve") and rec.of("postbind") == []
    cond = env.scheduled_condition("p")
    assert cond is not None and cond["reason"] == "SchedulerError"
    assert cond["message"] == "no room on the device"
    assert env.events("Scheduled", "p") == []


def test_ignorable_binder_that_fails_leaves_binding_to_the_bind_plugins() -> None:
    b = ExtenderBehaviour(fail_with=503)
    with running_extender(b) as url:
        env = Env(extenders=[{"urlPrefix": url, "bindVerb": "bind", "ignorable": True}])
        env.add(_node("n0"), _pod("p"))
        env.run()
    assert [v for v, _ in b.requests] == ["bind"]
    assert env.node_of("p") == "n0"


def test_binder_extender_binds_only_the_pods_it_is_interested_in() -> None:
    b = ExtenderBehaviour()
    with running_extender(b) as url:
        env = Env(extenders=[{"urlPrefix": url, "bindVerb": "bind",
                              "managedResources": [{"name": GPU, "ignoredByScheduler": True}]}])
        env.add(_node("n0"), _pod("plain"), _pod("gpu").req({"cpu": "1", GPU: "1"}))
        env.run()
    assert [a["PodName"] for a in b.bound] == ["gpu"]
    assert env.node_of("plain") == "n0" and env.node_of("gpu") == "n0"


# -- ignoredByScheduler ----------------------------------------------------------------------
@pytest.mark.parametrize(("ignored_by_scheduler", "bound"), [
    pytest.param(True, True, id="ignored by the scheduler: the extender alone decides"),
    pytest.param(False, False, id="managed but checked by NodeResourcesFit too"),
])
def test_ignored_by_scheduler_resources_go_to_node_resources_fit(ignored_by_scheduler: bool,
                                                                  bound: bool) -> None:
    b = ExtenderBehaviour()
    with running_extender(b) as url:
        env = Env(extenders=[{"urlPrefix": url, "filterVerb": "filter", "managedResources": [
            {"name": GPU, "ignoredByScheduler": ignored_by_scheduler}]}])
        env.add(_node("n0"), _pod("p").req({"cpu": "1", GPU: "1"}))
        env.run(until=START + 1)
    args = env.sched.config.profiles[0].args_for("NodeResourcesFit")
    assert args.ignored_resources == ((GPU,) if ignored_by_scheduler else ())
    if bound:
        assert env.node_of("p") == "n0"
    else:
        cond = env.scheduled_condition("p")
        assert cond is not None
        assert cond["message"] == "0/1 nodes are available: 1 Insufficient example.com/gpu."


def test_ignored_by_scheduler_replaces_every_profiles_ignored_resources() -> None:
    """Upstream sets IgnoredResources (not appends): the extenders' list wins over the args'."""
    fit = {"name": "NodeResourcesFit", "args": {"ignoredResources": ["example.com/other"]}}
    env = Env(profile(pluginConfig=[fit]), profile("second"),
              extenders=[{"urlPrefix": "http://127.0.0.1:1/x", "ignorable": True, "managedResources": [
                  {"name": GPU, "ignoredByScheduler": True}, {"name": "example.com/fpga"}]}])
    got = [p.args_for("NodeResourcesFit").ignored_resources for p in env.sched.config.profiles]
    assert got == [(GPU,), (GPU,)]


def test_ignored_by_scheduler_needs_node_resources_fit_in_every_profile() -> None:
    env = Env(profile(plugins=[p for p in BASIC if p != "NodeResourcesFit"]),
              extenders=[{"urlPrefix": "http://127.0.0.1:1/x",
                          "managedResources": [{"name": GPU, "ignoredByScheduler": True}]}])
    with pytest.raises(ValueError, match="can't find NodeResourcesFitArgs in plugin config"):
        _ = env.sched


def test_ignorable_extenders_come_last() -> None:
    env = Env(extenders=[{"urlPrefix": "http://127.0.0.1:1/a", "ignorable": True},
                         {"urlPrefix": "http://127.0.0.1:1/b"}])
    assert [e.name() for e in env.sched.extenders] == ["http://127.0.0.1:1/b", "http://127.0.0.1:1/a"]


# -- TLS --------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def ca() -> trustme.CA:
    return trustme.CA()


@pytest.fixture(scope="module")
def other_ca() -> trustme.CA:
    return trustme.CA()


def _server_ctx(ca: trustme.CA, *names: str, client_ca: trustme.CA | None = None) -> ssl.SSLContext:
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert(*(names or ("127.0.0.1",))).configure_cert(ctx)
    if client_ca is not None:
        client_ca.configure_trust(ctx)
        ctx.verify_mode = ssl.CERT_REQUIRED
    return ctx


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _filter_through(url: str, **ext: Any) -> Env:
    """A pod scheduled with one (non-ignorable) filter extender; run for a second."""
    env = Env(extenders=[{"urlPrefix": url, "filterVerb": "filter", **ext}])
    env.add(_node("n0"), _pod("p"))
    env.run(until=START + 1)
    return env


def _error(env: Env) -> str:
    cond = env.scheduled_condition("p")
    assert env.node_of("p") == "" and cond is not None and cond["reason"] == "SchedulerError"
    return str(cond["message"])


def test_https_with_the_servers_ca_passes(ca: trustme.CA, tmp_path: Path) -> None:
    ca_file = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    with running_extender(ExtenderBehaviour(), tls=_server_ctx(ca)) as url:
        assert url.startswith("https://127.0.0.1:")
        assert _filter_through(url, tlsConfig={"caData": _b64(ca.cert_pem.bytes())}).node_of("p") == "n0"
        assert _filter_through(url, tlsConfig={"caFile": str(ca_file)}).node_of("p") == "n0"


@pytest.mark.parametrize("ext", [
    pytest.param({"tlsConfig": {"insecure": True}}, id="insecure"),
    pytest.param({"enableHTTPS": True}, id="enableHTTPS without a CA: not verified"),
])
def test_https_unverified_passes(ca: trustme.CA, ext: dict[str, Any]) -> None:
    with running_extender(ExtenderBehaviour(), tls=_server_ctx(ca)) as url:
        assert _filter_through(url, **ext).node_of("p") == "n0"


@pytest.mark.parametrize("ext", [
    pytest.param({}, id="no tlsConfig: the system's roots"),
    pytest.param("other", id="another CA"),
    pytest.param("enable-other", id="enableHTTPS with another CA: verified"),
])
def test_https_with_a_wrong_ca_fails(ca: trustme.CA, other_ca: trustme.CA, ext: Any) -> None:
    if ext in ("other", "enable-other"):
        ext = {"tlsConfig": {"caData": _b64(other_ca.cert_pem.bytes())},
               **({"enableHTTPS": True} if ext == "enable-other" else {})}
    with running_extender(ExtenderBehaviour(), tls=_server_ctx(ca)) as url:
        msg = _error(_filter_through(url, **ext))
    assert msg.startswith(f'Post "{url}/filter": tls: failed to verify certificate: x509: ')


def test_server_name_is_sent_and_verified(ca: trustme.CA) -> None:
    tls = {"caData": _b64(ca.cert_pem.bytes())}
    with running_extender(ExtenderBehaviour(), tls=_server_ctx(ca, "extender.example")) as url:
        assert _filter_through(url, tlsConfig={**tls, "serverName": "extender.example"}).node_of("p") == "n0"
        assert "failed to verify certificate" in _error(_filter_through(url, tlsConfig=tls))


def test_client_certificate_from_data_or_files(ca: trustme.CA, tmp_path: Path) -> None:
    client = ca.issue_cert("scheduler.example")
    cert, key = client.cert_chain_pems[0].bytes(), client.private_key_pem.bytes()
    (tmp_path / "c.pem").write_bytes(cert)
    (tmp_path / "k.pem").write_bytes(key)
    trust = {"caData": _b64(ca.cert_pem.bytes())}
    with running_extender(ExtenderBehaviour(), tls=_server_ctx(ca, client_ca=ca)) as url:
        env = _filter_through(url, tlsConfig={**trust, "certData": _b64(cert), "keyData": _b64(key)})
        assert env.node_of("p") == "n0"
        env = _filter_through(url, tlsConfig={**trust, "certFile": str(tmp_path / "c.pem"),
                                              "keyFile": str(tmp_path / "k.pem")})
        assert env.node_of("p") == "n0"
        assert _error(_filter_through(url, tlsConfig=trust)).startswith(f'Post "{url}/filter": ')


def test_ca_with_insecure_is_refused_when_the_scheduler_is_built(ca: trustme.CA) -> None:
    env = Env(extenders=[{"urlPrefix": "https://127.0.0.1:1/x", "filterVerb": "filter",
                          "tlsConfig": {"insecure": True, "caData": _b64(ca.cert_pem.bytes())}}])
    with pytest.raises(ValueError, match=r"extenders\[0\] .*specifying a root certificates file with "
                                         r"the insecure flag is not allowed"):
        _ = env.sched


@pytest.mark.parametrize(("tls", "field"), [
    pytest.param({"caData": "not base64!"}, "extenders[0].tlsConfig.caData", id="bad-base64"),
    pytest.param({"insecure": "yes"}, "extenders[0].tlsConfig.insecure", id="not-a-bool"),
    pytest.param({"caFiles": "x"}, "extenders[0].tlsConfig.caFiles", id="unknown-field"),
])
def test_tls_config_is_decoded_strictly(tls: dict[str, Any], field: str) -> None:
    with pytest.raises(ConfigError, match=field.replace("[", r"\[").replace("]", r"\]")):
        Env(extenders=[{"urlPrefix": "https://127.0.0.1:1/x", "tlsConfig": tls}])


# -- httpTimeout ------------------------------------------------------------------------------
def test_http_timeout_fails_a_late_answer() -> None:
    b = ExtenderBehaviour(hold=threading.Event())
    with running_extender(b) as url:
        env = _filter_through(url, httpTimeout="50ms")
    assert _error(env) == (f'Post "{url}/filter": context deadline exceeded '
                           "(Client.Timeout exceeded while awaiting headers)")


def test_http_timeout_skips_an_ignorable_late_extender() -> None:
    b = ExtenderBehaviour(hold=threading.Event())
    with running_extender(b) as url:
        env = _filter_through(url, httpTimeout="50ms", ignorable=True)
    assert env.node_of("p") == "n0" and [v for v, _ in b.requests] == ["filter"]


# -- one warning --------------------------------------------------------------------------------
@pytest.fixture
def refused_url() -> Iterator[str]:
    """A bound port nobody listens on: connecting is refused at once, deterministically."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        yield f"http://127.0.0.1:{s.getsockname()[1]}/ext"


def test_unreachable_ignorable_extender_warns_once(refused_url: str,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    env = Env(extenders=[{"urlPrefix": refused_url, "filterVerb": "filter", "bindVerb": "bind",
                          "ignorable": True}])
    env.add(_node("n0"), *[_pod(f"p{i}") for i in range(4)])
    with caplog.at_level(logging.DEBUG, logger="kubesched"):
        env.run()
    assert all(env.node_of(f"p{i}") == "n0" for i in range(4))
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert refused_url in warnings[0].getMessage()
    assert "connection refused" in warnings[0].getMessage()
    later = [r for r in caplog.records
             if r.name == "kubesched.scheduler._extender" and r.levelno == logging.DEBUG]
    assert len(later) == 7  # 4 filters and 4 binds skipped, the first one warned


def test_cli_shows_the_warning_once_on_stderr(refused_url: str, tmp_path: Path) -> None:
    cfg = tmp_path / "sched.yaml"
    cfg.write_text(yaml.safe_dump({
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "extenders": [{"urlPrefix": refused_url, "filterVerb": "filter", "ignorable": True}]}))
    manifests = tmp_path / "cluster.yaml"
    manifests.write_text(yaml.safe_dump_all([_node("n0").obj().to_dict(),
                                             *[_pod(f"p{i}").obj().to_dict() for i in range(3)]]))
    result = CliRunner().invoke(app, ["simulate", str(manifests), "--config", str(cfg), "-o", "json"])
    assert result.exit_code == 0, result.output
    lines = [ln for ln in result.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"warning: extender {refused_url}: filter failed")
    assert "connection refused" in lines[0]


def test_cli_binds_through_a_binder_extender(tmp_path: Path) -> None:
    b = ExtenderBehaviour()
    with running_extender(b) as url:
        cfg = tmp_path / "sched.yaml"
        cfg.write_text(yaml.safe_dump({
            "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
            "extenders": [{"urlPrefix": url, "bindVerb": "bind"}]}))
        manifests = tmp_path / "cluster.yaml"
        manifests.write_text(yaml.safe_dump_all([_node("n0").obj().to_dict(), _pod("p").obj().to_dict()]))
        result = CliRunner().invoke(app, ["simulate", str(manifests), "--config", str(cfg), "-o", "json"])
    assert result.exit_code == 0, result.output
    [pod] = yaml.safe_load(result.stdout)["pods"]
    assert pod["node"] == "n0" and [a["PodName"] for a in b.bound] == ["p"]


def test_cli_unusable_tls_material_is_bad_input_naming_the_file(tmp_path: Path) -> None:
    cfg = tmp_path / "sched.yaml"
    cfg.write_text(yaml.safe_dump({
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "extenders": [{"urlPrefix": "https://127.0.0.1:1/x", "filterVerb": "filter",
                       "tlsConfig": {"caFile": str(tmp_path / "missing.pem")}}]}))
    manifests = tmp_path / "cluster.yaml"
    manifests.write_text(yaml.safe_dump(_node("n0").obj().to_dict()))
    result = CliRunner().invoke(app, ["simulate", str(manifests), "--config", str(cfg)])
    assert result.exit_code == 2
    err = " ".join(result.stderr.split())
    assert f"{cfg}: extenders[0] (https://127.0.0.1:1/x): tlsConfig.caFile: cannot read" in err
