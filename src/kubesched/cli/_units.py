"""One unit per table column for resource amounts (cpu, memory, storage, counts).

``format_quantity`` prints each amount in its own shortest exact form (``3`` next to ``3900m``,
``6Gi`` next to ``15991828Ki``), which is hard to compare down a column. Here the style is
chosen once for all the amounts a column shows:

- cpu: whole cores (``2``, ``4``) when every amount is a whole number of cores, else millicores
  for all (``2000m``, ``250m``);
- bytes (memory, ephemeral-storage, storage, hugepages-*): the largest binary unit (Ki ... Ei)
  that every non-zero amount reaches, with at most two decimals (``0.5Gi`` never appears: the
  column is in Mi then, ``512Mi``);
- anything else (pods, extended resources) is a count, printed as is.

The JSON report keeps exact integers (millicores, bytes).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

__all__ = ["column_formatter"]

_BINARY_UNITS = (("Ei", 1 << 60), ("Pi", 1 << 50), ("Ti", 1 << 40), ("Gi", 1 << 30), ("Mi", 1 << 20),
                 ("Ki", 1 << 10))


def _is_bytes(name: str) -> bool:
    return name in ("memory", "ephemeral-storage", "storage") or name.startswith("hugepages-")


def column_formatter(name: str, amounts: Iterable[int]) -> Callable[[int], str]:
    """The formatter for resource ``name`` (amounts as the scheduler keeps them: millicores for
    cpu, bytes, counts) serving every one of ``amounts``."""
    values = list(amounts)
    if name == "cpu":
        if all(v % 1000 == 0 for v in values):
            return lambda v: str(v // 1000)
        return lambda v: f"{v}m"
    if not _is_bytes(name):
        return str
    smallest = min((abs(v) for v in values if v), default=0)
    for suffix, factor in _BINARY_UNITS:
        if smallest >= factor:
            return _in_unit(suffix, factor)
    return str


def _in_unit(suffix: str, factor: int) -> Callable[[int], str]:
    def fmt(amount: int) -> str:
        """``amount / factor`` with at most two decimals, trailing zeros dropped (``15.25``)."""
        if amount % factor == 0:
            return f"{amount // factor}{suffix}"
        return f"{amount / factor:.2f}".rstrip("0").rstrip(".") + suffix

    return fmt
