"""Field errors and name formats as the API server reports them.

Mirrors ``k8s.io/apimachinery/pkg/util/validation/field`` (the ``<path>: <Type>: <value>:
<detail>`` shape of ``field.Error.Error()``) and the name checks of
``k8s.io/apimachinery/pkg/util/validation`` (IsDNS1123Label, IsDNS1123Subdomain, IsDNS1035Label,
IsCIdentifier, IsQualifiedName, IsValidLabelValue), with their messages word for word, so a manifest refused
here reads as kube-apiserver would refuse it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any, Final

__all__ = [
    "FieldErrors",
    "c_identifier_errors",
    "is_dns1035_label",
    "is_dns1123_label",
    "is_dns1123_subdomain",
    "is_extended_resource_name",
    "label_value_errors",
    "qualified_name_errors",
    "regex_error",
]

_OMIT: Final = object()


def regex_error(msg: str, fmt: str, *examples: str) -> str:
    """validation.RegexError, with its exact punctuation (examples joined by ``,  or ``)."""
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    shown = " or ".join(f"'{e}', " for e in examples)
    return f"{msg} (e.g. {shown}regex used for validation is '{fmt}')"


_DNS1123_LABEL_FMT: Final = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_SUBDOMAIN_FMT: Final = _DNS1123_LABEL_FMT + r"(\." + _DNS1123_LABEL_FMT + ")*"
_C_IDENTIFIER_FMT: Final = "[A-Za-z_][A-Za-z0-9_]*"
_QUALIFIED_NAME_FMT: Final = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_VALUE_FMT: Final = "(" + _QUALIFIED_NAME_FMT + ")?"

_DNS1123_LABEL_RE: Final = re.compile(f"^{_DNS1123_LABEL_FMT}$")
_DNS1123_SUBDOMAIN_RE: Final = re.compile(f"^{_DNS1123_SUBDOMAIN_FMT}$")
_C_IDENTIFIER_RE: Final = re.compile(f"^{_C_IDENTIFIER_FMT}$")
_QUALIFIED_NAME_RE: Final = re.compile(f"^{_QUALIFIED_NAME_FMT}$")
_LABEL_VALUE_RE: Final = re.compile(f"^{_LABEL_VALUE_FMT}$")

_DNS1123_LABEL_MSG: Final = regex_error(
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must "
    "start and end with an alphanumeric character", _DNS1123_LABEL_FMT, "my-name", "123-abc")
_DNS1123_SUBDOMAIN_MSG: Final = regex_error(
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character", _DNS1123_SUBDOMAIN_FMT, "example.com")
_C_IDENTIFIER_MSG: Final = regex_error(
    "a valid C identifier must start with alphabetic character or '_', followed by a string of "
    "alphanumeric characters or '_'", _C_IDENTIFIER_FMT, "my_name", "MY_NAME", "MyName")
_QUALIFIED_NAME_CHARS: Final = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character")
_LABEL_VALUE_MSG: Final = regex_error(
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character", _LABEL_VALUE_FMT, "MyValue", "my_value", "12345")


def _max_len(n: int) -> str:
    return f"must be no more than {n} characters"


def is_dns1123_label(value: str) -> list[str]:
    """validation.IsDNS1123Label: the problems with ``value`` as a label (empty: none)."""
    errs = []
    if len(value) > 63:
        errs.append(_max_len(63))
    if not _DNS1123_LABEL_RE.match(value):
        if _DNS1123_SUBDOMAIN_RE.match(value):
            errs.append("must not contain dots")  # a valid subdomain: only the dots are wrong
        else:
            errs.append(_DNS1123_LABEL_MSG)
    return errs


def is_dns1123_subdomain(value: str) -> list[str]:
    """validation.IsDNS1123Subdomain: the problems with ``value`` as a subdomain."""
    errs = []
    if len(value) > 253:
        errs.append(_max_len(253))
    if not _DNS1123_SUBDOMAIN_RE.match(value):
        errs.append(_DNS1123_SUBDOMAIN_MSG)
    return errs


_DNS1035_LABEL_FMT: Final = "[a-z]([-a-z0-9]*[a-z0-9])?"
_DNS1035_LABEL_RE: Final = re.compile(f"^{_DNS1035_LABEL_FMT}$")
_DNS1035_LABEL_MSG: Final = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
    "alphabetic character, and end with an alphanumeric character"
)


def is_dns1035_label(value: str) -> list[str]:
    """validation.IsDNS1035Label (a Service's name: it becomes a DNS name under the namespace)."""
    errs = []
    if len(value) > 63:
        errs.append(_max_len(63))
    if not _DNS1035_LABEL_RE.match(value):
        errs.append(regex_error(_DNS1035_LABEL_MSG, _DNS1035_LABEL_FMT, "my-name", "abc-123"))
    return errs


def c_identifier_errors(value: str) -> list[str]:
    """content.IsCIdentifier."""
    return [] if _C_IDENTIFIER_RE.match(value) else [_C_IDENTIFIER_MSG]


def qualified_name_errors(value: str) -> list[str]:
    """validation.IsQualifiedName: an optional DNS-subdomain prefix and ``/``, then a name of at
    most 63 characters (what label keys and taint keys are)."""
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
        prefix_errs: list[str] = []
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            prefix_errs = ["prefix part must be non-empty"]
        else:
            prefix_errs = [f"prefix part {m}" for m in is_dns1123_subdomain(prefix)]
    else:
        return [regex_error("a qualified name " + _QUALIFIED_NAME_CHARS, _QUALIFIED_NAME_FMT,
                             "MyName", "my.name", "123-abc")
                + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"]
    errs = prefix_errs
    if not name:
        errs.append("name part must be non-empty")
    elif len(name) > 63:
        errs.append("name part " + _max_len(63))
    if name and not _QUALIFIED_NAME_RE.match(name):
        errs.append(regex_error("name part " + _QUALIFIED_NAME_CHARS, _QUALIFIED_NAME_FMT,
                                 "MyName", "my.name", "123-abc"))
    return errs


def label_value_errors(value: str) -> list[str]:
    """validation.IsValidLabelValue."""
    errs = [_max_len(63)] if len(value) > 63 else []
    if not _LABEL_VALUE_RE.match(value):
        errs.append(_LABEL_VALUE_MSG)
    return errs


def is_extended_resource_name(name: str) -> bool:
    """v1helper.IsExtendedResourceName: a domain-prefixed name outside ``kubernetes.io/``, not
    ``requests.``-prefixed, that is a qualified name once ``requests.`` is put in front."""
    if "/" not in name or "kubernetes.io/" in name or name.startswith("requests."):
        return False
    return not qualified_name_errors("requests." + name)


def _quote(value: Any) -> str:
    """How field.Error prints a bad value: strings quoted as Go's %q, numbers and bools bare."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value)
    return json.dumps(value, sort_keys=True, default=str)


class FieldErrors:
    """A field.ErrorList being collected; :meth:`raise_if_any` turns it into one ValueError.

    Each method appends one error formatted as ``field.Error.Error()``."""

    def __init__(self) -> None:
        self.errors: list[str] = []

    def __bool__(self) -> bool:
        return bool(self.errors)

    def _add(self, path: str, kind: str, value: Any, detail: str) -> None:
        body = kind if value is _OMIT else f"{kind}: {_quote(value)}"
        self.errors.append(f"{path}: {body}" + (f": {detail}" if detail else ""))

    def required(self, path: str, detail: str = "") -> None:
        self._add(path, "Required value", _OMIT, detail)

    def invalid(self, path: str, value: Any, detail: str) -> None:
        self._add(path, "Invalid value", value, detail)

    def invalid_all(self, path: str, value: Any, messages: Iterable[str]) -> None:
        for msg in messages:
            self.invalid(path, value, msg)

    def not_supported(self, path: str, value: Any, supported: Iterable[str]) -> None:
        self._add(path, "Unsupported value", value,
                  "supported values: " + ", ".join(json.dumps(s) for s in supported))

    def duplicate(self, path: str, value: Any) -> None:
        self._add(path, "Duplicate value", value, "")

    def forbidden(self, path: str, detail: str) -> None:
        self._add(path, "Forbidden", _OMIT, detail)

    def too_long(self, path: str, max_length: int) -> None:
        self._add(path, "Too long", _OMIT, f"may not be more than {max_length} bytes")

    def too_many(self, path: str, actual: int, max_items: int) -> None:
        self._add(path, "Too many", actual, f"must have at most {max_items} items")

    def raise_if_any(self) -> None:
        """One ValueError listing every error (the API server's ``is invalid: [...]``)."""
        if len(self.errors) == 1:
            raise ValueError(self.errors[0])
        if self.errors:
            raise ValueError("[" + ", ".join(self.errors) + "]")
