"""Parameter groups: options several commands share, declared once and read as one value.

typer reads a command's options from its signature. :func:`option_group` puts a group's options
in the place of one parameter of the command (its position in ``--help`` too) and calls the
command with their values gathered into the group's dataclass, so that the commands sharing
the group neither list its options again nor pass them on one by one.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

__all__ = ["flag_bool", "option_group", "parse_bool"]

F = TypeVar("F", bound=Callable[..., Any])

_TRUE = frozenset({"1", "t", "T", "TRUE", "true", "True"})
_FALSE = frozenset({"0", "f", "F", "FALSE", "false", "False"})


def parse_bool(text: str) -> bool:
    """Go's strconv.ParseBool: its spellings of true and false; ValueError in its words."""
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ValueError(f'strconv.ParseBool: parsing "{text}": invalid syntax')


def flag_bool(name: str, text: str | None) -> bool:
    """A Go boolean flag's value as pflag reads it: ``--flag`` alone (``text`` None) is true,
    ``--flag=BOOL`` is :func:`parse_bool`; ValueError in pflag's words."""
    if text is None:
        return True
    try:
        return parse_bool(text)
    except ValueError as exc:
        raise ValueError(f'invalid argument "{text}" for "{name}" flag: {exc}') from None


def option_group(param: str, group: Callable[..., Any],
                 options: Mapping[str, tuple[Any, Any]]) -> Callable[[F], F]:
    """Declare ``options`` (parameter name -> (annotation, ``typer.Option``)) on a typer
    command in place of its parameter ``param``, whose value becomes ``group(**values)``
    (a group's field without an option here keeps its default)."""

    def decorate(fn: F) -> F:
        sig = inspect.signature(fn, eval_str=True)
        if param not in sig.parameters:
            raise TypeError(f"{fn.__name__} has no parameter {param!r} for the option group")
        params: list[inspect.Parameter] = []
        for p in sig.parameters.values():
            if p.name != param:
                params.append(p)
                continue
            params += [inspect.Parameter(n, p.kind, default=opt, annotation=ann)
                       for n, (ann, opt) in options.items()]

        @functools.wraps(fn)
        def command(*args: Any, **kwargs: Any) -> Any:
            values = {n: kwargs.pop(n) for n in options}
            return fn(*args, **{param: group(**values)}, **kwargs)

        command.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
        command.__annotations__ = {p.name: p.annotation for p in params}
        return command  # type: ignore[return-value]

    return decorate
