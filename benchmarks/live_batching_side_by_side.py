"""More seeds of the opportunistic-batching side-by-side test against the real kube-scheduler
v1.35 (tests/live/test_batching_side_by_side.py; CI runs 2 seeds).

    python benchmarks/live_batching_side_by_side.py [--seeds 20]

Needs ../shared/k8s-1.35 beside the repository, as the live tests do. Each seed is three
scenarios (default profile; default spreading off with the gate on, then off), each a burst of
5 to 40 identical pods on 6 to 42 nodes, about 5 s apiece.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=20)
    a = ap.parse_args()
    env = {**os.environ, "KUBESCHED_BATCHING_SEEDS": str(a.seeds), "KUBESCHED_REQUIRE_K8S": "1"}
    sys.exit(subprocess.call([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                              str(REPO / "tests" / "live" / "test_batching_side_by_side.py")],
                             env=env, cwd=REPO))


if __name__ == "__main__":
    main()
