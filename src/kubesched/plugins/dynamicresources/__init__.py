"""The DynamicResources plugin (DRA): a placeholder that refuses pods with resource claims."""

from .dynamic_resources import ERR_NOT_IMPLEMENTED, NAME, DynamicResources

__all__ = ["ERR_NOT_IMPLEMENTED", "NAME", "DynamicResources"]
