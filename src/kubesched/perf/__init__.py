"""scheduler_perf-compatible benchmark: workload configs, templates, the runner and its figures.

Mirrors test/integration/scheduler_perf (master 2026): the same YAML shape (test cases, a
workload template of ops, workloads with params and thresholds), the same throughput definition
(1-second samples of pods bound per second), run against the embedded store on a virtual clock
that keeps pace with wall time during measured ops (``_pacer.WallPacer``).
"""

from ._binding_ops import WorkloadFailed
from ._collect import SAMPLE_INTERVAL, Summary, ThroughputCollector, TimingCollector, percentile, summarize
from ._config import (
    BUNDLED_CONFIG,
    ConfigError,
    Op,
    TestCase,
    Workload,
    load_config,
    parse_config,
    select_workloads,
)
from ._gotemplate import GoTemplate, TemplateError
from ._machine import machine_info
from ._objects import ObjectFactory, resolve_template
from ._runner import DecisionMismatch, WorkloadResult, check_decisions, peak_rss_bytes, run_workload

__all__ = [
    "BUNDLED_CONFIG",
    "SAMPLE_INTERVAL",
    "ConfigError",
    "DecisionMismatch",
    "GoTemplate",
    "ObjectFactory",
    "Op",
    "Summary",
    "TemplateError",
    "TestCase",
    "ThroughputCollector",
    "TimingCollector",
    "Workload",
    "WorkloadFailed",
    "WorkloadResult",
    "check_decisions",
    "load_config",
    "machine_info",
    "parse_config",
    "peak_rss_bytes",
    "percentile",
    "resolve_template",
    "run_workload",
    "select_workloads",
    "summarize",
]
