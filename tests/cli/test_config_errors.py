"""``--config`` errors: an empty, binary or broken file, and several bad fields, are reported on one
line that names the file and every bad field at once (as field.ErrorList aggregates); exit 2."""

from __future__ import annotations

import math
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from _mutations import DELETE, document_paths, mutated
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


RICH = HEAD + """parallelism: 8
percentageOfNodesToScore: 50
profiles:
- schedulerName: default-scheduler
  percentageOfNodesToScore: 30
  plugins:
    multiPoint:
      enabled: [{name: NodeResourcesFit, weight: 2}]
    score:
      disabled: [{name: ImageLocality}]
      enabled: [{name: NodeAffinity, weight: 3}]
  pluginConfig:
  - name: NodeResourcesFit
    args:
      ignoredResources: [example.com/x]
      scoringStrategy:
        type: RequestedToCapacityRatio
        resources: [{name: cpu, weight: 1}, {name: memory, weight: 2}]
        requestedToCapacityRatio:
          shape: [{utilization: 0, score: 0}, {utilization: 100, score: 10}]
  - name: PodTopologySpread
    args:
      defaultingType: List
      defaultConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway}]
  - name: InterPodAffinity
    args: {hardPodAffinityWeight: 2}
  - name: NodeAffinity
    args:
      addedAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
          nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: In, values: [a]}]}]
  - name: DefaultPreemption
    args: {minCandidateNodesPercentage: 10, minCandidateNodesAbsolute: 100}
  - name: VolumeBinding
    args: {bindTimeoutSeconds: 600, shape: [{utilization: 0, score: 0}, {utilization: 100, score: 10}]}
- schedulerName: second
extenders:
- {urlPrefix: "http://127.0.0.1:1", filterVerb: filter, weight: 1, httpTimeout: 5s, ignorable: true}
"""


@pytest.mark.parametrize(
    ("path", "value", "want"),
    [
        pytest.param(("profiles", 0, "pluginConfig", 0, "args", "scoringStrategy",
                      "requestedToCapacityRatio", "shape", 0), [],
                     "profiles[0].pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio.shape[0]: "
                     "Invalid value: []: must be an object", id="fit-shape-point-a-list"),
        pytest.param(("profiles", 0, "pluginConfig", 0, "args", "scoringStrategy", "resources", 1, "weight"),
                     math.inf, "args.scoringStrategy.resources[1].weight: Invalid value: inf: "
                     "must be an integer",
                     id="fit-resource-weight-inf"),
        pytest.param(("profiles", 0, "pluginConfig", 5, "args", "shape", 0, "score"), math.inf,
                     "profiles[0].pluginConfig[5].args.shape[0].score: Invalid value: inf: "
                     "must be an integer",
                     id="volumebinding-shape-score-inf"),
        pytest.param(("extenders", 0, "httpTimeout"), "", 'extenders[0].httpTimeout: Invalid value: ""',
                     id="empty-duration"),
    ],
)
def test_malformed_plugin_args_name_the_field(tmp_path: Path, path: tuple[Any, ...], value: Any,
                                              want: str) -> None:
    assert want in _errors(tmp_path, yaml.safe_dump(mutated(yaml.safe_load(RICH), path, value)).encode())


@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(document_paths(yaml.safe_load(RICH))),
       st.sampled_from([[], {}, "", "oops", -1, 2**40, 0.5, math.inf, math.nan, None, True, [1], {"a": 1},
                        DELETE]))
def test_mutated_config_never_crashes(path: tuple[Any, ...], value: Any) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        cfg = Path(tmp) / "scheduler.yaml"
        cfg.write_text(yaml.safe_dump(mutated(yaml.safe_load(RICH), path, value)))
        result = runner.invoke(app, ["validate", str(QUICKSTART), "--config", str(cfg)])
    assert result.exit_code in (0, 2), (result.output, result.exception)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError("validate crashed") from result.exception
    if result.exit_code == 2:
        lines = [line for line in result.stderr.split("\n") if line.strip()]
        assert len(lines) == 1 and lines[0].startswith(f"error: {cfg}: "), result.stderr
