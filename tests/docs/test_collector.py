"""The doc-test collector's own rules: what counts as an example, how output is compared, what
``--doc-update`` writes back. Pages here are in-memory lines; the one run goes through bash."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ._doctest import (
    ROOT,
    Command,
    DocError,
    Rewrite,
    apply,
    environment,
    examples,
    lint,
    matches,
    run,
    updated,
)

PAGE = ROOT / "docs" / "page.md"


def _page(text: str) -> list[str]:
    return text.strip("\n").splitlines()


def test_a_console_block_is_commands_each_followed_by_its_output() -> None:
    [example] = examples(PAGE, _page("""
Intro.

```console
$ kubesched simulate a/ \\
    --seed 1
first
  second

$ kubesched --version
kubesched 1.0
```
"""))
    assert example.where == "docs/page.md:3"
    first, second = example.commands
    assert first.text == "kubesched simulate a/ \\\n    --seed 1"
    assert first.line == 4 and first.expected == ("first", "  second")
    assert second.expected == ("kubesched 1.0",)
    assert example.skip is None and example.problem is None


@pytest.mark.parametrize("text", [
    "```bash\nkubesched simulate a/\n```",
    "```python\nprint(1)\n```",
    "```text\n$ not a command\n```",
], ids=["bash", "python", "text"])
def test_only_console_blocks_are_examples(text: str) -> None:
    assert examples(PAGE, _page(text)) == []


def test_an_indented_console_block_keeps_the_outputs_own_indentation() -> None:
    [example] = examples(PAGE, _page("- item\n\n  ```console\n  $ echo\n    x\n  ```"))
    [command] = example.commands
    assert command.expected == ("  x",) and command.indent == "  "


def test_the_skip_marker_needs_a_reason() -> None:
    [skipped] = examples(PAGE, _page(
        "<!-- doctest: skip (needs a live cluster) -->\n\n```console\n$ kubesched run\n```"))
    assert skipped.skip == "needs a live cluster"
    [unexplained] = examples(PAGE, _page("<!-- doctest: skip -->\n```console\n$ x\n```"))
    assert unexplained.problem is not None and "why" in unexplained.problem


def test_output_before_any_command_is_a_problem() -> None:
    [example] = examples(PAGE, _page("```console\nsome output\n$ x\n```"))
    assert example.problem is not None and "starts with a `$ ` command" in example.problem


def test_lint_refuses_fences_that_would_hide_output() -> None:
    problems = lint(PAGE, _page("```\noutput\n```\n\n```bash\n$ kubesched x\n```\n\n"
                                "```bash\nkubesched x\n```\n\n```text\nusage\n```"))
    assert [p.split(":")[1] for p in problems] == ["1", "5"]
    assert "without a language" in problems[0] and "prompts" in problems[1]


def test_lint_refuses_a_marker_that_marks_no_console_block() -> None:
    [problem] = lint(PAGE, _page("<!-- doctest: skip (slow) -->\n```bash\nkubesched x\n```"))
    assert "markers apply to console blocks only" in problem


@pytest.mark.parametrize("expected, actual, ok", [
    (["a", "b"], ["a", "b"], True),
    (["a", "b"], ["a", "c"], False),
    (["a"], ["a", "b"], False),
    (["a", "..."], ["a", "b", "c"], True),
    (["a", "...", "d"], ["a", "d"], True),
    (["a", "  ...", "d"], ["a", "b", "c", "d"], True),
    (["took ...s"], ["took 1.52s"], True),
    (["took ...s"], ["took 1.52ms", "more"], False),
    (["...", "end"], ["x", "end", "y"], False),
    (["a (b) [c]"], ["a (b) [c]"], True),
], ids=["same", "changed", "extra-line", "trailing-wildcard", "empty-wildcard",
        "indented-wildcard", "inline", "inline-line-only", "wildcard-then-end",
        "regex-characters-are-literal"])
def test_ellipsis_matching(expected: list[str], actual: list[str], ok: bool) -> None:
    assert matches(expected, actual) is ok


def test_update_keeps_what_still_matches_and_the_wildcards() -> None:
    expected = ["Add 2 nodes", "...", "│ web │ 4 │", "...", "took ...s", "done: 10"]
    actual = ["Add 3 nodes", "x", "y", "│ web │ 4 │", "z", "took 2s", "done: 11"]
    assert updated(expected, actual) == [
        "Add 3 nodes", "...", "│ web │ 4 │", "...", "took ...s", "done: 11"]
    assert matches(updated(expected, actual), actual)


def test_apply_rewrites_outputs_bottom_up(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("```console\n$ a\nold a\n$ b\nold b\nold b\n```\n", encoding="utf-8")
    apply([Rewrite(page, 2, 3, ("new a", "new a"), ""), Rewrite(page, 4, 6, ("new b",), "")])
    assert page.read_text(encoding="utf-8") == (
        "```console\n$ a\nnew a\nnew a\n$ b\nnew b\n```\n")


def test_commands_run_with_stdout_and_stderr_interleaved_and_no_kubeconfig(
        tmp_path: Path) -> None:
    command = Command(1, 'echo out; echo err >&2; echo "k=$KUBECONFIG c=${COLUMNS-unset}"',
                      (), 0, 0, "")
    status, lines = run(command, tmp_path, environment())
    assert status == 0
    assert lines == ["out", "err", "k=/dev/null c=unset"]


def test_a_command_over_the_time_limit_fails_naming_the_skip_marker(tmp_path: Path) -> None:
    command = Command(1, "sleep 30 & sleep 30", (), 0, 0, "")
    with pytest.raises(DocError, match=r"ran over 0\.1s: mark its block <!-- doctest: skip"):
        run(command, tmp_path, environment(), timeout=0.1)


def test_doc_update_end_to_end(tmp_path: Path) -> None:
    """A wrong output fails and leaves the page alone; with --doc-update the run passes and the
    page shows what the command printed, its `...` kept."""
    here = Path(__file__).parent
    shutil.copytree(here, tmp_path / "tests" / "docs",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(here.parent / "conftest.py", tmp_path / "tests" / "conftest.py")
    (tmp_path / "pyproject.toml").write_text("[tool.pytest.ini_options]\n", encoding="utf-8")
    page = tmp_path / "README.md"
    page.write_text("# Page\n\n```console\n$ echo hello\nbye\n\n$ printf 'a\\nb\\nc\\n'\n"
                    "a\n...\n```\n", encoding="utf-8")
    before = page.read_text(encoding="utf-8")

    def pytest_run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
                               "tests/docs/test_docs.py", *args], cwd=tmp_path, text=True,
                              capture_output=True, check=False)

    failed = pytest_run()
    assert failed.returncode == 1, failed.stdout
    assert "- bye" in failed.stdout and "+ hello" in failed.stdout
    assert page.read_text(encoding="utf-8") == before
    updated_run = pytest_run("--doc-update")
    assert updated_run.returncode == 0, updated_run.stdout
    assert "--doc-update rewrote 1 output(s)" in updated_run.stdout
    assert page.read_text(encoding="utf-8") == before.replace("bye", "hello")
    assert pytest_run().returncode == 0
