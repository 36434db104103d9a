"""The what-if, configuration, compare and over-time routes, over HTTP on a free port as the
page speaks to them (JSON bodies, the server's own Origin)."""

from __future__ import annotations

import http.client
import json
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from _yaml_bomb import billion_laughs, manifest_bomb
from kubesched.api import EXCESSIVE_ALIASING
from kubesched.api.loader import load_paths
from kubesched.framework.config import load_config
from kubesched.serving import HTTPServer
from kubesched.ui import MAX_BODY_BYTES, UIApp, WhatIfRoutes, Workspace, startup_config_text

from ._fixtures import CONFIG_HEAD, FIT_WEIGHS_10, REPO, WEIGHTS, pod
from .conftest import Answer, Served
from .conftest import served as served_reloading


@contextmanager
def served(*paths: Path, config: Any = None, strict: bool = False) -> Iterator[Served]:
    """``kubesched ui PATHS`` as the command builds it, the what-if routes mounted."""
    workspace = Workspace(load_paths(list(paths), strict=strict), config, describe="test")
    app = UIApp(workspace)
    lab = WhatIfRoutes(workspace, config_text=startup_config_text(config), strict=strict)
    lab.mount(app)
    server = HTTPServer(app, "127.0.0.1", 0).start()
    try:
        yield Served(server.url, workspace)
    finally:
        lab.close()
        workspace.close()
        server.close()


def post(ui: Served, path: str, body: Any, **headers: str) -> Answer:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    return ui.request(path, "POST", {"Origin": ui.url, "Content-Type": "application/json", **headers}, data)


def test_lab_tells_the_editors_start_and_the_traces() -> None:
    with served(WEIGHTS) as ui:
        d = ui.get("/api/lab").json()
    assert d["config"] == CONFIG_HEAD
    (profile,) = d["weights"]
    assert {"name": "TaintToleration", "weight": 3} in profile["plugins"]
    assert [t["name"] for t in d["traces"]] == ["example: replay"]
    assert d["maxBodyBytes"] == MAX_BODY_BYTES


def test_the_config_editor_starts_from_the_config_file(tmp_path: Path) -> None:
    f = tmp_path / "sched.yaml"
    f.write_text(FIT_WEIGHS_10)
    with served(WEIGHTS, config=load_config(f)) as ui:
        d = ui.get("/api/lab").json()
    assert d["config"] == FIT_WEIGHS_10
    assert {"name": "NodeResourcesFit", "weight": 10} in d["weights"][0]["plugins"]


def test_whatif_adds_manifests_and_shows_what_changed() -> None:
    with served(WEIGHTS) as ui:
        a = post(ui, "/api/whatif", {"manifests": pod("web", "4100m") + "---\n" + pod("extra", "100m")})
    assert a.status == 200, a.body
    d = a.json()
    assert (d["added"], d["replaced"]) == (["Pod default/extra"], ["Pod default/web"])
    changes = {c["pod"]: c for c in d["changes"]}
    assert changes["default/web"]["change"] == "unplaced"
    assert changes["default/web"]["before"]["node"] == "node-b"
    assert "Insufficient cpu" in changes["default/web"]["after"]["message"]
    assert changes["default/extra"]["change"] == "added"
    assert d["pending"] == {"before": 0, "after": 1}


def test_changing_a_weight_changes_a_placement() -> None:
    with served(WEIGHTS) as ui:
        w = post(ui, "/api/config/weights", {"config": CONFIG_HEAD,
                                             "weights": {"default-scheduler": {"NodeResourcesFit": 10}}})
        assert w.status == 200, w.body
        text = w.json()["config"]
        assert {"name": "NodeResourcesFit", "weight": 10} in w.json()["weights"][0]["plugins"]
        d = post(ui, "/api/whatif", {"config": text}).json()
    assert [(c["pod"], c["change"], c["before"]["node"], c["after"]["node"]) for c in d["changes"]] == [
        ("default/web", "moved", "node-b", "node-a")]


