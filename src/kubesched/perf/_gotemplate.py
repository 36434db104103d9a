"""The subset of Go's ``text/template`` that upstream's scheduler_perf templates use.

Upstream renders every template file with ``text/template`` before the YAML is read
(test/integration/scheduler_perf/create.go, ``getSpecFromTextTemplateFile``), with the env
``{Index, Count}`` plus the op's ``templateParams``, and its own FuncMap (``getTemplateFuncs``).
The DRA templates of ``listattributes/`` loop over those params
(``{{range $i := ($numDevices | Int)}}``), so a regular-expression placeholder cannot render
them. This module parses and executes that language as Go does, for the constructs the
templates use: text, ``{{- -}}`` trim markers, comments, ``if`` / ``else if`` / ``else``,
``range`` (over an integer, as Go 1.22 allows, a list or a map; one or two variables; ``else``;
``break`` / ``continue``), ``with``, variables (``$x := ...``, ``$x = ...``), pipelines with
``|``, parenthesized pipelines, field chains (``.a.b``), literals, the builtins (``and``, ``or``,
``not``, ``eq``, ``ne``, ``lt``, ``le``, ``gt``, ``ge``, ``len``, ``index``, ``print``,
``printf``, ``println``) and upstream's functions (``AddInt``, ``SubtractInt``, ``MultiplyInt``,
``DivideInt``, their ``Float`` forms, ``Mod``, ``Int``, ``JSON``). Values print as Go's ``fmt``
prints them (``%v``): a missing map key as ``<no value>``, ``nil`` as ``<nil>``, a list as
``[a b]``. ``define`` / ``template`` / ``block`` are not used upstream and are rejected.

An error (parse or execution) is one :class:`TemplateError` naming the line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ._gofuncs import FUNCS, MISSING, TemplateError, basic_kind, go_print, truth

__all__ = ["GoTemplate", "TemplateError", "go_print"]


# -- lexer --------------------------------------------------------------------------------------
_TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<declare>:=)
  | (?P<assign>=)
  | (?P<pipe>\|)
  | (?P<lparen>\()
  | (?P<rparen>\))
  | (?P<string>"(?:[^"\\\n]|\\.)*")
  | (?P<raw>`[^`]*`)
  | (?P<char>'(?:[^'\\\n]|\\.)+')
  | (?P<number>[+-]?(?:0[xX][0-9a-fA-F_]+|(?:\d[\d_]*(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?))
  | (?P<variable>\$\w*)
  | (?P<field>(?:\.\w+)+|\.)
  | (?P<ident>[A-Za-z_]\w*)
""", re.VERBOSE)


@dataclass(slots=True)
class _Tok:
    kind: str
    text: str


def _lex_action(body: str, line: int) -> list[_Tok]:
    toks: list[_Tok] = []
    i = 0
    while i < len(body):
        m = _TOKEN.match(body, i)
        if m is None:
            raise TemplateError(f"line {line}: unexpected {body[i]!r} in action")
        kind = m.lastgroup or ""
        text = m.group()
        # A field chain after a closing paren or variable: (.x).y / $x.y
        if kind == "field" and toks and toks[-1].kind in ("rparen", "variable") and text != "." \
                and i > 0 and not body[i - 1].isspace():
            kind = "chain"
        if kind != "space":
            toks.append(_Tok(kind, text))
        i = m.end()
    return toks


# -- AST ----------------------------------------------------------------------------------------
@dataclass(slots=True)
class _Node:
    line: int


@dataclass(slots=True)
class _Text(_Node):
    text: str


@dataclass(slots=True)
class _Pipeline(_Node):
    decl: list[str]
    is_assign: bool
    cmds: list[list[Any]]  # each command: a list of operands


@dataclass(slots=True)
class _Action(_Node):
    pipe: _Pipeline


@dataclass(slots=True)
class _Control(_Node):
    kind: str  # if, range, with
    pipe: _Pipeline
    body: list[_Node] = field(default_factory=list)
    else_body: list[_Node] | None = None


@dataclass(slots=True)
class _Break(_Node):
    is_continue: bool


@dataclass(slots=True)
class _Field:
    names: tuple[str, ...]  # () is dot


@dataclass(slots=True)
class _Var:
    name: str
    chain: tuple[str, ...] = ()


@dataclass(slots=True)
class _Ident:
    name: str


@dataclass(slots=True)
class _Lit:
    value: Any


