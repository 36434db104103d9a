"""Reading YAML with rapidyaml's C++ parser, giving exactly what the PyYAML loader gives, or nothing.

PyYAML (even on libyaml) calls back into Python for every node, several times; that is most of
the time a large YAML dump takes to load. rapidyaml parses in C++ and writes the tree as JSON,
which :func:`json.loads` reads in C. The catch is typing: YAML 1.1 as PyYAML (and kubectl's
``sigs.k8s.io/yaml``) reads it resolves plain ``yes``, ``0x1F`` or ``~`` to a bool, an int or a
null, while rapidyaml writes those as JSON strings (and writes plain ``1e3`` as a JSON number,
which PyYAML keeps as a string). So the JSON is trusted only where the two cannot differ:

- A JSON number is re-typed with the loader's own float resolver
  (:meth:`RymlReader._float_or_str`); a number whose text rapidyaml may have rewritten (``.5``
  is written ``0.5``), ``NaN`` and ``Infinity`` give up.
- A JSON string whose text the loader would resolve to something else if it were plain (one
  regex over the JSON, built from the loader's implicit resolvers, :class:`RymlReader`) is
  accepted only if it cannot have been plain in the source: rapidyaml writes that plain scalar
  as a non-string (``"8080"``, ``"true"``; not for keys, JSON keys are always strings), or the
  source has no plain-looking occurrence of it (``"True"``, as kubectl quotes condition
  statuses); else the whole text gives up.
- Source text where the two parsers could disagree gives up before parsing: tags (``!``),
  anchors, directives, reserved indicators, flow collections other than ``[]`` and ``{}``,
  unusual block scalar headers, quoted keys spanning lines, tabs, characters PyYAML refuses,
  line breaks other than LF and CRLF, a last line without its line break; so do aliases (a
  JSON string starting with ``*``), merge keys (a key ``<<``), infinities and NaNs (rapidyaml
  writes plain ``nan`` as ``.nan``) and documents that are a scalar.

Giving up (``None``) means the caller parses with PyYAML, which also gives the error message
users get for invalid YAML: a rapidyaml parse error is never shown.
"""

from __future__ import annotations

import functools
import itertools
import json
import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Final

try:
    import ryml
except ImportError:  # pragma: no cover - rapidyaml ships wheels; kept working without it
    ryml = None

__all__ = ["RymlReader", "ryml_available"]


def ryml_available() -> bool:
    """Whether rapidyaml can be imported (the fast path is used only then)."""
    return ryml is not None


def _resolver_patterns(loader: type[Any]) -> tuple[dict[str, list[str]], set[str]]:
    """The loader's implicit resolvers as ``tag -> [pattern without anchors]`` and the first
    characters of the non-string ones: one definition of plain-scalar typing, PyYAML's."""
    out: dict[str, list[str]] = {}
    first: set[str] = set()
    for ch, resolvers in loader.yaml_implicit_resolvers.items():
        for tag, rx in resolvers:
            pattern = rx.pattern.strip()
            assert pattern.startswith("^") and pattern.endswith("$"), pattern
            flags = "x" if rx.flags & re.VERBOSE else ""
            body = f"(?{flags}:{pattern[1:-1]})" if flags else f"(?:{pattern[1:-1]})"
            if body not in out.setdefault(tag, []):
                out[tag].append(body)
            if tag != _STR:
                first.add(ch or '"')  # None/"": the empty scalar, a JSON '""'
    return out, first


# Bytes of the UTF-8 text the fast path accepts as they are: a tab (PyYAML and rapidyaml differ
# on where one is allowed), a CR left after normalising CRLF, other C0 controls and DEL give up.
_PLAIN_BYTES: Final = bytes([0x0A, *range(0x20, 0x7F), *range(0x80, 0x100)])
# non-ASCII characters PyYAML's reader refuses, YAML 1.1's other line breaks (NEL, LS, PS), a BOM
_UNSAFE_CHAR: Final = re.compile(
    "[^\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]"
)
_SHAPE: Final = str.maketrans("23456789", "11111111")
# a character that means something where a node starts (a tag, an anchor, a directive, a
# reserved indicator, a block scalar, a flow collection, an explicit key or value), after a space or a flow
# indicator; the character first, so the engine skips ahead to it
_INDICATOR: Final = re.compile(
    r"[!&%@`|>\[\]{}](?<![^\s\[{,][!&%@`|>\[\]{}])"
    r"(?<!\[\])(?<!\{\})(?!(?<=\[)\])(?!(?<=\{)\})"  # not an empty flow collection, "[]" or "{}"
)
# "?" or ":" after a space (after a flow indicator is in a flow collection, which gives up): as
# literals, which the engine skips ahead to; ":" is in every line
_EXPLICIT_KEY_OR_VALUE: Final = tuple(re.compile(re.escape(p)) for p in (" ?", "\n?", " :", "\n:"))
# what precedes a node on its line: indentation and "- " / "? " / "--- ", or "key: ", or a flow
# indicator
_NODE_PREFIX: Final = re.compile(r"(?:^[ ]*(?:(?:[-?]|---)[ ]+)*|:[ ]+|[\[{,][ ]*)$", re.MULTILINE)
# a quoted mapping key's closing quote; each pattern starts with two literal characters, which
# the engine skips ahead to (a character class first costs 0.3 s on a 90 MB dump)
_QUOTED_KEY_ENDS: Final = tuple(re.compile(q + r"(?=[ \n]|$)") for q in ("':", '":', "' [ ]*:", '" [ ]*:'))
# a line holding a whole single-line quoted key up to its closing quote
_ONE_LINE_KEY: Final = re.compile(
    r"""[ ]*(?:[-?][ ]+)*(?:'(?:[^'\n]|'')*'|"(?:[^"\\\n]|\\.)*")""", re.MULTILINE
)
_BLOCK_HEADER: Final = re.compile(r"(?:[1-9][-+]?|[-+][1-9]?)?(?:[ ]+#.*)?[ ]*$", re.MULTILINE)
_REWRITTEN_NUMBER: Final = re.compile(r"-?0\.|.*\.0(?:$|[eE])")  # rapidyaml's ".5" -> "0.5", "1." -> "1.0"
# an alias; an infinity or NaN rapidyaml writes in its own spelling ("nan" -> ".nan")
_GIVE_UP_STRING: Final = re.compile(r'"(?:\*|[-+]?\.(?:inf|nan)")')