def test_invalid_yaml_is_a_422_naming_its_line_and_the_server_goes_on() -> None:
    with served(WEIGHTS) as ui:
        bad = post(ui, "/api/whatif", {"manifests": "apiVersion: v1\nkind: Pod\nmetadata:\n  name: [x\n"})
        assert bad.status == 422
        d = bad.json()
        assert d["what"] == "manifests"
        (p,) = d["problems"]
        assert p["line"] == 5 and p["message"].startswith("what-if.yaml: malformed YAML")
        bad = post(ui, "/api/whatif", {"manifests": pod("ok") + "---\n" + pod("bad", "lots")})
        (p,) = bad.json()["problems"]
        assert (p["line"], p["object"]) == (12, "Pod bad")
        # The configuration's errors, on the line of the field each names.
        bad = post(ui, "/api/config/check", {"config": CONFIG_HEAD + "percentageOfNodesToScore: 200\n"})
        assert bad.status == 422 and bad.json()["what"] == "configuration"
        assert bad.json()["problems"][0]["line"] == 3
        assert "percentageOfNodesToScore: Invalid value: 200" in bad.json()["problems"][0]["message"]
        assert ui.get("/api/summary").status == 200  # still serving


CONFIG_MAP = """apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  a: b
"""


def test_strict_refuses_a_kind_not_read_on_its_line_as_the_command_line_does() -> None:
    text = pod("extra", "100m") + "---\n" + CONFIG_MAP
    line = pod("extra").count("\n") + 2  # the ConfigMap's first line, after the pod and "---"
    with served(WEIGHTS) as ui:  # without --strict: skipped, as files are
        assert ui.get("/api/lab").json()["strict"] is False
        a = post(ui, "/api/whatif", {"manifests": text})
        assert a.status == 200, a.body
        assert a.json()["added"] == ["Pod default/extra"]
    with served(WEIGHTS, strict=True) as ui:
        assert ui.get("/api/lab").json()["strict"] is True
        for path, body in (("/api/whatif", {"manifests": text}),
                           ("/api/whatif", {"manifests": text, "config": FIT_WEIGHS_10}),
                           ("/api/compare", {"a": CONFIG_HEAD, "b": FIT_WEIGHS_10, "manifests": text}),
                           ("/api/compare/reasons", {"a": CONFIG_HEAD, "b": FIT_WEIGHS_10, "manifests": text,
                                                     "pod": "default/web"})):
            bad = post(ui, path, body)
            assert bad.status == 422, (path, bad.body)
            assert bad.json()["what"] == "manifests"
            (p,) = bad.json()["problems"]
            assert p["line"] == line, (path, p)
            assert p["object"] == "ConfigMap settings"
            assert p["message"].startswith("what-if.yaml: document 2 (ConfigMap settings): kind 'ConfigMap' "
                                            "is not read by the scheduler (kinds read: Namespace, ")
        assert post(ui, "/api/whatif", {"manifests": pod("extra", "100m")}).status == 200


def test_the_configuration_is_decoded_strictly_with_or_without_strict() -> None:
    """As ``--config`` decodes a file (upstream's strict decoding, whatever --strict says): an
    unknown field is an error on its line."""
    text = FIT_WEIGHS_10.replace("  plugins:\n", "  plugin:\n")
    for strict in (False, True):
        with served(WEIGHTS, strict=strict) as ui:
            for path, body in (("/api/config/check", {"config": text}), ("/api/whatif", {"config": text}),
                               ("/api/compare", {"a": CONFIG_HEAD, "b": text})):
                bad = post(ui, path, body)
                assert bad.status == 422, (path, bad.body)
                (p,) = bad.json()["problems"]
                assert p["line"] == 5, path
                assert p["message"] == "config.yaml: profiles[0].plugin: unknown field", path


