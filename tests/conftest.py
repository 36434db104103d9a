"""Test-wide Hypothesis settings, the `--doc-update` option of tests/docs, `--screenshots` of
tests/browser, and the `kubesched` logger put back after each test.

No per-example deadline: property tests here check behaviour, never speed (benchmarks do that), and a
shared CI machine can make any one example slow. Derandomized: the same examples on every run, so a
failure reproduces and CI never fails on a seed nobody saw.
"""

import logging
from collections.abc import Iterator

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
    parser.addoption("--screenshots", action="store_true", dest="screenshots",
                     help="write the screenshots of kubesched ui's main views into docs/images/ "
                          "(tests/browser/test_screenshots.py; without it they go to a temporary folder)")


@pytest.fixture(autouse=True)
def _kubesched_logger_restored() -> Iterator[None]:
    """A command run in-process (``run``/``extender`` through CliRunner) adds its handler on
    the stderr of that moment, a stream closed with the test: left attached, a later test's
    log line would go there ("--- Logging error ---"). Each test gets the logger as it was."""
    logger = logging.getLogger("kubesched")
    handlers, level = list(logger.handlers), logger.level
    yield
    logger.handlers[:] = handlers
    logger.setLevel(level)


@pytest.fixture(autouse=True)
def _quantity_reading_restored() -> Iterator[None]:
    """A command run in-process as an older release (``--kube-version``) reads out-of-range
    quantities as that release does from then on, process-wide: each test starts with the
    newest reading."""
    from kubesched.api import read_out_of_range_quantities

    read_out_of_range_quantities(True)
    yield
    read_out_of_range_quantities(True)
