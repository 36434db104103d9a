"""Go text/template as upstream's scheduler_perf renders its templates (create.go
getSpecFromTextTemplateFile): each construct the DRA templates use, rendered as Go renders it,
and a bad template failing with one error that names the file and the line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from kubesched.cli import app
from kubesched.perf import GoTemplate, TemplateError


def render(text: str, **data: Any) -> str:
    return GoTemplate(text).execute(data)


@pytest.mark.parametrize(("text", "data", "want"), [
    # text and fields; a missing key prints as Go prints an invalid value
    ("a {{.x}} b", {"x": 1}, "a 1 b"),
    ("{{.m.k}}", {"m": {"k": "v"}}, "v"),
    ("{{.missing}}", {}, "<no value>"),
    # trim markers and comments
    ("a  {{- .x -}}  b", {"x": 1}, "a1b"),
    ("a{{/* note */}}b{{- /* trimmed */ -}} c", {}, "abc"),
    # values print as fmt's %v
    ("{{.f}} {{.g}} {{.h}} {{.t}} {{.l}} {{.d}}",
     {"f": 64.0, "g": 0.5, "h": 1e21, "t": True, "l": ["a", 1], "d": {"b": 1, "a": 2}},
     "64 0.5 1e+21 true [a 1] map[a:2 b:1]"),
    # variables: declare, assign, scope of a range body
    ("{{$a := 1}}{{$a = 2}}{{$a}}", {}, "2"),
    # if / else if / else, with
    ("{{if .x}}y{{else if .z}}z{{else}}n{{end}}", {"x": 0, "z": "s"}, "z"),
    ("{{if .x}}y{{else}}n{{end}}", {"x": []}, "n"),
    ("{{with .m}}{{.k}}{{else}}none{{end}}", {"m": {"k": 3}}, "3"),
    # range over an int (Go 1.22), a list (index, element), a map (sorted keys), else, break/continue
    ("{{range 3}}{{.}}{{end}}", {}, "012"),
    ("{{range $i := (.n | Int)}}[{{$i}}]{{end}}", {"n": "2"}, "[0][1]"),
    ("{{range $i, $e := .l}}{{$i}}={{$e}} {{end}}", {"l": ["a", "b"]}, "0=a 1=b "),
    ("{{range $k, $v := .d}}{{$k}}{{$v}}{{end}}", {"d": {"b": 2, "a": 1}}, "a1b2"),
    ("{{range .l}}x{{else}}empty{{end}}", {"l": []}, "empty"),
    ("{{range 5}}{{if eq . 1}}{{continue}}{{end}}{{if eq . 3}}{{break}}{{end}}{{.}}{{end}}", {}, "02"),
    # pipelines and parentheses; and / or return an argument, as Go's do
    ("{{.n | printf \"%03d\"}}", {"n": 7}, "007"),
    ("{{or .missing 64}} {{or .x 64}} {{and 1 0 2}}", {"x": 5}, "64 5 0"),
    ("{{(or .missing nil) | JSON}}", {}, "null"),
    # comparisons, not, len, index
    ("{{ge 3 2}} {{lt 1 2}} {{eq \"a\" \"b\" \"a\"}} {{ne 1 1}} {{not 0}}", {}, "true true true false true"),
    ("{{len .l}} {{index .l 1}} {{index .d \"k\"}}", {"l": [1, 2], "d": {"k": "v"}}, "2 2 v"),
    # upstream's FuncMap
    ("{{AddInt 1 2 3}} {{SubtractInt 5 2}} {{MultiplyInt 2 3}} {{DivideInt 7 2}} {{Mod 7 3}}", {},
     "6 3 6 3 1"),
    ("{{AddFloat 1 0.5}} {{DivideFloat 1 4}} {{Int \"42\"}} {{Int 2.9}}", {}, "1.5 0.25 42 2"),
    ("{{JSON .c}}", {"c": [{"matchAttribute": "d/x", "n": 1.0, "s": "<&>"}]},
     '[{"matchAttribute":"d/x","n":1,"s":"\\u003c\\u0026\\u003e"}]'),
])
def test_each_construct_renders_as_go_does(text: str, data: dict[str, Any], want: str) -> None:
    assert render(text, **data) == want


@pytest.mark.parametrize(("text", "message"), [
    ("{{if .x}}never closed", "line 1: unexpected EOF (missing {{end}})"),
    ("a\n{{end}}", "line 2: unexpected {{end}}"),
    ("{{nope 1}}", 'line 1: function "nope" not defined'),
    ("{{$y}}", 'line 1: undefined variable "$y"'),
    ("{{.x | Int}}", "line 1: error calling Int: Int: cannot convert abc to int"),
    ("{{DivideInt 1 0}}", "line 1: error calling DivideInt: division by zero"),
    ("{{range $i, $e := 3}}{{end}}", "line 1: can't use 3 to iterate over more than one variable"),
    ("{{ .x", "line 1: unclosed action"),
])
def test_a_bad_template_is_one_error_naming_the_line(text: str, message: str) -> None:
    with pytest.raises(TemplateError) as err:
        render(text, x="abc")
    assert str(err.value) == message


def _config(tmp_path: Path, template: str) -> Path:
    (tmp_path / "slice.yaml").write_text(template)
    cfg = tmp_path / "config.yaml"
    cfg.write_text("""
- name: Loops
  featureGates: {DynamicResourceAllocation: true}
  workloadTemplate:
  - opcode: createNodes
    nodeTemplatePath: templates/node-with-dra-test-driver.yaml
    countParam: $nodes
  - opcode: createAny
    templatePath: slice.yaml
    countParam: $nodes
    templateParams: {numDevices: $devices|3}
  - opcode: createAny
    templatePath: templates/deviceclass.yaml
  - opcode: createAny
    templatePath: templates/resourceclaimtemplate.yaml
    namespace: test
    templateParams: {numRequests: $requests}
  - opcode: createPods
    namespace: test
    countParam: $pods
    podTemplatePath: templates/pod-with-claim-template.yaml
    collectMetrics: true
  workloads:
  - name: two
    params: {nodes: 2, requests: 2, pods: 4}
""")
    return cfg


_SLICE = """{{$n := or .numDevices 1}}
kind: ResourceSlice
apiVersion: resource.k8s.io/v1
metadata:
  name: slice-{{.Index}}
spec:
  pool: {name: pool-{{.Index}}, generation: 1, resourceSliceCount: 1}
  driver: test-driver.cdi.k8s.io
  nodeName: scheduler-perf-dra-{{.Index}}
  devices:{{range $i := ($n | Int)}}
  - name: device-{{$i}}{{end}}
"""


def test_bench_renders_templates_that_loop_over_template_params(tmp_path: Path) -> None:
    # 2 nodes x 3 devices (the "$devices|3" default), claims of two requests: 2 pods per node fit
    # only if every loop rendered (one device per node would fit none, three per node one each).
    out = CliRunner().invoke(app, ["bench", str(_config(tmp_path, _SLICE)), "-o", "json"])
    assert out.exit_code == 0, out.output
    result = json.loads(out.stdout[out.stdout.index("{"):])["results"][0]
    assert result["measuredPods"] == 4 and result["scheduled"] == 2


def test_bench_reports_a_bad_template_once_with_exit_2(tmp_path: Path) -> None:
    bad = _SLICE.replace("{{end}}", "")
    out = CliRunner().invoke(app, ["bench", str(_config(tmp_path, bad))])
    assert out.exit_code == 2
    text = " ".join(out.output.split())
    assert "slice.yaml: template: line 11: unexpected EOF (missing {{end}})" in text
    assert text.count("error:") == 1 and "Traceback" not in text