def test_compare_lists_the_differing_pods_and_each_ones_reasons() -> None:
    with served(WEIGHTS) as ui:
        a = post(ui, "/api/compare", {"a": CONFIG_HEAD, "b": FIT_WEIGHS_10})
        assert a.status == 200, a.body
        assert a.json()["differing"] == [{
            "pod": "default/web",
            "a": {"node": "node-b", "status": "Scheduled", "message": ""},
            "b": {"node": "node-a", "status": "Scheduled", "message": ""}}]
        r = post(ui, "/api/compare/reasons", {"a": CONFIG_HEAD, "b": FIT_WEIGHS_10, "pod": "default/web"})
        assert r.status == 200, r.body
        sides = r.json()["configs"]
        assert [s["selectedNode"] for s in sides] == ["node-b", "node-a"]
        assert sides[1]["nodes"]["node-a"]["scores"]["NodeResourcesFit"]["weight"] == 10
        # With the what-if's manifests on top: a pod only they hold is compared too.
        m = post(ui, "/api/compare", {"a": CONFIG_HEAD, "b": FIT_WEIGHS_10,
                                      "manifests": pod("extra", "100m")}).json()
        assert m["pods"] == 3 and m["scheduled"] == {"a": 2, "b": 2}
        bad = post(ui, "/api/compare", {"a": CONFIG_HEAD, "b": "kind: [\n"})
        assert bad.status == 422 and bad.json()["what"] == "configuration B"
        bad = post(ui, "/api/compare", {"a": CONFIG_HEAD, "b": CONFIG_HEAD,
                                        "manifests": pod("x", extra="\n  priorityClassName: nope")})
        assert bad.status == 422 and bad.json()["what"] == "manifests"
        assert bad.json()["problems"][0]["line"] == 1
        missing = post(ui, "/api/compare/reasons",
                       {"a": CONFIG_HEAD, "b": CONFIG_HEAD, "pod": "default/nope"})
        assert missing.status == 404


def _events(ui: Served, path: str) -> list[tuple[str, Any]]:
    out = []
    with urllib.request.urlopen(ui.url + path, timeout=60) as resp:
        assert resp.headers["Content-Type"] == "text/event-stream"
        name = ""
        for raw in resp:
            line = raw.decode().rstrip("\n")
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: "):
                out.append((name, json.loads(line[6:])))
    return out


def test_replay_streams_its_progress_then_the_timeline() -> None:
    with served(WEIGHTS) as ui:
        started = post(ui, "/api/replay", {"trace": "example: replay"})
        assert started.status == 202, started.body
        events = _events(ui, f"/api/jobs/events?id={started.json()['id']}")
    names = [n for n, _ in events]
    assert names[-1] == "result" and set(names[:-1]) == {"progress"}
    last_progress = events[-2][1]
    assert last_progress["done"] == last_progress["total"] == 45
    (tl,) = events[-1][1]["runs"]
    assert tl["label"] == "A"
    assert set(tl["charts"]) == {"allocation", "pending", "latency"}
    assert len(tl["series"]["time"]) == tl["points"] == len(tl["series"]["allocation:cpu"])
    for key in ("pods", "scheduled", "pending", "latencySeconds", "allocation", "virtualSeconds"):
        assert key in tl["summary"]
    assert tl["summary"]["pods"] == 46


def _job(ui: Served, path: str, body: Any) -> tuple[Answer, list[tuple[str, Any]]]:
    """``path`` asked with ``Prefer: respond-async``: the 202 and the job's events."""
    started = post(ui, path, body, Prefer="respond-async")
    assert started.status == 202, started.body
    assert started.headers["preference-applied"] == "respond-async"
    return started, _events(ui, f"/api/jobs/events?id={started.json()['id']}")


def test_whatif_and_compare_stream_their_progress_as_replays_do() -> None:
    """One mechanism: asked with ``Prefer: respond-async``, a what-if and a comparison are jobs
    whose progress (pods placed of those to place, per run) streams on the replays' event route,
    ending with the answer the plain POST gives."""
    whatif = {"manifests": pod("web", "4100m") + "---\n" + pod("extra", "100m")}
    compare = {"a": CONFIG_HEAD, "b": FIT_WEIGHS_10}
    with served(WEIGHTS) as ui:
        want_whatif = post(ui, "/api/whatif", whatif).json()
        want_compare = post(ui, "/api/compare", compare).json()
        started, events = _job(ui, "/api/whatif", whatif)
        assert {k: started.json()[k] for k in ("kind", "runs")} == {"kind": "whatif", "runs": 1}
        names = [n for n, _ in events]
        assert names[-1] == "result" and set(names[:-1]) == {"progress"}
        assert events[-1][1] == want_whatif
        last = events[-2][1]
        # the what-if's run: web (now too big) and extra to place, extra placed
        assert (last["state"], last["run"], last["done"], last["total"]) == ("done", 0, 1, 2)

        started, events = _job(ui, "/api/compare", compare)
        assert {k: started.json()[k] for k in ("kind", "runs")} == {"kind": "compare", "runs": 2}
        assert events[-1] == ("result", want_compare)
        runs = {p["run"] for n, p in events if n == "progress" and p["state"] == "running"}
        assert runs <= {0, 1} and events[-2][1]["run"] == 1
        assert (events[-2][1]["done"], events[-2][1]["total"]) == (1, 1)  # web, in B


