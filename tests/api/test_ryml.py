"""rapidyaml's fast path reads exactly what PyYAML's loader reads, or gives up (differential tests),
and the loader keeps working without it."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from kubesched.api import _ryml, _yaml
from kubesched.api.loader import LoadError, load_documents, load_paths

needs_ryml = pytest.mark.skipif(not _ryml.ryml_available(), reason="rapidyaml is not installed")
FAST = _yaml._RYML


def pyyaml(text: str) -> list[Any] | Exception:
    try:
        return _yaml.pyyaml_load_all(text)
    except yaml.YAMLError as e:
        return e


def assert_same_or_gives_up(text: str) -> list[Any] | None:
    fast = FAST.load_all(text)
    expected = pyyaml(text)
    if fast is not None:
        assert not isinstance(expected, Exception), f"PyYAML refuses {text!r}, rapidyaml read {fast!r}"
        assert repr(fast) == repr(expected), text  # repr: 1 vs 1.0 vs True, nan, key order
    return fast


def _gen_dump() -> Any:
    path = Path(__file__).parents[2] / "benchmarks" / "gen_dump.py"
    spec = importlib.util.spec_from_file_location("gen_dump", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# --- the generated dump and real manifests take the fast path, with PyYAML's objects ---------------


@needs_ryml
def test_generated_dump_is_read_by_rapidyaml_exactly_as_pyyaml() -> None:
    dump = _gen_dump().dump(pods=60, nodes=5, unread_objects=12, seed=3)
    text = yaml.safe_dump(dump, sort_keys=False)
    assert FAST.load_all(text) == _yaml.pyyaml_load_all(text) == [dump]
    # and chunked, as load_yaml reads a kubectl List
    assert _yaml.load_yaml(text) == [dump]


@needs_ryml
def test_a_kubectl_list_is_read_without_pyyaml(monkeypatch: pytest.MonkeyPatch) -> None:
    dump = _gen_dump().dump(pods=30, nodes=3, unread_objects=5, seed=2)
    text = yaml.safe_dump(dump, sort_keys=False)

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("PyYAML was used")

    monkeypatch.setattr(_yaml.yaml, "load", refuse)
    monkeypatch.setattr(_yaml.yaml, "load_all", refuse)
    monkeypatch.setattr(_yaml, "ITEMS_PER_CHUNK", 7)
    assert _yaml.load_yaml(text) == [dump]


@needs_ryml
def test_kubectl_style_quoting_takes_the_fast_path() -> None:
    # kubectl double-quotes strings YAML would re-type: condition statuses, numeric versions
    text = (
        'apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  resourceVersion: "48213"\n'
        '  annotations:\n    a: "true"\n    b: "1.5"\n    c: "0x1F"\n    d: "~"\n    e: ""\n'
        "spec:\n  containers:\n  - name: c\n    ports:\n    - containerPort: 8080\n"
        'status:\n  conditions:\n  - status: "False"\n    type: Ready\n  - status: "True"\n'
        "    type: PodScheduled\n  hostIP: 10.0.0.1\n  startTime: 2026-03-02T08:01:02Z\n"
    )
    docs = assert_same_or_gives_up(text)
    assert docs is not None and docs[0]["status"]["conditions"][0]["status"] == "False"
    assert docs[0]["metadata"]["annotations"] == {"a": "true", "b": "1.5", "c": "0x1F", "d": "~", "e": ""}
    assert docs[0]["status"]["startTime"] == "2026-03-02T08:01:02Z"


# --- YAML 1.1 typing: each plain scalar as PyYAML types it, or the fast path gives up --------------

AWKWARD_SCALARS = [
    "yes", "No", "ON", "off", "y", "n", "true", "True", "FALSE", "~", "null", "Null", "NULL", "nULL", "",
    "0", "-0", "+1", "007", "08", "0x1F", "0o17", "0b101", "1_000", "1:30", "190:20:30", "-1:30",
    "1.5", "-1.5", "1.", ".5", "-.5", "+.5", "1.e3", "1.5e3", "1.5e+3", "1e3", "1E3", "1.5E-3",
    "6.8523015e+5", "685.230_15e+03", "190:20:30.15", ".inf", "-.Inf", "+.INF", ".nan", ".NaN", "NaN",
    "Infinity", "-Infinity", "nan", "inf", "12345678901234567890", "1.0", "0.5", "10.05", "=", "<<",
    "2026-03-02T08:01:02Z", "2001-12-14",
    "a b", "é", "😀", "a:b", "a#b", "-", "--", "x-", "*", "?x", "%x", "@x", "`x",
]


def _quoted(s: str, style: str) -> str:
    if style == "'":
        return "'" + s.replace("'", "''") + "'"
    return json.dumps(s, ensure_ascii=False)


scalar_texts = st.one_of(
    st.sampled_from(AWKWARD_SCALARS),
    st.builds(_quoted, st.sampled_from(AWKWARD_SCALARS), st.sampled_from(["'", '"'])),
    st.builds(_quoted, st.text(max_size=6), st.sampled_from(["'", '"'])),
)


@needs_ryml
@settings(max_examples=300, deadline=None, derandomize=True)
@given(key=scalar_texts, value=scalar_texts, flow=st.booleans(), in_seq=st.booleans())
def test_plain_and_quoted_scalars_are_typed_as_pyyaml_types_them(key: str, value: str, flow: bool,
                                                                    in_seq: bool) -> None:
    if flow:
        text = f"[{value}, {{{key}: {value}}}]\n" if in_seq else f"{{{key}: {value}, other: [{value}]}}\n"
    else:
        text = f"- {value}\n- {key}: {value}\n" if in_seq else f"{key}: {value}\nother:\n- {value}\n"
    assert_same_or_gives_up(text)


@needs_ryml
@pytest.mark.parametrize("value", ["true", "False", "8080", "1.5", "", "null", "~", "yes", "0x1F", "1e3"])
def test_quoted_scalars_stay_strings(value: str) -> None:
    for style in ("'", '"'):
        docs = assert_same_or_gives_up(f"a: {_quoted(value, style)}\n")
        assert docs is None or docs == [{"a": value}]


@needs_ryml
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a: 1\nb: true\nc:\nd: 1.5\ne: 1e3\nf: x\n",
         [{"a": 1, "b": True, "c": None, "d": 1.5, "e": "1e3", "f": "x"}]),
        ("- 8080\n- -3\n- 1.5e+3\n- 2026-03-02T08:01:02Z\n", [[8080, -3, 1500.0, "2026-03-02T08:01:02Z"]]),
        ("a: 1\n---\nb: 2\n", [{"a": 1}, {"b": 2}]),
    ],
)
def test_common_plain_scalars_take_the_fast_path(text: str, expected: list[Any]) -> None:
    assert FAST.load_all(text) == expected == _yaml.pyyaml_load_all(text)


# --- awkward YAML: each case is read exactly, or gives up ------------------------------------------

AWKWARD_DOCUMENTS = [
    "a: &x {b: 1}\nc: *x\n",  # anchors and aliases
    "base: &b {cpu: 1}\nderived:\n  <<: *b\n  mem: 2\n",  # merge keys
    "<<: {a: 1}\nb: 2\n",
    "a: !!str 123\nb: !!int '7'\nc: ! 12\n",  # tags
    "%YAML 1.1\n---\na: 1\n",  # directives
    "a: |\n  x\n   y\n\n  z\nb: >-\n  folded\n  text\n\n  para\nc: |+\n  keep\n\n",  # block scalars
    "a: |2\n   indented\nb: >\n  x\n\n  y\n   z\n",
    "a: {b: [1, 2, {c: d}], e: 'f'}\ng: [yes, no, ~]\n",  # flow style
    "- {a: 1, b: [x, y, ]}\n- [a, b]: c\n",
    "a: 'it''s'\nb: \"tab\\there\\u00e9\\x41\"\nc: \"line\\\n  continued\"\n",  # quoting
    "a: multi\n  line\n  plain\nb: 'multi\n  line'\n",
    "# comment\na: b # trailing\nc: d#not\n",  # comments
    "a: 1\n---\nb: 2\n...\n---\n- c\n",  # documents
    "---\n---\n",
    "",
    "# only a comment\n",
    "--- 5\n",
    "a:\n\tb: 1\n",  # tabs
    "a:\tb\n",
    "a: b\r\nc: d\r\n",  # CRLF
    "a: b\rc: d\n",
    "a: b\x85c: d\n",
    "\ufeffa: b\n",
    "a: \u2028b\n",
    "a: \x07\n",
    "a: 😀 é ü\n'ключ': 值\n",  # unicode
    "? complex\n: key\n",
    "? [a, b]\n: c\n",
    "a: 1\na: 2\n",  # duplicate keys: last wins
    "80: http\n443: https\ntrue: x\n~: y\n1.5: z\n",  # non-string keys
    "'80': http\n\"true\": x\n",
    '{"a":1, "b":"c"}\n',  # JSON
    '["a",1,true,null]\n',
    "a: [1, 2\n",  # invalid
    "a: b: c\n",
    "- a\nb: c\n",
    "a:\n  - b\n  c: d\n",
    "key: *undefined\n",
    "a: @b\n",
    "a: `b\n",
    "a: 'unterminated\n",
    "[a, b]]\n",
    "a: b\n c: d\n",
    "- - - a\n    - b\n  - c\n",
    "a:\n- b\n-   c\n",
    "a: -.5\nb: .5\nc: 1.\nd: 0.5\n",
    "a: 0x1F\nb: 0o17\nc: 017\nd: 1_000\ne: 1:30\nf: +1\n",
    "a: .inf\nb: -.Inf\nc: .NaN\nd: NaN\n",
]


@needs_ryml
@pytest.mark.parametrize("text", AWKWARD_DOCUMENTS)
def test_awkward_yaml_is_read_exactly_or_given_up(text: str) -> None:
    assert_same_or_gives_up(text)


@needs_ryml
@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(AWKWARD_DOCUMENTS), min_size=1, max_size=4), st.sampled_from(["---\n", ""]))
def test_streams_of_awkward_documents(parts: list[str], sep: str) -> None:
    assert_same_or_gives_up(sep.join(parts))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8)
    | st.sampled_from(AWKWARD_SCALARS),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=6) | st.sampled_from(AWKWARD_SCALARS), children, max_size=4),
    max_leaves=12,
)


@needs_ryml
@settings(max_examples=300, deadline=None, derandomize=True)
@given(value=json_values, flow=st.sampled_from([None, True, False]), style=st.sampled_from([None, '"', "'"]),
       width=st.sampled_from([80, 8]))
def test_dumped_values_read_back_as_pyyaml_reads_them(value: Any, flow: bool | None, style: str | None,
                                                       width: int) -> None:
    text = yaml.safe_dump(value, default_flow_style=flow, default_style=style, allow_unicode=True,
                          width=width)
    assert_same_or_gives_up(text)


YAML_PIECES = [*" \n:-[]{},#'\"?|>!&*%@`\tab01.~e", ": ", "- ", "\n  ", "\n- ", "yes", "True", "1.5",
               "x: y\n", "é", "'a\n  b'", "|\n  x\n", ">-\n  y\n"]


@needs_ryml
@settings(max_examples=1500, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(YAML_PIECES), min_size=1, max_size=25))
def test_random_yaml_text_is_read_exactly_or_given_up(pieces: list[str]) -> None:
    # mostly invalid YAML: rapidyaml must not read what PyYAML refuses
    assert_same_or_gives_up("".join(pieces) + "\n")


# --- giving up: PyYAML's answer, PyYAML's error message, nothing from rapidyaml on stderr -----------


@needs_ryml
def test_parse_errors_are_pyyamls_and_rapidyaml_prints_nothing(capfd: pytest.CaptureFixture[str],
                                                                tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: [p\n")
    with pytest.raises(LoadError) as err:
        load_paths([bad])
    assert "bad.yaml" in str(err.value)
    assert FAST.load_all(bad.read_text()) is None
    _, errors = capfd.readouterr()
    assert "ryml" not in errors and "ERROR" not in errors and "parse_engine" not in errors


@needs_ryml
def test_a_list_whose_chunk_gives_up_is_read_by_pyyaml(monkeypatch: pytest.MonkeyPatch) -> None:
    items = "".join(f"- apiVersion: v1\n  kind: ConfigMap\n  metadata: {{name: c{i}, namespace: ns}}\n"
                    f"  data: {{a: &x{i} yes, b: *x{i}}}\n" for i in range(5))
    text = "apiVersion: v1\nkind: List\nitems:\n" + items
    monkeypatch.setattr(_yaml, "ITEMS_PER_CHUNK", 2)
    assert _yaml.load_yaml(text) == _yaml.pyyaml_load_all(text)
    assert _yaml.load_yaml(text)[0]["items"][4]["data"] == {"a": True, "b": True}


# --- without rapidyaml ------------------------------------------------------------------------------


def test_loading_works_without_rapidyaml(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_ryml, "ryml", None)
    monkeypatch.setitem(sys.modules, "ryml", None)
    assert not _ryml.ryml_available()
    dump = _gen_dump().dump(pods=20, nodes=3, unread_objects=4, seed=1)
    text = yaml.safe_dump(dump, sort_keys=False)
    assert FAST.load_all(text) is None
    assert _yaml.load_yaml(text) == [dump]
    out = load_documents(text, "dump.yaml")
    assert len([o for o in out.objects if type(o).__name__ == "Pod"]) == 20
