"""Every console example in the docs runs and prints what the page shows (see ``_doctest``).

One test per ```` ```console ```` block, named after its page and line
(``test_example[README.md:279]``), and one per page refusing blocks that would hide output
from these checks. ``pytest tests/docs --doc-update`` rewrites the shown outputs instead.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ._doctest import (
    ROOT,
    DocError,
    Example,
    Rewrite,
    diff,
    doc_files,
    environment,
    examples,
    lint,
    matches,
    run,
    scratch_copy,
    updated,
)

PAGES = doc_files()
EXAMPLES = [example for page in PAGES for example in examples(page)]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_fences(page: Path) -> None:
    problems = lint(page, page.read_text(encoding="utf-8").splitlines())
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: e.where)
def test_example(example: Example, tmp_path: Path, doc_rewrites: list[Rewrite] | None) -> None:
    if example.problem:
        pytest.fail(example.problem, pytrace=False)
    if example.skip:
        pytest.skip(example.skip)
    cwd, env = scratch_copy(tmp_path), environment()
    failures = []
    for command in example.commands:
        where = f"{example.where.rsplit(':', 1)[0]}:{command.line}"
        try:
            status, actual = run(command, cwd, env)
        except DocError as problem:
            failures.append(f"{where}: {problem}")
            continue
        if status != 0:
            failures.append(f"{where}: `{command.text}` exited {status} (a command shown must "
                            "succeed; show a failure as `...; echo \"exit $?\"`):\n"
                            + "\n".join(actual))
        elif matches(command.expected, actual):
            continue
        elif doc_rewrites is not None:
            doc_rewrites.append(Rewrite(example.path, command.output_start, command.output_end,
                                        tuple(updated(command.expected, actual)), command.indent))
        else:
            failures.append(f"{where}: `{command.text}` printed something else "
                            "(- shown, + printed; `pytest tests/docs --doc-update` rewrites "
                            "the page):\n" + diff(command.expected, actual))
    if failures:
        pytest.fail("\n\n".join(failures), pytrace=False)