def test_a_job_refused_ends_with_the_answer_the_plain_post_gives() -> None:
    """Text refused in a job: its ``failed`` event carries the plain POST's JSON and status."""
    with served(WEIGHTS) as ui:
        bad = {"manifests": pod("ok") + "---\n" + pod("bad", "lots")}
        want = post(ui, "/api/whatif", bad)
        assert want.status == 422
        _, events = _job(ui, "/api/whatif", bad)
        assert events[-1] == ("failed", {**want.json(), "status": 422})
        _, events = _job(ui, "/api/compare", {"a": CONFIG_HEAD, "b": "kind: [\n"})
        assert events[-1][0] == "failed"
        assert (events[-1][1]["status"], events[-1][1]["what"]) == (422, "configuration B")
        _, events = _job(ui, "/api/whatif", {"manifests": manifest_bomb()})
        assert events[-1] == ("failed", {"error": f"what-if.yaml: {EXCESSIVE_ALIASING}", "what": "input",
                                         "problems": [], "status": 400})
        # body errors are the request's, answered at once
        assert post(ui, "/api/whatif", {"manifests": 3}, Prefer="respond-async").status == 400


def test_two_configurations_compared_over_time() -> None:
    least = (REPO / "examples" / "replay" / "least-allocated.yaml").read_text()
    most = (REPO / "examples" / "replay" / "most-allocated.yaml").read_text()
    with served(WEIGHTS) as ui:
        started = post(ui, "/api/replay", {"trace": "example: replay", "config": least, "compare": most})
        assert started.status == 202 and started.json()["runs"] == 2
        events = _events(ui, f"/api/jobs/events?id={started.json()['id']}")
        bad = post(ui, "/api/replay", {"trace": "example: replay", "compare": "kind: [\n"})
        assert bad.status == 422 and bad.json()["what"] == "configuration B"
    # the stream starts where the job is when it is opened: run A may be over by then
    runs = {p["run"] for n, p in events if n == "progress" and p["state"] == "running"}
    assert 1 in runs and runs <= {0, 1}
    a, b = events[-1][1]["runs"]
    assert (a["label"], b["label"]) == ("A", "B")
    assert a["summary"]["pods"] == b["summary"]["pods"] == 46
    # Spreading against bin packing on the same trace: packing leaves room for the big pod
    # that spreading makes wait (and preempt).
    assert a["series"]["allocation:cpu"] != b["series"]["allocation:cpu"]
    assert (a["summary"]["preemptions"], b["summary"]["preemptions"]) == (1, 0)
    assert a["summary"]["latencySeconds"]["max"] > b["summary"]["latencySeconds"]["max"]


def test_a_replay_of_a_bad_configuration_or_an_unknown_trace_is_refused() -> None:
    with served(WEIGHTS) as ui:
        assert post(ui, "/api/replay", {"trace": "../../etc/passwd"}).status == 404
        bad = post(ui, "/api/replay",
                   {"trace": "example: replay", "config": CONFIG_HEAD + "parallelism: x\n"})
        assert bad.status == 422 and bad.json()["problems"][0]["line"] == 3
        assert ui.get("/api/jobs/events?id=99").status == 404
        assert ui.get("/api/jobs/events?id=..%2F").status == 404


def test_bodies_are_json_of_a_bounded_size_from_this_origin() -> None:
    with served(WEIGHTS) as ui:
        # Refused on its Content-Length, before a byte of it is read.
        host, port = ui.url.removeprefix("http://").split(":")
        conn = http.client.HTTPConnection(host, int(port), timeout=30)
        conn.putrequest("POST", "/api/whatif")
        for k, v in (("Origin", ui.url), ("Content-Type", "application/json"),
                     ("Content-Length", str(MAX_BODY_BYTES + 1))):
            conn.putheader(k, v)
        conn.endheaders()
        assert conn.getresponse().status == 413
        conn.close()
        assert post(ui, "/api/whatif", b"not json").status == 400
        assert post(ui, "/api/whatif", b"[]").status == 400
        assert post(ui, "/api/whatif", {"manifests": 3}).status == 400
        assert post(ui, "/api/whatif", {}, **{"Content-Type": "text/plain"}).status == 415
        assert post(ui, "/api/whatif", {}, Origin="http://evil.example").status == 403
        assert post(ui, "/api/config/weights", {"weights": {"default-scheduler": {"X": "9"}}}).status == 400
        assert ui.get("/api/whatif").status == 405


