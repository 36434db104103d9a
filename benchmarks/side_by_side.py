"""kubesched side by side with the real kube-scheduler, on many more seeds than CI runs.

For each release (``1.32``: ``../shared/k8s``; ``1.35``: ``../shared/k8s-1.35``, kube-scheduler
v1.35.4) a fresh control plane with its real kube-scheduler (default configuration, every
default plugin on), then every scenario kind of the live side-by-side tests
(``tests/live/_side_by_side.py``: ``placements``, ``bursts``, ``preemption``, ``volumes``) for
``--seeds`` seeds starting at ``--first-seed`` (CI runs seeds 1 to 4), kubesched deciding on
the same state with ``kube_version`` set to the release. Prints a table of what was compared
and how often kubesched differed (a placement that ties with kubesched's for the highest total
score is no difference), then every difference; exits 1 if there was one.

    python benchmarks/side_by_side.py                              # 20 seeds of everything
    python benchmarks/side_by_side.py --releases 1.35 --kinds bursts --seeds 50

Progress goes to stderr.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    sys.path.insert(0, str(REPO))
    from tests.live import _side_by_side as sbs
    from tests.live._kube import rest_for

    from kubesched.api import KubeVersion

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--releases", default=",".join(sbs.FOLDERS), help="comma-separated: 1.32,1.35")
    ap.add_argument("--kinds", default=",".join(sbs.KINDS), help="comma-separated scenario kinds")
    ap.add_argument("--seeds", type=int, default=20, help="seeds per kind and release")
    ap.add_argument("--first-seed", type=int, default=100)
    args = ap.parse_args(argv)
    releases = [r for r in args.releases.split(",") if r]
    kinds = [k for k in args.kinds.split(",") if k]
    for bad in [r for r in releases if r not in sbs.FOLDERS] + [k for k in kinds if k not in sbs.KINDS]:
        ap.error(f"unknown release or kind {bad!r} (releases: {', '.join(sbs.FOLDERS)}; "
                 f"kinds: {', '.join(sbs.KINDS)})")
    rows: list[tuple[str, str, int, int, int, float]] = []
    differences: list[str] = []
    for release in releases:
        with tempfile.TemporaryDirectory(prefix="side-by-side-") as d, \
                sbs.running_plane(release, Path(d) / "cp") as cp:
            rest = rest_for(cp)
            for kind in kinds:
                compared = mismatched = 0
                started = time.monotonic()
                for seed in range(args.first_seed, args.first_seed + args.seeds):
                    out = sbs.KINDS[kind](rest, KubeVersion.parse(release), seed)
                    compared += out.compared
                    mismatched += len(out.mismatches)
                    differences += [f"v{release} {kind} seed {seed}: {m}" for m in out.mismatches]
                    print(f"v{release} {kind} seed {seed}: {out.compared} compared, "
                          f"{len(out.mismatches)} mismatches", file=sys.stderr, flush=True)
                rows.append((release, kind, args.seeds, compared, mismatched, time.monotonic() - started))
    print(f"{'release':<8} {'kind':<11} {'seeds':>5} {'compared':>8} {'mismatches':>10} {'seconds':>8}")
    for release, kind, seeds, compared, mismatched, seconds in rows:
        print(f"v{release:<7} {kind:<11} {seeds:>5} {compared:>8} {mismatched:>10} {seconds:>8.0f}")
    for line in differences:
        print(line)
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
