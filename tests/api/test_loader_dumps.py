"""Loading whole-cluster dumps: kinds the scheduler does not read, empty inputs, document
numbers, libyaml, and progress on large inputs (the public loader API)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from kubesched.api import _yaml
from kubesched.api.loader import KINDS, LoadError, load_documents, load_paths

POD = "apiVersion: v1\nkind: Pod\nmetadata: {name: p1, namespace: ns}\nspec: {containers: [{name: c}]}\n"
CONFIGMAP = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm, namespace: ns}\ndata: {a: b}\n"
EVENT = "apiVersion: events.k8s.io/v1\nkind: Event\nmetadata: {name: e1, namespace: ns}\nreason: Pulled\n"
REVISION = "apiVersion: apps/v1\nkind: ControllerRevision\nmetadata: {name: d, namespace: ns}\nrevision: 1\n"
LIST = """apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Endpoints, metadata: {name: ep1, namespace: ns}}
- {apiVersion: v1, kind: Endpoints, metadata: {name: ep2, namespace: ns}}
- {apiVersion: v1, kind: Node, metadata: {name: n1}}
- {apiVersion: batch/v1, kind: CronJob, metadata: {name: nightly, namespace: ns}}
"""
TYPED_LIST = """apiVersion: v1
kind: ConfigMapList
items:
- {metadata: {name: a, namespace: ns}, data: {x: y}}
- {metadata: {name: b, namespace: ns}}
"""
DUMP = "---\n".join([POD, CONFIGMAP, EVENT, REVISION, LIST, TYPED_LIST])


def test_unread_kinds_are_skipped_and_counted() -> None:
    out = load_documents(DUMP, "dump.yaml")
    assert [o.meta.name for o in out.objects] == ["p1", "n1"]
    assert out.skipped == {"ConfigMap": 3, "Event": 1, "ControllerRevision": 1, "Endpoints": 2, "CronJob": 1}
    assert out.warnings() == ["skipped 8 objects of kinds kubesched does not read: "
                              "ConfigMap 3, Endpoints 2, ControllerRevision 1, CronJob 1, Event 1"]


def test_skip_counts_add_up_across_files(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(CONFIGMAP + "---\n" + POD)
    (tmp_path / "b.json").write_text(json.dumps(yaml.safe_load(CONFIGMAP.replace("name: cm", "name: cm2"))))
    out = load_paths([tmp_path])
    assert out.skipped == {"ConfigMap": 2} and len(out.pods) == 1
    assert out.warnings() == ["skipped 2 objects of kinds kubesched does not read: ConfigMap 2"]


def test_nothing_skipped_no_warning() -> None:
    assert load_documents(POD, "p.yaml").warnings() == []


@pytest.mark.parametrize(
    ("text", "error"),
    [
        pytest.param(CONFIGMAP, r"s\.yaml: document 1 \(ConfigMap ns/cm\): kind 'ConfigMap' is not read",
                     id="document"),
        pytest.param(POD + "---\n" + LIST,
                     r"s\.yaml: document 2, item 1 \(Endpoints ns/ep1\): kind 'Endpoints'", id="list-item"),
        pytest.param(TYPED_LIST, r"s\.yaml: document 1, item 1 \(ConfigMap ns/a\): kind 'ConfigMap'",
                     id="typed-list-item"),
    ],
)
def test_strict_refuses_unread_kinds(text: str, error: str) -> None:
    with pytest.raises(LoadError, match=error):
        load_documents(text, "s.yaml", strict=True)


def test_strict_accepts_read_kinds() -> None:
    assert len(load_documents(POD, "p.yaml", strict=True).pods) == 1


def test_read_kind_with_unsupported_api_version_stays_an_error() -> None:
    text = "apiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata: {name: b}\n"
    with pytest.raises(LoadError, match=r"document 1 \(PodDisruptionBudget b\): apiVersion 'policy/v1beta1'"):
        load_documents(text, "x.yaml")


def test_skipping_follows_kinds() -> None:
    """What is skipped is whatever KINDS does not hold: every read kind loads."""
    for kind, info in KINDS.items():
        text = f"apiVersion: {info.api_version}\nkind: {kind}\nmetadata: {{name: x}}\n"
        try:
            out = load_documents(text, "k.yaml", strict=True)
        except LoadError as exc:  # a kind may need more fields; it is still not skipped
            assert "is not read" not in str(exc)
        else:
            assert out.skipped == {}


@pytest.mark.parametrize(
    ("name", "text"),
    [
        pytest.param("empty.yaml", "", id="empty"),
        pytest.param("blank.yaml", "\n  \n", id="blank"),
        pytest.param("comments.yaml", "# nothing here\n# at all\n", id="comments"),
        pytest.param("separators.yaml", "---\n# c\n---\n...\n", id="separators"),
        pytest.param("empty.json", "", id="empty-json"),
        pytest.param("null.json", "null", id="null-json"),
    ],
)
def test_empty_file_is_an_error(tmp_path: Path, name: str, text: str) -> None:
    (tmp_path / name).write_text(text)
    with pytest.raises(LoadError, match=rf"{name}: no manifest in it"):
        load_paths([tmp_path / name])


def test_empty_file_in_a_directory_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(POD)
    (tmp_path / "b.yaml").write_text("# placeholder\n")
    with pytest.raises(LoadError, match=r"b\.yaml: no manifest in it"):
        load_paths([tmp_path])


def test_empty_stdin_is_an_error() -> None:
    with pytest.raises(LoadError, match=r"<stdin>: no manifest in it"):
        load_paths(["-"], stdin="")


def test_directory_without_manifests_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("not a manifest")
    (tmp_path / "sub").mkdir()
    with pytest.raises(LoadError, match=rf"{tmp_path}: no manifest in this directory"):
        load_paths([tmp_path])


def test_a_list_with_no_items_is_not_empty_input() -> None:
    """``kubectl get pods -o yaml`` in an empty namespace: a valid dump of nothing."""
    out = load_documents("apiVersion: v1\nkind: List\nitems: []\n", "l.yaml")
    assert out.objects == [] and out.skipped == {}


def test_documents_and_items_are_counted_from_one() -> None:
    text = POD + "---\n" + LIST.replace("name: n1", "name: n1, namespace: x")
    out = load_documents(text, "d.yaml")
    assert out.origin_of(out.pods[0]) == "d.yaml: document 1"
    assert out.origin_of(out.nodes[0]) == "d.yaml: document 2, item 3"
    # An empty document (a leading "---") still counts, as in every YAML tool.
    out = load_documents("---\n---\n" + POD, "d.yaml")
    assert out.origin_of(out.pods[0]) == "d.yaml: document 2"


@pytest.mark.skipif(not yaml.__with_libyaml__, reason="PyYAML built without libyaml")
def test_libyaml_is_used_when_present() -> None:
    assert issubclass(_yaml.YamlLoader, yaml.CSafeLoader)


@pytest.mark.parametrize("yaml_loader", ["YamlLoader", "PyYamlLoader"])
def test_both_yaml_loaders_keep_timestamps_as_strings(monkeypatch: pytest.MonkeyPatch,
                                                       yaml_loader: str) -> None:
    monkeypatch.setattr(_yaml, "YamlLoader", getattr(_yaml, yaml_loader))
    text = ("apiVersion: v1\nkind: Node\nmetadata: {name: n, creationTimestamp: 2026-01-01T00:00:00Z}\n"
            "status: {conditions: [{type: Ready, lastTransitionTime: 2026-01-02 03:04:05}]}\n")
    node = load_documents(text, "n.yaml").nodes[0]
    assert node.raw["metadata"]["creationTimestamp"] == "2026-01-01T00:00:00Z"
    assert node.raw["status"]["conditions"][0]["lastTransitionTime"] == "2026-01-02 03:04:05"
    assert node.meta.creation_timestamp == 1767225600.0


def test_both_yaml_loaders_read_the_same() -> None:
    root = Path(__file__).parent.parent.parent
    examples = sorted((root / "examples").rglob("*.yaml"))
    for path in [root / "tests" / "fixtures" / "kubectl-dump.yaml", *examples]:
        text = path.read_text()
        assert list(yaml.load_all(text, Loader=_yaml.YamlLoader)) == \
            list(yaml.load_all(text, Loader=_yaml.PyYamlLoader)), path


def test_progress_reports_parsing_and_objects() -> None:
    items = [{"apiVersion": "v1", "kind": "ConfigMap" if i % 2 else "Namespace",
              "metadata": {"name": f"o{i}"}} for i in range(1200)]
    calls: list[tuple[str, int, int]] = []
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": items})
    load_documents(text, "big.json", json_only=True,
                   progress=lambda what, done, total: calls.append((what, done, total)))
    assert calls[0] == ("parsing big.json", 0, 0)
    assert calls[-1] == ("reading big.json", 1200, 1200)
    assert [c[1] for c in calls[1:-1]] == [512, 1024]


class _Reference(yaml.SafeLoader):
    """PyYAML's own SafeLoader (minus timestamps): what the fast construction must equal."""