_STR: Final = "tag:yaml.org,2002:str"
_FLOAT: Final = "tag:yaml.org,2002:float"


class _GiveUp(Exception):
    """The JSON cannot be trusted to be what PyYAML reads: parse with PyYAML instead."""


@functools.lru_cache(maxsize=256)
def _plain_occurrence(text: str) -> re.Pattern[str]:
    """Where ``text`` may be a whole plain scalar in YAML source: after whitespace, a line start
    or a flow indicator, before the line's end, a comment, a flow indicator or a key's colon.
    Quoted occurrences never match (a quote precedes them); occurrences inside longer scalars
    may, which only costs the fast path."""
    v = re.escape(text)  # the literal first: the regex engine then skips ahead to it
    return re.compile(rf"{v}(?:(?<![^\s\[{{,]{v})|(?<=[\"']:{v}))[ ]*(?:$|[,\]}}#:])", re.MULTILINE)


def _risky_node_starts(text: str) -> bool:
    """Whether a node of ``text`` may start with a tag, an anchor, a directive, a reserved
    indicator (PyYAML's error or PyYAML's meaning, rapidyaml's string or nothing), ``?`` or
    ``:`` (explicit keys, read more leniently by rapidyaml), a flow
    collection other than an empty ``[]`` or ``{}`` (rapidyaml reads some invalid ones), or a
    block scalar whose header rapidyaml reads more leniently than PyYAML or at the top level.
    kubectl writes block style, flow only for empty collections. ``a | b`` or ``a && b``
    inside a scalar are not node starts."""
    starts = itertools.chain(
        (m.start() for m in _INDICATOR.finditer(text)),
        (m.start() + 1 for rx in _EXPLICIT_KEY_OR_VALUE for m in rx.finditer(text)),
        (0 for _ in range(text[:1] in ("?", ":"))),
    )
    for i in starts:
        ch = text[i]
        line_start = text.rfind("\n", 0, i) + 1
        if _NODE_PREFIX.search(text, line_start, i) is None:
            continue
        if ch not in "|>" or i == line_start or text[line_start:i].startswith("---"):
            return True
        if _BLOCK_HEADER.match(text, i + 1) is None:
            return True
    return False


def _multiline_quoted_key(text: str) -> bool:
    """Whether a quoted scalar spanning lines may be a mapping key (PyYAML refuses a multi-line
    implicit key, rapidyaml reads it): a quote followed by ``:`` that neither ends a quoted key
    opened on its line nor belongs to a plain key holding balanced quotes (managedFields'
    ``k:{"type":"Ready"}:``); the last line of a multi-line quoted key has one unpaired quote."""
    for m in itertools.chain.from_iterable(rx.finditer(text) for rx in _QUOTED_KEY_ENDS):
        end = m.start() + 1
        start = text.rfind("\n", 0, end) + 1
        if _ONE_LINE_KEY.fullmatch(text, start, end) is not None:
            continue
        line = text[start:end]
        quote = line[-1]
        unpaired = (line.count(quote) - line.count("\\" + quote)) % 2
        if line.lstrip(" -?")[:1] not in ("'", '"') and not unpaired:
            continue
        return True
    return False


def _constant(text: str) -> Any:
    raise _GiveUp(text)


