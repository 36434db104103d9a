"""The JSON codec for the API server's answers and watch events (the live client) and for the
extender server's requests and answers: orjson when installed (the ``live`` extra), else the
standard library.

Why: decoding watch events was a fifth of the live scheduler's time with ``json``; orjson
decodes the same events 1.3-1.5x faster per CPU second, and an extender request naming a
thousand nodes about three times faster. Both must give the same Python
objects, so what is accepted and what it becomes never depends on which decoder is
installed: orjson turns an integer beyond 64 bits into a float and refuses NaN/Infinity, so a
document with a run of 19 digits (every integer outside int64 has one; the API server emits
none) or one orjson refuses is decoded by ``json``.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["dumps", "dumps_indented", "loads", "stdlib_loads"]

_orjson: Any = None
_looked = False


def _fast() -> Any:
    """orjson, imported on first use (commands that never read JSON never load it); None
    when it is not installed."""
    global _orjson, _looked
    if not _looked:
        try:
            import orjson

            _orjson = orjson
        except ImportError:  # pragma: no cover - the live extra installs it
            _orjson = None
        _looked = True
    return _orjson


def __getattr__(name: str) -> Any:
    if name == "FAST":  # whether orjson is used
        return _fast() is not None
    raise AttributeError(name)

# Every digit mapped to "0", then a substring search: ten times faster than a regex scan.
_DIGITS_TO_ZERO = bytes(ord("0") if chr(i).isdigit() and i < 128 else i for i in range(256))
_LONG_NUMBER = b"0" * 19


def stdlib_loads(data: bytes | str) -> Any:
    """The standard library's decoding (the fallback, and the reference in tests)."""
    return json.loads(data)


def loads(data: bytes | str) -> Any:
    """One JSON document; raises ValueError when it is not one."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    fast = _orjson if _looked else _fast()
    if fast is not None and _LONG_NUMBER not in raw.translate(_DIGITS_TO_ZERO):
        try:
            return fast.loads(raw)
        except fast.JSONDecodeError:
            pass  # stricter than json in a few cases: let json decide
    return json.loads(data)


def dumps(obj: Any) -> bytes:
    """``obj`` as compact JSON bytes (the same document ``json.dumps`` writes, without its
    spaces). What orjson refuses (an integer beyond 64 bits, a non-string key) goes to
    ``json``."""
    fast = _orjson if _looked else _fast()
    if fast is not None:
        try:
            return fast.dumps(obj)
        except TypeError:
            pass
    return json.dumps(obj, separators=(",", ":")).encode()


def dumps_indented(obj: Any) -> str:
    """``json.dumps(obj, indent=2)``'s text, byte for byte, for a document of dicts with string
    keys, lists, str, int, bool and None only: the caller holds no float (orjson writes a
    float's exponent and NaN differently). orjson writes it when installed (ten times faster:
    an explanation over 5000 nodes is 12 MB) unless the text has a character ``json`` escapes
    and orjson does not (DEL, anything beyond ASCII) or orjson refuses the document (an
    integer beyond 64 bits); then ``json`` does."""
    fast = _orjson if _looked else _fast()
    if fast is not None:
        try:
            text: str = fast.dumps(obj, option=fast.OPT_INDENT_2).decode()
        except TypeError:
            pass
        else:
            if text.isascii() and "\x7f" not in text:
                return text
    return json.dumps(obj, indent=2)