def test_the_cli_serves_the_trace_it_was_given(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from kubesched.cli import app

    missing = str(tmp_path / "missing.jsonl")
    r = CliRunner().invoke(app, ["ui", str(WEIGHTS), "--trace", missing, "--port", "0"])
    assert r.exit_code == 2 and "missing.jsonl: no such file or directory" in r.output
    r = CliRunner().invoke(app, ["ui", str(WEIGHTS), "--trace", str(REPO / "examples/replay/trace.jsonl"),
                                 "--trace-format", "nope", "--port", "0"])
    assert r.exit_code == 2 and "--trace-format: unknown trace format 'nope'" in r.output


def test_the_pages_and_their_assets_are_served_from_the_package() -> None:
    with served(WEIGHTS) as ui:
        shell = ui.get("/").body.decode()
        for page in ("whatif", "config", "compare", "timeline"):
            assert f'data-page="{page}"' in shell
            js = ui.get(f"/static/pages/{page}.js")
            assert js.status == 200 and js.headers["content-type"].startswith("text/javascript")
        for asset in ("lab.js", "lab.css"):
            assert ui.get(f"/static/{asset}").status == 200
        # Nothing is fetched from elsewhere: no URL but the server's own in the scripts.
        lab = ui.get("/static/lab.js").body.decode()
        assert "http://" not in lab.replace("http://www.w3.org/2000/svg", "") and "https://" not in lab


def test_the_cli_refuses_a_trace_cluster_without_a_trace() -> None:
    from typer.testing import CliRunner

    from kubesched.cli import app

    r = CliRunner().invoke(app, ["ui", str(WEIGHTS), "--trace-cluster", str(WEIGHTS), "--port", "0"])
    assert r.exit_code == 2 and "--trace-cluster: give the trace too" in r.output


def test_the_config_editor_falls_back_to_the_defaults_when_the_file_is_gone(tmp_path: Path) -> None:
    f = tmp_path / "sched.yaml"
    f.write_text(FIT_WEIGHS_10)
    config = load_config(f)
    f.unlink()
    assert startup_config_text(config) == CONFIG_HEAD


def test_an_alias_bomb_is_a_400_with_its_one_line_before_it_expands(tmp_path: Path) -> None:
    """In the what-if editor's manifests, in a configuration (each route that reads one) and in
    the inputs read again: refused whole, go-yaml's message, the server goes on."""
    laughs = CONFIG_HEAD + billion_laughs(key="profiles")
    weights = {"default-scheduler": {"NodeResourcesFit": 2}}
    with served(WEIGHTS) as ui:
        for path, body, source in (
                ("/api/whatif", {"manifests": manifest_bomb()}, "what-if.yaml"),
                ("/api/compare", {"a": CONFIG_HEAD, "b": CONFIG_HEAD, "manifests": manifest_bomb()},
                 "what-if.yaml"),
                ("/api/whatif", {"config": laughs}, "config.yaml"),
                ("/api/config/check", {"config": laughs}, "config.yaml"),
                ("/api/config/weights", {"config": laughs, "weights": weights}, "config.yaml"),
                ("/api/compare", {"a": CONFIG_HEAD, "b": laughs}, "config.yaml"),
                ("/api/replay", {"trace": "example: replay", "config": laughs}, "config.yaml")):
            bad = post(ui, path, body)
            assert (bad.status, bad.body.decode()) == (400, f"{source}: {EXCESSIVE_ALIASING}\n"), path
        assert post(ui, "/api/whatif", {"manifests": pod("extra", "100m")}).status == 200


def test_inputs_read_again_as_a_bomb_are_refused_and_the_view_stays(tmp_path: Path) -> None:
    f = tmp_path / "cluster.yaml"
    f.write_text((WEIGHTS / "cluster.yaml").read_text())
    with served_reloading(f) as ui:
        f.write_text(manifest_bomb())
        bad = ui.post("/api/reload")
        assert (bad.status, bad.body.decode()) == (400, f"{f}: {EXCESSIVE_ALIASING}\n")
        assert ui.get("/api/summary").json()["error"] == f"{f}: {EXCESSIVE_ALIASING}"
        assert ui.get("/api/summary").json()["version"] == 1