@contextmanager
def _quiet_stderr() -> Iterator[None]:
    """rapidyaml prints its parse errors to file descriptor 2 before raising; the user gets
    PyYAML's message instead, so the C library's is silenced (fd 2 itself: whatever
    ``sys.stderr`` is, the C library writes there)."""
    for stream in (sys.stderr, sys.__stderr__):
        if stream is not None:
            stream.flush()
    try:
        saved = os.dup(2)
    except OSError:
        yield
        return
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _emit_documents(data: bytes) -> list[str]:
    """rapidyaml's JSON for each document of ``data``; raises on a parse error."""
    with _quiet_stderr():
        tree = ryml.parse_in_arena(data)
        root = tree.root_id()
        ids = list(ryml.children(tree, root)) if tree.is_stream(root) else [root]
        emitted = [ryml.emit_json(tree, i) for i in ids]
    if None in emitted:  # nothing to emit (an empty stream, as rapidyaml sees it): PyYAML says
        raise _GiveUp("empty")
    return emitted


class RymlReader:
    """rapidyaml reading as ``loader`` (a PyYAML loader class) types plain scalars."""

    def __init__(self, loader: type[Any]) -> None:
        patterns, first = _resolver_patterns(loader)
        non_str = "|".join(p for tag, ps in patterns.items() if tag != _STR for p in ps)
        firsts = re.escape("".join(sorted(first)))
        # every '"' (overlapping: a lookahead) opening a string the loader would re-type if plain;
        # the first character is tested first, as most strings fail there
        self._non_str_string = re.compile(f'"(?=[{firsts}])(?=((?:{non_str}))"(\\s*:)?)')
        self._float = re.compile("|".join(patterns[_FLOAT]))
        self._decoder = json.JSONDecoder(parse_float=self._float_or_str, parse_constant=_constant)
        self._plain_is_not_string: dict[str, bool] = {}

    def _float_or_str(self, text: str) -> Any:
        """A bare JSON number that is not an int: the float if the loader's float resolver
        matches its text (``1.5``), else the string PyYAML keeps (``1e3``: YAML 1.1 floats need
        a dot)."""
        if _REWRITTEN_NUMBER.match(text):
            raise _GiveUp(text)
        return float(text) if self._float.fullmatch(text) else text

    def _plain_is_non_string(self, text: str) -> bool:
        """Whether rapidyaml writes the plain scalar ``text`` as a JSON non-string (``8080``,
        ``true``, ``null`` for an empty one): then a JSON *string* ``text`` was quoted in the
        source. Asked of rapidyaml itself, once per shape (digits 1-9 alike: quoted
        ``resourceVersion``s are all different)."""
        shape = text.translate(_SHAPE)
        known = self._plain_is_not_string.get(shape)
        if known is None:
            try:
                (emitted,) = _emit_documents(f"- {shape}\n".encode())
                known = not isinstance(json.loads(emitted)[0], str)
            except Exception:  # any failure: not known to be safe
                known = False
            self._plain_is_not_string[shape] = known
        return known

    def _check_strings(self, emitted: str, source: str) -> None:
        """Give up unless every JSON string the loader would re-type if plain was quoted in the
        source: rapidyaml writes that plain scalar as a non-string (not for keys: JSON keys are
        always strings), or the source has no plain-looking occurrence of it."""
        if ('"*' in emitted or '.inf"' in emitted or '.nan"' in emitted) and _GIVE_UP_STRING.search(emitted):
            raise _GiveUp("alias or infinity")
        cleared: set[str] = set()
        plain_is_non_string = self._plain_is_non_string
        bare_decimals = plain_is_non_string("1")  # quoted resourceVersions: one test, not one call
        values_ok: set[str] = set()
        for m in self._non_str_string.finditer(emitted):
            text, key = m.groups()
            if text in cleared or (key is None and text in values_ok):
                continue
            if key is None and (
                (bare_decimals and text.isdigit() and text[0] != "0") or plain_is_non_string(text)
            ):
                values_ok.add(text)
                continue
            if not text:  # a key "": it may be a "? " null key
                raise _GiveUp(text)
            if _plain_occurrence(text).search(source):
                raise _GiveUp(text)
            cleared.add(text)

    def load_all(self, text: str) -> list[Any] | None:
        """The documents of ``text`` as the loader reads them, or ``None`` when rapidyaml is
        missing, fails, or might read them differently."""
        if ryml is None:
            return None
        if "\r" in text:
            text = text.replace("\r\n", "\n")  # YAML normalises line breaks; a lone CR gives up
        if not text.endswith("\n"):  # a block scalar at the very end: rapidyaml adds a line break
            return None
        try:
            data = text.encode()
        except UnicodeEncodeError:
            return None
        if (
            data.translate(None, _PLAIN_BYTES)
            or (not text.isascii() and _UNSAFE_CHAR.search(text))
            or _risky_node_starts(text)
            or _multiline_quoted_key(text)
        ):
            return None
        try:
            emitted = _emit_documents(data)
            docs = []
            for out in emitted:
                if out.lstrip()[:1] not in ("{", "["):  # a document that is a scalar: PyYAML's
                    raise _GiveUp("scalar document")
                self._check_strings(out, text)
                docs.append(self._decoder.decode(out))
        except (_GiveUp, ValueError):
            return None
        except Exception as e:
            if isinstance(e, ryml.ExceptionBasic):  # a parse error: PyYAML gives the message
                return None
            raise
        return docs
