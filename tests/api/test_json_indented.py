"""``explain -o json``'s indented text is ``json.dumps(indent=2)``'s byte for byte, whichever
encoder writes it (orjson when installed): every ASCII character, the ones ``json`` escapes and
orjson does not, integers at and beyond 64 bits, empty and nested containers."""

from __future__ import annotations

import json
from typing import Any

import pytest

from kubesched.api import dumps_json_indented

_ASCII = "".join(chr(i) for i in range(128))


@pytest.mark.parametrize("doc", [
    {"pod": "default/web", "nodes": [], "post": None, "ok": True, "no": False, "n": -3},
    {"every ascii " + _ASCII: [_ASCII, {"k": _ASCII}]},
    {"del": "a\x7fb"},
    {"beyond ascii": "é ✓ \u2028"},
    {"ints": [0, 2**63 - 1, -(2**63)], "big": 2**64, "small": -(2**70)},
    {"nested": [[], [{}], [[1, [{"a": []}]]], {"b": {"c": {}}}]},
    [],
    {},
])
def test_the_text_is_json_dumps_indent_2(doc: Any) -> None:
    assert dumps_json_indented(doc) == json.dumps(doc, indent=2)
