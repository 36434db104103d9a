"""Feature gates as plugins see them: from ``handle.features`` when a handle is given,
otherwise the newest upstream default (passed in by the caller, never read from a global)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kubesched.framework import Handle

__all__ = ["feature_enabled"]


def feature_enabled(handle: Handle | None, name: str, default: bool) -> bool:
    features = handle.features if handle is not None else None
    if not features:
        return default
    return bool(features.get(name, default))
