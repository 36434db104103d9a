"""``pip install kubesched`` without the ``live`` extra must run the offline commands: loading
the command line, or running ``simulate``, never imports the live client stack. And each
command imports only what it needs: a command's module is loaded when that command runs, so
``replay`` or ``run`` does not pay for the web UI, the benchmark or the other commands."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import kubesched.cli
from kubesched.cli import app, load_every_command
from kubesched.cli._main import COMMAND_MODULES

ROOT = Path(__file__).parent.parent.parent
EXAMPLES = ROOT / "examples"

LIVE_MODULES = ("urllib3", "kubernetes", "orjson", "cryptography", "kubesched.cluster.live",
                "kubesched.app.server")
UI = ("kubesched.ui", "kubesched.cli._ui")
BENCH = ("kubesched.perf", "kubesched.cli._bench")
EXTENDER = ("kubesched.extender", "kubesched.cli._extender")
REPLAY = ("kubesched.replay", "kubesched.cli._replay", "matplotlib")
CAPACITY = ("kubesched.simulator.capacity", "kubesched.cli._capacity")
SIMULATE = ("kubesched.cli._simulate", "kubesched.cli._explain", "kubesched.cli._validate")
SERVING = ("kubesched.app", "kubesched.serving", "kubesched.cli._run")


def _imported(args: list[str], modules: tuple[str, ...]) -> list[str]:
    """Which of ``modules`` a fresh interpreter has imported after ``kubesched ARGS``."""
    code = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from kubesched.cli import app\n"
        f"r = CliRunner().invoke(app, {args!r})\n"
        "assert r.exit_code == 0, r.output\n"
        f"print(sorted(m for m in {modules!r} if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return list(eval(out.stdout.strip().splitlines()[-1]))  # a printed list of names


def test_the_offline_command_line_does_not_import_the_live_stack() -> None:
    assert _imported(["simulate", str(EXAMPLES / "quickstart")], LIVE_MODULES) == []


def test_replay_imports_neither_the_ui_nor_the_bench_nor_the_live_server() -> None:
    replay = EXAMPLES / "replay"
    args = ["replay", str(replay / "trace.jsonl"), "--cluster", str(replay / "cluster.yaml"),
            "--no-plots", "-o", "json"]
    not_needed = LIVE_MODULES + UI + BENCH + EXTENDER + CAPACITY + SERVING + ("matplotlib",)
    assert _imported(args, not_needed) == []


@pytest.mark.parametrize("command", ["run", "extender"])
def test_the_live_commands_help_imports_only_their_own_module(command: str) -> None:
    others = UI + BENCH + REPLAY + CAPACITY + SIMULATE + ("kubesched.simulator",)
    if command == "run":
        others += EXTENDER
    assert _imported([command, "--help"], others) == []


def test_every_command_module_is_in_the_table() -> None:
    """A command registered by a module the table does not name could never be run."""
    for module in pkgutil.iter_modules(kubesched.cli.__path__):
        importlib.import_module(f"kubesched.cli.{module.name}")
    load_every_command()
    assert sorted(c.name or "" for c in app.registered_commands) == sorted(COMMAND_MODULES)
