"""Regenerate ``_allocator_cases.py`` from upstream's allocator test table.

Usage (from the repository root, with an upstream checkout of k8s.io/dynamic-resource-allocation)::

    python tests/dra/structured/translate_go_table.py \
        DRA_REPO/structured/internal/allocatortesting/allocator_testing.go \
        > tests/dra/structured/_allocator_cases.py
    python tests/dra/structured/translate_go_table.py \\
        DRA_REPO/structured/internal/allocatortesting/lexicographical_testing.go \\
        TestLexicographicalAllocator LEXICOGRAPHICAL_TESTCASES \\
        > tests/dra/structured/_lexicographical_cases.py
    ruff check --fix tests/dra/structured/_*_cases.py
    ruff format tests/dra/structured/_*_cases.py

A small translator for the Go the table is written in: composite literals become ``S(...)``
structs, lists and dicts; calls, selectors and indexing stay as they are (the builders keep
upstream's names); ``func() T { ... }()`` blocks become hoisted ``_fN`` functions; ``:=``,
``++``, ``for ... range`` and ``if`` statements become Python statements. Locals that shadow a
builder (``claim := claim(...)``) are renamed.
"""

import re
import sys

TOKEN = re.compile(
    r"""
 (?P<ws>[ \t\r]+)
|(?P<nl>\n)
|(?P<lc>//[^\n]*)
|(?P<bc>/\*.*?\*/)
|(?P<raw>`[^`]*`)
|(?P<str>"(?:\\.|[^"\\])*")
|(?P<num>\d+(?:\.\d+)?)
|(?P<id>[A-Za-z_][A-Za-z0-9_]*)
|(?P<op>\.\.\.|:=|\+\+|--|\+=|-=|==|!=|<=|>=|&&|\|\||[{}()\[\],:;.&*+\-<>=!%/])
""",
    re.S | re.X,
)

GLOBAL_FUNCS = set()


def tokenize(src):
    out = []
    pos = 0
    while pos < len(src):
        m = TOKEN.match(src, pos)
        if not m:
            raise SyntaxError(f"bad char at {pos}: {src[pos : pos + 40]!r}")
        pos = m.end()
        kind = m.lastgroup
        if kind in ("ws", "lc", "bc"):
            continue
        out.append((kind, m.group()))
    return out


MAP_TYPES = {"ConsumedCapacity", "ConsumedCapacityCollection"}


