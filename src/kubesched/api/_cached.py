"""A lock-free ``functools.cached_property``.

CPython 3.11's ``cached_property`` takes a lock on every first access, and one lock per
property, shared by all instances (python/cpython issue 87634); 3.12 removed it, so a value
computed twice by two threads racing is already what 3.12 does. The hot pod properties
(requests, host ports, claims, the object key) are first read once per pod in every scheduling
cycle, and the lock's acquire and release cost more than the lookups they guard.
Semantics are otherwise those of ``cached_property``: the value is computed on the first
access and stored in the instance's ``__dict__`` under the property's name, where later
accesses find it without calling the descriptor (it defines no ``__set__``), and where copies
that clone ``__dict__`` carry it over.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, Self, TypeVar, overload

__all__ = ["cached_property"]

_T = TypeVar("_T")


class cached_property(Generic[_T]):
    """``functools.cached_property`` without 3.11's lock (see the module docstring)."""

    def __init__(self, func: Callable[[Any], _T]) -> None:
        self.func = func
        self.attrname = func.__name__
        self.__doc__ = func.__doc__
        self.__module__ = func.__module__

    def __set_name__(self, owner: type, name: str) -> None:
        self.attrname = name

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> Self: ...

    @overload
    def __get__(self, instance: object, owner: type | None = None) -> _T: ...

    def __get__(self, instance: object | None, owner: type | None = None) -> _T | Self:
        if instance is None:
            return self
        value = instance.__dict__[self.attrname] = self.func(instance)
        return value
