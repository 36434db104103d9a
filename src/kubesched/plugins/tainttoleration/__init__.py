"""The TaintToleration Filter/Score plugin."""

from .taint_toleration import ERR_REASON_NOT_MATCH, ERR_REASON_UNTOLERATED, NAME, TaintToleration

__all__ = ["ERR_REASON_NOT_MATCH", "ERR_REASON_UNTOLERATED", "NAME", "TaintToleration"]
