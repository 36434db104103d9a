"""The YAML ``snapshot`` and ``simulate -o yaml`` write (and ``kubesched ui`` exports) is
PyYAML's ``safe_dump_all`` text of the same documents unshared, byte for byte, though written
by libyaml's emitter with a leaner representer: on every bundled example and fixture, and on
values whose quoting, folding or tags are delicate. Unshared: a dict or list met twice (the
loader holds equal branches of the manifests once) is written in full each time, never as an
anchor and its alias, so that the text is the one the manifests gave before they were shared;
only a branch inside itself is an alias (there is no other way to write it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from kubesched.api.loader import KINDS, LoadError, kind_of, load_documents, load_paths, manifest_files
from kubesched.cli import app
from kubesched.simulator import dump_yaml, snapshot_pieces, snapshot_text

REPO = Path(__file__).resolve().parents[2]
_INPUTS = sorted(p for pattern in ("examples/*", "examples/**/*.yaml", "tests/**/fixtures/**/*.yaml",
                                    "tests/**/fixtures/**/*.json") for p in REPO.glob(pattern))


def _unshared(value: Any) -> Any:
    """``value`` with every dict and list a new one: nothing met twice."""
    if type(value) is dict:
        return {k: _unshared(v) for k, v in value.items()}
    if type(value) in (list, tuple):
        return type(value)(_unshared(v) for v in value)
    return value


def _reference(docs: list[Any]) -> str:
    return yaml.safe_dump_all(_unshared(docs), sort_keys=False, default_flow_style=False, explicit_start=True)


def _manifests(path: Path) -> list[dict[str, Any]]:
    try:
        loaded = load_paths(manifest_files([path]))
    except LoadError:
        return []  # a configuration, a trace: no manifests to write
    order = {k: i for i, k in enumerate(KINDS)}
    return [o.to_dict() for o in sorted(loaded.objects, key=lambda o: order[kind_of(o)])]


def test_every_example_and_fixture_is_written_as_safe_dump_writes_it() -> None:
    written = 0
    for path in _INPUTS:
        docs = _manifests(path)
        assert dump_yaml(docs) == _reference(docs), path
        written += bool(docs)
    assert written > 30


@pytest.mark.parametrize("value", [
    "", " lead", "trail ", "yes", "no", "on", "null", "~", "true", "1", "0x1f", "1e3", "1.5", ".inf",
    "2026-03-02T08:00:00Z", "a: b", "- x", "#c", "{x}", "[x]", "'q'", '"q"', "multi\nline\n", "tab\tx",
    "é ünïcode ✓", "\x85next", "x" * 200, " ".join(["word"] * 60), "*alias", "&anchor", "!tag", "%pct",
    "@at", "`tick`", "|", ">", "?", ":", "-",
])
def test_delicate_strings_are_quoted_as_safe_dump_quotes_them(value: str) -> None:
    docs = [{"metadata": {"name": value, value or "k": [value, {"v": value}]}, "list": [value]}]
    assert dump_yaml(docs) == _reference(docs)


def test_other_values_and_shared_objects_are_written_as_safe_dump_writes_them_unshared() -> None:
    shared = {"a": [1, 2]}
    docs: list[Any] = [
        {"i": 0, "n": -7, "big": 10**30, "t": True, "f": False, "none": None, "x": 1.5, "inf": float("inf"),
         "empty": {}, "none_list": [], "nested": [[], [{}], [[1]]], 3: "int key", None: "null key"},
        {"one": shared, "two": shared, "three": [shared, shared["a"], (shared, shared)]},
    ]
    text = dump_yaml(docs)
    assert text == _reference(docs)
    assert "&" not in text and "*" not in text  # no anchor, no alias: written in full each time
    others: list[Any] = [[1, "two", None, shared, shared], "a scalar document"]  # not manifests
    assert dump_yaml(others) == _reference(others)


def test_a_branch_inside_itself_is_the_one_alias() -> None:
    cycle: dict[str, Any] = {"a": 1}
    cycle["self"] = [cycle]
    shared = [1]
    docs: list[Any] = [{"cycle": cycle, "one": shared, "two": shared}]
    text = dump_yaml(docs)
    assert text == ("---\ncycle: &id001\n  a: 1\n  self:\n  - *id001\none:\n- 1\ntwo:\n- 1\n")
    back = yaml.safe_load(text)
    assert back["cycle"]["self"][0] is back["cycle"]


def test_anchors_of_the_input_are_written_out(tmp_path: Path) -> None:
    """A manifest's own anchors (or branches the loader shares) come out as kubectl writes
    them: in full at each place."""
    path = tmp_path / "pods.yaml"
    path.write_text("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: ns\n"
                    "  labels: &l {app: web}\n  annotations: *l\nspec:\n  containers: [{name: c}]\n")
    out = tmp_path / "snap.yaml"
    result = CliRunner().invoke(app, ["snapshot", str(path), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_text() == ("---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: ns\n"
                               "  labels:\n    app: web\n  annotations:\n    app: web\nspec:\n"
                               "  containers:\n  - name: c\n")


def test_a_snapshot_is_written_in_pieces_of_whole_documents() -> None:
    pods = [{"apiVersion": "v1", "kind": "Pod",
             "metadata": {"name": f"p{i}", "namespace": "ns", "labels": {"app": "web" * 100}},
             "spec": {"containers": [{"name": "c", "image": "app:1"}]}} for i in range(400)]
    text = "\n".join(f"---\n{yaml.safe_dump(p)}" for p in pods)
    loaded = load_documents(text, "pods.yaml")
    pieces = list(snapshot_pieces(loaded))
    assert len(pieces) > 1 and all(p.startswith("---\napiVersion") for p in pieces)
    assert "".join(pieces) == snapshot_text(loaded) == _reference([o.to_dict() for o in loaded.objects])


def test_snapshot_of_an_example_is_its_manifests_as_safe_dump_writes_them(tmp_path: Path) -> None:
    dra = REPO / "examples" / "dra"
    out = tmp_path / "snap.yaml"
    result = CliRunner().invoke(app, ["snapshot", str(dra), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_text() == _reference(_manifests(dra))
