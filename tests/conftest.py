"""Test-wide Hypothesis settings, and the `--doc-update` option of tests/docs.

No per-example deadline: property tests here check behaviour, never speed (benchmarks do that), and a
shared CI machine can make any one example slow. Derandomized: the same examples on every run, so a
failure reproduces and CI never fails on a seed nobody saw.
"""

import pytest
from hypothesis import settings

settings.register_profile("kubesched", deadline=None, derandomize=True)
settings.load_profile("kubesched")


def pytest_addoption(parser: pytest.Parser) -> None:
    # Here rather than in tests/docs/conftest.py, so that `pytest --doc-update` is understood
    # from the repository root too.
    parser.addoption("--doc-update", action="store_true", dest="doc_update",
                     help="rewrite the outputs shown in the docs' console examples to what "
                          "the commands print now, instead of failing (tests/docs)")
