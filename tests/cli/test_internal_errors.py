"""An internal error (a bug: an exception no command expected) is one line on stderr and exit
code 70 in every command; ``-v`` adds the traceback. Bad input stays exit code 2."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from kubesched.cli import app, load_every_command
from kubesched.simulator import Simulator

runner = CliRunner()

EXIT_INTERNAL_ERROR = 70
QUICKSTART = Path(__file__).parent.parent.parent / "examples" / "quickstart"
load_every_command()  # the commands register when their modules are first imported
COMMANDS = sorted(c.name or "" for c in app.registered_commands)
ONE_LINE = ("error: internal error: RuntimeError: boom; second line (this is a bug in kubesched; "
            "please report it, with -v for the traceback)\n")


def _required_args(command: str) -> list[str]:
    """A placeholder for each required argument and option (the command fails before reading it)."""
    click_command = typer.main.get_command(app).commands[command]  # type: ignore[attr-defined]
    out: list[str] = []
    for p in click_command.params:
        if p.required:
            out += ["x"] if p.param_type_name == "argument" else [p.opts[0], "x"]
    return out


def _verbose(command: str) -> list[str]:
    return ["-v", "1"] if command in ("run", "extender") else ["-v"]  # their -v N is klog's


@pytest.fixture
def every_command_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each command's function raises at once (arguments parsed, nothing done)."""
    for info in app.registered_commands:
        assert info.callback is not None

        @functools.wraps(info.callback)
        def boom(*_args: Any, **_kwargs: Any) -> None:
            raise RuntimeError("boom\nsecond line")

        monkeypatch.setattr(info, "callback", boom)


@pytest.mark.parametrize("command", COMMANDS)
def test_one_line_and_its_own_exit_code(command: str, every_command_raises: None) -> None:
    result = runner.invoke(app, [command, *_required_args(command)])
    assert result.exit_code == EXIT_INTERNAL_ERROR, result.output
    assert result.stderr == ONE_LINE
    assert result.stdout == ""


@pytest.mark.parametrize("command", COMMANDS)
def test_verbose_adds_the_traceback(command: str, every_command_raises: None) -> None:
    result = runner.invoke(app, [command, *_required_args(command), *_verbose(command)])
    assert result.exit_code == EXIT_INTERNAL_ERROR, result.output
    assert result.stderr.startswith("Traceback (most recent call last):\n")
    assert 'raise RuntimeError("boom\\nsecond line")' in result.stderr
    assert result.stderr.endswith(ONE_LINE)


def test_inside_a_simulation(monkeypatch: pytest.MonkeyPatch) -> None:
    def settle(_self: Simulator, *_args: Any) -> Any:
        raise KeyError("cpu")

    monkeypatch.setattr(Simulator, "settle", settle)
    result = runner.invoke(app, ["simulate", str(QUICKSTART)])
    assert result.exit_code == EXIT_INTERNAL_ERROR, result.output
    assert result.stderr == ("error: internal error: KeyError: 'cpu' (this is a bug in kubesched; "
                             "please report it, with -v for the traceback)\n")


def test_bad_input_stays_exit_2(tmp_path: Path) -> None:
    result = runner.invoke(app, ["simulate", str(tmp_path / "missing.yaml"), "-v"])
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("error: ") and "internal" not in result.stderr
    assert "Traceback" not in result.stderr


def test_usage_errors_stay_click_s() -> None:
    result = runner.invoke(app, ["simulate", "--no-such-option"])
    assert result.exit_code == 2
    assert "internal error" not in result.output
