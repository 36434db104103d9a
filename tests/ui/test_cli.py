"""``kubesched ui`` as a user runs it: reads the inputs as ``simulate`` and ``explain`` do
(``--kube-version``, ``--feature-gates`` included), prints its URL, serves, stops on a signal."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

from typer.testing import CliRunner

from _serving_client import served_ui
from kubesched.cli import app, load_every_command

from ._fixtures import WEIGHTS
from .conftest import QUICKSTART

runner = CliRunner()


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=30) as resp:
        return bytes(resp.read())


def test_the_command_serves_on_loopback_and_stops_on_a_signal() -> None:
    want = runner.invoke(app, ["explain", str(QUICKSTART), "--pod", "default/db-0", "-o", "json"]).stdout
    with served_ui(str(QUICKSTART)) as url:
        assert json.loads(_get(url + "/api/summary"))["nodes"] == 6
        assert _get(url + "/api/decision?pod=default/db-0").decode() == want


def test_kube_version_and_feature_gates_are_honoured_as_explain_honours_them() -> None:
    flags = ["--kube-version", "1.32", "--feature-gates", "DynamicResourceAllocation=false"]
    explain = ["explain", str(QUICKSTART), "--pod", "default/db-0", "-o", "json"]
    want = runner.invoke(app, [*explain, *flags]).stdout
    newest = runner.invoke(app, explain).stdout
    assert want != newest  # the flags change the answer: the test can tell
    with served_ui(str(QUICKSTART), *flags) as url:
        summary = json.loads(_get(url + "/api/summary"))
        assert summary["kubeVersion"] == "1.32"
        assert summary["features"] == {"DynamicResourceAllocation": False}
        assert _get(url + "/api/decision?pod=default/db-0").decode() == want


def test_strict_is_the_editors_strictness_too() -> None:
    """``--strict`` refuses a ConfigMap in a file; the what-if editor of a server started with it
    refuses one as well (422, on its line), and one started without skips it as files are."""
    config_map = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n"
    for strict, status in ((["--strict"], 422), ([], 200)):
        with served_ui(str(WEIGHTS), *strict) as url:
            assert json.loads(_get(url + "/api/lab"))["strict"] is bool(strict)
            req = urllib.request.Request(url + "/api/whatif", method="POST",
                                         data=json.dumps({"manifests": config_map}).encode(),
                                         headers={"Origin": url, "Content-Type": "application/json"})
            try:
                with urllib.request.urlopen(req, timeout=60) as resp:
                    got, body = resp.status, resp.read()
            except urllib.error.HTTPError as err:
                got, body = err.code, err.read()
            assert got == status, body
            if status == 422:
                (p,) = json.loads(body)["problems"]
                assert p["line"] == 1 and "kind 'ConfigMap' is not read by the scheduler" in p["message"]


def test_bad_input_is_one_line_and_exit_2() -> None:
    result = runner.invoke(app, ["ui", "does-not-exist.yaml", "--port", "0"])
    assert result.exit_code == 2
    assert result.output.startswith("error: ") and "does-not-exist.yaml" in result.output
    result = runner.invoke(app, ["ui", str(QUICKSTART), "--kube-version", "0.1", "--port", "0"])
    assert result.exit_code == 2 and result.output.startswith("error: ")


def test_the_input_flags_are_explains_one_group() -> None:
    """``--kube-version``, ``--feature-gates``, ``--max-pods`` and the live-cluster flags are the
    group ``simulate`` and ``explain`` declare: the same options, defaults and help."""
    import typer.main

    load_every_command()

    def group(name: str) -> dict[str, tuple[object, ...]]:
        cmd = typer.main.get_command(app).commands[name]  # type: ignore[attr-defined]
        flags = {"--kube-version", "--feature-gates", "--max-pods",
                 "--kubeconfig", "--from-cluster", "--context"}
        return {p.opts[0]: (tuple(p.opts), p.default, getattr(p, "help", None))
                for p in cmd.params if p.opts and p.opts[0] in flags}

    assert len(group("ui")) == 6
    assert group("ui") == group("explain")