@dataclass(slots=True)
class _Paren:
    pipe: _Pipeline
    chain: tuple[str, ...] = ()


class _BreakSignal(Exception):
    pass


class _ContinueSignal(Exception):
    pass


def _unquote(tok: _Tok, line: int) -> Any:
    if tok.kind == "raw":
        return tok.text[1:-1]
    if tok.kind == "string":
        try:
            return json.loads(tok.text) if "\\x" not in tok.text and "\\'" not in tok.text else \
                tok.text[1:-1].encode().decode("unicode_escape")
        except ValueError as exc:
            raise TemplateError(f"line {line}: bad string {tok.text}") from exc
    if tok.kind == "char":
        body = tok.text[1:-1].encode().decode("unicode_escape")
        if len(body) != 1:
            raise TemplateError(f"line {line}: bad character constant {tok.text}")
        return ord(body)
    t = tok.text.replace("_", "")
    try:
        if t.lower().startswith(("0x", "+0x", "-0x")):
            return int(t, 16)
        if re.fullmatch(r"[+-]?\d+", t):
            return int(t)
        return float(t)
    except ValueError as exc:
        raise TemplateError(f"line {line}: bad number syntax: {tok.text!r}") from exc


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.items = self._split(text)
        self.pos = 0
        # ``range $i, $e := ...``: the comma is no token of the operand lexer; the body is
        # rewritten to the declare form and the pair kept by item position.
        self.pairs: dict[int, list[str]] = {}
        for k, (kind, body, line) in enumerate(self.items):
            pair = _split_range_vars(body) if kind == "action" else None
            if pair is not None:
                self.pairs[k] = pair[0]
                self.items[k] = (kind, f"range {pair[0][1]} :={pair[1]}", line)

    @staticmethod
    def _split(text: str) -> list[tuple[str, str, int]]:
        """(kind, content, line): text pieces and action bodies, trim markers applied."""
        out: list[tuple[str, str, int]] = []
        i = 0
        trim_next = False
        while True:
            j = text.find("{{", i)
            chunk = text[i:] if j < 0 else text[i:j]
            line = text.count("\n", 0, i) + 1
            trim_left = j >= 0 and text.startswith(("{{- ", "{{-\t", "{{-\n", "{{-\r"), j)
            if trim_next:
                chunk = chunk.lstrip(" \t\r\n")
            if trim_left:
                chunk = chunk.rstrip(" \t\r\n")
            if chunk:
                out.append(("text", chunk, line))
            if j < 0:
                return out
            start = j + (4 if trim_left else 2)
            aline = text.count("\n", 0, j) + 1
            body_start = start
            if text.startswith("/*", start):
                end = text.find("*/", start)
                if end < 0:
                    raise TemplateError(f"line {aline}: unclosed comment")
                k = end + 2
                rest = text[k:]
                if rest.startswith(" -}}"):
                    trim_next, i = True, k + 4
                elif rest.startswith("}}"):
                    trim_next, i = False, k + 2
                else:
                    raise TemplateError(f"line {aline}: comment ends before closing delimiter")
                continue
            k = start
            in_quote = ""
            while k < len(text):
                c = text[k]
                if in_quote:
                    if c == "\\" and in_quote != "`":
                        k += 2
                        continue
                    if c == in_quote:
                        in_quote = ""
                elif c in "\"`'":
                    in_quote = c
                elif text.startswith("}}", k):
                    break
                k += 1
            else:
                raise TemplateError(f"line {aline}: unclosed action")
            body = text[body_start:k]
            trim_next = body.endswith((" -", "\t-", "\n-"))
            if trim_next:
                body = body[:-1]
            out.append(("action", body, aline))
            i = k + 2

    def parse(self) -> list[_Node]:
        nodes, end = self._list(())
        if end is not None:
            raise TemplateError(f"line {end[1]}: unexpected {{{{{end[0]}}}}}")
        return nodes

    def _list(self, stops: tuple[str, ...]) -> tuple[list[_Node], tuple[str, int, list[_Tok]] | None]:
        nodes: list[_Node] = []
        while self.pos < len(self.items):
            kind, body, line = self.items[self.pos]
            self.pos += 1
            if kind == "text":
                nodes.append(_Text(line, body))
                continue
            toks = _lex_action(body, line)
            if not toks:
                raise TemplateError(f"line {line}: missing value for command")
            head = toks[0]
            word = head.text if head.kind == "ident" else ""
            if word in ("end", "else"):
                if word not in stops:
                    raise TemplateError(f"line {line}: unexpected {{{{{word}}}}}")
                return nodes, (word, line, toks[1:])
            if word in ("if", "range", "with"):
                nodes.append(self._control(word, toks[1:], line))
            elif word in ("break", "continue"):
                if len(toks) != 1:
                    raise TemplateError(f"line {line}: unexpected {toks[1].text!r} in {word}")
                nodes.append(_Break(line, word == "continue"))
            elif word in ("define", "template", "block"):
                raise TemplateError(f"line {line}: {{{{{word}}}}} is not supported")
            else:
                nodes.append(_Action(line, self._pipeline(toks, line, allow_decl=True)))
        if stops:
            raise TemplateError(f"line {self.items[-1][2] if self.items else 1}: unexpected EOF "
                                f"(missing {{{{end}}}})")
        return nodes, None

    def _control(self, kind: str, toks: list[_Tok], line: int) -> _Control:
        pipe = self._pipeline(toks, line, allow_decl=True)
        if self.pos - 1 in self.pairs:
            pipe.decl = self.pairs[self.pos - 1]
        node = _Control(line, kind, pipe)
        node.body, end = self._list(("end", "else"))
        assert end is not None
        word, eline, rest = end
        if word == "else":
            if rest and rest[0].kind == "ident" and rest[0].text in ("if", "with") and kind != "range":
                # else if / else with: a nested control ending at the same {{end}}
                sub = _Control(eline, rest[0].text, self._pipeline(rest[1:], eline, allow_decl=True))
                sub.body, end2 = self._list(("end", "else"))
                assert end2 is not None
                self._finish_chain(sub, end2)
                node.else_body = [sub]
                return node
            if rest:
                raise TemplateError(f"line {eline}: unexpected {rest[0].text!r} after else")
            node.else_body, end2 = self._list(("end",))
            assert end2 is not None
            if end2[2]:
                raise TemplateError(f"line {end2[1]}: unexpected {end2[2][0].text!r} in end")
        elif rest:
            raise TemplateError(f"line {eline}: unexpected {rest[0].text!r} in end")
        return node

    def _finish_chain(self, sub: _Control, end: tuple[str, int, list[_Tok]]) -> None:
        word, eline, rest = end
        if word == "end":
            return
        if rest and rest[0].kind == "ident" and rest[0].text in ("if", "with"):
            nested = _Control(eline, rest[0].text, self._pipeline(rest[1:], eline, allow_decl=True))
            nested.body, end2 = self._list(("end", "else"))
            assert end2 is not None
            self._finish_chain(nested, end2)
            sub.else_body = [nested]
            return
        sub.else_body, end2 = self._list(("end",))

    def _pipeline(self, toks: list[_Tok], line: int, allow_decl: bool = False) -> _Pipeline:
        decl: list[str] = []
        is_assign = False
        if allow_decl and len(toks) > 1 and toks[0].kind == "variable" \
                and toks[1].kind in ("declare", "assign"):
            decl, is_assign, toks = [toks[0].text], toks[1].kind == "assign", toks[2:]
        cmds: list[list[Any]] = [[]]
        i = 0
        while i < len(toks):
            t = toks[i]
            if t.kind == "pipe":
                if not cmds[-1]:
                    raise TemplateError(f"line {line}: missing command before |")
                cmds.append([])
                i += 1
                continue
            if t.kind in ("declare", "assign"):
                raise TemplateError(f"line {line}: unexpected {t.text!r} in command")
            if t.kind == "rparen":
                raise TemplateError(f"line {line}: unexpected right paren")
            if t.kind == "lparen":
                depth, j = 1, i + 1
                while j < len(toks) and depth:
                    depth += {"lparen": 1, "rparen": -1}.get(toks[j].kind, 0)
                    j += 1
                if depth:
                    raise TemplateError(f"line {line}: unclosed left paren")
                inner = self._pipeline(toks[i + 1:j - 1], line)
                chain: tuple[str, ...] = ()
                if j < len(toks) and toks[j].kind == "chain":
                    chain = tuple(toks[j].text[1:].split("."))
                    j += 1
                cmds[-1].append(_Paren(inner, chain))
                i = j
                continue
            cmds[-1].append(self._operand(t, toks[i + 1] if i + 1 < len(toks) else None, line,
                                          first=not cmds[-1] and len(toks) == 1))
            i += 2 if (t.kind == "variable" and i + 1 < len(toks) and toks[i + 1].kind == "chain") else 1
        if not cmds[-1]:
            raise TemplateError(f"line {line}: missing value for command")
        return _Pipeline(line, decl, is_assign, cmds)

    @staticmethod
    def _operand(t: _Tok, nxt: _Tok | None, line: int, first: bool = False) -> Any:
        if t.kind == "field":
            return _Field(() if t.text == "." else tuple(t.text[1:].split(".")))
        if t.kind == "variable":
            chain = tuple(nxt.text[1:].split(".")) if nxt is not None and nxt.kind == "chain" else ()
            return _Var(t.text, chain)
        if t.kind == "ident":
            if t.text in ("true", "false"):
                return _Lit(t.text == "true")
            if t.text == "nil":
                if nxt is None and first:
                    raise TemplateError(f"line {line}: nil is not a command")
                return _Lit(None)
            if t.text not in FUNCS and t.text not in ("and", "or"):
                raise TemplateError(f'line {line}: function "{t.text}" not defined')
            return _Ident(t.text)
        if t.kind in ("string", "raw", "char", "number"):
            return _Lit(_unquote(t, line))
        raise TemplateError(f"line {line}: unexpected {t.text!r} in operand")


