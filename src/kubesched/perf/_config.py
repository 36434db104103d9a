"""Workload configs in the shape of upstream's scheduler_perf ``performance-config.yaml``.

Mirrors test/integration/scheduler_perf/scheduler_perf.go (master 2026): a file is a list of
test cases; a test case has a ``workloadTemplate`` (a list of ops, each with an ``opcode``), an
optional ``defaultPodTemplatePath`` and ``workloads``, each with ``params`` substituted into the
ops (``countParam: $initNodes``), ``labels``, ``featureGates`` and a ``threshold`` (the minimum
average throughput CI enforces). A workload is named ``<test case>/<workload>``, as upstream's
``go test -bench`` sub-benchmarks are (``SchedulingBasic/5000Nodes_10000Pods``).

Template paths are resolved against the directory of the file that names them, as upstream
resolves them against its test directory; a path whose file is missing there falls back to the
bundled templates by base name, so an upstream config can be used as it is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ..api import safe_load_yaml

__all__ = [
    "BUNDLED_CONFIG",
    "OPCODES",
    "ConfigError",
    "Op",
    "TestCase",
    "Workload",
    "load_config",
    "parse_config",
    "select_workloads",
]

BUNDLED_DIR = Path(__file__).parent
BUNDLED_CONFIG = BUNDLED_DIR / "performance-config.yaml"

OPCODES = frozenset({
    "createNodes", "createNamespaces", "createPods", "churn", "barrier", "deletePods", "sleep",
    "createAny", "createResourceDriver", "allocResourceClaims",
    "updateDeviceConditions", "checkPodScheduled",
})
"""The opcodes we run (createAny and the next ones: upstream's DRA workloads, see ``_dra.py``
and ``_binding_ops.py``); upstream's others (startCollectingMetrics, ...) are rejected with the
op named, never silently skipped."""


class ConfigError(ValueError):
    """A workload config that cannot be run; the message names the test case, workload and op."""


@dataclass(frozen=True, slots=True)
class Op:
    """One op of a workload, its ``$param`` references already substituted.

    ``fields`` keeps every key of the op as written (after substitution) so that each opcode
    reads its own (``count``, ``podTemplatePath``, ``namespace``, ...); ``index`` is the op's
    position in the template, which names the default namespace of ``createPods``
    (``namespace-<index>``, as upstream)."""

    opcode: str
    index: int
    fields: Mapping[str, Any]
    base_dir: Path

    def get(self, key: str, default: Any = None) -> Any:
        return self.fields.get(key, default)

    @property
    def count(self) -> int:
        v = self.fields.get("count", 0)
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise ConfigError(f"op {self.index} ({self.opcode}): count must be a non-negative integer")
        return v

    @property
    def collect_metrics(self) -> bool:
        return bool(self.fields.get("collectMetrics", False))

    @property
    def skip_wait(self) -> bool:
        return bool(self.fields.get("skipWaitToCompletion", False))


@dataclass(frozen=True, slots=True)
class Workload:
    test_case: str
    name: str
    ops: tuple[Op, ...]
    params: Mapping[str, Any]
    labels: tuple[str, ...] = ()
    threshold: float = 0.0
    feature_gates: Mapping[str, bool] = field(default_factory=dict)
    scheduler_config: Path | None = None
    """The test case's ``schedulerConfigPath``: a KubeSchedulerConfiguration file (relative to
    the performance config) the scheduler runs with instead of the default configuration."""

    @property
    def full_name(self) -> str:
        return f"{self.test_case}/{self.name}"


@dataclass(frozen=True, slots=True)
class TestCase:
    name: str
    workloads: tuple[Workload, ...]
    labels: tuple[str, ...] = ()


def _substitute(value: Any, params: Mapping[str, Any], where: str) -> Any:
    """Replace ``$name`` strings by the workload's param (upstream only does this for the
    ``...Param`` keys and ``templateParams``; accepting it everywhere is a superset);
    ``$name|default`` gives ``default`` (a string) when the workload has no such param."""
    if isinstance(value, str) and value.startswith("$"):
        # ``$name|default`` (upstream's templateParams): the default when params lack the name.
        key, bar, default = value[1:].partition("|")
        if key in params:
            return params[key]
        if bar:
            return default
        raise ConfigError(f"{where}: parameter {value} is not defined in params")
    if isinstance(value, list):
        return [_substitute(v, params, where) for v in value]
    if isinstance(value, dict):
        return {k: _substitute(v, params, where) for k, v in value.items()}
    return value


def _build_op(raw: Mapping[str, Any], index: int, params: Mapping[str, Any], default_pod: str | None,
              base_dir: Path, where: str) -> Op:
    opcode = raw.get("opcode")
    if opcode not in OPCODES:
        raise ConfigError(f"{where}: op {index}: unsupported opcode {opcode!r}")
    fields: dict[str, Any] = {}
    for key, value in raw.items():
        if key == "opcode":
            continue
        value = _substitute(value, params, f"{where}: op {index}")
        # countParam: $x -> count (upstream's patchParams); same for other *Param keys.
        if key.endswith("Param") and key != "countParam":
            fields[key[: -len("Param")]] = value
        elif key == "countParam":
            fields["count"] = value
        else:
            fields[key] = value
    if opcode == "createPods" and "podTemplatePath" not in fields:
        if default_pod is None:
            raise ConfigError(f"{where}: op {index}: createPods needs podTemplatePath "
                              "(or the test case's defaultPodTemplatePath)")
        fields["podTemplatePath"] = default_pod
    return Op(opcode, index, fields, base_dir)


def parse_config(docs: Any, base_dir: Path, source: str = "<config>") -> list[TestCase]:
    """Test cases from the parsed YAML list of a performance config."""
    if not isinstance(docs, list):
        raise ConfigError(f"{source}: a performance config is a list of test cases")
    cases = []
    for i, tc in enumerate(docs):
        if not isinstance(tc, dict) or not tc.get("name"):
            raise ConfigError(f"{source}: test case {i}: a mapping with a name is required")
        tc_name = str(tc["name"])
        template = tc.get("workloadTemplate") or []
        default_pod = tc.get("defaultPodTemplatePath")
        tc_labels = tuple(tc.get("labels") or ())
        tc_gates = dict(tc.get("featureGates") or {})
        scp = tc.get("schedulerConfigPath")
        if scp is not None and not isinstance(scp, str):
            raise ConfigError(f"{source}: {tc_name}: schedulerConfigPath: a file path is required")
        scheduler_config = base_dir / scp if scp else None
        workloads = []
        for w in tc.get("workloads") or []:
            where = f"{source}: {tc_name}/{w.get('name', '?')}"
            params = dict(w.get("params") or {})
            ops = tuple(_build_op(op, j, params, default_pod, base_dir, where)
                        for j, op in enumerate(template))
            workloads.append(Workload(
                test_case=tc_name, name=str(w["name"]), ops=ops, params=params,
                labels=tc_labels + tuple(w.get("labels") or ()),
                threshold=float(w.get("threshold") or 0.0),
                feature_gates={**tc_gates, **dict(w.get("featureGates") or {})},
                scheduler_config=scheduler_config,
            ))
        cases.append(TestCase(tc_name, tuple(workloads), tc_labels))
    return cases


def load_config(path: str | Path | None = None) -> list[TestCase]:
    """Load a performance config file; None loads the bundled one."""
    p = Path(path) if path is not None else BUNDLED_CONFIG
    try:
        docs = safe_load_yaml(p.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"{p}: {exc}") from exc
    return parse_config(docs, p.parent, str(p))


def select_workloads(cases: Sequence[TestCase], names: Sequence[str] = (),
                     labels: Sequence[str] = ()) -> list[Workload]:
    """Workloads by full name (``TestCase/Workload``) or test case name, and/or by label; all
    when neither is given. An unknown name is an error, so a typo never selects nothing."""
    all_wl = [w for tc in cases for w in tc.workloads]
    out = all_wl
    if names:
        out = []
        for n in names:
            hit = [w for w in all_wl if w.full_name == n or w.test_case == n]
            if not hit:
                raise ConfigError(f"no workload named {n!r}")
            out.extend(w for w in hit if w not in out)
    if labels:
        out = [w for w in out if set(labels) <= set(w.labels)]
    return out
