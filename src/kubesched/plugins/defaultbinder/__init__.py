"""The DefaultBinder Bind plugin."""

from .default_binder import NAME, DefaultBinder

__all__ = ["NAME", "DefaultBinder"]