_yaml.without_timestamps(_Reference)

TRICKY_YAML = """
ints: [0, 7, -3, +4, 017, 0o17, 0x1F, 1_000, '12', "13", 1:30, 0b101]
floats: [1.5, -0.5, 1e3, .inf, -.Inf, .nan, 6.8523015e+5]
bools: [yes, No, ON, off, true, False, 'yes']
nulls: [~, null, Null, '', 'null']
strings: [plain, 'single', "double\\n", "=", 2026-01-01, 2026-01-01T00:00:00Z, 100m, 1Gi, 0.5Gi]
base: &base {cpu: 100m, memory: 1Gi}
merged: {<<: *base, memory: 2Gi}
aliased: [*base, *base]
multi: |
  line one
  line two
folded: >
  folded
  text
nested: {a: {b: {c: [1, {d: e}]}}}
empty_map: {}
empty_seq: []
? complex key
: value
binary: !!binary aGVsbG8=
explicit: !!str 123
set: !!set {a, b}
"""


@pytest.mark.parametrize("yaml_loader", ["YamlLoader", "PyYamlLoader"])
def test_fast_construction_equals_pyyaml(yaml_loader: str) -> None:
    fast = yaml.load(TRICKY_YAML, Loader=getattr(_yaml, yaml_loader))
    ref = yaml.load(TRICKY_YAML, Loader=_Reference)
    assert str(fast) == str(ref)  # nan != nan: compare the printed forms
    assert fast["ints"] == [0, 7, -3, 4, 15, "0o17", 31, 1000, "12", "13", 90, 5]
    assert fast["aliased"][0] is fast["aliased"][1] is fast["base"]
    assert fast["merged"] == {"cpu": "100m", "memory": "2Gi"}


