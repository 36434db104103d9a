"""The root command: ``--version``, ``-h`` on every command, shell completion."""

from __future__ import annotations

from importlib.metadata import version
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kubesched.cli import app, load_every_command

runner = CliRunner()

load_every_command()  # the commands register when their modules are first imported
COMMANDS = sorted(c.name or c.callback.__name__ for c in app.registered_commands if c.callback)


def test_version_from_package_metadata() -> None:
    result = runner.invoke(app, ["--version"], prog_name="kubesched")
    assert result.exit_code == 0, result.output
    assert result.stdout == f"kubesched {version('kubesched')}\n"


@pytest.mark.parametrize("command", [[], *([c] for c in COMMANDS)], ids=["root", *COMMANDS])
def test_dash_h_is_help(command: list[str]) -> None:
    long = runner.invoke(app, [*command, "--help"], prog_name="kubesched")
    short = runner.invoke(app, [*command, "-h"], prog_name="kubesched")
    assert long.exit_code == short.exit_code == 0, short.output
    assert short.stdout == long.stdout and "Usage: kubesched" in short.stdout
    assert "-h" in short.stdout and "--help" in short.stdout


def test_the_commands() -> None:
    assert {"bench", "explain", "simulate", "validate"} <= set(COMMANDS)


def _complete(words: str) -> list[str]:
    env = {"_KUBESCHED_COMPLETE": "complete_bash", "COMP_WORDS": words,
           "COMP_CWORD": str(len(words.split()) - (0 if words.endswith(" ") else 1))}
    result = runner.invoke(app, [], prog_name="kubesched", env=env)
    assert result.exit_code == 0, result.output
    return result.stdout.split()


def test_completion_of_commands_and_options() -> None:
    assert _complete("kubesched sim") == ["simulate"]
    assert sorted(_complete("kubesched ")) == COMMANDS  # listed in registration order
    opts = _complete("kubesched simulate --")
    assert {"--config", "--seed", "--output", "--fail-on-unschedulable", "--help"} <= set(opts)
    assert _complete("kubesched simulate -o ") == ["table", "wide", "json", "yaml"]
    assert _complete("kubesched --ver") == ["--version"]


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_show_completion_script(shell: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # Outside this test the shell is detected from the parent process; here it is named.
    monkeypatch.setenv("_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION", "1")
    result = runner.invoke(app, ["--show-completion", shell], prog_name="kubesched")
    assert result.exit_code == 0, result.output
    assert "_KUBESCHED_COMPLETE" in result.stdout and "kubesched" in result.stdout


def test_install_completion(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert "--install-completion" in runner.invoke(app, ["--help"], prog_name="kubesched").stdout
    monkeypatch.setenv("_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION", "1")
    monkeypatch.setenv("HOME", str(tmp_path))
    result = runner.invoke(app, ["--install-completion", "bash"], prog_name="kubesched")
    assert result.exit_code == 0, result.output
    assert "bash completion installed in" in result.stdout
    script = tmp_path / ".bash_completions" / "kubesched.sh"
    assert "_KUBESCHED_COMPLETE" in script.read_text()
    assert str(script) in (tmp_path / ".bashrc").read_text()
