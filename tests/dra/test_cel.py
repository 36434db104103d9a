"""Device selectors: upstream's CEL table (k8s.io/dynamic-resource-allocation/cel
compile_test.go TestCEL, master 2026) ported case by case, names kept.

Each case runs as upstream's does: compile in the case's environment and features, expect the
compile error (a substring) or evaluate against the device and expect the match or the runtime
error (a substring). Upstream also pins cel-go's worst-case cost per case; our estimate counts
in its own units (docs/dra.md, "CEL"), so only what admission decides on is checked: cheap
expressions stay under the limit, the "expensive" one exceeds it and is stopped at run time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import pytest

from kubesched.api import DeviceAttribute
from kubesched.dra.cel import (
    CEL_SELECTOR_EXPRESSION_MAX_COST,
    Device,
    EnvType,
    Features,
    SelectorEvalError,
    get_compiler,
)

D = "dra.example.com"


@dataclass(frozen=True)
class Case:
    name: str
    expression: str
    driver: str = ""
    attributes: dict[str, DeviceAttribute] = field(default_factory=dict)
    capacity: dict[str, Fraction] = field(default_factory=dict)
    allow_multiple_allocations: bool | None = None
    env_type: EnvType = "StoredExpressions"
    consumable_capacity: bool = False
    # None: run with the list-type-attributes feature off and on, as upstream does.
    list_type_attributes: bool | None = None
    expect_compile_error: str = ""
    expect_match_error: str = ""
    expect_match: bool = False


def a(kind: str, value: Any) -> DeviceAttribute:
    return DeviceAttribute(kind, tuple(value) if isinstance(value, list) else value)


def q(text: str) -> Fraction:
    from kubesched.api import parse_quantity

    return parse_quantity(text)


LONG = [f"value-{i}" for i in range(48)]
INCLUDES = [
    ("bool-scalar-positive", ".name.includes(true)", a("bool", True), True),
    ("bool-scalar-negative", ".name.includes(true)", a("bool", False), False),
    ("bool-list-positive", ".name.includes(true)", a("bools", [True, False]), True),
    ("bool-list-negative", ".name.includes(false)", a("bools", [True, True]), False),
    ("int-scalar-positive", ".name.includes(1)", a("int", 1), True),
    ("int-scalar-negative", ".name.includes(1)", a("int", 2), False),
    ("int-list-positive", ".name.includes(1)", a("ints", [1, 2]), True),
    ("int-list-negative", ".name.includes(3)", a("ints", [1, 2]), False),
    ("string-scalar-positive", '.name.includes("fish")', a("string", "fish"), True),
    ("string-scalar-negative", '.name.includes("bird")', a("string", "fish"), False),
    ("string-list-positive", '.name.includes("fish")', a("strings", ["fish", "bird"]), True),
    ("string-list-negative", '.name.includes("cat")', a("strings", ["fish", "bird"]), False),
    ("semver-scalar-positive", '.name.includes(semver("1.0.0"))', a("version", "1.0.0"), True),
    ("semver-scalar-negative", '.name.includes(semver("2.0.0"))', a("version", "1.0.0"), False),
    ("semver-list-positive", '.name.includes(semver("1.0.0"))', a("versions", ["1.0.0", "2.0.0"]), True),
    ("semver-list-negative", '.name.includes(semver("3.0.0"))', a("versions", ["1.0.0", "2.0.0"]), False),
    ("very-long-list-positive", '.name.includes("value-48")', a("strings", LONG), False),
]
NESTED_ALL = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]"
EXPENSIVE = (
    f"{NESTED_ALL}.all(x, {NESTED_ALL}.all(y, {NESTED_ALL}.all(z, {NESTED_ALL}.all(z2, {NESTED_ALL}.all(z3, "
    f"{NESTED_ALL}.all(z4, {NESTED_ALL}.all(z5, int('1'.find('[0-9]*')) < 100)))))))"
)

CASES = [
    Case("true", "true", expect_match=True),
    Case("false", "false", expect_match=False),
    Case("syntax-error", "?!", expect_compile_error="Syntax error"),
    Case("type-error", "1", expect_compile_error="must evaluate to bool or the unknown type, not int"),
    Case(
        "runtime-error-lookup-identifier",
        'device.attributes["no-such-domain"].noSuchAttr.isGreaterThan(quantity("0"))',
        expect_match_error="no such key: noSuchAttr",
    ),
    Case(
        "runtime-error-lookup-map",
        'device.attributes["no-such-domain"]["noSuchAttr"].isGreaterThan(quantity("0"))',
        expect_match_error="no such key: noSuchAttr",
    ),
    Case("domain-check-negative", '"no-such-domain" in device.attributes', expect_match=False),
    Case(
        "domain-check-positive",
        '"dra.example.com" in device.attributes',
        attributes={"dra.example.com/something": a("bool", True)},
        expect_match=True,
    ),
    Case("empty-driver-name", 'device.driver == ""', expect_match=True),
    Case("real-driver-name", 'device.driver == "dra.example.com"', driver=D, expect_match=True),
    Case(
        "driver-name-qualifier",
        'device.attributes["dra.example.com"].name',
        driver=D,
        attributes={"name": a("bool", True)},
        expect_match=True,
    ),
    Case(
        "driver-name-qualifier-map-lookup",
        'device.attributes["dra.example.com"]["name"]',
        driver=D,
        attributes={"name": a("bool", True)},
        expect_match=True,
    ),
    Case(
        "bind",
        'cel.bind(dra, device.attributes["dra.example.com"], dra.name)',
        driver=D,
        attributes={"name": a("bool", True)},
        expect_match=True,
    ),
    Case(
        "qualified-attribute-name",
        'device.attributes["other.example.com"].name',
        driver=D,
        attributes={"other.example.com/name": a("bool", True)},
        expect_match=True,
    ),
    Case(
        "bool",
        'device.attributes["dra.example.com"].name',
        driver=D,
        attributes={"name": a("bool", True)},
        expect_match=True,
    ),
    Case(
        "int",
        'device.attributes["dra.example.com"].name > 0',
        driver=D,
        attributes={"name": a("int", 1)},
        expect_match=True,
    ),
    Case(
        "string",
        'device.attributes["dra.example.com"].name == "fish"',
        driver=D,
        attributes={"name": a("string", "fish")},
        expect_match=True,
    ),
    Case(
        "macro-exists-on-int",
        'device.attributes["dra.example.com"].name.exists(x, x > 0)',
        driver=D,
        attributes={"name": a("int", 1)},
        expect_match_error="got 'types.Int', expected iterable type",
    ),
    Case(
        "macro-exists-on-bool",
        'device.attributes["dra.example.com"].name.exists(x, x == true)',
        driver=D,
        attributes={"name": a("bool", True)},
        expect_match_error="got 'types.Bool', expected iterable type",
    ),
    Case(
        "macro-exists-on-string",
        'device.attributes["dra.example.com"].name.exists(x, x == "fish")',
        driver=D,
        attributes={"name": a("string", "fish")},
        expect_match_error="got 'types.String', expected iterable type",
    ),
    Case(
        "list-result-type-causes-match-error",
        'device.attributes["dra.example.com"].names',
        driver=D,
        attributes={"names": a("strings", ["fish", "bird"])},
        expect_match_error="CEL result of type list could not be converted to bool",
    ),
    Case(
        "includes-function-can-evaluate",
        'device.attributes["dra.example.com"].name.includes("fish")',
        driver=D,
        attributes={"name": a("strings", ["fish", "bird"])},
        expect_match=True,
    ),
    *(
        Case(
            f"list-of-{kind}",
            'device.attributes["dra.example.com"].names.size() == 2',
            driver=D,
            attributes={"names": a(f"{kind}s", values)},
            expect_match=True,
        )
        for kind, values in (("bool", [True, False]), ("int", [1, 2]), ("string", ["fish", "bird"]))
    ),
    Case(
        "list-of-semver",
        'device.attributes["dra.example.com"].names.size() == 2',
        driver=D,
        attributes={"names": a("versions", ["1.0.0", "2.0.0"])},
        expect_match=True,
    ),
    Case(
        "macro-on-list-of-int",
        'device.attributes["dra.example.com"].names.exists(x, x > 0)',
        driver=D,
        attributes={"names": a("ints", [1, 2])},
        expect_match=True,
    ),
    Case(
        "macro-on-list-of-string",
        'device.attributes["dra.example.com"].names.all(x, x != "")',
        driver=D,
        attributes={"names": a("strings", ["fish", "bird"])},
        expect_match=True,
    ),
    Case(
        "macro-on-list-of-semver",
        'device.attributes["dra.example.com"].names.all(x, x.isGreaterThan(semver("0.0.1")))',
        driver=D,
        attributes={"names": a("versions", ["1.0.0", "2.0.0"])},
        expect_match=True,
    ),
    Case(
        "includes-function-compilation-error",
        'device.attributes["dra.example.com"].attr.includes("fish")',
        driver=D,
        env_type="NewExpressions",
        list_type_attributes=False,
        expect_compile_error="undeclared reference to 'includes'",
    ),
    Case(
        "includes-function-compilation-and-eval-success",
        'device.attributes["dra.example.com"].attr.includes("fish")',
        driver=D,
        env_type="NewExpressions",
        list_type_attributes=True,
        attributes={"attr": a("string", "fish")},
        expect_match=True,
    ),
    *(
        Case(
            f"includes-function-on-{name}",
            f'device.attributes["dra.example.com"]{expr}',
            driver=D,
            attributes={"name": attr},
            expect_match=match,
        )
        for name, expr, attr, match in INCLUDES
    ),
    Case(
        "includes-function-on-very-long-list-runtime-error",
        'device.attributes["dra.example.com"].name.includes("value-49")',
        driver=D,
        attributes={"name": a("strings", [*LONG, "value-48"])},
        expect_match_error="'includes' function cannot be applied to lists longer than 48 values",
    ),
    Case(
        "in-operator-on-list",
        '1 in device.attributes["dra.example.com"].names',
        driver=D,
        attributes={"names": a("ints", [1, 2, 3])},
        expect_match=True,
    ),
    Case(
        "version",
        'device.attributes["dra.example.com"].name.isGreaterThan(semver("0.0.1"))',
        driver=D,
        attributes={"name": a("version", "1.0.0")},
        expect_match=True,
    ),
    Case(
        "version_v",
        'device.attributes["dra.example.com"].name.isGreaterThan(semver("v0.0.1", true)) && '
        'isSemver("v1.0.0", true)',
        driver=D,
        attributes={"name": a("version", "1.0.0")},
        expect_match=True,
    ),
    Case(
        "macro-exists-on-version",
        'device.attributes["dra.example.com"].name.exists(x, x.isGreaterThan(semver("0.0.1")))',
        driver=D,
        attributes={"name": a("version", "1.0.0")},
        expect_match_error="got 'cel.Semver', expected iterable type",
    ),
    Case(
        "quantity",
        'device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki"))',
        driver=D,
        capacity={"name": q("1Mi")},
        expect_match=True,
    ),
    Case(
        "check-positive",
        '"name" in device.capacity["dra.example.com"] && '
        'device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki"))',
        driver=D,
        capacity={"name": q("1Mi")},
        expect_match=True,
    ),
    Case(
        "check-negative",
        '!("name" in device.capacity["dra.example.com"]) || '
        'device.capacity["dra.example.com"].name.isGreaterThan(quantity("1Ki"))',
        expect_match=True,
    ),
    Case(
        "all",
        """
