"""The architecture's contracts (``[tool.importlinter]`` in pyproject.toml) hold, and they bite.

``lint-imports`` checks them in .ci/run; running it here too keeps the check in the README's
test command. The planted violations prove each contract catches what it is there for: a
framework that names a plugin, a plugin that reaches into another, a lower layer that imports
a higher one, another package's private module."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINT = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which("lint-imports")

pytestmark = pytest.mark.skipif(LINT is None,
                                reason="import-linter is not installed (pip install -e '.[test]')")


def _lint(src: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    assert LINT is not None
    return subprocess.run([LINT, "--no-cache"], cwd=cwd, capture_output=True, text=True,
                          env={"PYTHONPATH": str(src), "PATH": str(Path(LINT).parent)}, timeout=300)


def test_the_contracts_are_kept() -> None:
    got = _lint(ROOT / "src", ROOT)
    assert got.returncode == 0, got.stdout + got.stderr


@pytest.mark.parametrize(("importer", "source", "broken"), [
    pytest.param("framework/_nominated.py", "from kubesched.plugins.noderesources import Fit\n",
                 "Layers point down only", id="framework-names-a-plugin"),
    pytest.param("api/_pod.py", "import kubesched.cluster\n", "Layers point down only",
                 id="api-imports-cluster"),
    pytest.param("plugins/noderesources/fit.py", "import kubesched.plugins.dynamicresources\n",
                 "Plugin packages are independent", id="plugin-imports-another-plugin"),
    pytest.param("framework/_runtime.py", "from kubesched.framework.config import load_config\n",
                 "The framework core reads only the configuration's types", id="core-decodes-config"),
    pytest.param("cli/_render.py", "from kubesched.scheduler._explain import Explanation\n",
                 "Private modules stay private", id="private-module-of-another-package"),
])
def test_a_planted_violation_is_caught(tmp_path: Path, importer: str, source: str, broken: str) -> None:
    src = tmp_path / "src"
    shutil.copytree(ROOT / "src" / "kubesched", src / "kubesched",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    target = src / "kubesched" / importer
    target.write_text(target.read_text() + "\n" + source)
    got = _lint(src, tmp_path)
    assert got.returncode != 0
    assert f"{broken} BROKEN" in got.stdout, got.stdout
