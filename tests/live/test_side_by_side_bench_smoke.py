"""benchmarks/side_by_side.py at its smallest, so the script cannot rot: its own control plane
(v1.32), one seed of bursts, the table printed."""

from __future__ import annotations

import importlib.util
import shutil
import sys

import pytest

from ._side_by_side import FOLDERS
from .conftest import REPO, _missing


def test_side_by_side_benchmark_runs_one_seed(capsys: pytest.CaptureFixture[str]) -> None:
    script = REPO.parent / "shared" / FOLDERS["1.32"] / "control-plane"
    if not script.is_file():
        _missing(f"{script} not found")
    for tool in ("curl", "openssl", "xz"):
        if shutil.which(tool) is None:
            _missing(f"{tool} is not installed")
    path = REPO / "benchmarks" / "side_by_side.py"
    spec = importlib.util.spec_from_file_location("side_by_side_bench", path)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = bench
    spec.loader.exec_module(bench)
    assert bench.main(["--releases", "1.32", "--kinds", "bursts", "--seeds", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["release", "kind", "seeds", "compared", "mismatches", "seconds"]
    release, kind, seeds, compared, mismatches, _ = out[1].split()
    assert (release, kind, seeds, mismatches) == ("v1.32", "bursts", "1", "0") and int(compared) >= 10
    assert "side_by_side.py" in (REPO / "benchmarks" / "README.md").read_text()