device.capacity["dra.example.com"].quantity.isGreaterThan(quantity("1Ki")) &&
device.attributes["dra.example.com"].bool &&
device.attributes["dra.example.com"].int > 0 &&
device.attributes["dra.example.com"].string == "fish" &&
device.attributes["dra.example.com"].version.isGreaterThan(semver("0.0.1")) &&
device.capacity["dra.example.com"]["quantity"].isGreaterThan(quantity("1Ki")) &&
device.attributes["dra.example.com"]["bool"] &&
device.attributes["dra.example.com"]["int"] > 0 &&
device.attributes["dra.example.com"]["string"] == "fish" &&
device.attributes["dra.example.com"]["version"].isGreaterThan(semver("0.0.1"))
""",
        driver=D,
        attributes={
            "bool": a("bool", True),
            "int": a("int", 1),
            "string": a("string", "fish"),
            "version": a("version", "1.0.0"),
        },
        capacity={"quantity": q("1Mi")},
        expect_match=True,
    ),
    Case(
        "many",
        'device.attributes["dra.example.com"].a && device.attributes["dra.example.com"].b && '
        'device.attributes["dra.example.com"].c',
        driver=D,
        attributes={k: a("bool", True) for k in "abc"},
        expect_match=True,
    ),
    Case(
        "check_attribute_domains",
        'device.attributes.exists_one(x, x == "dra.example.com")',
        driver=D,
        attributes={"services": a("string", "some_example_value")},
        expect_match=True,
    ),
    Case(
        "check_attribute_ids",
        'device.attributes["dra.example.com"].exists_one(x, x == "services")',
        driver=D,
        attributes={"services": a("string", "some_example_value")},
        expect_match=True,
    ),
    Case(
        "split_attribute",
        'device.attributes["dra.example.com"].services.split("example").size() >= 2',
        driver=D,
        attributes={"services": a("string", "some_example_value")},
        expect_match=True,
    ),
    Case(
        "regexp_attribute",
        'device.attributes["dra.example.com"].services.matches("[^a]?sym")',
        driver=D,
        attributes={"services": a("string", "asymetric")},
        expect_match=True,
    ),
    Case(
        "check_capacity_domains",
        'device.capacity.exists_one(x, x == "dra.example.com")',
        driver=D,
        capacity={"memory": q("1Mi")},
        expect_match=True,
    ),
    Case(
        "check_capacity_ids",
        'device.capacity["dra.example.com"].exists_one(x, x == "memory")',
        driver=D,
        capacity={"memory": q("1Mi")},
        expect_match=True,
    ),
    Case(
        "allow_multiple_allocations",
        "device.allowMultipleAllocations == true",
        driver=D,
        consumable_capacity=True,
        allow_multiple_allocations=True,
        expect_match=True,
    ),
    Case(
        "allow_multiple_allocations_default",
        "device.allowMultipleAllocations == false",
        driver=D,
        consumable_capacity=True,
        expect_match=True,
    ),
    Case(
        "allow_multiple_allocations_false",
        "device.allowMultipleAllocations == false",
        driver=D,
        consumable_capacity=True,
        allow_multiple_allocations=False,
        expect_match=True,
    ),
    Case(
        "allow_multiple_allocations_new",
        "device.allowMultipleAllocations == false",
        driver=D,
        env_type="NewExpressions",
        consumable_capacity=True,
        allow_multiple_allocations=False,
        expect_match=True,
    ),
    Case(
        "allow_multiple_allocations_disabled",
        "device.allowMultipleAllocations == false",
        driver=D,
        env_type="NewExpressions",
        consumable_capacity=False,
        expect_compile_error="undefined field 'allowMultipleAllocations'",
    ),
]


def _runs() -> list[Any]:
    out = []
    for case in CASES:
        flags = [False, True] if case.list_type_attributes is None else [case.list_type_attributes]
        for flag in flags:
            out.append(pytest.param(case, flag, id=f"{case.name}/list-type-attributes={str(flag).lower()}"))
    return out


@pytest.mark.parametrize(("case", "list_type_attributes"), _runs())
def test_cel(case: Case, list_type_attributes: bool) -> None:
    compiler = get_compiler(Features(case.consumable_capacity, list_type_attributes))
    result = compiler.compile(case.expression, case.env_type)
    if case.expect_compile_error:
        assert result.error is not None, "expected a compile error"
        assert case.expect_compile_error in result.error.detail
        return
    assert result.error is None, result.error
    assert result.max_cost <= CEL_SELECTOR_EXPRESSION_MAX_COST
    device = Device(case.driver, case.attributes, case.capacity, case.allow_multiple_allocations)
    if case.expect_match_error:
        with pytest.raises(SelectorEvalError) as info:
            result.device_matches(device)
        assert case.expect_match_error in str(info.value)
        return
    assert result.device_matches(device) is case.expect_match


def test_expensive_is_refused_by_its_estimate_and_stopped_at_run_time() -> None:
    """Upstream's "expensive" case: the worst case (10^7 iterations) is far over the limit, so
    admission refuses a new selector like it; a stored one is stopped when its actual cost
    reaches the limit. Run here with a lower limit: the same path, a fraction of the time."""
    compiler = get_compiler()
    result = compiler.compile(EXPENSIVE)
    assert result.error is None and result.max_cost > CEL_SELECTOR_EXPRESSION_MAX_COST
    limited = compiler.compile(EXPENSIVE, cost_limit=300)
    with pytest.raises(SelectorEvalError, match="actual cost limit exceeded"):
        limited.device_matches(Device(D))


def test_compile_is_memoized() -> None:
    compiler = get_compiler()
    assert compiler.compile('device.driver == "x"') is compiler.compile('device.driver == "x"')
    assert get_compiler(Features()) is compiler


def test_a_device_builds_its_cel_value_once() -> None:
    device = Device(D, {"model": a("string", "a100")})
    assert device.activation is device.activation
    for expr in (
        'device.attributes["dra.example.com"].model == "a100"',
        'device.driver == "dra.example.com"',
    ):
        assert get_compiler().compile(expr).device_matches(device)


BAD_CLASS = """apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors:
  - cel: {expression: 'device.driver == "gpu.example.com"'}
  - cel: {expression: 'device.attributes["gpu.example.com"].model'}
  - cel: {expression: '1'}
