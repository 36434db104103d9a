"""Compile a device selector once, evaluate it against devices.

Mirrors ``k8s.io/dynamic-resource-allocation/cel/compile.go`` (master 2026): the ``device``
variable (``driver``, ``attributes[domain][id]``, ``capacity[domain][id]``,
``allowMultipleAllocations``), attribute and capacity names without a domain taking the
driver's, a missing domain reading as an empty map, ``cel.bind``, the Kubernetes quantity and
semver libraries (:mod:`._library`), a runtime cost limit (``CELSelectorExpressionMaxCost``)
and a worst-case cost estimate that admission checks, and the result converted to bool.

The CEL engine is cel-python (``celpy``); what it does not check before evaluation (cel-go
type-checks against the declared environment) is checked here on the parse tree: the result
type of literal expressions, undeclared identifiers, functions and ``device`` fields, and the
feature-gated declarations of NewExpressions environments.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Final, Literal

import celpy
import lark
from celpy import celtypes
from celpy.celparser import CELParseError
from celpy.evaluation import CELEvalError, Evaluator

from ...api import DeviceAttribute
from ._library import FUNCTIONS, MAX_LIST_VALUES, Quantity, parse_semver

__all__ = [
    "CEL_SELECTOR_EXPRESSION_MAX_COST",
    "CELError",
    "CompilationResult",
    "Compiler",
    "Device",
    "EnvType",
    "Features",
    "SelectorEvalError",
    "get_compiler",
]

CEL_SELECTOR_EXPRESSION_MAX_COST: Final = 1_000_000  # resourceapi.CELSelectorExpressionMaxCost
EnvType = Literal["StoredExpressions", "NewExpressions"]
"""environment.Type: stored expressions see every declaration; new ones only what the
feature gates enable (what admission uses for a new object)."""

_MACROS: Final = frozenset({"all", "exists", "exists_one", "map", "filter"})
_STANDARD_FUNCTIONS: Final = frozenset(
    {
        "size",
        "int",
        "uint",
        "double",
        "string",
        "bytes",
        "bool",
        "type",
        "dyn",
        "has",
        "matches",
        "contains",
        "startsWith",
        "endsWith",
        "duration",
        "timestamp",
    }
)
_TYPE_NAMES: Final = frozenset(
    {"int", "uint", "double", "string", "bytes", "bool", "list", "map", "null_type", "type", "dyn"}
)
_DEVICE_FIELDS: Final = frozenset({"driver", "attributes", "capacity", "allowMultipleAllocations"})
_ATTRIBUTE_LIMIT: Final = 32  # ResourceSliceMaxAttributesAndCapacitiesPerDevice
_LIST_LIMIT: Final = max(64, MAX_LIST_VALUES)  # DeviceAttributeMaxValueLength vs list length
_COSTLY: Final = frozenset(
    {
        "member_dot",
        "member_index",
        "member_dot_arg",
        "ident_arg",
        "relation_lt",
        "relation_le",
        "relation_gt",
        "relation_ge",
        "relation_eq",
        "relation_ne",
        "relation_in",
        "addition_add",
        "addition_sub",
        "multiplication_mul",
        "multiplication_div",
        "multiplication_mod",
        "unary_not",
        "unary_neg",
    }
)
"""Parse-tree nodes that are one operation (cost 1) for the cost limit; the other nodes are
grammar levels a single operand passes through."""


@dataclass(frozen=True, slots=True)
class Features:
    """The feature gates the environment depends on (cel.Features): DRAConsumableCapacity
    declares ``device.allowMultipleAllocations``, DRAListTypeAttributes the ``includes``
    function; both only matter for NewExpressions."""

    consumable_capacity: bool = True
    list_type_attributes: bool = False


@dataclass(frozen=True, slots=True)
class CELError:
    """apiservercel.Error: ``Invalid`` (the expression's fault) or ``Internal``."""

    type: Literal["Invalid", "Internal"]
    detail: str

    def __str__(self) -> str:
        return self.detail


class SelectorEvalError(Exception):
    """A selector that failed while evaluating against a device (a runtime error: a missing
    attribute, a wrong type, the cost limit). Upstream's allocator treats the device as not
    matching and reports the error."""


@dataclass(frozen=True)
class Device:
    """cel.Device: what a selector sees of a device. Attribute and capacity names are the
    qualified names of the ResourceSlice (``model`` or ``other.example.com/model``)."""

    driver: str
    attributes: Mapping[str, DeviceAttribute] = field(default_factory=dict)
    capacity: Mapping[str, Fraction] = field(default_factory=dict)
    allow_multiple_allocations: bool | None = None

    @functools.cached_property
    def activation(self) -> dict[str, Any]:
        """The ``device`` variable, built once per device whatever the number of selectors."""
        attributes: dict[str, dict[str, Any]] = {}
        for name, attr in self.attributes.items():
            domain, ident = _split_qualified_name(name, self.driver)
            attributes.setdefault(domain, {})[ident] = _attribute_value(name, attr)
        capacity: dict[str, dict[str, Any]] = {}
        for name, value in self.capacity.items():
            domain, ident = _split_qualified_name(name, self.driver)
            capacity.setdefault(domain, {})[ident] = Quantity(value)
        return {
            "device": celtypes.MapType(
                {
                    celtypes.StringType("driver"): celtypes.StringType(self.driver),
                    celtypes.StringType("allowMultipleAllocations"): celtypes.BoolType(
                        bool(self.allow_multiple_allocations)
                    ),
                    celtypes.StringType("attributes"): _DefaultMap(_cel_map(attributes)),
                    celtypes.StringType("capacity"): _DefaultMap(_cel_map(capacity)),
                }
            )
        }


def _split_qualified_name(name: str, default_domain: str) -> tuple[str, str]:
    """parseQualifiedName: ``domain/id``, or the driver as domain."""
    domain, sep, ident = name.partition("/")
    return (domain, ident) if sep else (default_domain, name)


def _scalar(kind: str, v: Any) -> Any:
    if kind in ("int", "ints"):
        return celtypes.IntType(v)
    if kind in ("bool", "bools"):
        return celtypes.BoolType(v)
    if kind in ("string", "strings"):
        return celtypes.StringType(v)
    return parse_semver(v)


def _attribute_value(name: str, attr: DeviceAttribute) -> Any:
    """getAttributeValue: the CEL value of one attribute (a list for the list forms)."""
    try:
        if attr.kind.endswith("s"):
            return celtypes.ListType(_scalar(attr.kind, v) for v in attr.value)
        return _scalar(attr.kind, attr.value)
    except ValueError as exc:
        return CELEvalError(f"attribute {name}: parse semantic version: {exc}", ValueError, ())


def _cel_map(d: Mapping[str, Mapping[str, Any]]) -> celtypes.MapType:
    return celtypes.MapType(
        {
            celtypes.StringType(k): celtypes.MapType({celtypes.StringType(i): v for i, v in inner.items()})
            for k, inner in d.items()
        }
    )


class _DefaultMap(celtypes.MapType):
    """newStringInterfaceMapWithDefault: a missing domain reads as an empty map, so
    ``device.attributes["other.example.com"].x`` is "no such key: x", not "no such domain"."""

    def __getitem__(self, key: Any) -> Any:
        try:
            return super().__getitem__(key)
        except KeyError:
            return celtypes.MapType()

    def get(self, key: Any, default: Any = None) -> Any:
        return self[key]


class _CostLimitExceeded(BaseException):
    """Raised out of the interpreter when the budget runs out; a BaseException because celpy's
    macros turn every Exception of their body into a CEL error value and carry on."""


class _Evaluator(Evaluator):
    """celpy's interpreter plus ``cel.bind``, cel-go's error for a macro over a value that is
    not iterable, and a cost budget shared with the evaluators of nested macros."""

    def __init__(self, ast: lark.Tree, activation: Any, budget: list[int]) -> None:
        super().__init__(ast, activation)
        self.budget = budget

    def sub_evaluator(self, ast: lark.Tree) -> Evaluator:
        return _Evaluator(ast, self.activation, self.budget)

    def _visit_tree(self, tree: lark.Tree) -> Any:
        if tree.data in _COSTLY:
            self.budget[0] -= 1
            if self.budget[0] < 0:
                raise _CostLimitExceeded()
        return super()._visit_tree(tree)

    def member_dot_arg(self, tree: lark.Tree) -> Any:
        member_tree, method = tree.children[:2]
        name = _text(method)
        if name == "bind" and _ident_of(member_tree) == "cel":
            var_tree, init_tree, body_tree = tree.children[2].children
            value = self.visit(init_tree)
            if isinstance(value, CELEvalError):
                return value
            return self.sub_evaluator(body_tree).evaluate_or_error({_expr_ident(var_tree): value})
        if name in _MACROS:
            target = self.visit(member_tree)
            if not isinstance(target, CELEvalError | celtypes.ListType | celtypes.MapType):
                return CELEvalError(f"got '{_go_type(target)}', expected iterable type", TypeError, ())
        return super().member_dot_arg(tree)

    def evaluate_or_error(self, context: Mapping[str, Any]) -> Any:
        self.set_activation(context)
        return self.visit(self.ast)


def _text(token: Any) -> str:
    """The text of a parse-tree token (an identifier or a method name)."""
    return str(token.value)


def _go_type(v: Any) -> str:
    """cel-go's name of a value's type, as its error messages print it."""
    names = {
        celtypes.IntType: "types.Int",
        celtypes.BoolType: "types.Bool",
        celtypes.StringType: "types.String",
        celtypes.DoubleType: "types.Double",
        celtypes.UintType: "types.Uint",
        Quantity: "cel.Quantity",
    }
    return names.get(type(v), "cel.Semver" if type(v).__name__ == "Semver" else type(v).__name__)


def _ident_of(member: Any) -> str | None:
    """The identifier a ``member`` node is, if it is a bare one."""
    if isinstance(member, lark.Tree) and member.data == "member" and len(member.children) == 1:
        primary = member.children[0]
        if isinstance(primary, lark.Tree) and primary.data == "primary" and len(primary.children) == 1:
            ident = primary.children[0]
            if isinstance(ident, lark.Tree) and ident.data == "ident":
                return _text(ident.children[0])
    return None


def _expr_ident(expr: lark.Tree) -> str:
    """The identifier an ``expr`` node is (a macro's or bind's variable)."""
    node: Any = expr
    while isinstance(node, lark.Tree) and node.data != "ident":
        if len(node.children) != 1:
            raise CELEvalError("bind variable must be an identifier", SyntaxError, ())
        node = node.children[0]
    return _text(node.children[0])


@dataclass(frozen=True)
class CompilationResult:
    """cel.CompilationResult: the parsed program (None after an error), the error, and the
    worst-case cost estimate (``max_cost``) admission compares with the limit."""

    expression: str
    error: CELError | None
    max_cost: int
    cost_limit: int = CEL_SELECTOR_EXPRESSION_MAX_COST
    _ast: lark.Tree | None = None
    _activation_base: Any = None

    def device_matches(self, device: Device) -> bool:
        """DeviceMatches: True when the selector holds for ``device``. A runtime error raises
        :class:`SelectorEvalError` with cel-go's message."""
        if self._ast is None:
            raise SelectorEvalError(f"selector did not compile: {self.error}")
        budget = [self.cost_limit]
        evaluator = _Evaluator(self._ast, self._activation_base, budget)
        try:
            result = evaluator.evaluate_or_error(device.activation)
        except _CostLimitExceeded:
            raise SelectorEvalError("operation cancelled: actual cost limit exceeded") from None
        except (TypeError, ValueError, KeyError, IndexError, ZeroDivisionError) as exc:
            raise SelectorEvalError(str(exc)) from exc
        if isinstance(result, CELEvalError):
            raise SelectorEvalError(_message(result))
        if not isinstance(result, celtypes.BoolType):
            raise SelectorEvalError(
                f"CEL result of type {_cel_type_name(result)} could not be converted to bool"
            )
        return bool(result)


def _message(err: CELEvalError) -> str:
    """cel-go's wording of a runtime error celpy reports in its own words."""
    msg, _, args = [*err.args, None, None, None][:3]
    if msg == "no such key" and args:
        return f"no such key: {args[0]}"
    member = _NO_SUCH_MEMBER.match(str(msg))
    if member:
        return f"no such key: {member.group(1)}"
    return str(msg)


_NO_SUCH_MEMBER: Final = re.compile(r"^no such member in mapping: '(.*)'$")


def _cel_type_name(v: Any) -> str:
    for typ, name in (
        (celtypes.ListType, "list"),
        (celtypes.MapType, "map"),
        (celtypes.StringType, "string"),
        (celtypes.BoolType, "bool"),
        (celtypes.IntType, "int"),
        (celtypes.UintType, "uint"),
        (celtypes.DoubleType, "double"),
    ):
        if isinstance(v, typ):
            return name
    return type(v).__name__


class Compiler:
    """One CEL environment for a set of features; :meth:`compile` is memoized per expression,
    so each distinct selector is parsed and checked once."""

    def __init__(self, features: Features) -> None:
        self.features = features
        self._env = celpy.Environment()
        self._compile = functools.lru_cache(maxsize=4096)(self._compile_uncached)

    def compile(
        self,
        expression: str,
        env_type: EnvType = "StoredExpressions",
        cost_limit: int = CEL_SELECTOR_EXPRESSION_MAX_COST,
    ) -> CompilationResult:
        """CompileCELExpression."""
        result: CompilationResult = self._compile(expression, env_type, cost_limit)
        return result

    def _compile_uncached(self, expression: str, env_type: EnvType, cost_limit: int) -> CompilationResult:
        def failed(detail: str) -> CompilationResult:
            return CompilationResult(expression, CELError("Invalid", detail), 2**64 - 1, cost_limit)

        try:
            ast = self._env.compile(expression)
        except CELParseError as exc:
            line, col = getattr(exc, "line", 1), getattr(exc, "column", 1)
            return failed(f"compilation failed: ERROR: <input>:{line}:{col}: Syntax error: {exc}")
        problem = self._check(ast, env_type)
        if problem is not None:
            return failed(f"compilation failed: {problem}")
        literal = _literal_type(ast)
        if literal is not None and literal != "bool":
            return failed(f"must evaluate to bool or the unknown type, not {literal}")
        program = self._env.program(ast, functions=FUNCTIONS)
        activation = program.new_activation()
        return CompilationResult(expression, None, _estimate(ast), cost_limit, ast, activation)

    def _check(self, ast: lark.Tree, env_type: EnvType) -> str | None:
        """What cel-go's checker refuses and celpy would only notice when evaluating."""
        new = env_type == "NewExpressions"
        functions = _STANDARD_FUNCTIONS | FUNCTIONS.keys() | _MACROS
        if new and not self.features.list_type_attributes:
            functions = functions - {"includes"}
        bound = _bound_variables(ast)
        for node in ast.iter_subtrees():
            if node.data == "ident":
                name = _text(node.children[0])
                if name not in bound and name not in _TYPE_NAMES and name not in ("device", "cel"):
                    return f"ERROR: <input>: undeclared reference to '{name}'"
            elif node.data in ("ident_arg", "member_dot_arg"):
                name = _text(node.children[0 if node.data == "ident_arg" else 1])
                if name not in functions and not (name == "bind" and _ident_of(node.children[0]) == "cel"):
                    return f"ERROR: <input>: undeclared reference to '{name}'"
            elif node.data == "member_dot" and _ident_of(node.children[0]) == "device":
                name = _text(node.children[1])
                declared = _DEVICE_FIELDS
                if new and not self.features.consumable_capacity:
                    declared = declared - {"allowMultipleAllocations"}
                if name not in declared:
                    return f"ERROR: <input>: undefined field '{name}'"
        return None


def _bound_variables(ast: lark.Tree) -> set[str]:
    """Variables introduced by macros and ``cel.bind`` anywhere in the expression."""
    out: set[str] = set()
    for node in ast.iter_subtrees():
        if node.data == "member_dot_arg" and len(node.children) == 3:
            name = _text(node.children[1])
            if name in _MACROS or (name == "bind" and _ident_of(node.children[0]) == "cel"):
                first = node.children[2].children[0]
                try:
                    out.add(_expr_ident(first))
                except CELEvalError:
                    continue
    return out


def _literal_type(ast: lark.Tree) -> str | None:
    """The type of an expression that is one literal (or a list/map literal), else None."""
    node: Any = ast
    while (
        isinstance(node, lark.Tree)
        and len(node.children) == 1
        and node.data not in ("literal", "list_lit", "map_lit")
    ):
        node = node.children[0]
    if not isinstance(node, lark.Tree):
        return None
    if node.data == "list_lit":
        return "list(int)" if node.children else "list(dyn)"
    if node.data == "map_lit":
        return "map(dyn, dyn)"
    if node.data != "literal":
        return None
    token = node.children[0]
    kind = {
        "INT_LIT": "int",
        "UINT_LIT": "uint",
        "FLOAT_LIT": "double",
        "STRING_LIT": "string",
        "MLSTRING_LIT": "string",
        "BYTES_LIT": "bytes",
        "BOOL_LIT": "bool",
        "NULL_LIT": "null_type",
    }
    return kind.get(getattr(token, "type", ""))


def _estimate(ast: lark.Tree) -> int:
    """A worst-case cost: one per operation, a macro's body times the largest range it can
    run over (a list literal's length; 32 attribute domains or names; 64 list values)."""

    def walk(node: Any) -> int:
        if not isinstance(node, lark.Tree):
            return 0
        own = 1 if node.data in _COSTLY else 0
        if node.data == "member_dot_arg" and len(node.children) == 3 and _text(node.children[1]) in _MACROS:
            target, _, args = node.children
            body = args.children[-1]
            return own + walk(target) + _range_size(target) * (walk(body) + 2)
        return own + sum(walk(c) for c in node.children)

    return walk(ast)


def _range_size(member: lark.Tree) -> int:
    lists = [n for n in _first_chain(member) if n.data == "list_lit"]
    if lists:
        return len(lists[0].children[0].children) if lists[0].children else 0
    return _ATTRIBUTE_LIMIT if _is_domain_map(member) else _LIST_LIMIT


def _first_chain(node: lark.Tree) -> Iterator[lark.Tree]:
    while isinstance(node, lark.Tree):
        yield node
        if len(node.children) != 1:
            return
        node = node.children[0]


def _is_domain_map(member: lark.Tree) -> bool:
    """``device.attributes`` / ``device.capacity`` themselves, or one domain of them."""
    node = member.children[0] if member.children else None
    if isinstance(node, lark.Tree) and node.data == "member_index":
        node = node.children[0].children[0] if node.children and node.children[0].children else None
    return (
        isinstance(node, lark.Tree)
        and node.data == "member_dot"
        and _text(node.children[1]) in ("attributes", "capacity")
    )


def get_compiler(features: Features | None = None) -> Compiler:
    """GetCompiler: one compiler (and its expression cache) per feature set; the default
    features when none are given."""
    return _compiler(features or Features())


@functools.cache
def _compiler(features: Features) -> Compiler:
    return Compiler(features)
