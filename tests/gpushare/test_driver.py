"""run_fgd: the paper's arrival through kubesched's Scheduler, on the sample trace."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kubesched.replay.openb import read_openb, read_openb_pods, typical_pods

FIX = Path(__file__).parents[1] / "fixtures" / "openb"


def test_curve_on_the_sample() -> None:
    from kubesched_gpushare.experiment import run_policy

    a = run_policy(FIX / "nodes.csv", FIX / "pods.csv", "FGD", seed=42, tune=1.3)
    b = run_policy(FIX / "nodes.csv", FIX / "pods.csv", "FGD", seed=42, tune=1.3)
    assert a == b  # deterministic
    n = len(a.arrived)
    assert n == a.scheduled + a.failed > 36 and a.failed > 0  # tuned past the capacity: some fail
    assert a.arrived == sorted(a.arrived) and 1.2 < a.arrived[-1] < 1.5
    assert all(0 <= x <= 1 for x in a.allocation + a.frag_ratio)
    assert np.isnan(a.at(2.0))
    last = round(a.arrived[-1] * 100)
    assert a.at(last / 100) == pytest.approx(np.mean([x for x, y in zip(a.allocation, a.arrived, strict=True)
                                                      if round(y * 100) == last]))
    assert 0.5 < a.at(1.0) <= 1


def test_driver_refuses_other_events() -> None:
    from kubesched.replay.openb import run_fgd

    trace = read_openb(FIX / "nodes.csv", FIX / "pods.csv")  # creations and deletions
    with pytest.raises(ValueError, match=r"pods.csv:\d+: the FGD arrival replays pod creations only"):
        run_fgd(trace, None, typical_pods(p.request for p in read_openb_pods(FIX / "pods.csv")))


CONFIGS = FIX.parents[2] / "examples" / "gpushare" / "configs"


@pytest.mark.parametrize("policy", ["Random", "DotProd", "Clustering", "Packing", "BestFit", "FGD"])
def test_the_shipped_configs_are_policy_config(policy: str) -> None:
    import yaml
    from kubesched_gpushare.experiment import policy_config

    from kubesched.framework.config import from_dict, load_config

    typical = typical_pods(p.request for p in read_openb_pods(FIX / "pods.csv")) if policy == "FGD" else ()
    path = CONFIGS / ("fgd-sample.yaml" if policy == "FGD" else f"{policy.lower()}.yaml")
    assert yaml.safe_load(path.read_text()) == policy_config(policy, typical)
    assert load_config(path).profiles == from_dict(policy_config(policy, typical)).profiles
