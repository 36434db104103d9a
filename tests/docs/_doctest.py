"""The documentation's console examples, found, run and compared.

A ```` ```console ```` block in the docs is a transcript: each line starting with ``$ `` is a
command (continued onto the next line while it ends in ``\\``, as the shell does), and the lines
up to the next command are what it prints, stdout and stderr together, as a terminal shows
them. ``...`` is doctest's ELLIPSIS: inside a line it matches any text on that line; a line
that is only ``...`` matches any number of lines, none included. That one rule also covers what
varies between runs (timings, versions): write ``...`` where it goes.

An HTML comment ``<!-- doctest: skip (why) -->`` on the line before a block (blank lines
between allowed) skips it, for commands that need a live cluster or run for minutes. Blocks
that show commands only (```` ```bash ````) are not run; a fence without a language, or a
shell block with ``$ `` prompts, is refused, so output cannot hide from the checks.

Why not ``doctest`` itself: it reads Python sessions, not shell transcripts. What is needed
here is small: run the installed entry point in a scratch copy of the repository, compare with
doctest's ELLIPSIS, and rewrite the shown outputs in place after an intended change
(``--doc-update``, as snapshot-testing tools do).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent

#: What is checked: the README, the examples' and benchmarks' READMEs, any page under docs/.
DOC_GLOBS = ("README.md", "examples/**/README.md", "benchmarks/**/README.md", "docs/**/*.md")

#: What each example runs in: a fresh copy of these, so a command may write files.
COPIED = ("examples", "schemas")

#: A command running longer than this fails: mark it skipped and say why instead.
TIMEOUT_SECONDS = 120.0

ELLIPSIS = "..."
PROMPT = "$ "
SHELL_LANGUAGES = frozenset({"bash", "sh", "shell", "zsh"})
_FENCE = re.compile(r"^(?P<indent> *)(?P<fence>```+|~~~+)(?P<info>.*)$")
_SKIP = re.compile(r"^<!--\s*doctest:\s*skip\s*(?P<why>\(.*\))?\s*-->$")


class DocError(Exception):
    """A block the collector cannot check as written; the message says how to fix it."""


@dataclass(frozen=True, slots=True)
class Command:
    """One ``$`` command of a transcript and the output the page shows for it."""

    line: int  # 1-based line of the ``$`` in the page
    text: str  # the command as the shell gets it (continuations joined by their newlines)
    expected: tuple[str, ...]  # the output lines shown, trailing blank lines dropped
    output_start: int  # 0-based index in the page of the first output line
    output_end: int  # 0-based index one past the last output line shown
    indent: str  # the fence's indentation, which every line of the block carries


@dataclass(frozen=True, slots=True)
class Example:
    """One ```` ```console ```` block: its commands run in order, in one scratch directory."""

    path: Path
    line: int  # 1-based line of the opening fence
    commands: tuple[Command, ...]
    skip: str | None  # why it is not run, from its marker
    problem: str | None = None  # why it cannot be checked as written

    @property
    def where(self) -> str:
        return f"{_name(self.path)}:{self.line}"


@dataclass(frozen=True, slots=True)
class _Block:
    line: int  # 1-based line of the opening fence
    info: str
    body_start: int  # 0-based index of the first line inside the fence
    body: tuple[str, ...]
    indent: str
    marker: str | None  # the last non-blank line before the fence


def _name(path: Path) -> str:
    return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.name


def doc_files(root: Path = ROOT) -> list[Path]:
    """Every page checked, in a stable order."""
    found: set[Path] = set()
    for pattern in DOC_GLOBS:
        found.update(p for p in root.glob(pattern) if p.is_file())
    return sorted(found)


def _blocks(lines: Sequence[str]) -> Iterator[_Block]:
    i = 0
    while i < len(lines):
        opening = _FENCE.match(lines[i])
        if opening is None:
            i += 1
            continue
        fence, indent = opening["fence"], len(opening["indent"])
        j = i + 1
        while j < len(lines):
            closing = _FENCE.match(lines[j])
            if (closing and closing["fence"].startswith(fence) and not closing["info"].strip()):
                break
            j += 1
        marker = next((lines[k].strip() for k in range(i - 1, -1, -1) if lines[k].strip()), None)
        body = tuple(line[indent:] if not line[:indent].strip() else line
                     for line in lines[i + 1:j])
        yield _Block(i + 1, opening["info"].strip(), i + 1, body, opening["indent"], marker)
        i = j + 1


def _skip_reason(marker: str | None, where: str) -> str | None:
    if marker is None or not marker.startswith("<!--") or "doctest" not in marker:
        return None
    found = _SKIP.match(marker)
    if found is None or not found["why"] or len(found["why"]) <= 2:
        raise DocError(f"{where}: write the marker as <!-- doctest: skip (why it cannot run) -->")
    return found["why"][1:-1]


def _commands(block: _Block, where: str) -> tuple[Command, ...]:
    commands: list[Command] = []
    body = block.body
    i = 0
    while i < len(body) and not body[i].strip():
        i += 1
    if i < len(body) and not body[i].startswith(PROMPT):
        raise DocError(f"{where}: a console block starts with a `$ ` command, then its output")
    while i < len(body):
        first = i
        parts = [body[i][len(PROMPT):]]
        while parts[-1].endswith("\\") and i + 1 < len(body):
            i += 1
            parts.append(body[i])
        i += 1
        start = i
        while i < len(body) and not body[i].startswith(PROMPT):
            i += 1
        end = i
        while end > start and not body[end - 1].strip():
            end -= 1
        commands.append(Command(
            line=block.body_start + first + 1,
            text="\n".join(parts),
            expected=tuple(line.rstrip() for line in body[start:end]),
            output_start=block.body_start + start,
            output_end=block.body_start + end,
            indent=block.indent,
        ))
    if not commands:
        raise DocError(f"{where}: an empty console block")
    return tuple(commands)


def lint(path: Path, lines: Sequence[str]) -> list[str]:
    """What in a page hides output from the checks: a fence without a language (output shown
    as plain text), a shell block with ``$`` prompts (a transcript not marked ``console``), a
    doctest marker on a block that is not run (it marks nothing)."""
    problems = []
    for block in _blocks(lines):
        where = f"{_name(path)}:{block.line}"
        language = block.info.split()[0] if block.info else ""
        if not language:
            problems.append(f"{where}: a fence without a language: `console` for a command "
                            "and its output (checked), `bash` for commands only, `text` for "
                            "anything else")
        elif language in SHELL_LANGUAGES and any(b.startswith(PROMPT) for b in block.body):
            problems.append(f"{where}: a {language} block with `$ ` prompts: mark a command "
                            "with its output `console`, or drop the prompts")
        if language != "console" and block.marker and block.marker.startswith("<!--") \
                and "doctest" in block.marker:
            problems.append(f"{where}: a doctest marker before a {language or 'plain'} block: "
                            "markers apply to console blocks only")
    return problems


def examples(path: Path, lines: Sequence[str] | None = None) -> list[Example]:
    """The console blocks of one page; one that cannot be checked as written has a ``problem``."""
    if lines is None:
        lines = path.read_text(encoding="utf-8").splitlines()
    found = []
    for block in _blocks(lines):
        if block.info.split()[:1] != ["console"]:
            continue
        where = f"{_name(path)}:{block.line}"
        try:
            found.append(Example(path, block.line, _commands(block, where),
                                 _skip_reason(block.marker, where)))
        except DocError as problem:
            found.append(Example(path, block.line, (), None, str(problem)))
    return found


# --- comparing ----------------------------------------------------------------------------

def _is_wildcard(expected: str) -> bool:
    return expected.strip() == ELLIPSIS


def _line_matches(expected: str, actual: str) -> bool:
    if ELLIPSIS not in expected:
        return expected == actual
    pattern = ".*".join(re.escape(part) for part in expected.split(ELLIPSIS))
    return re.fullmatch(pattern, actual) is not None


# Alignment steps: a line shown and printed, a wildcard line taking one printed line, a shown
# line not printed, a printed line not shown, a shown line printed differently.
KEEP, ABSORB, DROP, ADD, CHANGE = "keep", "absorb", "drop", "add", "change"


def align(expected: Sequence[str], actual: Sequence[str]) -> list[tuple[str, int, int]]:
    """The cheapest edit script from the shown lines to the printed ones, as (step, expected
    index, actual index); it has no DROP, ADD or CHANGE exactly when the output matches.
    Wildcard lines absorb printed lines for free; every other difference costs one."""
    n, m = len(expected), len(actual)
    inf = n + m + 1
    cost = [[inf] * (m + 1) for _ in range(n + 1)]
    cost[n] = [m - j for j in range(m + 1)]
    for i in range(n - 1, -1, -1):
        row, below = cost[i], cost[i + 1]
        e = expected[i]
        if _is_wildcard(e):
            row[m] = below[m]
            for j in range(m - 1, -1, -1):
                row[j] = min(below[j], row[j + 1])
            continue
        row[m] = below[m] + 1
        for j in range(m - 1, -1, -1):
            step = 0 if _line_matches(e, actual[j]) else 1
            row[j] = min(below[j + 1] + step, below[j] + 1, row[j + 1] + 1)
    script: list[tuple[str, int, int]] = []
    i = j = 0
    while i < n or j < m:
        if i == n:
            script.append((ADD, i, j))
            j += 1
        elif _is_wildcard(expected[i]):
            if j == m or cost[i][j] == cost[i + 1][j]:  # on a tie, show rather than hide
                script.append((KEEP, i, j))  # the wildcard itself, done absorbing
                i += 1
            else:
                script.append((ABSORB, i, j))
                j += 1
        elif j < m and _line_matches(expected[i], actual[j]) and cost[i][j] == cost[i + 1][j + 1]:
            script.append((KEEP, i, j))
            i, j = i + 1, j + 1
        elif j < m and cost[i][j] == cost[i + 1][j + 1] + 1:
            script.append((CHANGE, i, j))
            i, j = i + 1, j + 1
        elif cost[i][j] == cost[i + 1][j] + 1:
            script.append((DROP, i, j))
            i += 1
        else:
            script.append((ADD, i, j))
            j += 1
    return script


def matches(expected: Sequence[str], actual: Sequence[str]) -> bool:
    return all(step in (KEEP, ABSORB) for step, _, _ in align(expected, actual))


def diff(expected: Sequence[str], actual: Sequence[str]) -> str:
    """A unified-diff-like view: ``-`` shown but not printed, ``+`` printed but not shown."""
    out = []
    for step, i, j in align(expected, actual):
        if step == KEEP:
            out.append(f"  {expected[i]}")
        elif step == DROP:
            out.append(f"- {expected[i]}")
        elif step == ADD:
            out.append(f"+ {actual[j]}")
        elif step == CHANGE:
            out.extend((f"- {expected[i]}", f"+ {actual[j]}"))
    return "\n".join(out)


def updated(expected: Sequence[str], actual: Sequence[str]) -> list[str]:
    """The shown lines rewritten to match ``actual``, keeping every line that still matches,
    wildcards included, so an abbreviated output stays abbreviated."""
    out = []
    for step, i, j in align(expected, actual):
        if step == KEEP:
            out.append(expected[i])
        elif step in (ADD, CHANGE):
            out.append(actual[j])
    return out


# --- running ------------------------------------------------------------------------------

def environment() -> dict[str, str]:
    """The installed ``kubesched`` first on PATH; output as a pipe gets it (no COLUMNS, no
    colour), in UTF-8 whatever the locale (the tables' box drawing), unbuffered so stdout and
    stderr interleave as written; no kubeconfig, so an example can never reach a cluster."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("COLUMNS", "LINES", "FORCE_COLOR", "PYTHONPATH", "KUBECONFIG")}
    env["PATH"] = os.pathsep.join((str(Path(sys.executable).parent), env.get("PATH", "")))
    env.update(PYTHONUNBUFFERED="1", PYTHONIOENCODING="utf-8", NO_COLOR="1", TERM="dumb",
               KUBECONFIG=os.devnull)
    return env


def scratch_copy(into: Path, root: Path = ROOT) -> Path:
    """A copy of what the examples read, so that a command writing files changes nothing."""
    for name in COPIED:
        if (root / name).exists():
            shutil.copytree(root / name, into / name,
                            ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    return into


def run(command: Command, cwd: Path, env: dict[str, str],
        timeout: float = TIMEOUT_SECONDS) -> tuple[int, list[str]]:
    """Run one command as bash would; its exit status and output lines (trailing blanks and
    trailing spaces dropped, as on the page). On a timeout the whole process group is killed,
    so nothing the command started outlives it."""
    with subprocess.Popen(["bash", "-c", command.text], cwd=cwd, env=env, encoding="utf-8",
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          stdin=subprocess.DEVNULL, start_new_session=True) as process:
        try:
            output, _ = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            raise DocError(f"`{command.text}` ran over {timeout:g}s: mark its block "
                           "<!-- doctest: skip (why) -->") from None
    lines = [line.rstrip() for line in output.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return process.returncode, lines


# --- rewriting ----------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Rewrite:
    """New output lines for one command, applied to its page when the session ends."""

    path: Path
    start: int  # 0-based, as Command.output_start
    end: int
    lines: tuple[str, ...]
    indent: str


def apply(rewrites: Sequence[Rewrite]) -> list[Path]:
    """Write the new outputs into their pages, bottom up so earlier line numbers hold; the
    pages changed."""
    pages: dict[Path, list[Rewrite]] = {}
    for rewrite in rewrites:
        pages.setdefault(rewrite.path, []).append(rewrite)
    for path, edits in pages.items():
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        for edit in sorted(edits, key=lambda e: e.start, reverse=True):
            lines[edit.start:edit.end] = [f"{edit.indent}{line}".rstrip() for line in edit.lines]
        path.write_text("\n".join(lines) + ("\n" if text.endswith("\n") else ""),
                        encoding="utf-8")
    return sorted(pages)