class P:
    def __init__(self, toks):
        self.t = toks
        self.i = 0
        self.defs = []
        self.nfunc = 0
        self.renames = [{}]

    def peek(self, k=0):
        j = self.i
        n = 0
        while True:
            if j >= len(self.t):
                return ("eof", "")
            if self.t[j][0] == "nl" and not self.keep_nl:
                j += 1
                continue
            if n == k:
                return self.t[j]
            n += 1
            j += 1

    keep_nl = False

    def next(self):
        while self.t[self.i][0] == "nl" and not self.keep_nl:
            self.i += 1
        tok = self.t[self.i]
        self.i += 1
        return tok

    def expect(self, v):
        tok = self.next()
        if tok[1] != v:
            raise SyntaxError(f"expected {v!r} got {tok!r} near {self.context()}")
        return tok

    def context(self):
        return " ".join(t[1] for t in self.t[max(0, self.i - 15) : self.i + 10])

    def skip_nl(self):
        while self.i < len(self.t) and self.t[self.i][0] == "nl":
            self.i += 1

    # -- types --------------------------------------------------------------------------
    def parse_type(self):
        """A type descriptor: ('slice', T) | ('map', K, V) | ('named', name) | ('func', T)."""
        tok = self.peek()
        if tok[1] == "[":
            self.next()
            self.expect("]")
            return ("slice", self.parse_type())
        if tok[1] == "*":
            self.next()
            return self.parse_type()
        if tok[1] == "map":
            self.next()
            self.expect("[")
            k = self.parse_type()
            self.expect("]")
            return ("map", k, self.parse_type())
        if tok[1] == "func":
            self.next()
            self.expect("(")
            depth = 1
            while depth:
                t = self.next()
                if t[1] == "(":
                    depth += 1
                elif t[1] == ")":
                    depth -= 1
            if self.peek()[1] != "{":
                return ("func", self.parse_type())
            return ("func", None)
        name = self.next()[1]
        while self.peek()[1] == ".":
            self.next()
            name += "." + self.next()[1]
        if self.peek()[1] == "[" and name in ("sets.Set",):
            self.next()
            self.parse_type()
            self.expect("]")
        return ("named", name)

    # -- composite literals --------------------------------------------------------------
    def composite(self, typ):
        self.expect("{")
        elems = []
        while self.peek()[1] != "}":
            if self.peek()[1] == "{":
                v = self.composite(elem_type(typ))
                key = None
            else:
                v = self.expr()
                key = None
                if self.peek()[1] == ":":
                    self.next()
                    key = v
                    if self.peek()[1] == "{":
                        v = self.composite(elem_type(typ))
                    else:
                        v = self.expr()
            elems.append((key, v))
            if self.peek()[1] == ",":
                self.next()
        self.expect("}")
        kind = typ[0] if typ else "named"
        if kind == "slice":
            return "[" + ", ".join(v for _, v in elems) + "]"
        if kind == "map" or (kind == "named" and typ[1].split(".")[-1] in MAP_TYPES):
            return "{" + ", ".join(f"{k}: {v}" for k, v in elems) + "}"
        name = typ[1] if typ else "?"
        if name in ("any",):
            return "[" + ", ".join(v for _, v in elems) + "]"
        args = ", ".join(f"{k}={v}" for k, v in elems)
        return f"S({args})"

    # -- expressions ---------------------------------------------------------------------
    def expr(self):
        left = self.unary()
        while self.peek()[1] in ("+", "-", "==", "!=", "<", ">", "<=", ">=", "&&", "||", "*", "/", "%"):
            op = self.next()[1]
            op = {"&&": "and", "||": "or", "/": "//"}.get(op, op)
            right = self.unary()
            left = f"{left} {op} {right}"
        return left

    def unary(self):
        tok = self.peek()
        if tok[1] == "&":
            self.next()
            return self.unary()
        if tok[1] == "*":
            self.next()
            return self.unary()
        if tok[1] == "!":
            self.next()
            return f"not {self.unary()}"
        if tok[1] == "-":
            self.next()
            return f"-{self.unary()}"
        return self.postfix(self.primary())

    def primary(self):
        tok = self.peek()
        if tok[1] in ("[", "map"):
            typ = self.parse_type()
            return self.composite(typ)
        if tok[1] == "func":
            return self.func_lit()
        tok = self.next()
        kind, v = tok
        if kind == "str":
            return repr(eval(v))
        if kind == "raw":
            return repr(v[1:-1])
        if kind == "num":
            return v
        if kind == "op" and v == "(":
            e = self.expr()
            self.expect(")")
            return f"({e})"
        if kind == "id":
            if v == "true":
                return "True"
            if v == "false":
                return "False"
            if v == "nil":
                return "None"
            name = self.renames[-1].get(v, {"class": "class_", "slice": "slice_"}.get(v, v))
            # qualified / typed composite literal?
            qualified = self.peek()[1] == "." and self.peek(1)[0] == "id" and self.peek(2)[1] == "{"
            if qualified and v in PKGS:
                self.next()
                tname = v + "." + self.next()[1]
                return self.composite(("named", tname))
            if self.peek()[1] == "{" and v[0].isupper():
                return self.composite(("named", v))
            if v in ("wrapResourceClaim",) and self.peek()[1] == "{":
                return self.composite(("named", v))
            return name
        raise SyntaxError(f"unexpected {tok} near {self.context()}")

    def postfix(self, e):
        while True:
            tok = self.peek()
            if tok[1] == ".":
                self.next()
                if self.peek()[1] == "(":  # type assertion .(T)
                    raise SyntaxError("type assertion")
                e = f"{e}.{self.next()[1]}"
            elif tok[1] == "(":
                self.next()
                args = []
                while self.peek()[1] != ")":
                    a = self.expr()
                    if self.peek()[1] == "...":
                        self.next()
                        a = "*" + a
                    args.append(a)
                    if self.peek()[1] == ",":
                        self.next()
                self.expect(")")
                e = f"{e}({', '.join(args)})"
            elif tok[1] == "[":
                self.next()
                idx = self.expr()
                self.expect("]")
                e = f"{e}[{idx}]"
            else:
                return e

    def func_lit(self):
        self.expect("func")
        self.expect("(")
        self.expect(")")
        if self.peek()[1] != "{":
            self.parse_type()
        self.nfunc += 1
        name = f"_f{self.nfunc}"
        self.renames.append(dict(self.renames[-1]))
        body = self.block(1)
        self.renames.pop()
        self.defs.append(f"def {name}():\n" + body)
        # immediately called
        self.expect("(")
        self.expect(")")
        return f"{name}()"

    def block(self, indent):
        self.expect("{")
        lines = []
        while self.peek()[1] != "}":
            lines.extend(self.stmt(indent))
        self.expect("}")
        if not lines:
            lines = ["    " * indent + "pass"]
        return "\n".join(lines) + "\n"

    def stmt(self, indent):
        pad = "    " * indent
        tok = self.peek()
        if tok[1] == "return":
            self.next()
            return [pad + "return " + self.expr()]
        if tok[1] == "for":
            self.next()
            # for _, x := range expr {
            a = self.next()[1]
            if self.peek()[1] == ",":
                self.next()
                b = self.next()[1]
                self.expect(":=")
                self.expect("range")
                it = self.expr_no_brace()
                var = b if a == "_" else f"{a}, {b}"
                src = it if a == "_" else f"enumerate({it})"
                return [pad + f"for {var} in {src}:", self.block(indent + 1).rstrip("\n")]
            # for i := 0; i < n; i++ {
            self.expect(":=")
            start = self.expr()
            self.expect(";")
            self.next()
            self.next()
            end = self.expr_no_brace()
            self.expect(";")
            self.next()
            self.next()
            return [pad + f"for {a} in range({start}, {end}):", self.block(indent + 1).rstrip("\n")]
        if tok[1] == "if":
            self.next()
            cond = self.expr_no_brace()
            return [pad + f"if {cond}:", self.block(indent + 1).rstrip("\n")]
        if tok[1] == "var":
            self.next()
            name = self.next()[1]
            self.parse_type()
            return [pad + f"{name} = []"]
        lhs = self.expr()
        op = self.peek()[1]
        if op == ":=":
            self.next()
            rhs = self.expr()
            if lhs in GLOBAL_FUNCS or lhs in ("class_", "slice_"):
                base = {"class_": "class", "slice_": "slice"}.get(lhs, lhs)
                self.renames[-1][base] = base + "Var"
                lhs = base + "Var"
            return [pad + f"{lhs} = {rhs}"]
        if op in ("=", "+=", "-="):
            self.next()
            return [pad + f"{lhs} {op} {self.expr()}"]
        if op == "++":
            self.next()
            return [pad + f"{lhs} += 1"]
        if op == "--":
            self.next()
            return [pad + f"{lhs} -= 1"]
        return [pad + lhs]

    def expr_no_brace(self):
        # expressions before a block: composite literals of named types are not allowed there
        return self.expr()


