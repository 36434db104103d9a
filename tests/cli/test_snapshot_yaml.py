"""The YAML ``snapshot`` and ``simulate -o yaml`` write (and ``kubesched ui`` exports) is
PyYAML's ``safe_dump_all`` text byte for byte, though written by libyaml's emitter with a
leaner representer: on every bundled example and fixture, and on values whose quoting,
folding or tags are delicate."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from kubesched.api.loader import KINDS, LoadError, kind_of, load_paths, manifest_files
from kubesched.cli import app
from kubesched.simulator import dump_yaml

REPO = Path(__file__).resolve().parents[2]
_INPUTS = sorted(p for pattern in ("examples/*", "examples/**/*.yaml", "tests/**/fixtures/**/*.yaml",
                                    "tests/**/fixtures/**/*.json") for p in REPO.glob(pattern))


def _reference(docs: list[Any]) -> str:
    return yaml.safe_dump_all(docs, sort_keys=False, default_flow_style=False, explicit_start=True)


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


def test_other_values_and_shared_objects_are_written_as_safe_dump_writes_them() -> None:
    shared = {"a": [1, 2]}
    docs: list[Any] = [
        {"i": 0, "n": -7, "big": 10**30, "t": True, "f": False, "none": None, "x": 1.5, "inf": float("inf"),
         "empty": {}, "none_list": [], "nested": [[], [{}], [[1]]], 3: "int key", None: "null key"},
        {"one": shared, "two": shared, "three": [shared, shared["a"]]},  # aliases, as PyYAML writes them
    ]
    assert dump_yaml(docs) == _reference(docs)
    others: list[Any] = [[1, "two", None], "a scalar document"]  # not manifests: PyYAML's emitter
    assert dump_yaml(others) == _reference(others)


def test_snapshot_of_an_example_is_its_manifests_as_safe_dump_writes_them(tmp_path: Path) -> None:
    dra = REPO / "examples" / "dra"
    out = tmp_path / "snap.yaml"
    result = CliRunner().invoke(app, ["snapshot", str(dra), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_text() == _reference(_manifests(dra))