def _split_range_vars(body: str) -> tuple[list[str], str] | None:
    m = re.match(r"\s*range\s+(\$\w*)\s*,\s*(\$\w*)\s*:=(.*)\Z", body, re.S)
    if m:
        return [m.group(1), m.group(2)], m.group(3)
    return None


class GoTemplate:
    """A parsed template; :meth:`execute` renders it with a data mapping (the dot)."""

    def __init__(self, text: str) -> None:
        self.nodes = _Parser(text).parse()

    def execute(self, data: Mapping[str, Any]) -> str:
        out: list[str] = []
        scopes: list[dict[str, Any]] = [{"$": data}]
        self._walk(self.nodes, data, scopes, out)
        return "".join(out)

    # -- execution --------------------------------------------------------------------------
    def _walk(self, nodes: Sequence[_Node], dot: Any, scopes: list[dict[str, Any]], out: list[str]) -> None:
        for n in nodes:
            if isinstance(n, _Text):
                out.append(n.text)
            elif isinstance(n, _Action):
                v = self._pipe(n.pipe, dot, scopes)
                if not n.pipe.decl:
                    out.append(go_print(v))
            elif isinstance(n, _Control):
                self._control(n, dot, scopes, out)
            elif isinstance(n, _Break):
                raise _ContinueSignal() if n.is_continue else _BreakSignal()

    def _control(self, n: _Control, dot: Any, scopes: list[dict[str, Any]], out: list[str]) -> None:
        scopes.append({})
        try:
            if n.kind == "range":
                self._range(n, dot, scopes, out)
                return
            decl = n.pipe.decl
            n.pipe.decl = []
            try:
                v = self._pipe(n.pipe, dot, scopes)
            finally:
                n.pipe.decl = decl
            if decl:
                self._set(decl[0], v, scopes, n.line, n.pipe.is_assign)
            if truth(v):
                self._walk(n.body, v if n.kind == "with" else dot, scopes, out)
            elif n.else_body is not None:
                self._walk(n.else_body, dot, scopes, out)
        finally:
            scopes.pop()

    def _range(self, n: _Control, dot: Any, scopes: list[dict[str, Any]], out: list[str]) -> None:
        decl = n.pipe.decl
        n.pipe.decl = []
        try:
            v = self._pipe(n.pipe, dot, scopes)
        finally:
            n.pipe.decl = decl
        pairs: list[tuple[Any, Any]]
        if isinstance(v, bool):
            raise TemplateError(f"line {n.line}: range can't iterate over {go_print(v)}")
        if isinstance(v, int):
            if len(decl) > 1:
                raise TemplateError(f"line {n.line}: can't use {v} to iterate over more than one variable")
            pairs = [(i, i) for i in range(v)]
        elif isinstance(v, (list, tuple)):
            pairs = list(enumerate(v))
        elif isinstance(v, Mapping):
            pairs = [(k, v[k]) for k in sorted(v, key=lambda k: (str(type(k)), k))]
        elif v is None or v is MISSING:
            pairs = []
        else:
            raise TemplateError(f"line {n.line}: range can't iterate over {go_print(v)}")
        if not pairs:
            if n.else_body is not None:
                self._walk(n.else_body, dot, scopes, out)
            return
        for key, elem in pairs:
            if len(decl) == 1:
                scopes[-1][decl[0]] = elem
            elif len(decl) == 2:
                scopes[-1][decl[0]], scopes[-1][decl[1]] = key, elem
            try:
                self._walk(n.body, elem, scopes, out)
            except _BreakSignal:
                break
            except _ContinueSignal:
                continue

    @staticmethod
    def _set(name: str, v: Any, scopes: list[dict[str, Any]], line: int, is_assign: bool) -> None:
        if is_assign:
            for s in reversed(scopes):
                if name in s:
                    s[name] = v
                    return
            raise TemplateError(f'line {line}: undefined variable "{name}"')
        scopes[-1][name] = v

    def _pipe(self, p: _Pipeline, dot: Any, scopes: list[dict[str, Any]]) -> Any:
        v: Any = MISSING
        for i, cmd in enumerate(p.cmds):
            v = self._command(cmd, dot, scopes, p.line, v if i else None, piped=i > 0)
        if p.decl:
            self._set(p.decl[0], v, scopes, p.line, p.is_assign)
        return v

    def _command(self, cmd: list[Any], dot: Any, scopes: list[dict[str, Any]], line: int,
                 final: Any, piped: bool) -> Any:
        head = cmd[0]
        if isinstance(head, _Ident):
            args = cmd[1:]
            if head.name in ("and", "or"):
                vals: list[Callable[[], Any]] = [
                    (lambda a=a: self._arg(a, dot, scopes, line)) for a in args]  # type: ignore[misc]
                if piped:
                    vals.append(lambda: final)
                if not vals:
                    raise TemplateError(f"line {line}: wrong number of args for {head.name}: "
                                        "want at least 1 got 0")
                last: Any = None
                for get in vals:
                    last = get()
                    if truth(last) != (head.name == "and"):
                        return last
                return last
            values = [self._arg(a, dot, scopes, line) for a in args]
            if piped:
                values.append(final)
            values = [None if x is MISSING else x for x in values]
            try:
                return FUNCS[head.name](*values)
            except TemplateError as exc:
                raise TemplateError(f"line {line}: error calling {head.name}: {exc}") from None
            except TypeError:
                raise TemplateError(f"line {line}: wrong number of args for {head.name}: "
                                    f"got {len(values)}") from None
        if len(cmd) > 1 or piped:
            raise TemplateError(f"line {line}: can't give argument to non-function {self._show(head)}")
        return self._arg(head, dot, scopes, line)

    def _arg(self, a: Any, dot: Any, scopes: list[dict[str, Any]], line: int) -> Any:
        if isinstance(a, _Lit):
            return a.value
        if isinstance(a, _Field):
            return self._chain(dot, a.names, line)
        if isinstance(a, _Var):
            for s in reversed(scopes):
                if a.name in s:
                    return self._chain(s[a.name], a.chain, line)
            raise TemplateError(f'line {line}: undefined variable "{a.name}"')
        if isinstance(a, _Paren):
            return self._chain(self._pipe(a.pipe, dot, scopes), a.chain, line)
        if isinstance(a, _Ident):
            if a.name in ("and", "or"):
                raise TemplateError(f"line {line}: wrong number of args for {a.name}: want at least 1 got 0")
            try:
                return FUNCS[a.name]()
            except TypeError:
                raise TemplateError(f"line {line}: wrong number of args for {a.name}: got 0") from None
        raise TemplateError(f"line {line}: cannot evaluate {a!r}")  # pragma: no cover

    @staticmethod
    def _chain(v: Any, names: tuple[str, ...], line: int) -> Any:
        for name in names:
            if isinstance(v, Mapping):
                v = v.get(name, MISSING)
            elif v is None or v is MISSING:
                raise TemplateError(f"line {line}: nil pointer evaluating interface {{}}.{name}")
            else:
                raise TemplateError(f"line {line}: can't evaluate field {name} in type {basic_kind(v)}")
        return v

    @staticmethod
    def _show(a: Any) -> str:
        if isinstance(a, _Lit):
            return go_print(a.value)
        if isinstance(a, _Field):
            return "." + ".".join(a.names)
        if isinstance(a, _Var):
            return a.name
        return "(...)"
