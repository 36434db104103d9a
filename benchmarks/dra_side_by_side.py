"""DRA side by side with the real kube-scheduler v1.35.4, on more generated scenarios than CI
runs: ``tests/live/test_dra_live.py::test_generated_dra_placements_match_the_real_scheduler``
with ``--seeds`` seeds (CI: 3) on one control plane of ``../shared/k8s-1.35``, then a summary
of what was compared.

    python benchmarks/dra_side_by_side.py --seeds 20

Each scenario creates 12 pods one at a time, each with one or two ResourceClaims; kubesched
explains each pod (as v1.35, with DRADeviceTaints and DRADeviceBindingConditions on, as the
real scheduler runs) before the real scheduler places it. The JSON summary (stdout) counts the
pods placed, those placed on a node tied with kubesched's choice, those refused (by both, with
the same message), the devices compared and every mismatch; the exit code is pytest's.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TEST = "tests/live/test_dra_live.py::test_generated_dra_placements_match_the_real_scheduler"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=20, help="scenarios to run (seeds 1..N)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        report = Path(d) / "report.jsonl"
        env = {**os.environ, "KUBESCHED_REQUIRE_K8S": "1", "KUBESCHED_DRA_SEEDS": str(args.seeds),
               "KUBESCHED_DRA_REPORT": str(report)}
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", TEST],
                              cwd=REPO, env=env, stdout=sys.stderr)
        rows = [json.loads(line) for line in report.read_text().splitlines()] if report.exists() else []
    summary = {"scenarios": len(rows), **{k: sum(r[k] for r in rows)
                                          for k in ("placed", "ties", "unschedulable", "devices")},
               "mismatches": [m for r in rows for m in r["mismatches"]]}
    print(json.dumps(summary, indent=1))
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
