from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from .helpers import EXAMPLE


@pytest.fixture(scope="session", autouse=True)
def _example_importable() -> Iterator[None]:
    """The example plugin's module importable, as once it is pip-installed."""
    sys.path.insert(0, str(EXAMPLE))
    try:
        yield
    finally:
        sys.path.remove(str(EXAMPLE))
