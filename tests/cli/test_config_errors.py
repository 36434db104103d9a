"""``--config`` errors: an empty, binary or broken file, and several bad fields, are reported on one
line that names the file and every bad field at once (as field.ErrorList aggregates); exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from kubesched.cli import app

QUICKSTART = Path(__file__).parent.parent.parent / "examples" / "quickstart"
HEAD = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"

runner = CliRunner()


def _errors(tmp_path: Path, content: bytes, command: str = "validate") -> str:
    cfg = tmp_path / "scheduler.yaml"
    cfg.write_bytes(content)
    result = runner.invoke(app, [command, str(QUICKSTART), "--config", str(cfg)])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    line = " ".join(" ".join(lines).split())
    assert line.startswith(f"error: {cfg}: "), result.output
    return line


@pytest.mark.parametrize(
    ("content", "want"),
    [
        pytest.param(b"", "<file>: empty: a configuration needs at least apiVersion", id="empty"),
        pytest.param(b"# nothing here\n\n", "<file>: empty:", id="only-comments"),
        pytest.param(bytes(range(128, 256)), "<file>: not a YAML or JSON text file (byte 0 is not UTF-8)",
                     id="binary"),
        pytest.param(b"\x00\x01\x02PNG\x03", "<file>: invalid YAML:", id="control-characters"),
        pytest.param(b"profiles: [\n", "<file>: invalid YAML:", id="broken-yaml"),
    ],
)
def test_unreadable_config_names_the_file(tmp_path: Path, content: bytes, want: str) -> None:
    assert want in _errors(tmp_path, content)


def test_every_bad_field_at_once(tmp_path: Path) -> None:
    # Decoding errors (a string weight, an int32 overflow) and validation errors (a missing
    # scheduler name, a percentage out of range) of several profiles, all in one message.
    cfg = (HEAD + "parallelism: 99999999999\nprofiles:\n- schedulerName: a\n  plugins:\n    score:\n"
           "      enabled:\n      - name: NodeResourcesFit\n      - name: ImageLocality\n"
           "        weight: heavy\n"
           "- schedulerName: ''\n  percentageOfNodesToScore: 300\n")
    line = _errors(tmp_path, cfg.encode())
    want = [
        "parallelism: Invalid value: 99999999999: must be an int32",
        'profiles[0].plugins.score.enabled[1].weight: Invalid value: "heavy": must be an integer',
        "profiles[1].schedulerName: Required value",
        "profiles[1].percentageOfNodesToScore: Invalid value: 300: not in valid range [0-100]",
    ]
    for w in want:
        assert w in line, line
    assert line.count("; ") == len(want) - 1, line
    # a field that failed to decode is not reported again by validation (its default stood in)
    assert "parallelism: Invalid value: 16" not in line


@pytest.mark.parametrize("command", ["simulate", "explain"])
def test_other_commands_report_the_same(tmp_path: Path, command: str) -> None:
    cfg = tmp_path / "scheduler.yaml"
    cfg.write_bytes(b"")
    args = [command, str(QUICKSTART), "--config", str(cfg)]
    if command == "explain":
        args += ["--pod", "default/web-0"]
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert "scheduler.yaml: <file>: empty" in " ".join(result.stderr.split())