@pytest.mark.parametrize("yaml_loader", ["YamlLoader", "PyYamlLoader"])
def test_fast_construction_keeps_pyyaml_errors(yaml_loader: str) -> None:
    with pytest.raises(yaml.constructor.ConstructorError, match="unhashable key"):
        yaml.load("? [a, b]\n: c\n", Loader=getattr(_yaml, yaml_loader))


def _kubectl_list(n: int) -> str:
    items = [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"c{i}", "namespace": "ns"},
              "data": {"k": f"v{i}", "multi": "a\nb\n"}} for i in range(n)]
    dump = {"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}}
    return yaml.safe_dump(dump, default_flow_style=False)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(_kubectl_list(7), id="kubectl-list"),
        pytest.param((Path(__file__).parent.parent / "fixtures" / "kubectl-dump.yaml").read_text(),
                     id="fixture"),
        pytest.param("items:\n- &a {x: 1}\n- *a\nkind: List\n", id="alias-across-items"),
        pytest.param('items:\n- data: "foo\n- bar"\n- kind: X\nkind: List\n', id="quoted-line-like-an-item"),
        pytest.param("# c\napiVersion: v1\nitems:\n- 1\n# between\n- 2\nkind: List\nmetadata:\n  x: y\n",
                     id="comments"),
        pytest.param("---\nitems:\n- 1\n---\nitems:\n- 2\n", id="several-documents"),
    ],
)
def test_lists_parsed_in_chunks_equal_the_whole(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    whole = list(yaml.load_all(text, Loader=_Reference))
    monkeypatch.setattr(_yaml, "ITEMS_PER_CHUNK", 1)
    assert _yaml.load_yaml(text) == whole
    monkeypatch.setattr(_yaml, "ITEMS_PER_CHUNK", 3)
    assert _yaml.load_yaml(text) == whole


def test_a_kubectl_list_takes_the_chunked_path(monkeypatch: pytest.MonkeyPatch) -> None:
    text = _kubectl_list(5)
    whole = list(yaml.load_all(text, Loader=_Reference))

    def no_whole_parse(*args: object, **kwargs: object) -> None:
        raise AssertionError("parsed whole")

    monkeypatch.setattr(_yaml, "ITEMS_PER_CHUNK", 2)
    monkeypatch.setattr(_yaml.yaml, "load_all", no_whole_parse)
    assert _yaml.load_yaml(text) == whole


def test_progress_of_a_kubectl_list_in_yaml_counts_characters(monkeypatch: pytest.MonkeyPatch) -> None:
    text = _kubectl_list(5)
    monkeypatch.setattr(_yaml, "ITEMS_PER_CHUNK", 2)
    calls: list[tuple[str, int, int]] = []
    load_documents(text, "l.yaml", progress=lambda what, done, total: calls.append((what, done, total)))
    parsing = [c for c in calls if c[0] == "parsing l.yaml"]
    assert parsing[0] == ("parsing l.yaml", 0, 0)
    assert [c[2] for c in parsing[1:]] == [len(text)] * 3  # three chunks: 2 + 2 + 1 items
    assert [c[1] for c in parsing[1:]] == sorted(c[1] for c in parsing[1:])
    assert calls[-1] == ("reading l.yaml", 5, 5)
