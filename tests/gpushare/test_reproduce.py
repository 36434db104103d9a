"""reproduce.py's summary: the mean over the seeds every policy ran, beside the paper."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

SCRIPT = Path(__file__).parents[2] / "examples" / "gpushare" / "reproduce.py"


def test_summary_uses_complete_seeds_and_plots(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("reproduce", SCRIPT)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    lines = []
    for seed, policies in ((1, list(mod.POLICIES)), (2, list(mod.POLICIES)), (3, ["FGD"])):
        for p in policies:
            a = 0.9 if seed == 1 else 0.8
            lines.append(json.dumps({"policy": p, "seed": seed, "alloc": {"100": a, "130": a},
                                     "frag": {str(x): 0.1 for x in mod.FRAG_AT},
                                     "curve": {"arrived": [0, 1.3], "frag_amount": [0.1, 0.05]}}))
    (tmp_path / "default.jsonl").write_text("\n".join(lines) + "\n")
    text = mod.summary(tmp_path, "default")
    assert "| kubesched, 100 % | 85.00 | 85.00 | 85.00 | 85.00 | 85.00 | 85.00 |" in text  # seed 3 left out
    assert "| paper, 100 % | 86.30 | 90.62 | 91.65 | 91.78 | 92.86 | 95.23 |" in text
    assert "seeds 1..2" in text and "| kubesched, 80 % | 10.00 |" in text
    mod.plot(tmp_path, "default")
    assert (tmp_path / "default_frag.png").stat().st_size > 0 and (tmp_path / "default_frag.svg").exists()
