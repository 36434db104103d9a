"""``.ci/run``: its own virtual environment, every tool from it, the README's commands, exit codes.

The script runs against a stand-in Python whose ``-m venv`` makes a venv of logging stubs, so
the test checks what CI runs, in which order and from where, without installing anything.
"""

from __future__ import annotations

import re
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOOLS = ("python", "ruff", "mypy", "lint-imports", "kubesched", "mkdocs", "pytest")

FAKE_PYTHON = """#!/usr/bin/env bash
# A system Python that can only make a venv (as a stock Debian one: no pip install outside one).
if [ "$1 $2" != "-m venv" ]; then echo "system python used: $*" >> "$CI_LOG"; exit 99; fi
echo "venv $3" >> "$CI_LOG"
mkdir -p "$3/bin"
for tool in %(tools)s; do
  cat > "$3/bin/$tool" <<'STUB'
#!/usr/bin/env bash
name=$(basename "$0")
echo "$name $*" >> "$CI_LOG"
rc_var="FAKE_RC_${name//-/_}"
exit "${!rc_var:-0}"
STUB
  chmod +x "$3/bin/$tool"
done
"""


def _bash_block(readme: str) -> list[str]:
    block = re.search(r"```bash\n(.*?)```", readme, re.S)
    assert block is not None
    return [cmd.strip() for line in block.group(1).splitlines() for cmd in line.split("&&")]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / ".ci").mkdir()
    shutil.copy(ROOT / ".ci" / "run", tmp_path / ".ci" / "run")
    fake = tmp_path / "system-python3"
    fake.write_text(FAKE_PYTHON % {"tools": " ".join(TOOLS)})
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    return tmp_path


def _fake_bin(repo: Path, *, chromium: bool, root: bool = True) -> Path:
    """A PATH of its own: the few system tools the script and the stubs use, ``id`` answering
    as ``root`` says, ``apt-get`` logging, and Chromium's commands only when ``chromium``."""
    bin_dir = repo / "bin"
    bin_dir.mkdir(exist_ok=True)
    for tool in ("bash", "dirname", "basename", "mkdir", "cat", "chmod"):
        found = shutil.which(tool)
        assert found is not None, tool
        (bin_dir / tool).symlink_to(found)
    stubs = {"id": f"echo {0 if root else 1000}", "apt-get": 'echo "apt-get $*" >> "$CI_LOG"'}
    if chromium:
        stubs.update(chromium="exit 0", chromedriver="exit 0")
    for name, body in stubs.items():
        (bin_dir / name).write_text(f"#!/bin/bash\n{body}\n")
        (bin_dir / name).chmod(0o755)
    return bin_dir


def _run(repo: Path, *, chromium: bool = True, root: bool = True, **rcs: int) -> tuple[int, list[str]]:
    log = repo / "ci.log"
    bin_dir = repo / "bin" if (repo / "bin").exists() else _fake_bin(repo, chromium=chromium, root=root)
    env = {"PATH": str(bin_dir), "HOME": str(repo), "CI_LOG": str(log),
           "PYTHON": str(repo / "system-python3"), **{f"FAKE_RC_{k}": str(v) for k, v in rcs.items()}}
    proc = subprocess.run(["bash", str(repo / ".ci" / "run")], env=env, cwd="/", capture_output=True,
                          text=True, check=False)
    return proc.returncode, [line.rstrip() for line in log.read_text().splitlines()] if log.exists() else []


def test_ci_makes_a_venv_and_runs_the_readme_commands_from_it(repo: Path) -> None:
    rc, log = _run(repo)
    assert rc == 0
    assert log == [
        "venv .venv",
        "python -m pip install --quiet --upgrade pip",
        "python -m pip install --quiet -e .[test,ray,docs,browser]",
        "ruff check src tests",
        "mypy",
        "lint-imports",
        "kubesched --version",
        "kubesched simulate examples/quickstart/",
        "mkdocs build --strict --quiet",
        "pytest",
    ]
    # The README's first commands, as a new user types them, are what CI runs.
    readme = _bash_block((ROOT / "README.md").read_text())
    assert "kubesched simulate examples/quickstart/" in readme and "pytest" in readme


def test_ci_installs_debians_chromium_for_the_browser_tests_when_it_is_missing(repo: Path) -> None:
    rc, log = _run(repo, chromium=False)
    assert rc == 0
    assert log[:4] == [
        "venv .venv",
        "apt-get update -q",
        "apt-get install -y -q --no-install-recommends chromium chromium-driver fonts-liberation",
        "python -m pip install --quiet --upgrade pip",
    ]


def test_ci_leaves_apt_alone_when_not_root(repo: Path) -> None:
    rc, log = _run(repo, chromium=False, root=False)
    assert rc == 0 and not any(line.startswith("apt-get") for line in log)


def test_ci_reuses_its_venv(repo: Path) -> None:
    _run(repo)
    (repo / "ci.log").unlink()
    rc, log = _run(repo)
    assert rc == 0 and log[0] == "python -m pip install --quiet --upgrade pip"


def test_pytest_exit_code_is_the_scripts(repo: Path) -> None:
    rc, log = _run(repo, pytest=3)
    assert rc == 3 and log[-1] == "pytest"


@pytest.mark.parametrize("tool", ["ruff", "mypy", "lint_imports", "kubesched", "mkdocs"])
def test_a_failing_step_stops_ci(repo: Path, tool: str) -> None:
    rc, log = _run(repo, **{tool: 5})
    assert rc == 5 and "pytest" not in log