PKGS = {"resourceapi", "metav1", "v1", "resource", "apitypes", "runtime", "cel", "internal"}


def elem_type(typ):
    if typ is None:
        return None
    if typ[0] == "slice":
        return typ[1]
    if typ[0] == "map":
        return typ[2]
    if typ[0] == "named" and typ[1] == "any":
        return None
    return None


HEADER = '''"""Upstream's allocator test table, ported case by case.

Generated from ``structured/internal/allocatortesting/allocator_testing.go`` of
k8s.io/dynamic-resource-allocation (master 2026) by ``translate_go_table.py``, which translates
its Go literals into the builders of :mod:`._gobuilders` (same helper names, same field
paths); ``_fN`` are the table's inline ``func() ... {...}()`` blocks, hoisted. Run by
``test_allocator.py``.
"""
# ruff: noqa: E501, F403, F405

from ._gobuilders import *
'''

SHADOWED = (
    "claim",
    "class",
    "device",
    "node",
    "request",
    "slice",
    "subRequest",
    "counterSet",
    "deviceRequest",
)


def table_lines(lines: list[str], func: str) -> tuple[int, int]:
    """The body of ``func`` from its first statement to the end of its testcases map."""
    i = next(n for n, line in enumerate(lines) if line.startswith(f"func {func}("))
    while not lines[i].rstrip().endswith(") {"):
        i += 1
    t = next(n for n in range(i, len(lines)) if lines[n].startswith("\ttestcases := "))
    end = next(n for n in range(t, len(lines)) if lines[n] == "\t}")
    return i + 1, end + 1


def main() -> None:
    with open(sys.argv[1]) as f:
        lines = f.read().split("\n")
    func = sys.argv[2] if len(sys.argv) > 2 else "TestAllocator"
    name = sys.argv[3] if len(sys.argv) > 3 else "TESTCASES"
    start, end = table_lines(lines, func)
    GLOBAL_FUNCS.update(SHADOWED)
    p = P(tokenize("\n".join(lines[start:end])))
    stmts = []
    while p.peek()[0] != "eof":
        stmts.extend(p.stmt(0))
    print(HEADER.replace("allocator_testing.go", sys.argv[1].rsplit("/", 1)[-1]))
    print("\n\n".join(p.defs))
    print()
    print("\n".join(stmts).replace("testcases = ", f"{name} = ", 1))


if __name__ == "__main__":
    main()
