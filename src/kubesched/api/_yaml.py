"""Reading YAML manifests: PyYAML's safe loading, or the same objects faster.

- rapidyaml's C++ parser when it is installed and cannot read the text differently
  (:class:`kubesched.api._ryml.RymlReader`, which types plain scalars with this loader's
  resolvers); anything else is read by PyYAML, as below.
- libyaml's parser (``CSafeLoader``) when PyYAML was built with it, else the pure-Python one;
  both without the timestamp resolver, so time stamps stay the strings the API server's JSON has.
- Resolution and construction with fewer Python calls per node (:class:`FastSafeConstruction`),
  giving SafeLoader's results.
- A kubectl ``List`` is parsed a thousand items at a time (:func:`load_yaml`), so libyaml's node
  tree of a whole 20,000-pod dump never exists at once.
"""

from __future__ import annotations

import itertools
import re
import sys
from collections.abc import Callable
from typing import Any, Final

import yaml

from ._ryml import RymlReader

__all__ = ["ITEMS_PER_CHUNK", "FastSafeConstruction", "PyYamlLoader", "YamlLoader", "load_yaml",
           "pyyaml_load_all", "without_timestamps"]


def without_timestamps(loader: type[Any]) -> type[Any]:
    """``loader`` keeping time stamps as strings (as the JSON the API server sees), so an
    unquoted ``creationTimestamp`` round-trips unchanged instead of becoming a datetime."""
    loader.yaml_implicit_resolvers = {
        ch: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
        for ch, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    return loader


_TAG: Final = "tag:yaml.org,2002:"
_STR, _VALUE, _NULL, _BOOL, _INT = (_TAG + t for t in ("str", "value", "null", "bool", "int"))
_MAP, _SEQ, _MERGE = (_TAG + t for t in ("map", "seq", "merge"))


class FastSafeConstruction:
    """SafeLoader's resolution and construction, the same results, fewer Python calls.

    Manifests are trees of plain maps, lists, strings, integers, booleans and nulls, and their
    keys repeat: plain scalars' tags are memoised per loader, and those node kinds are built
    by one direct recursion instead of SafeConstructor's generic dispatch per node. Everything
    else (floats, merge keys, explicit tags, ...) goes to SafeConstructor as before."""

    yaml_implicit_resolvers: dict[Any, list[tuple[str, Any]]]
    bool_values: dict[str, bool]

    def __init__(self, stream: str) -> None:
        super().__init__(stream)  # type: ignore[call-arg]
        self._plain_tags: dict[str, str] = {}

    def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
        """Resolver.resolve for a loader without path resolvers: a quoted scalar is a string,
        a plain one gets the tag its first match gives (memoised: keys repeat)."""
        if kind is yaml.ScalarNode:
            if not implicit[0]:
                return _STR
            tags = self._plain_tags
            tag = tags.get(value)
            if tag is None:
                tag = tags[value] = super().resolve(kind, value, implicit)  # type: ignore[misc]
            return tag
        out: str = super().resolve(kind, value, implicit)  # type: ignore[misc]
        return out

    def construct_document(self, node: Any) -> Any:
        memo: dict[int, Any] = {}  # aliased collections are built once, as SafeConstructor does
        generic = self.construct_object  # type: ignore[attr-defined]
        bools = self.bool_values

        def build(node: Any) -> Any:
            tag = node.tag
            if type(node) is yaml.ScalarNode:
                if tag in (_STR, _VALUE):
                    return node.value
                if tag == _NULL:
                    return None
                if tag == _BOOL:
                    return bools[node.value.lower()]
                if tag == _INT and node.value.isdigit() and (node.value[0] != "0" or node.value == "0"):
                    return int(node.value)
                return generic(node, deep=True)
            done = memo.get(id(node))
            if done is not None:
                return done
            if tag == _MAP and type(node) is yaml.MappingNode:
                d: dict[Any, Any] = {}
                memo[id(node)] = d
                for k, v in node.value:
                    if k.tag == _MERGE:  # "<<": SafeConstructor flattens merges
                        memo[id(node)] = done = generic(node, deep=True)
                        return done
                    key, value = build(k), build(v)
                    try:
                        d[key] = value
                    except TypeError:  # an unhashable key: SafeConstructor's error
                        return generic(node, deep=True)
                return d
            if tag == _SEQ and type(node) is yaml.SequenceNode:
                seq: list[Any] = []
                memo[id(node)] = seq
                seq.extend(build(v) for v in node.value)
                return seq
            return generic(node, deep=True)

        try:
            return build(node)
        finally:
            self.constructed_objects = {}  # type: ignore[var-annotated]
            self.recursive_objects = {}  # type: ignore[var-annotated]


class PyYamlLoader(FastSafeConstruction, yaml.SafeLoader):
    """The pure-Python SafeLoader, without the timestamp resolver."""


without_timestamps(PyYamlLoader)
YamlLoader: type[Any] = PyYamlLoader
if getattr(yaml, "__with_libyaml__", False):

    class CYamlLoader(FastSafeConstruction, yaml.CSafeLoader):
        """libyaml's parser with SafeLoader's constructor, without the timestamp resolver."""

    YamlLoader = without_timestamps(CYamlLoader)
assert not YamlLoader.yaml_path_resolvers, "FastSafeConstruction.resolve assumes no path resolvers"
_RYML: Final = RymlReader(YamlLoader)


def pyyaml_load_all(text: str) -> list[Any]:
    """The documents of ``text`` read by PyYAML alone (what :func:`load_yaml` falls back to)."""
    return list(yaml.load_all(text, Loader=YamlLoader))


def _load_all(text: str) -> list[Any]:
    docs = _RYML.load_all(text)
    return pyyaml_load_all(text) if docs is None else docs


def _load_one(text: str) -> Any:
    docs = _RYML.load_all(text)
    return yaml.load(text, Loader=YamlLoader) if docs is None or len(docs) != 1 else docs[0]


class _AtLineStart:
    """A regex matching at a line start. ``re.MULTILINE``'s ``^`` makes the engine try every
    position of a 90 MB dump (0.3 s a search); a pattern that starts with a literal ``\\n`` is
    skipped ahead to by a fast scan (a tenth of that)."""

    def __init__(self, body: str) -> None:
        self._here = re.compile(body)
        self._after_newline = re.compile(f"\n(?:{body})")

    def search(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> tuple[int, int] | None:
        """``(start, end)`` of the first match at a line start in ``text[pos:endpos]``."""
        if pos == 0 or text[pos - 1] == "\n":
            m = self._here.match(text, pos, endpos)
            if m is not None:
                return m.start(), m.end()
        m = self._after_newline.search(text, pos, endpos)
        return None if m is None else (m.start() + 1, m.end())

    def starts(self, text: str, pos: int, endpos: int) -> list[int]:
        """Where every match at a line start in ``text[pos:endpos]`` begins."""
        out: list[int] = []
        while (found := self.search(text, pos, endpos)) is not None:
            out.append(found[0])
            pos = found[0] + 1
        return out


_ITEMS_KEY: Final = _AtLineStart(r"items:[ \t]*\n(?=-[ \n])")
_ITEM_START: Final = _AtLineStart(r"-[ \n]")
_BLOCK_END: Final = _AtLineStart(r"[^-#\s]")
_DOCUMENT_MARK: Final = _AtLineStart(r"---|\.\.\.|%")
ITEMS_PER_CHUNK: Final = 1000


def load_yaml(text: str, parsed: Callable[[int], None] | None = None) -> list[Any]:
    """The documents of a YAML stream. A single-document ``kind: List`` as kubectl writes it
    (``items:`` followed by ``- `` entries at column 0) is parsed a thousand items at a time:
    libyaml's composer builds a node tree of the whole document before anything is constructed,
    which for a 20,000-pod dump is several times the memory of the objects themselves. Anything
    else, and any chunk that does not parse as a list on its own, is parsed whole. ``parsed``
    hears how many characters are parsed after each chunk."""
    m = _ITEMS_KEY.search(text)
    if m is None or _DOCUMENT_MARK.search(text):
        return _load_all(text)
    items_key, items_start = m
    end_match = _BLOCK_END.search(text, items_start)
    end = end_match[0] if end_match else len(text)
    starts = _ITEM_START.starts(text, items_start, end)
    cuts = [*starts[::ITEMS_PER_CHUNK], end]
    try:
        doc = _load_one(text[:items_key] + "items: []\n" + text[end:])
        if not isinstance(doc, dict) or doc.get("items") != []:
            raise ValueError("not a List")
        items: list[Any] = []
        for a, b in itertools.pairwise(cuts):
            chunk = _load_one(text[a:b])
            if not isinstance(chunk, list):
                raise ValueError("not a list")
            items.extend(chunk)
            if parsed is not None:
                parsed(b)
    except (yaml.YAMLError, ValueError):
        return _load_all(text)
    doc["items"] = items
    return [doc]
