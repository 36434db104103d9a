"""kubesched's own trace format: every operation read, bad lines named by FILE:LINE, the schema."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from kubesched.controllers import RUN_SECONDS_ANNOTATION
from kubesched.replay import ObjectRef, TraceError, read_trace

from ._traces import create, node, pod, ref, write_jsonl

SCHEMA = json.loads((Path(__file__).parents[2] / "schemas" / "trace.schema.json").read_text())

GOOD: list[dict[str, Any]] = [
    create(0, node("n1")),
    create(1, pod("a"), runSeconds=60),
    {"time": 2, "op": "update", "object": node("n1", cpu="8")},
    {"time": 3, "op": "scale", "kind": "Deployment", "name": "web", "replicas": 3},
    ref(4, "cordon", "n1"),
    ref(5, "uncordon", "n1"),
    ref(6, "drain", "n1"),
    {"time": 7, "op": "delete", "kind": "Pod", "name": "a"},
]


def test_every_operation_jsonl(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "t.jsonl", GOOD)
    events = list(read_trace([path]).events)
    assert [e.op for e in events] == [
        "create",
        "create",
        "update",
        "scale",
        "cordon",
        "uncordon",
        "drain",
        "delete",
    ]
    assert events[0].obj is not None and events[0].obj["kind"] == "Node"
    assert events[3].ref == ObjectRef("Deployment", "web", "default") and events[3].replicas == 3
    assert events[4].ref == ObjectRef("Node", "n1", "")
    assert events[7].ref == ObjectRef("Pod", "a", "default")
    assert [e.source for e in events][:2] == [f"{path}:1", f"{path}:2"]


def test_run_seconds_becomes_the_kubelet_annotation(tmp_path: Path) -> None:
    ev = list(read_trace([write_jsonl(tmp_path / "t.jsonl", GOOD)]).events)[1]
    assert ev.obj is not None
    assert ev.obj["metadata"]["annotations"][RUN_SECONDS_ANNOTATION] == "60"
    assert ev.obj["spec"]["restartPolicy"] == "Never"


def test_yaml_trace_with_line_numbers(tmp_path: Path) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(yaml.safe_dump({"apiVersion": "kubesched.io/v1alpha1", "kind": "Trace", "events": GOOD}))
    events = list(read_trace([path]).events)
    assert [e.op for e in events] == [e["op"] for e in GOOD]
    lines = [int(e.source.rsplit(":", 1)[1]) for e in events]
    assert lines == sorted(lines) and lines[0] > 1
    text = path.read_text().splitlines()
    assert "time: 3" in text[lines[3] - 1] or "kind: Deployment" in text[lines[3] - 1]


def test_files_merge_by_time(tmp_path: Path) -> None:
    a = write_jsonl(tmp_path / "a.jsonl", [ref(0, "cordon", "x"), ref(10, "cordon", "y")])
    b = write_jsonl(tmp_path / "b.jsonl", [ref(5, "cordon", "z")])
    assert [e.ref.name for e in read_trace([a, b]).events if e.ref] == ["x", "z", "y"]


BAD = [
    pytest.param('{"time": 0, "op": "create"', "not JSON", id="not-json"),
    pytest.param(
        '{"time": -1, "op": "cordon", "name": "n"}', "time: must be a non-negative", id="negative-time"
    ),
    pytest.param('{"time": "x", "op": "cordon", "name": "n"}', "time:", id="string-time"),
    pytest.param('{"time": 1, "op": "explode", "name": "n"}', "op: must be one of", id="unknown-op"),
    pytest.param(
        '{"time": 1, "op": "create"}', "object: create needs the manifest", id="create-without-object"
    ),
    pytest.param('{"time": 1, "op": "cordon"}', "name: required", id="cordon-without-name"),
    pytest.param(
        '{"time": 1, "op": "drain", "kind": "Pod", "name": "a"}', "drain acts on a Node", id="drain-a-pod"
    ),
    pytest.param(
        '{"time": 1, "op": "scale", "kind": "Deployment", "name": "w"}',
        "replicas: must be",
        id="scale-without-replicas",
    ),
    pytest.param(
        '{"time": 1, "op": "scale", "kind": "Pod", "name": "w", "replicas": 1}',
        "scale acts on",
        id="scale-a-pod",
    ),
    pytest.param(
        '{"time": 1, "op": "delete", "kind": "Gadget", "name": "w"}', "kind: required", id="unknown-kind"
    ),
    pytest.param(
        '{"time": 1, "op": "cordon", "name": "n", "colour": "red"}',
        "unknown field(s) colour",
        id="unknown-field",
    ),
    pytest.param(
        '{"time": 1, "op": "create", "object": {"kind": "Node"}, "runSeconds": 5}',
        "runSeconds: only for a Pod",
        id="run-seconds-on-a-node",
    ),
    pytest.param(
        '{"time": 1, "op": "cordon", "name": "n", "runSeconds": 5}',
        "only for create",
        id="run-seconds-on-cordon",
    ),
]


@pytest.mark.parametrize(("line", "message"), BAD)
def test_bad_line_named_by_file_and_line(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text('{"time": 0, "op": "cordon", "name": "ok"}\n\n' + line + "\n")
    with pytest.raises(TraceError) as err:
        list(read_trace([path]).events)
    assert str(err.value).startswith(f"{path}:3: ")
    assert message in str(err.value)


@pytest.mark.parametrize(("line", "message"), BAD)
def test_schema_rejects_what_the_reader_rejects(line: str, message: str) -> None:
    try:
        doc = json.loads(line)
    except json.JSONDecodeError:
        return  # not JSON at all: no schema applies
    assert not jsonschema.Draft202012Validator(SCHEMA).is_valid(doc), line


def test_schema_accepts_every_good_event() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    v = jsonschema.Draft202012Validator(SCHEMA)
    for ev in GOOD:
        v.validate(ev)


def test_events_out_of_time_order(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "t.jsonl", [ref(5, "cordon", "a"), ref(4, "cordon", "b")])
    with pytest.raises(TraceError, match=rf"{path}:2: time 4 is before the previous event's \(5\)"):
        list(read_trace([path]).events)


def test_yaml_wrong_kind(tmp_path: Path) -> None:
    path = tmp_path / "t.yaml"
    path.write_text("apiVersion: v1\nkind: Pod\n")
    with pytest.raises(TraceError, match="kind: Trace"):
        list(read_trace([path]).events)


def test_yaml_bad_event_line(tmp_path: Path) -> None:
    path = tmp_path / "t.yaml"
    path.write_text("- {time: 0, op: cordon, name: a}\n- {time: 1, op: cordon}\n")
    with pytest.raises(TraceError, match=rf"^{path}:2: name: required"):
        list(read_trace([path]).events)


def test_schema_names_the_kinds_the_loader_reads() -> None:
    from kubesched.api.loader import KINDS

    assert SCHEMA["$defs"]["event"]["properties"]["kind"]["enum"] == list(KINDS)


def test_schema_describes_the_yaml_document(tmp_path: Path) -> None:
    doc = {"apiVersion": "kubesched.io/v1alpha1", "kind": "Trace", "events": GOOD}
    yaml_schema = {**SCHEMA, "$ref": "#/$defs/yamlTrace"}
    v = jsonschema.Draft202012Validator(yaml_schema)
    v.validate(doc)
    v.validate(GOOD)
    assert not v.is_valid({**doc, "kind": "Pod"})
    path = tmp_path / "t.yaml"
    path.write_text(yaml.safe_dump(doc))
    assert len(list(read_trace([path]).events)) == len(GOOD)


def test_scale_a_job(tmp_path: Path) -> None:
    # a Job's scale is its parallelism: the reader and the schema take it
    line = {"time": 1, "op": "scale", "kind": "Job", "name": "batch", "replicas": 2}
    [ev] = list(read_trace([write_jsonl(tmp_path / "t.jsonl", [line])]).events)
    assert ev.ref == ObjectRef("Job", "batch", "default") and ev.replicas == 2
    jsonschema.Draft202012Validator(SCHEMA).validate(line)
