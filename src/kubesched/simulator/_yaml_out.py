"""Writing manifests as YAML: PyYAML's ``safe_dump_all`` output, byte for byte, faster.

A snapshot of 50,000 pods is a few hundred megabytes of YAML; PyYAML's pure-Python emitter
writes about half a megabyte a second, and its representer spends as long again on each
node's bookkeeping. So:

- libyaml's emitter (``CSafeDumper``) when PyYAML was built with it (else the pure-Python
  one): the same events give the same text (for a stream of mappings: the one difference,
  how a plain scalar document ends, never arises with manifests);
- the representer builds the nodes of the JSON-like tree (``to_dict``'s dicts, lists, str,
  int, bool, None) with fewer Python calls, as SafeRepresenter would (same tags, styles and
  flow style); any other value is left to SafeRepresenter;
- a dict or list met twice is written in full each time, never as an anchor and its alias
  (``&id001``/``*id001``, SafeRepresenter's way): the loader holds equal branches of the
  manifests once (``api._share``), and what is written must be the bytes the same manifests
  gave unshared, as ``kubectl`` would write them. The one exception is a branch inside itself
  (a cycle, which only an input's own anchors can make): that one is an alias, there being no
  other way to write it;
- documents are written one at a time (:func:`yaml_pieces`), so a stream of 50,000 pods is
  sent or saved as it is written, never held whole;
- resolving a scalar's implicit tag (twice per scalar, by the serializer) is memoized per
  value: without path resolvers it depends on nothing else.

tests/cli/test_snapshot_yaml.py checks the bytes against ``yaml.safe_dump_all`` of the same
documents unshared.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from typing import Any, Final

import yaml
from yaml.nodes import MappingNode, ScalarNode, SequenceNode

__all__ = ["dump_yaml", "yaml_pieces"]

_BASE: Final[type[Any]] = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
_STR: Final = "tag:yaml.org,2002:str"
_INT: Final = "tag:yaml.org,2002:int"
_BOOL: Final = "tag:yaml.org,2002:bool"
_NULL: Final = "tag:yaml.org,2002:null"
_MAP: Final = "tag:yaml.org,2002:map"
_SEQ: Final = "tag:yaml.org,2002:seq"
_PIECE: Final = 1 << 16
"""About how much text :func:`yaml_pieces` gathers before giving it (whole documents)."""


class _Representation:
    """SafeRepresenter's nodes, fewer calls, no aliases (see the module docstring); mixed into
    a SafeDumper of either emitter."""

    default_style: Any
    default_flow_style: Any
    sort_keys: bool
    yaml_path_resolvers: Any

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._resolved: dict[tuple[str, bool], str] = {}
        self._open: dict[int, Any] = {}  # the dicts and lists being written: a cycle's way back

    def ignore_aliases(self, data: Any) -> bool:
        """Never an alias for what SafeRepresenter writes (a tuple, a set: see the module
        docstring)."""
        return True

    def represent_data(self, data: Any) -> Any:
        t = type(data)
        if t is str:
            return ScalarNode(_STR, data, style=self.default_style)
        if t is dict or t is list:
            key = id(data)
            node = self._open.get(key)
            if node is not None:  # inside itself: the alias is the only way to write it
                return node
            try:
                return self._mapping(key, data) if t is dict else self._sequence(key, data)
            finally:
                del self._open[key]
        if t is int:
            return ScalarNode(_INT, str(data), style=self.default_style)
        if t is bool:
            return ScalarNode(_BOOL, "true" if data else "false", style=self.default_style)
        if data is None:
            return ScalarNode(_NULL, "null", style=self.default_style)
        return super().represent_data(data)  # type: ignore[misc]

    def _mapping(self, key: int, mapping: dict[Any, Any]) -> MappingNode:
        """BaseRepresenter.represent_mapping (``sort_keys`` as asked)."""
        value: list[tuple[Any, Any]] = []
        node = MappingNode(_MAP, value, flow_style=None)
        self._open[key] = node
        items = list(mapping.items())
        if self.sort_keys:
            with contextlib.suppress(TypeError):  # keys that do not compare: as given
                items = sorted(items)
        best_style = True
        represent = self.represent_data
        for k, v in items:
            node_key, node_value = represent(k), represent(v)
            if best_style and not (type(node_key) is ScalarNode and not node_key.style
                                   and type(node_value) is ScalarNode and not node_value.style):
                best_style = False
            value.append((node_key, node_value))
        node.flow_style = self.default_flow_style if self.default_flow_style is not None else best_style
        return node

    def _sequence(self, key: int, sequence: list[Any]) -> SequenceNode:
        """BaseRepresenter.represent_sequence."""
        value: list[Any] = []
        node = SequenceNode(_SEQ, value, flow_style=None)
        self._open[key] = node
        best_style = True
        represent = self.represent_data
        for item in sequence:
            node_item = represent(item)
            if best_style and not (type(node_item) is ScalarNode and not node_item.style):
                best_style = False
            value.append(node_item)
        node.flow_style = self.default_flow_style if self.default_flow_style is not None else best_style
        return node

    def resolve(self, kind: Any, value: Any, implicit: tuple[bool, bool]) -> Any:
        if kind is not ScalarNode or self.yaml_path_resolvers:
            return super().resolve(kind, value, implicit)  # type: ignore[misc]
        key = (value, implicit[0])
        tag = self._resolved.get(key)
        if tag is None:
            tag = self._resolved[key] = super().resolve(kind, value, implicit)  # type: ignore[misc]
        return tag


class _Dumper(_Representation, _BASE):
    """The writer of manifests: libyaml's emitter when PyYAML has it."""


