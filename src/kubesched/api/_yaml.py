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
- Aliases are capped as Kubernetes caps them (:class:`AliasLimit`): a document whose aliases
  expand to far more nodes than it holds (a "billion laughs" bomb) is refused before it is
  constructed, with go-yaml's message, ``document contains excessive aliasing``.
  :func:`safe_load_yaml` is ``yaml.safe_load`` with that cap, for every other YAML input
  (configurations, traces).
"""

from __future__ import annotations

import itertools
import re
import sys
from collections.abc import Callable
from typing import Any, Final

import yaml

from ._ryml import RymlReader

__all__ = ["EXCESSIVE_ALIASING", "ITEMS_PER_CHUNK", "AliasLimit", "ExcessiveAliasing", "FastSafeConstruction",
           "PyYamlLoader", "YamlLoader", "check_aliasing", "load_yaml", "pyyaml_load_all", "safe_load_yaml",
           "without_timestamps"]

EXCESSIVE_ALIASING: Final = "document contains excessive aliasing"
"""go-yaml's message (gopkg.in/yaml.v2 and v3, decode.go), which sigs.k8s.io/yaml and so the API
server and kubectl give for the same document."""

# go-yaml's budget (decode.go: alias_ratio_range_low/high, allowedAliasRatio, unmarshal), the
# fix of CVE-2019-11253 (kubernetes/kubernetes#83253): below 100 alias-driven decodes or 1000
# decodes in all nothing is refused; above, the share of decodes that come from expanding
# aliases may be 99% up to 400,000 decodes, falling linearly to 10% at 4,000,000.
_ALIAS_FLOOR: Final = 100
_DECODE_FLOOR: Final = 1000
_RATIO_RANGE_LOW: Final = 400_000
_RATIO_RANGE_HIGH: Final = 4_000_000
_ALIAS_TOKEN: Final = re.compile(r"(?:^|[\s\[{,:?])\*")
"""Where an alias may start: at the start of the text, or after white space or a flow or
key/value indicator (a ``*`` anywhere else is part of a scalar). Used only to skip the check
on texts that cannot hold an alias; a false match costs the check, never a miss."""


class ExcessiveAliasing(yaml.YAMLError):
    """A document whose aliases expand too far (:data:`EXCESSIVE_ALIASING`), or an anchor whose
    value holds an alias of itself."""


def _allowed_alias_ratio(decodes: int) -> float:
    """Mirrors allowedAliasRatio (gopkg.in/yaml.v3 decode.go)."""
    if decodes <= _RATIO_RANGE_LOW:
        return 0.99
    if decodes >= _RATIO_RANGE_HIGH:
        return 0.10
    return 0.99 - 0.89 * (decodes - _RATIO_RANGE_LOW) / (_RATIO_RANGE_HIGH - _RATIO_RANGE_LOW)


def _children(node: Any) -> list[Any]:
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _expanded_size(node: Any, sizes: dict[int, int]) -> int:
    """How many nodes ``node`` stands for once its aliases are expanded (itself, and its keys,
    values and items, expanded), memoised in ``sizes`` by ``id``: each node of the graph is
    computed once, so a bomb costs the size of its text, not of its expansion.
    ExcessiveAliasing when an anchor's value holds an alias of itself (go-yaml: ``anchor 'x'
    value contains itself``)."""
    ancestors: set[int] = set()
    stack: list[tuple[Any, bool]] = [(node, False)]
    while stack:
        n, finished = stack.pop()
        key = id(n)
        if finished:
            ancestors.discard(key)
            sizes[key] = 1 + sum(sizes[id(c)] for c in _children(n))
            continue
        if key in sizes:
            continue
        ancestors.add(key)
        stack.append((n, True))
        for child in _children(n):
            if id(child) in ancestors:
                raise ExcessiveAliasing("an anchor's value contains an alias of itself")
            if id(child) not in sizes:
                stack.append((child, False))
    return sizes[id(node)]


def check_aliasing(root: Any) -> None:
    """Raise ExcessiveAliasing when the composed document ``root`` (a PyYAML node graph, where an
    alias is its anchor's node again) would be refused by go-yaml: each node decoded counts
    once, each alias once plus its anchor's whole expansion as alias-driven decodes, checked as
    decode.go's ``unmarshal`` checks them. Walking in document order, an alias is a node met
    again; its expansion's size comes from :func:`_expanded_size`, so nothing is expanded.
    (The ratio only grows while an alias expands, so checking after each one is checking at
    every decode within it, as go-yaml does.)"""
    if not isinstance(root, yaml.Node):
        return
    sizes: dict[int, int] = {}
    decodes = aliased = 0
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        decodes += 1
        key = id(node)
        if key in seen:
            expanded = _expanded_size(node, sizes)
            decodes += expanded
            aliased += expanded
            if (aliased > _ALIAS_FLOOR and decodes > _DECODE_FLOOR
                    and aliased / decodes > _allowed_alias_ratio(decodes)):
                raise ExcessiveAliasing(EXCESSIVE_ALIASING)
            continue
        seen.add(key)
        stack.extend(reversed(_children(node)))


class AliasLimit:
    """A PyYAML loader mixin: :meth:`construct_document` refuses a document with excessive
    aliasing (:func:`check_aliasing`) before building anything. PyYAML itself builds an
    aliased collection once and shares it, but whatever walks the result then (the object
    parsers, JSON encoding, a deep copy) would walk the whole expansion: ``a`` aliased nine
    times on each of nine levels is 387 million lists."""

    def __init__(self, stream: Any) -> None:
        super().__init__(stream)  # type: ignore[call-arg]
        self._may_alias = not isinstance(stream, str) or (
            "*" in stream and _ALIAS_TOKEN.search(stream) is not None)

    def check_aliases(self, node: Any) -> None:
        if self._may_alias:
            check_aliasing(node)

    def construct_document(self, node: Any) -> Any:
        self.check_aliases(node)
        return super().construct_document(node)  # type: ignore[misc]


class _SafeLoader(AliasLimit, yaml.SafeLoader):
    """``yaml.safe_load``'s loader with :class:`AliasLimit`."""


_FastSafeLoader: type[Any] = _SafeLoader
if getattr(yaml, "__with_libyaml__", False):

    class _CSafeLoader(AliasLimit, yaml.CSafeLoader):
        """libyaml's parser, SafeLoader's constructor, with :class:`AliasLimit`."""

    _FastSafeLoader = _CSafeLoader


def safe_load_yaml(text: str, *, fast: bool = False) -> Any:
    """``yaml.safe_load(text)`` (the same loader, the same results and errors) refusing excessive
    aliasing (ExcessiveAliasing, a ``yaml.YAMLError``). ``fast``: libyaml's parser when PyYAML
    has it (the same objects; a syntax error's wording is libyaml's), for many small texts."""
    return yaml.load(text, Loader=_FastSafeLoader if fast else _SafeLoader)


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


class FastSafeConstruction(AliasLimit):
    """SafeLoader's resolution and construction, the same results, fewer Python calls.

    Manifests are trees of plain maps, lists, strings, integers, booleans and nulls, and their
    keys repeat: plain scalars' tags are memoised per loader, and those node kinds are built
    by one direct recursion instead of SafeConstructor's generic dispatch per node. Everything
    else (floats, merge keys, explicit tags, ...) goes to SafeConstructor as before."""

    yaml_implicit_resolvers: dict[Any, list[tuple[str, Any]]]
    bool_values: dict[str, bool]

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
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
        self.check_aliases(node)
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
