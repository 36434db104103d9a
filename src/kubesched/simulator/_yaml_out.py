"""Writing manifests as YAML: PyYAML's ``safe_dump_all`` output, byte for byte, faster.

A snapshot of 50,000 pods is a few hundred megabytes of YAML; PyYAML's pure-Python emitter
writes about half a megabyte a second, and its representer spends as long again on each
node's bookkeeping. So:

- libyaml's emitter (``CSafeDumper``) when PyYAML was built with it (else the pure-Python
  one): the same events give the same text (for a stream of mappings: the one difference,
  how a plain scalar document ends, never arises with manifests);
- the representer builds the nodes of the JSON-like tree (``to_dict``'s dicts, lists, str,
  int, bool, None) with fewer Python calls, as SafeRepresenter would (same tags, styles and
  flow style; a dict or list met twice is the same node, which the emitter writes as an
  alias, as SafeRepresenter's ``represented_objects`` makes it); any other value is left to
  SafeRepresenter;
- resolving a scalar's implicit tag (twice per scalar, by the serializer) is memoized per
  value: without path resolvers it depends on nothing else.

tests/cli/test_snapshot_yaml.py checks the bytes against ``yaml.safe_dump_all``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from typing import Any, Final

import yaml
from yaml.nodes import MappingNode, ScalarNode, SequenceNode

__all__ = ["dump_yaml"]

_BASE: Final[type[Any]] = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
_STR: Final = "tag:yaml.org,2002:str"
_INT: Final = "tag:yaml.org,2002:int"
_BOOL: Final = "tag:yaml.org,2002:bool"
_NULL: Final = "tag:yaml.org,2002:null"
_MAP: Final = "tag:yaml.org,2002:map"
_SEQ: Final = "tag:yaml.org,2002:seq"


class _Dumper(_BASE):
    """SafeDumper's output (see the module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._resolved: dict[tuple[str, bool], str] = {}

    def represent_data(self, data: Any) -> Any:
        t = type(data)
        if t is str:
            return ScalarNode(_STR, data, style=self.default_style)
        if t is dict or t is list:
            key = id(data)
            node = self.represented_objects.get(key)
            if node is not None:
                return node
            self.object_keeper.append(data)
            if t is dict:
                return self._mapping(key, data)
            return self._sequence(key, data)
        if t is int:
            return ScalarNode(_INT, str(data), style=self.default_style)
        if t is bool:
            return ScalarNode(_BOOL, "true" if data else "false", style=self.default_style)
        if data is None:
            return ScalarNode(_NULL, "null", style=self.default_style)
        return super().represent_data(data)

    def _mapping(self, key: int, mapping: dict[Any, Any]) -> MappingNode:
        """BaseRepresenter.represent_mapping (``sort_keys`` as asked)."""
        value: list[tuple[Any, Any]] = []
        node = MappingNode(_MAP, value, flow_style=None)
        self.represented_objects[key] = node
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
        self.represented_objects[key] = node
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
            return super().resolve(kind, value, implicit)
        key = (value, implicit[0])
        tag = self._resolved.get(key)
        if tag is None:
            tag = self._resolved[key] = super().resolve(kind, value, implicit)
        return tag


def dump_yaml(docs: Iterable[Any]) -> str:
    """``yaml.safe_dump_all(list(docs), sort_keys=False, default_flow_style=False,
    explicit_start=True)``'s text. Documents are manifests (mappings): a stream holding
    anything else is left to PyYAML's own emitter (libyaml's ends a plain scalar document
    differently)."""
    docs = list(docs)
    dumper = _Dumper if all(type(d) is dict for d in docs) else yaml.SafeDumper
    return str(yaml.dump_all(docs, Dumper=dumper, sort_keys=False, default_flow_style=False,
                             explicit_start=True))