class _PureDumper(_Representation, yaml.SafeDumper):
    """The writer of a stream holding anything but mappings: PyYAML's own emitter (libyaml's
    ends a plain scalar document differently)."""


class _Pieces:
    """The text stream a dumper writes to: what it wrote since last taken."""

    encoding = None  # str, not bytes (what libyaml's emitter checks for)

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.size = 0

    def write(self, text: str) -> None:
        self.parts.append(text)
        self.size += len(text)

    def take(self) -> str:
        out = "".join(self.parts)
        self.parts.clear()
        self.size = 0
        return out


def yaml_pieces(manifests: Iterable[dict[str, Any]]) -> Iterator[str]:
    """``yaml.safe_dump_all(manifests, sort_keys=False, default_flow_style=False,
    explicit_start=True)``'s text of the manifests unshared, in pieces of whole documents
    (about 64 KiB each), each written when asked for: ``manifests`` may be a generator, and
    only one document's nodes exist at a time."""
    return _pieces(manifests, _Dumper, explicit_start=True)


def _pieces(docs: Iterable[Any], dumper_class: type[Any], explicit_start: bool) -> Iterator[str]:
    """:func:`yaml.dump_all`'s loop, the text taken between documents."""
    out = _Pieces()
    dumper = dumper_class(out, sort_keys=False, default_flow_style=False, explicit_start=explicit_start)
    try:
        dumper.open()
        for doc in docs:
            dumper.represent(doc)
            if out.size >= _PIECE:
                yield out.take()
        dumper.close()
    finally:
        dumper.dispose()
    if out.size:
        yield out.take()


def dump_yaml(docs: Iterable[Any], *, explicit_start: bool = True) -> str:
    """``yaml.safe_dump_all(list(docs), sort_keys=False, default_flow_style=False,
    explicit_start=explicit_start)``'s text of the documents unshared (see the module
    docstring).
    Documents are manifests (mappings): a stream holding anything else is left to PyYAML's own
    emitter (libyaml's ends a plain scalar document differently)."""
    docs = list(docs)
    dumper = _Dumper if all(type(d) is dict for d in docs) else _PureDumper
    return "".join(_pieces(docs, dumper, explicit_start))
