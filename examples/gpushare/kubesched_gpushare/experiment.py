"""The paper's experiment: one policy, one trace, one seed (``run_policy``), and its config.

``policy_config(policy, typical)`` is the KubeSchedulerConfiguration the paper's artifact
generates (``scripts/generate_config_and_run.py``): ``percentageOfNodesToScore: 100``, GpuShare
beside the filters, every default score plugin off and the policy's Score plugin on, and
GpuShare's GPU selection as the artifact sets it per policy (``random`` for Random, the FGD
score for FGD, the tightest GPU otherwise), and the simulator's tie-break (the smallest node
name among the best nodes, ``name_order.py``).

Of the default plugins only those that can decide anything on openb input stay: NodeResourcesFit
(openb pods have no affinity, tolerations, ports, volumes or spreading constraints, so the other
filters pass every node) and no preemption (every pod has priority 0: DefaultPreemption never
finds a victim, it only costs a dry run over every node per failed pod).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kubesched.framework.config import from_dict
from kubesched.replay import GPU_RESOURCE
from kubesched.replay.openb import (
    FgdCurve,
    TypicalPod,
    read_openb_pods,
    run_fgd_csv,
    typical_pods,
)

POLICIES = {
    # paper name: (Score plugin, GpuShare's gpuSelMethod)
    "Random": ("RandomScore", "random"),
    "DotProd": ("DotProductScore", "best"),
    "Clustering": ("GpuClusteringScore", "best"),
    "Packing": ("GpuPackingScore", "best"),
    "BestFit": ("BestFitScore", "best"),
    "FGD": ("FGDScore", "FGDScore"),
}
PACKAGE = "kubesched_gpushare"
BASE = 101
POLICY_WEIGHT = BASE * BASE  # see name_order.py: the policy decides, the node name settles ties


def policy_config(policy: str, typical: Sequence[TypicalPod] = ()) -> dict[str, Any]:
    """The configuration (as a dict) that runs ``policy`` (a key of :data:`POLICIES`)."""
    score, sel = POLICIES[policy]
    plugin = f"{PACKAGE}:{score}"
    plugins: dict[str, Any] = {
        "multiPoint": {"disabled": [{"name": "*"}], "enabled": [
            {"name": n} for n in ("PrioritySort", "NodeResourcesFit", "DefaultBinder", f"{PACKAGE}:GpuShare")
        ]},
        "preScore": {"disabled": [{"name": "*"}]},
        "score": {"disabled": [{"name": "*"}], "enabled": [
            {"name": plugin, "weight": POLICY_WEIGHT},
            {"name": f"{PACKAGE}:NameOrderCoarse", "weight": BASE},
            {"name": f"{PACKAGE}:NameOrderFine", "weight": 1}]},
    }
    if score == "RandomScore":
        plugins["preScore"]["enabled"] = [{"name": plugin}]
    config: list[dict[str, Any]] = [
        {"name": "GpuShare", "args": {"gpuSelMethod": sel}},
        # The openb reader also gives GPU pods whole nvidia.com/gpu for the default plugins;
        # here GPUs are GpuShare's (a share takes part of one), as in the simulator, whose
        # pods carry no such resource.
        {"name": "NodeResourcesFit", "args": {"ignoredResources": [GPU_RESOURCE]}},
    ]
    if score == "FGDScore":
        config.append({"name": "FGDScore", "args": {"typicalPods": [
            {"cpuMilli": t.cpu, "gpuMilli": t.milli, "gpuCount": t.count, "gpuModel": t.spec,
             "frequency": t.freq} for t in typical]}})
    return {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "percentageOfNodesToScore": 100,
        "profiles": [{"schedulerName": "default-scheduler", "plugins": plugins, "pluginConfig": config}],
    }


def run_policy(nodes_csv: str | Path, pods_csv: str | Path, policy: str, *, seed: int = 42,
               tune: float = 1.3) -> FgdCurve:
    """One run of the paper's grid: the trace shuffled and tuned with ``seed``, ``policy``."""
    typical = typical_pods(p.request for p in read_openb_pods(pods_csv))
    config = from_dict(policy_config(policy, typical))
    curve, _ = run_fgd_csv(nodes_csv, pods_csv, config, seed=seed, tune=tune, typical=typical)
    return curve


def write_configs(out: str | Path, pods_csvs: Sequence[str | Path] = ()) -> list[Path]:
    """The six policies' configuration files under ``out``: ``<policy>.yaml``, and the FGD one
    per pod list (``fgd-<trace>.yaml``: FGDScore's typical pods are the trace's own)."""
    import yaml

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []

    def dump(name: str, config: dict[str, Any], about: str) -> None:
        path = out / f"{name}.yaml"
        head = (f"# {about}, as the FGD paper's artifact runs it (kubesched_gpushare.experiment."
                "policy_config).\n# Plugins by import path: examples/gpushare on PYTHONPATH "
                "(or pip install examples/gpushare/).\n")
        path.write_text(head + yaml.safe_dump(config, sort_keys=False))
        written.append(path)

    for policy in POLICIES:
        if policy != "FGD":
            dump(policy.lower(), policy_config(policy), f"The {policy} policy")
    for pods in pods_csvs:
        trace = Path(pods).stem.removeprefix("openb_pod_list_")
        typical = typical_pods(p.request for p in read_openb_pods(pods))
        dump(f"fgd-{trace}", policy_config("FGD", typical), f"FGD with the typical pods of openb {trace}")
    return written


if __name__ == "__main__":
    import sys

    print("\n".join(map(str, write_configs(sys.argv[1], sys.argv[2:]))))
