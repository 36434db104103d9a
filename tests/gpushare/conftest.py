from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).parents[2] / "examples" / "gpushare"


@pytest.fixture(scope="session", autouse=True)
def _example_importable() -> Iterator[None]:
    """The plugins importable, as once ``pip install examples/gpushare`` ran."""
    sys.path.insert(0, str(EXAMPLE))
    try:
        yield
    finally:
        sys.path.remove(str(EXAMPLE))
