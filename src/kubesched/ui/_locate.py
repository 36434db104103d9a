"""Where in the editor's text an error is: the line of a document, a List item or a field.

The loader and the configuration decoder name what is wrong the way ``kubesched validate`` and
``--config`` print it (``what-if.yaml: document 2 (Pod default/web): ...``,
``profiles[0].plugins.score.enabled[1].weight: Invalid value: ...``); the page shows that same
message beside the line it is about. The line comes from a second, read-only walk of the text's
YAML node tree (PyYAML's composer keeps each node's start mark); the text is the editor's, small,
so the second parse costs nothing a user would notice, and the loader stays the one judge of what
is valid.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

import yaml

__all__ = ["Problem", "document_line", "field_line", "line_of_message", "yaml_error_line"]

_DOCUMENT: Final = re.compile(r"\bdocument (\d+)(?:, item (\d+))?")
_PATH_PART: Final = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


@dataclass(frozen=True, slots=True)
class Problem:
    """One error shown in place: the message as the command line prints it, the 1-based line it
    is about (None: the whole text) and the object it names (``Kind namespace/name``, or "")."""

    message: str
    line: int | None = None
    object: str = ""

    def to_dict(self) -> dict[str, str | int | None]:
        return {"message": self.message, "line": self.line, "object": self.object}


def _documents(text: str) -> list[yaml.Node | None]:
    """The documents' root nodes, in the loader's numbering (empty documents included); [] when
    the text does not parse (the loader reports that itself)."""
    try:
        return list(yaml.compose_all(text, Loader=yaml.SafeLoader))
    except (yaml.YAMLError, RecursionError):
        return []


def document_line(text: str, document: int, item: int | None = None) -> int | None:
    """The 1-based line where document ``document`` (counted from 1, as the loader does) starts,
    or its List's ``item``-th entry; None when there is no such document."""
    docs = _documents(text)
    if not 1 <= document <= len(docs) or docs[document - 1] is None:
        return None
    node = docs[document - 1]
    assert node is not None
    if item is not None and isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            if k.value == "items" and isinstance(v, yaml.SequenceNode) and 1 <= item <= len(v.value):
                node = v.value[item - 1]
                break
    return int(node.start_mark.line) + 1


def line_of_message(text: str, message: str) -> int | None:
    """The line a loader or admission message is about, from its ``document N[, item M]``."""
    m = _DOCUMENT.search(message)
    if m is None:
        return None
    return document_line(text, int(m[1]), int(m[2]) if m[2] else None)


def field_line(text: str, path: str) -> int | None:
    """The line of the field a configuration error names (``profiles[0].plugins.score``): the
    deepest node of ``path`` the text has (a missing field: its parent's line); None when the
    text has no document."""
    docs = _documents(text)
    node = docs[0] if docs else None
    if node is None:
        return None
    line = int(node.start_mark.line) + 1
    for key, index in _PATH_PART.findall(path):
        nxt: yaml.Node | None = None
        if index and isinstance(node, yaml.SequenceNode) and int(index) < len(node.value):
            nxt = node.value[int(index)]
        elif key and isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                if isinstance(k, yaml.ScalarNode) and k.value == key:
                    line = int(k.start_mark.line) + 1  # the key's line: where the user looks
                    nxt = v
                    break
        if nxt is None:
            break
        node = nxt
        if index:
            line = int(node.start_mark.line) + 1
    return line


def yaml_error_line(exc: BaseException | None) -> int | None:
    """The 1-based line of a YAML syntax error (its problem mark, else its context mark)."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    return int(mark.line) + 1 if mark is not None else None
