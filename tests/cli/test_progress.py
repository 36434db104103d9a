"""Progress of a long simulation on stderr when stderr is not a terminal: one plain line every
few seconds of wall time; a short run prints nothing; stdout never changes. The wall clock is
a fake one here: no test sleeps."""

from __future__ import annotations

import functools
import itertools
import re
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from kubesched.cli import app
from kubesched.cli._progress import PlainProgress, virtual_time

runner = CliRunner()

EXAMPLES = Path(__file__).parent.parent.parent / "examples"
WORKLOADS = EXAMPLES / "workloads"
LINE = re.compile(r"^simulate: (\d+) pods scheduled, (\d+) pending, virtual time (\d+s|\d+m\d\ds|\d+h\d\dm)$")


def test_a_line_each_interval_of_wall_time(capsys: pytest.CaptureFixture[str]) -> None:
    now = [100.0]
    calls = itertools.count(1)
    tick = PlainProgress(lambda: f"line {next(calls)}", interval=5.0, wall=lambda: now[0])
    for t in (101.0, 104.9):  # within the first interval: nothing
        now[0] = t
        tick()
    assert capsys.readouterr().err == ""
    now[0] = 105.0
    tick()
    now[0] = 109.0
    tick()
    now[0] = 110.0
    tick()
    assert capsys.readouterr().err == "line 1\nline 2\n"


@pytest.mark.parametrize(("seconds", "text"), [(0, "0s"), (59.9, "59s"), (60, "1m00s"), (185, "3m05s"),
                                               (3720, "1h02m"), (90061, "25h01m")])
def test_virtual_time(seconds: float, text: str) -> None:
    assert virtual_time(seconds) == text


def test_a_long_simulation_tells_its_progress(monkeypatch: pytest.MonkeyPatch) -> None:
    quiet = runner.invoke(app, ["simulate", str(WORKLOADS)])
    assert quiet.exit_code == 0 and quiet.stderr == ""  # a short run: nothing extra
    wall = itertools.count(0.0, 1.0)  # every read of the wall clock a second later
    monkeypatch.setattr("kubesched.cli._simulate.PlainProgress",
                        functools.partial(PlainProgress, interval=3.0, wall=lambda: next(wall)))
    result = runner.invoke(app, ["simulate", str(WORKLOADS)])
    assert result.exit_code == 0, result.output
    assert result.stdout == quiet.stdout
    lines = result.stderr.splitlines()
    assert len(lines) > 3
    matches = [LINE.match(line) for line in lines]
    assert all(matches), lines
    scheduled = [int(m[1]) for m in matches if m]
    assert scheduled == sorted(scheduled) and scheduled[-1] > 0
    assert any(m[3] != "0s" for m in matches if m)  # the Jobs' pods run for minutes of virtual time


def test_a_long_replay_tells_its_progress(monkeypatch: pytest.MonkeyPatch) -> None:
    replay = EXAMPLES / "replay"
    args = ["replay", str(replay / "trace.jsonl"), "--cluster", str(replay / "cluster.yaml"), "-o", "json"]
    quiet = runner.invoke(app, args)
    assert quiet.exit_code == 0 and quiet.stderr == ""
    wall = itertools.count(0.0, 1.0)
    monkeypatch.setattr("kubesched.cli._replay.PlainProgress",
                        functools.partial(PlainProgress, interval=10.0, wall=lambda: next(wall)))
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 4  # 45 events, a line every 10 of them
    assert all(re.fullmatch(r"replay: \d+ events applied, virtual time \d+m\d\ds", line)
               for line in lines), lines


def test_pods_that_keep_failing_still_report(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # A retry that fails as the last one did writes nothing to the store: the clock's steps
    # report too. One pod that never fits: the start, its first failure (a status write), the
    # step to its first attempt's instant and the step to the 5-minute flush that retries it.
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
            "status": {"allocatable": {"cpu": "1", "memory": "1Gi", "pods": "10"}}}
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "big", "namespace": "default"},
           "spec": {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "2"}}}]}}
    path = tmp_path / "in.yaml"
    path.write_text(yaml.safe_dump_all([node, pod]))
    wall = itertools.count(0.0, 1.0)
    monkeypatch.setattr("kubesched.cli._simulate.PlainProgress",  # a line at every call
                        functools.partial(PlainProgress, interval=1.0, wall=lambda: next(wall)))
    result = runner.invoke(app, ["simulate", str(path)])
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == ["simulate: 0 pods scheduled, 1 pending, virtual time 0s"] * 4