"""


def test_a_selector_that_does_not_compile_is_refused_at_load(tmp_path: Any) -> None:
    from typer.testing import CliRunner

    from kubesched.cli import app

    path = tmp_path / "class.yaml"
    path.write_text(BAD_CLASS)
    result = CliRunner().invoke(app, ["validate", str(path)])
    assert result.exit_code == 2
    out = " ".join(result.output.split())
    assert f"{path}: document 1 (DeviceClass gpu)" in out
    assert (
        'spec.selectors[2].cel.expression: Invalid value: "1": must evaluate to bool or the unknown type, '
        "not int"
    ) in out


def test_claim_and_template_selectors_are_compiled_on_create() -> None:
    from kubesched.api import parse_object
    from kubesched.cluster import Invalid, MemoryStore

    def claim(kind: str, expr: str) -> Any:
        devices = {
            "requests": [
                {
                    "name": "r",
                    "firstAvailable": [
                        {"name": "s", "deviceClassName": "c", "selectors": [{"cel": {"expression": expr}}]}
                    ],
                }
            ]
        }
        spec = {"devices": devices} if kind == "ResourceClaim" else {"spec": {"devices": devices}}
        return parse_object(
            {"apiVersion": "resource.k8s.io/v1", "kind": kind, "metadata": {"name": "x"}, "spec": spec}
        )

    store = MemoryStore()
    for kind, prefix in (("ResourceClaim", "spec.devices"), ("ResourceClaimTemplate", "spec.spec.devices")):
        with pytest.raises(Invalid) as info:
            store.create(claim(kind, "device.nosuch == 1"))
        assert (
            f"{prefix}.requests[0].firstAvailable[0].selectors[0].cel.expression: Invalid value: "
            "\"device.nosuch == 1\": compilation failed: ERROR: <input>: undefined field 'nosuch'"
        ) in str(info.value)
    with pytest.raises(Invalid, match="too complex, exceeds cost limit"):
        store.create(claim("ResourceClaim", EXPENSIVE))
    store.create(claim("ResourceClaim", 'device.driver == "a"'))
